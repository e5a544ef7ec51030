"""``fairdesk incremental``: stream a dataset through a recogniser chunk by chunk and measure
accuracy, latency and stability (adds/revokes), pooled and per group (docs/METHODS.md, "Incremental recognition").

Wired by ``fairdesk.cli.build_parser`` (``incremental.add_command(sub)``).
"""

from __future__ import annotations

import sys

from ..constants import NATIVE_POLICY, REDECODING_POLICIES
from ..presentation import fmt_count, fmt_p
from ..presentation.estimability_words import reason_text
from ..presentation.incremental import (
    column_head,
    fmt_stream_ci,
    fmt_stream_gap,
    fmt_stream_value,
    row_name,
)
from .audit import print_failures
from .common import (
    EXIT_NOTHING,
    EXIT_OK,
    UsageError,
    dump_json,
    human_out,
    parse_filters,
    positive_int,
)

_POLICY_CHOICES = (*REDECODING_POLICIES, NATIVE_POLICY, "whetten", "all")
#: ``--policy whetten``: the columns of Whetten, Imtiaz and Kennington's models × policies table
#: (sliding window, literal and snapped, and concatenation), plus the engine's own partials for
#: a streaming engine.
_WHETTEN = ("native", "sliding-literal", "sliding", "concatenation")
#: Old names still accepted: ``--policy seed001`` is ``--policy whetten``.
POLICY_ALIASES = {"seed001": "whetten"}


def _policy(value: str) -> str:
    """``--policy``'s type: an old name read as its new one (argparse then checks choices)."""
    return POLICY_ALIASES.get(value, value)


def add_command(sub):
    s = sub.add_parser(
        "incremental",
        help="incremental (streaming) recognition: WER, latency, edit overhead, revokes per "
        "second, per policy and per group",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--dataset", required=True)
    s.add_argument(
        "--model",
        action="append",
        metavar="MODEL",
        help="model id (repeatable: one models x policies table; default whisper-tiny.en)",
    )
    s.add_argument(
        "--policy",
        action="append",
        type=_policy,
        choices=_POLICY_CHOICES,
        metavar="POLICY",
        help="concatenation (default), sliding, sliding-literal, local-agreement, "
        "local-agreement-norm, native (an engine's own partial results), whetten "
        "(the policies of Whetten, Imtiaz and Kennington's table: native where the engine "
        "streams, sliding-literal, sliding, concatenation) or all (repeatable)",
    )
    s.add_argument(
        "--by",
        action="append",
        metavar="COL",
        help="compare groups of this column (one or two, repeatable)",
    )
    s.add_argument("--filter", action="append", metavar="COL=VAL")
    s.add_argument("--reference", help="reference group (default: the largest)")
    s.add_argument(
        "--metric",
        action="append",
        metavar="ID",
        help="metric compared across groups (repeatable; default eo, "
        "revokes_per_audio_second, wer)",
    )
    s.add_argument(
        "--sample",
        type=positive_int,
        metavar="N",
        help="N items (per group with --by, spread over speakers)",
    )
    s.add_argument("--chunk", type=float, default=1.0, help="seconds per chunk (default 1.0)")
    s.add_argument(
        "--split",
        action="store_true",
        help="split long recordings on silence (Silero VAD) and stream each "
        "segment; reports per segment and pooled",
    )
    s.add_argument(
        "--no-store",
        action="store_true",
        help="do not store the run in the project (default: stored, for the GUI and the report)",
    )
    d = s.add_argument_group("decoder")
    d.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    d.add_argument("--threads", type=int, help="decoder CPU threads (default: all cores)")
    d.add_argument("--beam-size", type=int, help="beam size (default: the backend's)")
    p = s.add_argument_group("policies")
    p.add_argument(
        "--min-words",
        type=int,
        default=5,
        help="sliding window: cut when the window yields this many words",
    )
    p.add_argument(
        "--max-window",
        type=float,
        default=30.0,
        help="sliding window: cut when the window reaches this many seconds",
    )
    p.add_argument(
        "--cut-fraction",
        type=float,
        default=0.35,
        help="sliding window: raw cut at this fraction of the window",
    )
    p.add_argument(
        "--buffer-trim",
        type=float,
        default=15.0,
        help="local agreement: trim the buffer past this many seconds",
    )
    p.add_argument(
        "--prompt-chars",
        type=int,
        default=200,
        help="local agreement: characters of committed text in the prompt",
    )
    g = s.add_argument_group('statistics (docs/METHODS.md, "Comparisons with the reference")')
    g.add_argument("--n-bootstrap", type=int, default=2000)
    g.add_argument("--alpha", type=float, default=0.05)
    g.add_argument("--min-items", type=int, default=30)
    g.add_argument("--min-speakers", type=int, default=5)
    g.add_argument("--seed", type=int, default=0)
    s.add_argument("--logs", action="store_true", help="include every update log in --json")
    s.add_argument("--json", metavar="OUT", help="write the full result as JSON ('-' = stdout)")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_incremental)


