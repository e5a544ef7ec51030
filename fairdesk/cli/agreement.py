"""``fairdesk agreement``: how far the annotators of a dataset agree (tone marks, words, DER,
TER), overall and per group, and the items where they disagree most. The numbers are
:mod:`fairdesk.stats.agreement`'s, the words :mod:`fairdesk.presentation.agreement`'s."""

from __future__ import annotations

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
    s.add_argument("--n-bootstrap", type=int, default=2000, help="speaker-bootstrap resamples")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--top", type=int, default=20, help="most disagreeing items listed")
    s.add_argument("--json", metavar="OUT", help="the whole result as JSON")
    s.set_defaults(func=cmd_agreement)


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
