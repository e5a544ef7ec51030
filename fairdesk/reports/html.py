"""The audit report: one self-contained HTML file (and the same content as PDF).

Inline CSS, charts as inline SVG, audio (optional) as Opus in ``data:`` URIs: the file
references nothing outside itself. Every string that comes from a user (dataset, group,
speaker and item names, transcripts, readings, notes) goes through jinja2's autoescape; only
the SVG that matplotlib wrote (which escapes its own text) is inserted as markup.

The sections read the typed result (:class:`fairdesk.jobs.result.AuditRun`, ``RunData.audit``)
by attribute and format every number through :mod:`fairdesk.presentation`; the template gets
plain view rows (strings) and typed parts (failures, exclusions).

Entry points: :func:`build_report` (the HTML text) and :func:`write_report` (HTML, and
optionally the PDF and every chart as PNG/SVG).
"""

from __future__ import annotations

import base64
import io
from typing import Any

from .._meta import __version__
from ..core.atomic import write_text
from ..core.spans import span_of
from ..jobs.result import AuditRun
from ..jobs.result_parts import PredictionProblem
from ..presentation import (
    MISSING,
    MISSING_MARK,
    MISSING_STATUS,
    RunSpec,
    clamped_notes,
    comparison_basis,
    corpus_note,
    count,
    dataset_label,
    fmt_ci,
    fmt_gap,
    fmt_interval,
    fmt_number,
    fmt_p,
    fmt_ratio,
    fmt_size,
    fmt_value,
    group_basis,
    metric_label,
    metric_short,
    missing_row_note,
    run_name,
    short_group,
    text_sources,
    with_basis,
)
from ..presentation.estimability_words import reason_text, sample_text
from ..presentation.interval_words import ci_note_text
from ..presentation.warnings import run_notes, run_warnings, speakers_line
from ..stats.results import Comparison
from .align import align_texts, normaliser
from .data import RunData, group_ci, load_run, num, summary_overall, verdict_style
from .files import TEMPLATES, ReportFiles, environment  # noqa: E402, F401 - re-exported
from .palette import ops_css
from .plan_section import followup_lines, plan_section
from .sections import (
    card,
    confusion_section,
    definitions,
    grounding_section,
    model_based_section,
    pitfalls_section,
    regression_sections,
    representation_section,
    sensitivity_section,
)
from .systems import systems_section


def _n(v) -> str:
    """A count as shown (:data:`MISSING` when none)."""
    return fmt_number(v, 0)


def _shown(v) -> str:
    """A stored setting as shown (:data:`MISSING` when none)."""
    return MISSING if v is None else str(v)


# -- sections ------------------------------------------------------------------------------
def _bootstrap_used(run: AuditRun):
    """The B the run used (``settings.n_bootstrap_used``, else the ``bootstrap`` block's
    ``used``)."""
    return run.n_bootstrap_used or (run.bootstrap.used if run.bootstrap is not None else None)