def _policies(a) -> list[str]:
    """The policies asked for; ``native`` is kept only for models that stream natively
    (:func:`fairdesk.incremental.job.model_policies`)."""
    out: list[str] = []
    for p in a.policy or ["concatenation"]:
        if p == "all":
            from ..incremental.run import COLUMN_ORDER

            out += list(COLUMN_ORDER)
        elif p == "whetten":
            out += list(_WHETTEN)
        else:
            out.append(p)
    return list(dict.fromkeys(out))


def _options(a) -> dict:
    sliding = {
        "min_words": a.min_words,
        "max_window_s": a.max_window,
        "cut_fraction": a.cut_fraction,
    }
    agree = {"buffer_trim_s": a.buffer_trim, "prompt_chars": a.prompt_chars}
    return {
        "sliding": sliding,
        "sliding-literal": dict(sliding),
        "local-agreement": agree,
        "local-agreement-norm": dict(agree),
    }


def _print_progress(_fraction: float, msg: str) -> None:
    """One progress line on stderr, overwritten by the next."""
    print(f"\r{msg[:72]:<72}", end="", file=sys.stderr, flush=True)


def run_incremental(a):
    """:func:`fairdesk.incremental.job.run_incremental` with the command's options; its
    errors as usage errors. Returns the
    :class:`~fairdesk.incremental.result.IncrementalResult`."""
    from ..core.errors import StoreError
    from ..incremental.job import run_incremental as job
    from ..stats.settings import AuditSettings
    from .common import _project

    try:
        settings = AuditSettings(
            n_bootstrap=a.n_bootstrap,
            seed=a.seed,
            alpha=a.alpha,
            min_items=a.min_items,
            min_speakers=a.min_speakers,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None
    progress = None if a.quiet else _print_progress
    proj = _project(a.project, write="an incremental run")
    try:
        return job(
            proj,
            a.dataset,
            a.model or ["whisper-tiny.en"],
            _policies(a),
            a.chunk,
            filters=parse_filters(a.filter),
            by=a.by,
            sample=a.sample,
            reference=a.reference,
            metrics=a.metric,
            settings=settings,
            split=a.split,
            options=_options(a),
            device=a.device,
            threads=a.threads,
            beam_size=a.beam_size,
            keep_logs=a.logs,
            store=not a.no_store,
            progress=progress,
        )
    except (ValueError, StoreError) as e:
        raise UsageError(str(e)) from None
    finally:
        if progress:
            print(file=sys.stderr)
        proj.close()


#: The columns of the per-policy summary: (key, head, width); every value through
#: :func:`~fairdesk.presentation.incremental.fmt_stream_value`, as the table and the report.
_SUMMARY_COLUMNS = (
    ("wer", "WER", 8),
    ("lat_seed001", "LATseed", 8),
    ("lat_pooled", "LATpool", 8),
    ("eo", "EO", 7),
    ("eo_edit", "EO(ed)", 8),
    ("rps", "RPS", 8),
    ("spr", "SPR", 8),
    ("revokes_per_audio_second", "R/aud s", 8),
    ("rtf", "RTF", 7),
    ("final_word_latency", "FWL s", 7),
    ("stabilisation_latency", "stab s", 7),
)


def print_table(table, file=None) -> None:
    """The models × policies table (Whetten et al.'s Table 2 layout,
    :class:`~fairdesk.incremental.result.ModelsTable`), one column per engine × policy under
    a model header line; SPR is inf without revokes."""
    file = file if file is not None else sys.stdout
    cols = table.columns
    if not cols:
        return
    heads = [column_head(c, compact=True) for c in cols]
    w = max(10, *(len(h) + 2 for h in heads))
    models = []
    for i, c in enumerate(cols):
        new = i == 0 or c.model != cols[i - 1].model
        models.append(c.model if new else "")
    line = f"{'':<16}"
    for i, m in enumerate(models):
        if m:
            line = line.ljust(16 + i * w) + f"  {m}"
    print("\n" + line.rstrip(), file=file)
    print(f"{'':<16}" + "".join(f"{h:>{w}}" for h in heads), file=file)
    for m in table.rows:
        cells = [fmt_stream_value(m, v) for v in table.values[m]]
        print(f"{row_name(m):<16}" + "".join(f"{x:>{w}}" for x in cells), file=file)


def print_summary(res, file=None):
    """What an :class:`~fairdesk.incremental.result.IncrementalResult` says, as text."""
    file = file if file is not None else sys.stdout
    for d in res.decoders:
        dec = d.decoder
        print(
            f"{d.model} on {res.machine} "
            f"({res.usable_cpus} usable CPUs, {d.cpu_threads or 'own'} decoder "
            f"threads); chunk {res.chunk_s} s; decoder: "
            + ", ".join(
                f"{k}={dec[k]}"
                for k in ("compute_type", "beam_size", "temperature", "strategy")
                if k in dec
            ),
            file=file,
        )
    if res.split:
        print(f"split on silence: {res.split}", file=file)
    multi = len(res.models) > 1
    head = f"{'policy':<34}{'items':>6}" + "".join(f"{h:>{w}}" for _, h, w in _SUMMARY_COLUMNS)
    print(head, file=file)
    for r in res.summary:
        name = (
            r.policy if not r.policy.startswith("local-agreement") else f"{r.policy} ({r.stream})"
        )
        if multi:
            name = f"{(r.model or '')[:14]} {name}"
        print(
            f"{name[:33]:<34}{fmt_count(r.n_items):>6}"
            + "".join(f"{fmt_stream_value(k, r.value(k)):>{w}}" for k, _, w in _SUMMARY_COLUMNS),
            file=file,
        )
    for r in res.summary:
        t = r.totals
        who = f"{r.model or ''} {r.policy}".strip()
        if r.policy.startswith("sliding") or t.n_trims:
            print(
                f"  {who}: {fmt_count(t.n_trims)} trims, {fmt_count(t.n_cuts)} cuts, "
                f"{fmt_count(t.n_cuts_inside_word)} inside a word, "
                f"{fmt_count(t.n_cuts_forced)} forced, {fmt_count(t.n_straddled)} straddling "
                f"words ({fmt_count(t.n_straddled_frozen)} frozen)",
                file=file,
            )
        if t.n_pred_zero:
            print(
                f"  {who} ({r.stream}): {fmt_count(t.n_pred_zero)} predictions with zero words "
                f"skipped by {row_name('lat_seed001')}",
                file=file,
            )
    print_table(res.table, file)
    if res.segments:
        print(
            f"\n{len(res.segments)} segment rows (per segment: --json); items split into "
            f"{res.max_segments} segments at most",
            file=file,
        )
    for block in res.groups or ():
        model = f"{block.model} " if block.model and multi else ""
        print(
            f"\n{model}{block.policy} ({block.stream}), groups (reference {block.reference}):",
            file=file,
        )
        metrics = res.metrics
        print(f"  {'group':<30}{'items':>6}" + "".join(f"{m[:12]:>14}" for m in metrics), file=file)
        for g in block.stats.groups:
            mark = " (excluded)" if g.excluded else ""
            mark = " (descriptive)" if g.missing else mark
            print(
                f"  {(str(g.group) + mark)[:29]:<30}{fmt_count(g.n_items):>6}"
                + "".join(f"{fmt_stream_value(m, g.values.get(m)):>14}" for m in metrics),
                file=file,
            )
        for c in block.stats.comparisons:
            print(
                f"  {c.metric:<26}{str(c.group)[:22]:<23}"
                f"gap {fmt_stream_gap(c.metric, c.gap)} "
                f"{fmt_stream_ci(c.metric, c.ci_low, c.ci_high)} "
                f"p_adj {fmt_p(c.p_adjusted)}  {c.verdict}",
                file=file,
            )
        for e in block.stats.excluded:
            print(f"  excluded {e.group}: {reason_text(e.reason)}", file=file)
    _print_systems(res, file)
    print_failures(res.failures, file)


def _print_systems(res, file) -> None:
    """The models paired on the same items, per policy and stream (WER and EO)."""
    from ..presentation.notices import notice_text
    from ..presentation.systems import comparison_lines

    for block in res.systems or ():
        print(f"\nmodels compared, {block.policy} ({block.stream}):", file=file)
        if block.error is not None or block.comparison is None:
            why = "" if block.error is None else notice_text(block.error)
            print(f"  not compared: {why}", file=file)
            continue
        for line in comparison_lines(block.comparison):
            print(f"  {line}", file=file)


def cmd_incremental(a):
    res = run_incremental(a)
    out = human_out(a.json)
    if not a.quiet:
        print_summary(res, file=out)
        if res.run_id is not None:
            print(f"\nstored as run {res.run_id} (GUI: Incremental tab)", file=out)
    if a.json:
        from ..presentation.readings import incremental_notes_json
        from ..presentation.systems import incremental_systems_json

        # the group blocks' notes and the paired comparisons' reasons in words, at output time
        worded = incremental_notes_json(res.to_json(timelines=a.logs))
        dump_json(incremental_systems_json(worded, res.systems), a.json)
    return EXIT_OK if res.summary else EXIT_NOTHING
