"""``fairdesk audit`` and ``fairdesk regress``: the headless analysis commands."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..presentation import count, fmt_gap, fmt_number, fmt_p, fmt_value, unit
from ..presentation.estimability_words import reason_text, sample_text
from . import blocks
from .common import (
    EXIT_NOTHING,
    EXIT_OK,
    UsageError,
    dump_json,
    human_out,
    parse_filters,
    positive_int,
    term,
)
from .tables import no_rows_error, print_table_rows, table_frame

if TYPE_CHECKING:
    from ..jobs.result import AuditRun
    from ..jobs.result_parts import ItemFailure


def _add_stats_options(s):
    g = s.add_argument_group(
        'statistics (docs/METHODS.md, "Comparisons with the reference"; every value is recorded with the run)'
    )
    g.add_argument("--n-bootstrap", type=int, default=2000, help="resamples, 200-20000")
    g.add_argument("--alpha", type=float, default=0.05)
    g.add_argument("--absolute-error-gap", type=float, default=0.05)
    g.add_argument("--disparity-ratio", type=float, default=1.25)
    g.add_argument("--grounding-gap", type=float, default=0.15)
    g.add_argument("--min-items", type=int, default=30)
    g.add_argument("--min-speakers", type=int, default=5)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument(
        "--resampling",
        default="auto",
        choices=["auto", "two_way", "speaker", "content", "utterance"],
    )
    g.add_argument("--structure-threshold", type=float, default=0.1)
    g.add_argument(
        "--small-cluster-scaling",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="scale the speaker scheme's bootstrap deviations by "
        "sqrt(k/(k-1)) * t(0.975, k-1) / z(0.975), k = speakers on that side, for the gap and the group and corpus CIs drawn by speakers; the "
        "two-way scheme is not scaled (default: on; --no-small-cluster-scaling turns it "
        'off; docs/METHODS.md, "Small numbers of speakers")',
    )
    g.add_argument(
        "--normaliser",
        default="auto",
        choices=["auto", "whisper-english", "whisper-basic", "tone-preserving"],
        help="text normaliser for WER/CER (auto: Whisper's English normaliser for "
        "English, its basic one with diacritics kept otherwise)",
    )


def _settings(a):
    from dataclasses import replace

    from ..constants import MAX_RUN_ITEMS
    from ..stats.settings import AuditSettings

    s = AuditSettings(
        n_bootstrap=a.n_bootstrap,
        seed=a.seed,
        alpha=a.alpha,
        absolute_error_gap=a.absolute_error_gap,
        disparity_ratio=a.disparity_ratio,
        grounding_gap=a.grounding_gap,
        min_items=a.min_items,
        min_speakers=a.min_speakers,
        resampling=a.resampling,
        structure_threshold=a.structure_threshold,
        normaliser=a.normaliser,
        small_cluster_scaling=a.small_cluster_scaling,
    )
    cap = getattr(a, "max_items", None)
    s = replace(s, include_missing=bool(getattr(a, "include_missing", False)))
    return replace(s, max_items=cap, max_items_lifted=cap > MAX_RUN_ITEMS) if cap else s


def add_command(sub):
    s = sub.add_parser("audit", help="run a fairness audit (project + model, or a table)")
    src = s.add_argument_group("source: a project dataset and a model, or --table")
    src.add_argument("--project")
    src.add_argument(
        "--dataset",
        action="append",
        help="a dataset of the project; repeat it to audit several as one (a pilot and its "
        "new recordings: items keyed by dataset, the same grouping columns in each)",
    )
    src.add_argument(
        "--model",
        action="append",
        help="whisper-tiny.en, pocketsphinx-en-us, hf:<folder>, predictions:<file>; repeat "
        "it to compare systems on the same items (the first is the baseline)",
    )
    src.add_argument(
        "--table",
        help="CSV, TSV, JSONL or Parquet with reference and "
        "hypothesis per utterance (no audio needed)",
    )
    src.add_argument("--ref-col", default="reference")
    src.add_argument(
        "--hyp-col",
        action="append",
        help="--table: the hypothesis column (default hypothesis); repeat it to compare "
        "systems, one column each (the first is the baseline)",
    )
    src.add_argument(
        "--speaker-col",
        default=None,
        help="--table: the speaker column (default: speaker_id, else one of speaker, spk, "
        "spk_id, speakerid, client_id, participant, participant_id, talker, subject, "
        "subject_id, reader, any case; two of them are refused). Without speaker ids each "
        "utterance counts as independent",
    )
    src.add_argument("--content-col", default="content_id")
    src.add_argument(
        "--language",
        default=None,
        help="text language for --table (default auto: English only when at "
        "least 99%% of the reference letters are ASCII, else tone marks kept)",
    )
    s.add_argument(
        "--by",
        action="append",
        required=True,
        metavar="COL",
        help="grouping column (twice for a cross product)",
    )
    s.add_argument("--filter", action="append", metavar="COL=VAL")
    s.add_argument("--reference", help="reference group (default: the largest)")
    s.add_argument(
        "--reference-text",
        default="latest",
        metavar="CHOICE",
        help="which reference text is scored: latest (default: the newest version by anyone, "
        "else the imported text), imported, annotator:NAME, adjudicated (items whose "
        "annotators disagree without adjudication are left out and listed) or resample "
        "(each bootstrap replicate draws one annotator's version per item)",
    )
    s.add_argument(
        "--include-missing",
        action="store_true",
        help="items with no value for a --by column (empty, only spaces, a list or dict) "
        "form a tested group named (missing), never the default reference; by default "
        'they are a descriptive row, not compared (docs/METHODS.md, "Missing values")',
    )
    s.add_argument("--metric", action="append", metavar="ID", help="metric id (repeatable)")
    s.add_argument(
        "--sample",
        type=positive_int,
        help="stratified sample of N items per group (default: every item)",
    )
    s.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    s.add_argument(
        "--nlu", default="auto", help="auto, none, demo-music, hf:<folder>, table:<file>"
    )
    s.add_argument(
        "--representation",
        action="store_true",
        help='embed every item: silhouette and leakage (docs/METHODS.md, "Representation")',
    )
    s.add_argument(
        "--explain",
        action="store_true",
        help="explain stage: saliency on a speaker-balanced sample and the "
        'grounding_lift metric (docs/METHODS.md, "Saliency grounding"; also on with '
        "--metric grounding_lift)",
    )
    s.add_argument(
        "--explain-per-group",
        type=int,
        default=12,
        metavar="N",
        help="items per group in the explain sample (default 12)",
    )
    s.add_argument(
        "--explain-method",
        default="occlusion",
        choices=["occlusion", "gradxinput", "integrated_gradients"],
        help="saliency method (gradient methods need an hf:<folder> model)",
    )
    s.add_argument(
        "--workers",
        type=int,
        help="inference threads (--engine ray: model actors; default one per free CPU slot or GPU)",
    )
    s.add_argument(
        "--engine",
        default="local",
        choices=["local", "ray"],
        help="where inference, saliency and embeddings run: threads here, or "
        "actors on a Ray cluster "
        "(pip install 'fairdesk[cluster]'; the guide's Running on a cluster, docs/cluster.md)",
    )
    s.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="Ray cluster: auto (the head on this node) or ray://HOST:10001 "
        "(default: a Ray started for this run)",
    )
    s.add_argument(
        "--audio-transport",
        default="bytes",
        choices=["bytes", "path"],
        help="bytes: this machine decodes and ships the audio; path: workers "
        "read the files from a path every node shares",
    )
    s.add_argument(
        "--max-items",
        type=positive_int,
        metavar="N",
        help='lift the run cap of 20,000 items (docs/METHODS.md, "Run cap") to N',
    )
    s.add_argument("--json", metavar="OUT", help="write the full result as JSON ('-' = stdout)")
    s.add_argument("--quiet", action="store_true")
    s.add_argument(
        "--normaliser-sensitivity",
        action="store_true",
        help="re-score the run under each normaliser (Whisper English, basic, "
        "tone-preserving, none) without re-decoding; says per comparison whether "
        "the verdict holds under all",
    )
    s.add_argument(
        "--unstable",
        action="store_true",
        help="decode every item twice more with Whisper's temperature fallback "
        "(sampling where greedy decoding fails) and flag items whose two decodes "
        "differ by a word edit rate > 0.2 (faster-whisper models only)",
    )
    s.add_argument(
        "--model-based",
        action="store_true",
        help="also fit the mixed-effects Poisson model of word errors per --by "
        "column (speaker random intercept; Liu et al. 2022) and say whether it "
        "agrees with the bootstrap",
    )
    s.add_argument(
        "--covariates",
        nargs="+",
        default=[],
        metavar="COL",
        help="covariates of --model-based: duration_s, nonspeech_share, snr_db, "
        "speech_rate, asr_confidence, n_words or numeric metadata columns",
    )
    _add_stats_options(s)
    s.set_defaults(func=cmd_audit)


def audit_table(a, settings):
    """``--table``: read the file (:func:`.tables.table_frame`) and run the table audit job
    (:func:`fairdesk.jobs.table_audit.audit_table`); returns the typed run."""
    from ..jobs.table_audit import audit_table as run_table_audit

    frame, problems = table_frame(a)
    if frame.empty:
        raise no_rows_error(a.table, problems)
    return run_table_audit(
        frame,
        by=a.by,
        reference=a.reference,
        metrics=a.metric,
        language=a.language,
        filters=parse_filters(a.filter),
        sample=a.sample,
        settings=settings,
        model_based=bool(getattr(a, "model_based", False)),
        covariates=tuple(getattr(a, "covariates", None) or ()),
        normaliser_sensitivity=bool(getattr(a, "normaliser_sensitivity", False)),
        problems=problems,
        source=str(a.table),
    )


# -- printing ----------------------------------------------------------------------------
def print_failures(failures: Sequence[ItemFailure], file=None, limit: int = 10) -> None:
    """The items that failed (a run's ``failures``), with their reasons (the first
    ``limit``).

    Parameters
    ----------
    failures : the failed items of a run (``AuditRun.failures``).
    file : where to print (default: stdout at call time).
    limit : how many to list; the rest are counted.
    """
    file = file or sys.stdout
    if failures:
        print(f"\n{count(len(failures), 'item')} failed:", file=file)
        for f in failures[:limit]:
            print(term(f"  {f.item}: {f.reason}"), file=file)
        if len(failures) > limit:
            print(
                f"  ... and {len(failures) - limit} more (all in the JSON: --json)",
                file=file,
            )


def print_no_diacritics(run: AuditRun, file=None) -> None:
    """The Igbo tone-mark study's first category: diacritics added on items whose reference has none.

    Parameters
    ----------
    run : the audit.
    file : where to print.
    """
    block = run.no_diacritic_items
    if block is None:
        return
    print(
        "\nItems without diacritics in the reference (DER undefined): diacritics added", file=file
    )
    for g, s in blocks.no_diacritic_groups(block).items():
        if s:
            rate = fmt_number(s["per_100_letters"], 2)
            print(
                term(
                    f"  {g[:30]:<30} {s['added']} added on {count(s['n_items'], 'item')} "
                    f"({rate} per 100 reference letters)"
                ),
                file=file,
            )


def print_groups(run: AuditRun, file=None):
    """The console view of an audit: the group table, the grounding lift, the exclusions,
    the no-diacritic items, the pitfalls, the failures and the notes.

    Parameters
    ----------
    run : the audit.
    file : where to print (default: stdout at call time).
    """
    from .console import format_groups

    # sys.stdout looked up at call time (a default bound at import outlives a swapped stream)
    file = file if file is not None else sys.stdout
    print("\n".join(term(line) for line in format_groups(run).split("\n")), file=file)
    ex = run.explain
    if ex is not None:
        n = ", ".join(f"{g} {k}" for g, k in sorted(ex.items_explained.items()))
        print(f"\nGrounding lift ({ex.method}, items explained: {n or 'none'}):", file=file)
        for c in run.comparisons:
            if c.metric == "grounding_lift":
                # compared on the explained items alone (docs/METHODS.md, "Saliency grounding")
                on = f"  on {sample_text(c.sample)}" if c.sample else ""
                print(
                    f"  {term(c.group)[:30]:<30} {fmt_value('grounding_lift', c.value):>6} "
                    f"vs {fmt_value('grounding_lift', c.reference_value)}  "
                    f"{unit('grounding_lift', gap=True)} "
                    f"{fmt_gap('grounding_lift', c.gap):>6} p_adj "
                    f"{fmt_p(c.p_adjusted):>6}  {c.verdict}{on}",
                    file=file,
                )
                if c.verdict == "not_estimable" and c.reason:
                    print(term(f"    {reason_text(c.reason)}"), file=file)
    for e in run.excluded:
        print(term(f"  excluded {e.group}: {reason_text(e.reason)}"), file=file)
    print_no_diacritics(run, file)
    from ..presentation.warnings import run_notes
    from .pitfalls import print_pitfalls

    print_pitfalls(run, file)
    print_failures(run.failures, file)
    for n in run_notes(run):
        print(term(f"note: {n}"), file=file)


def cmd_audit(a):
    settings = _settings(a)
    datasets = [str(d) for d in (a.dataset or [])]
    a.dataset = datasets[0] if datasets else None
    a.more_datasets = tuple(datasets[1:])
    if a.table and a.more_datasets:
        raise UsageError("--table audits a table alone; drop --dataset")
    for d in datasets:
        if not d.strip():
            raise UsageError("--dataset: give a dataset name (`fairdesk datasets` lists them)")
    models = list(a.model or [])
    hyp_cols = list(a.hyp_col or ["hypothesis"])
    a.model = models[0] if models else None
    a.hyp_col = hyp_cols[0]
    if len(models) > 1 or len(hyp_cols) > 1:
        return _audit_systems(a, settings, models, hyp_cols)
    if getattr(a, "covariates", None) and not getattr(a, "model_based", False):
        raise UsageError("--covariates belongs to --model-based")
    if a.table:
        if a.project or a.model:
            raise UsageError("--table audits a table alone; drop --project/--model")
        if getattr(a, "unstable", False):
            raise UsageError(
                "--unstable decodes the audio again; audit a project dataset "
                "with a model instead of --table"
            )
        if getattr(a, "explain", False):
            raise UsageError(
                "grounding_lift needs saliency maps of the audio; audit a project "
                "dataset with a model (--explain) instead of --table"
            )
        run = audit_table(a, settings)
    else:
        if not (a.project and a.dataset and a.model):
            raise UsageError("give --project, --dataset and --model (or --table FILE)")
        if a.engine == "ray":
            from ..jobs.engines import INSTALL_HINT, ray_available

            if not ray_available():
                raise UsageError(
                    f"--engine ray needs Ray, which is not installed; install "
                    f"it with `{INSTALL_HINT}` (or drop --engine ray)"
                )
        if not a.dataset.strip():
            raise UsageError("--dataset: give a dataset name (`fairdesk datasets` lists them)")
        run = _audit_project(a, settings)
    from ..presentation.warnings import with_run_warnings

    run = with_run_warnings(run)  # the typed warnings among the run's, also in --json
    if run.table_rows is not None:  # the rows used and refused, as import says them
        print_table_rows(run, a, file=sys.stderr)
    if not a.quiet:
        print_groups(run, file=human_out(a.json))
        if not a.table:
            print_followups(a.project, run, file=human_out(a.json))
        if a.normaliser_sensitivity:
            from .pitfalls import print_sensitivity

            print_sensitivity(blocks.normaliser_sensitivity(run), file=human_out(a.json))
        model_based = blocks.model_based(run)
        if model_based:
            from ..presentation.regression_poisson_words import model_based_lines

            for line in model_based_lines(model_based):
                print(term(line), file=human_out(a.json))
    elif not run.groups:
        print_failures(run.failures, file=sys.stderr)
    if a.json:
        from ..presentation.readings import readings_json
        from ..presentation.regression_poisson_words import model_based_json

        # each reading, and the model-based fit's notes, in today's words
        dump_json(model_based_json(readings_json(run.to_json(), run), run.model_based), a.json)
    if not run.groups:
        print(
            f"fairdesk audit: nothing to analyse: every item failed ({len(run.failures)}"
            " failures listed above)"
            if run.failures
            else "fairdesk audit: no group could be analysed",
            file=sys.stderr,
        )
        return EXIT_NOTHING
    return EXIT_OK


def print_followups(project, run, file=None) -> None:
    """The recording plans this run follows up: its MDE now beside each plan's prediction
    (:func:`fairdesk.jobs.recording_plan.plan_followups`)."""
    from ..jobs.recording_plan import plan_followups
    from ..presentation.plans import followup_sentence
    from .common import _project

    p = _project(project)
    try:
        ups = plan_followups(p, run)
    finally:
        p.close()
    for f in ups:
        print(term(followup_sentence(f)), file=file)


def _audit_systems(a, settings, models, hyp_cols):
    """Several ``--model`` or ``--hyp-col``: one audit per system and their comparison."""
    from .systems import audit_systems_cmd

    if a.table and len(models) > 0:
        raise UsageError("--table audits a table alone; drop --project/--model")
    if not a.table and len(hyp_cols) > 1:
        raise UsageError("--hyp-col names columns of a --table; give --model once per system")
    for flag, on in (
        ("--explain", getattr(a, "explain", False)),
        ("--unstable", getattr(a, "unstable", False)),
        ("--model-based", getattr(a, "model_based", False)),
    ):
        if on:
            raise UsageError(
                f"{flag} is not part of a comparison of systems; audit each system alone "
                f"with {flag}, then compare the runs with fairdesk compare"
            )
    if a.table:
        return audit_systems_cmd(a, settings, hyp_cols=hyp_cols, print_run=print_groups)
    if not (a.project and a.dataset):
        raise UsageError("give --project and --dataset with the --model options")
    return audit_systems_cmd(
        a, settings, request=_request(a, settings), models=models, print_run=print_groups
    )


def _request(a, settings):
    """The project audit's request of the command line's options."""
    from ..jobs import AuditRequest
    from ..jobs.request import request_filters

    try:
        filters = request_filters(parse_filters(a.filter), a.by)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    from ..jobs.analysis import split_metric_ids, wants_explain

    wanted, rep = split_metric_ids(a.metric)
    req = AuditRequest(
        dataset=a.dataset,
        model=a.model,
        by=tuple(a.by),
        filters=filters,
        reference=a.reference,
        metrics=tuple(wanted) if wanted else None,
        sample=a.sample,
        device=a.device,
        nlu=a.nlu,
        representation=a.representation or rep,
        explain=bool(getattr(a, "explain", False)) or wants_explain(a.metric),
        explain_per_group=getattr(a, "explain_per_group", 12),
        explain_method=getattr(a, "explain_method", "occlusion"),
        unstable=bool(getattr(a, "unstable", False)),
        model_based=bool(getattr(a, "model_based", False)),
        covariates=tuple(getattr(a, "covariates", None) or ()),
        settings=settings,
        workers=a.workers,
        engine=a.engine,
        ray_address=a.ray_address,
        audio_transport=a.audio_transport,
        more_datasets=tuple(getattr(a, "more_datasets", ()) or ()),
        reference_text=getattr(a, "reference_text", "latest") or "latest",
    )
    return req


def _audit_project(a, settings):
    from ..jobs.table_audit import audit_project
    from .common import _project

    p = _project(a.project, write="an audit")
    req = _request(a, settings)
    last = [0.0]

    def progress(frac, msg):
        if a.quiet:
            return
        now = time.monotonic()
        if now - last[0] > 2.0 or frac >= 1.0:
            last[0] = now
            print(f"[{100 * frac:5.1f}%] {msg}", file=sys.stderr, flush=True)

    try:
        out = audit_project(
            p, req, normaliser_sensitivity=bool(a.normaliser_sensitivity), progress=progress
        )
    except KeyboardInterrupt:
        print(
            "fairdesk audit: cancelled (Ctrl-C); the finished items are kept and the same "
            "command resumes from them",
            file=sys.stderr,
        )
        raise
    return out.result