def _audited(d: RunData, run: AuditRun) -> list[tuple[str, str]]:
    s, rs = run.settings, run.run_settings

    def setting(name: str) -> str:
        return _shown(getattr(s, name) if s is not None else None)

    def run_setting(name: str):
        return getattr(rs, name) if rs is not None else None

    model, _, weights = d.model_key.partition("@")
    b_used = _bootstrap_used(run)
    b = setting("n_bootstrap")
    if b_used and _n(b_used) != b:
        b += f" (raised to {_n(b_used)} for the Holm family)"
    schemes = sorted({str(c.estimator) for c in run.comparisons if c.estimator})
    text_source = text_sources(run_setting("text_source"))
    filters = run_setting("filters") or {}
    rows = [
        ("Dataset", str(dataset_label(run) or MISSING)),
        ("Model", str(run.model or run_setting("model") or model or MISSING)),
        ("Model fingerprint (weights and decoding settings)", weights or MISSING),
        ("Device", str(run.device or run_setting("device") or MISSING)),
        (
            "fairdesk version",
            f"{_shown(run_setting('fairdesk_version'))} (metrics code "
            f"{_shown(run_setting('metrics_code_version'))}); report by {__version__}",
        ),
        ("Run", f"{d.run_id}, finished {d.date()}"),
        ("Grouped by", ", ".join(map(str, run.by or run_setting("by") or ())) or MISSING),
        (
            "Filters",
            ", ".join(f"{k} = {'/'.join(map(str, v))}" for k, v in filters.items()) or "none",
        ),
        ("Reference group", str(run.reference or MISSING)),
        ("Design", str(run.design or MISSING).replace("_", " ")),
        ("Speakers", (speakers_line(run.speakers) or MISSING).removeprefix("speakers: ")),
        ("Resampling", f"{setting('resampling')} (used: {', '.join(schemes) or MISSING})"),
        ("Bootstrap resamples B", b),
        ("Seed", setting("seed")),
        ("Normaliser", setting("normaliser")),
        ("Language", _shown(run_setting("language"))),
        ("Text source", text_source),
        (
            "Thresholds",
            f"alpha {setting('alpha')}, absolute gap {setting('absolute_error_gap')}, "
            f"disparity ratio {setting('disparity_ratio')}, grounding gap "
            f"{setting('grounding_gap')}",
        ),
        (
            "Minimums per group",
            f"{count(s.min_items if s else None, 'item')}, "
            f"{count(s.min_speakers if s else None, 'speaker')}",
        ),
        ("Tested metrics", ", ".join(metric_label(m) for m in run.tested_metrics) or MISSING),
        (
            "Descriptive metrics",
            ", ".join(metric_label(m) for m in run.descriptive_metrics) or MISSING,
        ),
    ]
    if rs is not None and rs.sample_per_group:
        rows.append(("Sample", f"{count(rs.sample_per_group, 'item')} per group (stratified)"))
    if rs is not None and rs.nlu and rs.nlu != "none":
        rows.append(("NLU", str(rs.nlu)))
    return rows


def _corpus(d: RunData, run: AuditRun) -> dict:
    ds = d.dataset_summary
    by = [str(b) for b in run.by]
    columns = {c: v for c, v in (ds.get("columns") or {}).items() if c in by}
    counts = run.counts
    return {
        "dataset": ds,
        "columns": [(c, sorted(v.items())) for c, v in columns.items()],
        "analysed": _n(len(d.items)),
        "analysed_items": count(len(d.items), "item"),
        "failed_items": count(len(run.failures), "item"),
        "counts": None
        if counts is None
        else {"n_cached": _n(counts.n_cached), "n_inferred": _n(counts.n_inferred)},
        "n_failed": _n(len(run.failures)),
        "groups": [
            {
                "group": g.group,
                "n_items": _n(g.n_items),
                "n_speakers": _n(g.n_speakers),
                "excluded": bool(g.excluded),
                "reason": reason_text(g.reason) or "",
                "reference": g.group == run.reference,
                "missing": bool(g.missing),
            }
            for g in run.groups
        ],
    }


def _ci_span(metric: str, ci) -> str:
    """A value's CI for the ``ci`` span of a cell: '' (no span) when it has none."""
    text = fmt_interval(metric, ci)
    return "" if text == MISSING else text


def _group_values(run: AuditRun) -> dict:
    metrics = list(dict.fromkeys(run.tested_metrics + run.descriptive_metrics))
    rows: list[dict[str, Any]] = []
    for g in run.groups:
        cells = []
        for m in metrics:
            cells.append(
                {
                    "value": with_basis(fmt_value(m, (g.values or {}).get(m)), group_basis(g, m)),
                    "ci": _ci_span(m, group_ci(g, m)),
                    "note": ci_note_text(g, m) or "",
                    "scheme": (g.ci_scheme or {}).get(m) or "",
                }
            )
        rows.append(
            {
                "group": g.group,
                "excluded": bool(g.excluded),
                "reference": g.group == run.reference,
                "missing": bool(g.missing),
                "note": missing_row_note(g.group, g.n_items) if g.missing else "",
                "cells": cells,
            }
        )
    overall = []
    n_missing = 0
    for m in metrics:
        o = summary_overall(run.summary.get(m))
        n_missing = max(n_missing, o.n_missing if o else 0)
        overall.append(
            {
                "value": with_basis(fmt_value(m, o.value if o else None), o.basis if o else None),
                "ci": _ci_span(m, o.ci if o else None),
                "scheme": str((o.scheme if o else None) or ""),
            }
        )
    has_overall = any(o["value"] != MISSING for o in overall)
    summ = []
    for m in run.tested_metrics:
        s = run.summary.get(m)
        if s is None:
            continue
        summ.append(
            {
                "metric": metric_label(m),
                "max_gap": fmt_gap(m, s.max_gap),
                "ratio": fmt_ratio(s.disparity_ratio),
                "gini": fmt_number(s.gini, 3),
                "wstd": fmt_value(m, s.weighted_std),
                "best": s.best_group or MISSING,
                "worst": s.worst_group or MISSING,
            }
        )
    return {
        "metrics": [metric_short(m) for m in metrics],
        "blocks": column_blocks(len(metrics)),
        "rows": rows,
        "overall": overall if has_overall else None,
        "corpus_note": corpus_note(n_missing) if has_overall else "",
        "clamped_notes": clamped_notes(run.groups, run.summary, metrics),
        "summary": summ,
        "has_ci": any(c["ci"] for r in rows for c in r["cells"]),
    }


