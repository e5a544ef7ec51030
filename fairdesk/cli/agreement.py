"""``fairdesk agreement``: how far the annotators of a dataset agree (tone marks, words, DER,
TER), overall and per group, and the items where they disagree most. The numbers are
:mod:`fairdesk.stats.agreement`'s, the words :mod:`fairdesk.presentation.agreement`'s.
``fairdesk adjudicate``: store an item's adjudicated version (one annotator's, or a merged
text) with the adjudicator's name and the time; nothing is overwritten."""

from __future__ import annotations

from ..constants import AGREEMENT_BOOTSTRAP
from .common import EXIT_OK, UsageError, dump_json


def add_command(sub):
    s = sub.add_parser(
        "agreement",
        help="agreement of annotators' versions: tone marks (raw, Cohen's κ, Krippendorff's "
        "α), WER, DER, TER, with speaker-bootstrap CIs",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--dataset", required=True)
    s.add_argument(
        "--annotators",
        metavar="A,B,...",
        help="the annotators compared (default: everyone with a version)",
    )
    s.add_argument("--by", metavar="KEY", help="also per value of this column")
    s.add_argument(
        "--normaliser",
        default="auto",
        help="the WER normaliser (default auto, as an audit chooses it)",
    )
    s.add_argument(
        "--n-bootstrap", type=int, default=AGREEMENT_BOOTSTRAP, help="speaker-bootstrap resamples"
    )
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--top", type=int, default=20, help="most disagreeing items listed")
    s.add_argument("--json", metavar="OUT", help="the whole result as JSON")
    s.set_defaults(func=cmd_agreement)

    s = sub.add_parser(
        "adjudicate",
        help="store an item's adjudicated reference: one annotator's version or a merged text",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--dataset", required=True)
    s.add_argument("--item", required=True, metavar="ID")
    how = s.add_mutually_exclusive_group(required=True)
    how.add_argument("--pick", metavar="ANNOTATOR", help="adopt this annotator's version")
    how.add_argument("--text", help="a merged text of your own")
    s.add_argument("--adjudicator", required=True, metavar="NAME", help="who decides")
    s.set_defaults(func=cmd_adjudicate)


def cmd_agreement(a):
    from ..core.errors import FairdeskError
    from ..jobs.agreement import dataset_agreement
    from ..presentation.agreement import agreement_json, agreement_lines
    from .common import _project

    if not 200 <= a.n_bootstrap <= 20000:
        raise UsageError(f"--n-bootstrap {a.n_bootstrap}: give 200 to 20000 resamples")
    p = _project(a.project)
    names = [n for n in (a.annotators or "").split(",") if n.strip()] or None
    try:
        result = dataset_agreement(
            p,
            a.dataset,
            annotators=names,
            by=a.by,
            normaliser=a.normaliser,
            n_bootstrap=a.n_bootstrap,
            seed=a.seed,
            top=a.top,
        )
    except FairdeskError as exc:
        raise UsageError(str(exc)) from None
    print("\n".join(agreement_lines(result, a.dataset)))
    if a.json:
        dump_json(agreement_json(result), a.json)
    return EXIT_OK


def cmd_adjudicate(a):
    from ..core.errors import FairdeskError
    from ..core.versions import said_annotator
    from .common import _project

    p = _project(a.project, write="an adjudication")
    try:
        frame = p.items(p.dataset(a.dataset))
    except FairdeskError as exc:
        raise UsageError(str(exc)) from None
    match = frame[frame["id"].astype(str) == a.item]
    if match.empty:
        raise UsageError(f"--item {a.item}: dataset {a.dataset!r} has no such item")
    db = int(match["db_id"].iloc[0])
    iv = p.transcript_versions([db])[db]
    if a.pick is not None:
        version = iv.version(a.pick)
        if version is None:
            have = ", ".join(iv.annotators) or "none"
            raise UsageError(
                f"--pick {a.pick}: item {a.item} has no version by {said_annotator(a.pick)} "
                f"(versions by: {have})"
            )
        text = version.text
    else:
        text = a.text
    try:
        ann = p.adjudicate(db, text, a.adjudicator)
    except FairdeskError as exc:
        raise UsageError(str(exc)) from None
    print(
        f"item {a.item}: adjudicated by {said_annotator(a.adjudicator)} as {text!r} "
        f"(annotation {ann}); versions: "
        + ("; ".join(f"{v.annotator}: {v.text!r}" for v in iv.versions) or "none")
    )
    return EXIT_OK