#: The most metric columns of one per-group table: more are split into tables of about
#: equal width, each beginning with the group column, so a table fits an A4 page's width.
MAX_GROUP_COLUMNS = 6


def column_blocks(n: int, most: int = MAX_GROUP_COLUMNS) -> list[tuple[int, int]]:
    """``n`` columns as ``(start, stop)`` blocks of at most ``most``, sizes differing by at
    most one (10 columns: ``[(0, 5), (5, 10)]``)."""
    k = max(1, -(-n // most))
    size, extra = divmod(n, k)
    out, start = [], 0
    for i in range(k):
        stop = start + size + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


def _no_variation(c: Comparison) -> str:
    """The rule-of-three text of a ``no_variation`` comparison ('' otherwise;
    ``Comparison.no_variation``)."""
    nv = c.no_variation
    if nv is None:
        return ""
    m = c.metric or ""
    return (
        f"constant at {fmt_value(m, nv.value)}; rule-of-three bound "
        f"{fmt_value(m, nv.bound_group)} (group), "
        f"{fmt_value(m, nv.bound_reference)} (reference)"
    )


def _gap_rows(run: AuditRun) -> list[dict]:
    rows = []
    for c in run.comparisons:
        m = c.metric or ""
        label, bg, fg = verdict_style(c.verdict)
        rows.append(
            {
                "metric": metric_short(m),
                "group": c.group,
                "value": fmt_value(m, c.value),
                "ref": fmt_value(m, c.reference_value),
                "gap": fmt_gap(m, c.gap),
                "ratio": fmt_ratio(c.ratio),
                "ci": fmt_ci(m, c.ci_low, c.ci_high),
                "p": fmt_p(c.p_value),
                "p_adj": fmt_p(c.p_adjusted),
                "mde": fmt_size(m, c.mde),
                "effect": fmt_number(c.effect_size, 2),
                "estimator": str(c.estimator or MISSING),
                "blocks": ", ".join(b for b in (_blocks(c), comparison_basis(c)) if b),
                "design": str(c.design or "").replace("_", " "),
                "verdict": label,
                "bg": bg,
                "fg": fg,
                "flags": ", ".join(str(f).replace("_", " ") for f in c.flags or ()),
                "extra": _no_variation(c)
                or reason_text(c.reason)
                or (f"on {sample_text(c.sample)}" if c.sample else ""),
            }
        )
    return rows


def _blocks(c: Comparison) -> str:
    """``5 + 5 speakers, 30 contents, 20 + 20 items`` from a comparison's block counts
    (``Comparison.n_blocks``)."""
    nb = c.n_blocks
    if nb is None:
        return ""
    bits = []
    for what, g, r in (
        ("speakers", nb.group_speakers, nb.reference_speakers),
        ("items", nb.group_items, nb.reference_items),
    ):
        if g is not None or r is not None:
            bits.append(f"{_n(g)} + {_n(r)} {what}")
    if nb.contents is not None:
        bits.insert(1 if bits else 0, f"{_n(nb.contents)} contents")
    return ", ".join(bits)


def rank_items(items):
    """Items worst first (the ranking of ``fairdesk show``)."""
    from ..review import rank_failures

    return rank_failures(items)


def _worst(d: RunData, per_group: int, embed_audio: bool, skipped: list[str]) -> list[dict]:
    if d.items.empty or per_group <= 0 or "group" not in d.items.columns:
        return []
    norm = normaliser(d.normaliser_name, d.language)
    out = []
    ranked = rank_items(d.items)
    for g in [x.group for x in d.audit.groups if not x.excluded]:
        rows = ranked[ranked["group"].astype(str) == str(g)].head(per_group)
        entries = []
        for r in rows.to_dict(orient="records"):
            ops = align_texts(r.get("reference"), r.get("hypothesis"), norm)
            n_err = sum(1 for o in ops if o.op != "=")
            if n_err == 0 and not r.get("em") == 0:
                continue
            audio = None
            if embed_audio:
                audio = _opus_uri(d.audio_path(r), skipped, str(r.get("id")), span_of(r))
            entries.append(
                {
                    "id": r.get("id"),
                    "speaker": r.get("speaker_id") or "–",
                    "reference": r.get("reference") or "",
                    "hypothesis": r.get("hypothesis") or "",
                    "ops": [
                        {"op": o.op, "ref": o.ref, "hyp": o.hyp, "title": o.label()} for o in ops
                    ],
                    "counts": f"S {int(num(r.get('n_sub')) or 0)}, D {int(num(r.get('n_del')) or 0)}"
                    f", I {int(num(r.get('n_ins')) or 0)} of "
                    f"{count(r.get('n_words'), 'word')}",
                    "audio": audio,
                }
            )
        if entries:
            out.append({"group": g, "items": entries})
    return out


def _opus_uri(path, skipped: list[str], item: str, span=None) -> str | None:
    """The clip (only its segment ``span`` of a session recording, decoded alone) as
    Ogg/Opus (libsndfile's encoder) in a ``data:`` URI; None if unreadable."""
    import soundfile as sf

    from ..core import audio as audio_io
    from ..core import spans
    from ..core.errors import AudioError

    if path is None:
        skipped.append(f"{item}: the run's dataset is gone, no audio")
        return None
    start, end = span if span is not None else (None, None)
    try:
        samples = spans.load(path, start_s=start, end_s=end).samples
    except AudioError as exc:
        skipped.append(f"{item}: {exc.reason}")
        return None
    buf = io.BytesIO()
    sf.write(buf, samples, audio_io.SAMPLE_RATE, format="OGG", subtype="OPUS")
    return "data:audio/ogg;codecs=opus;base64," + base64.b64encode(buf.getvalue()).decode()


def _prediction_problem(pr: PredictionProblem) -> str:
    """One refused or flagged row of a predictions file, as a line of text."""
    return f"line {pr.row}: {pr.key or ''} {pr.reason}"


def _failures(run: AuditRun) -> dict:
    return {
        "failures": run.failures,
        "excluded": [
            {"group": e.group, "reason": reason_text(e.reason) or ""} for e in run.excluded
        ],
        # the typed warnings (no speaker ids ...) in words, then the run's notes
        "notes": tuple(dict.fromkeys([*run_warnings(run), *run_notes(run)])),
        "prediction_problems": [_prediction_problem(pr) for pr in run.prediction_problems or ()],
        "problems": run.problems or (),
    }


# -- assembling ----------------------------------------------------------------------------
def report_context(d: RunData, embed_audio: bool = False, worst: int = 3) -> dict:
    """Everything the template shows, as plain (unescaped) values."""
    from ..presentation.agreement import resampled_run
    from .charts import report_charts, svg_text
    from .phones import phones_context
    from .sections import agreement_section

    run = d.audit
    skipped: list[str] = []
    agreement = agreement_section(d)
    agreed = agreement["result"] if agreement is not None else None
    charts = []
    for i, ch in enumerate(report_charts(run, confusion=False)):
        charts.append(
            {"title": ch.title, "caption": ch.caption, "svg": svg_text(ch.figure, prefix=f"f{i}")}
        )
    return {
        "title": f"fairdesk audit: {run.model or d.model_key} on "
        f"{dataset_label(run) or 'a table'} (run {d.run_id})",
        # the run's name as every view gives it: grouping, filters, non-default settings
        "run_name": run_name(RunSpec.from_run(run)),
        "audited": _audited(d, run),
        "corpus": _corpus(d, run),
        "cards": [card(c, run, agreed, resampled_run(run)) for c in run.comparisons],
        "agreement": agreement,
        "groups": _group_values(run),
        "gaps": _gap_rows(run),
        "charts": charts,
        "confusions": confusion_section(run),
        "representation": representation_section(run),
        "grounding": grounding_section(run),
        "phones": phones_context(run),
        "worst": _worst(d, worst, embed_audio, skipped),
        "worst_n": worst,
        "failures": _failures(run),
        "definitions": definitions(run),
        "reference": run.reference,
        "audio_skipped": skipped,
        "version": __version__,
        "short_group": short_group,
        "missing_mark": MISSING_MARK,
        "missing_status": MISSING_STATUS,
        "model_based": model_based_section(run),
        "regressions": regression_sections(d),
        "pitfalls": pitfalls_section(run),
        "sensitivity": sensitivity_section(run),
        "systems": systems_section(d),
        "planning": plan_section(run),
        "followups": followup_lines(d),
    }


def render(context: dict) -> str:
    """The HTML text of a report context (jinja2, autoescape on)."""
    from markupsafe import Markup

    env = environment()
    ctx = dict(context)
    ctx["ops_css"] = Markup(ops_css())  # the GUI's colours (palette.OPS)
    ctx["charts"] = [{**c, "svg": Markup(c["svg"])} for c in context["charts"]]
    sys_ = context.get("systems")
    if sys_:
        ctx["systems"] = {
            **sys_,
            "metrics": [
                {**m, "chart": m["chart"] and {**m["chart"], "svg": Markup(m["chart"]["svg"])}}
                for m in sys_["metrics"]
            ],
        }
    ctx["regressions"] = [
        {**r, "charts": [{**c, "svg": Markup(c["svg"])} for c in r["charts"]]}
        for r in context.get("regressions") or []
    ]
    for key in ("model_based", "pitfalls", "sensitivity", "systems", "planning", "agreement"):
        ctx.setdefault(key, None)
    if ctx["planning"]:
        ctx["planning"] = {
            **ctx["planning"],
            "rows": [
                {**r, "svg": Markup(r["svg"]) if r["svg"] else None}
                for r in ctx["planning"]["rows"]
            ],
        }
    return env.get_template("report.html.j2").render(**ctx)


def build_report(project, run_id: int, embed_audio: bool = False, worst: int = 3) -> str:
    """The self-contained HTML report of a finished run.

    Parameters
    ----------
    project : an open ``fairdesk.core.store.Project``.
    run_id : a finished audit run of it.
    embed_audio : add an audio player (Opus in a data URI) to each worst item.
    worst : worst items shown per group.
    """
    from .incremental import incremental_context, is_incremental_run, render_incremental

    if is_incremental_run(project, run_id):
        return render_incremental(incremental_context(project, run_id, worst))
    return render(report_context(load_run(project, run_id), embed_audio, worst))


def write_report(
    project, run_id: int, path, embed_audio: bool = False, worst: int = 3, pdf=None, figures=None
) -> ReportFiles:
    """Write the HTML report of a run; optionally the PDF and every chart as PNG and SVG.

    Parameters
    ----------
    project, run_id, embed_audio, worst : as :func:`build_report`.
    path : the HTML file to write.
    pdf : a PDF file to write with the same content (see :mod:`fairdesk.reports.pdf`).
    figures : a folder for each chart as ``<name>.png`` and ``<name>.svg``.

    Returns
    -------
    ReportFiles

    An incremental run gets its own report (:mod:`fairdesk.reports.incremental`; ``worst``
    is then the number of add/revoke timelines shown, and no audio is embedded).
    """
    from .incremental import is_incremental_run, write_incremental_report

    if is_incremental_run(project, run_id):
        out = write_incremental_report(project, run_id, path, worst, pdf, figures)
        if embed_audio:
            out.audio_skipped.append("an incremental report embeds no audio")
        return out
    d = load_run(project, run_id)
    ctx = report_context(d, embed_audio, worst)
    text = render(ctx)
    path = write_text(path, text, make_parents=True)  # complete or not at all
    out = ReportFiles(path, audio_skipped=list(ctx["audio_skipped"]))
    if pdf is not None:
        from .pdf import write_pdf

        out.pdf = write_pdf(render({**ctx, "worst": _strip_audio(ctx["worst"])}), pdf)
    if figures is not None:
        from .charts import save_figures
        from .systems import save_system_figures

        out.figures = save_figures(d.audit, figures, lambda tmp: save_system_figures(d, tmp))
    return out


def _strip_audio(worst: list[dict]) -> list[dict]:
    return [{**g, "items": [{**i, "audio": None} for i in g["items"]]} for g in worst]
