"""The audit report: one self-contained HTML file (and the same content as PDF).

Inline CSS, charts as inline SVG, audio (optional) as Opus in ``data:`` URIs: the file
references nothing outside itself. Every string that comes from a user (dataset, group,
speaker and item names, transcripts, readings, notes) goes through jinja2's autoescape; only
the SVG that matplotlib wrote (which escapes its own text) is inserted as markup.

Entry points: :func:`build_report` (the HTML text) and :func:`write_report` (HTML, and
optionally the PDF and every chart as PNG/SVG).
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

from .._meta import __version__
from ..presentation import (
    MISSING,
    count,
    fmt_ci,
    fmt_gap,
    fmt_interval,
    fmt_number,
    fmt_p,
    fmt_ratio,
    fmt_value,
    metric_label,
    metric_short,
    short_group,
)
from .align import align_texts, normaliser
from .data import RunData, load_run, num, verdict_style
from .files import TEMPLATES, ReportFiles  # noqa: E402, F401 - re-exported
from .sections import (
    model_based_section,
    pitfalls_section,
    regression_sections,
    sensitivity_section,
)


# -- sections ------------------------------------------------------------------------------
def _audited(d: RunData) -> list[tuple[str, str]]:
    p, s = d.payload, d.settings
    model_key = d.model_key
    model, _, weights = model_key.partition("@")
    boot = p.get("bootstrap") or {}
    b_used = s.get("n_bootstrap_used") or boot.get("used")
    b = str(s.get("n_bootstrap", "–"))
    if b_used and str(b_used) != b:
        b += f" (raised to {b_used} for the Holm family)"
    schemes = sorted(
        {str(c.get("estimator")) for c in p.get("comparisons") or [] if c.get("estimator")}
    )
    text_source = (
        p.get("text_source") or s.get("text_source") or "the dataset's reference transcripts"
    )
    rows = [
        ("Dataset", str(p.get("dataset") or p.get("table") or "–")),
        ("Model", str(p.get("model") or s.get("model") or model or "–")),
        ("Model fingerprint (weights and decoding settings)", weights or "–"),
        ("Device", str(p.get("device") or s.get("device") or "–")),
        (
            "fairdesk version",
            f"{s.get('fairdesk_version', '–')} (metrics code "
            f"{s.get('metrics_code_version', '–')}); report by {__version__}",
        ),
        ("Run", f"{d.run_id}, finished {d.date()}"),
        ("Grouped by", ", ".join(map(str, p.get("by") or s.get("by") or [])) or "–"),
        (
            "Filters",
            ", ".join(f"{k} = {'/'.join(map(str, v))}" for k, v in (s.get("filters") or {}).items())
            or "none",
        ),
        ("Reference group", str(p.get("reference") or "–")),
        ("Design", str(p.get("design") or "–").replace("_", " ")),
        ("Resampling", f"{s.get('resampling', '–')} (used: {', '.join(schemes) or '–'})"),
        ("Bootstrap resamples B", b),
        ("Seed", str(s.get("seed", "–"))),
        ("Normaliser", str(s.get("normaliser", "–"))),
        ("Language", str(s.get("language", "–"))),
        ("Text source", str(text_source)),
        (
            "Thresholds",
            f"alpha {s.get('alpha', '–')}, absolute gap "
            f"{s.get('absolute_error_gap', '–')}, disparity ratio "
            f"{s.get('disparity_ratio', '–')}, grounding gap "
            f"{s.get('grounding_gap', '–')}",
        ),
        (
            "Minimums per group",
            f"{count(s.get('min_items', '–'), 'item')}, {count(s.get('min_speakers', '–'), 'speaker')}",
        ),
        (
            "Tested metrics",
            ", ".join(metric_label(m) for m in p.get("tested_metrics") or []) or "–",
        ),
        (
            "Descriptive metrics",
            ", ".join(metric_label(m) for m in p.get("descriptive_metrics") or []) or "–",
        ),
    ]
    if s.get("sample_per_group"):
        rows.append(("Sample", f"{count(s['sample_per_group'], 'item')} per group (stratified)"))
    if s.get("nlu") and s.get("nlu") != "none":
        rows.append(("NLU", str(s["nlu"])))
    return rows


def _corpus(d: RunData) -> dict:
    p, ds = d.payload, d.dataset_summary
    counts = p.get("counts") or {}
    by = [str(b) for b in (p.get("by") or [])]
    columns = {c: v for c, v in (ds.get("columns") or {}).items() if c in by}
    return {
        "dataset": ds,
        "columns": [(c, sorted(v.items())) for c, v in columns.items()],
        "analysed": len(d.items),
        "counts": counts,
        "n_failed": len(p.get("failures") or []),
        "groups": [
            {
                "group": g["group"],
                "n_items": g.get("n_items"),
                "n_speakers": g.get("n_speakers") if g.get("n_speakers") is not None else "–",
                "excluded": bool(g.get("excluded")),
                "reason": g.get("reason") or "",
                "reference": g["group"] == p.get("reference"),
            }
            for g in p.get("groups") or []
        ],
    }


def _card(c: dict) -> dict:
    label, bg, fg = verdict_style(c.get("verdict"))
    m = c.get("metric", "")
    arrow = {"worse": "▼ worse", "better": "▲ better"}.get(c.get("direction"), "")
    return {
        "metric": metric_short(m),
        "group": c.get("group"),
        "label": label,
        "bg": bg,
        "fg": fg,
        "gap": fmt_gap(m, c.get("gap")),
        "ci": fmt_ci(m, c.get("ci_low"), c.get("ci_high")),
        "values": f"{fmt_value(m, c.get('value'))} vs {fmt_value(m, c.get('reference_value'))}",
        "p_adj": fmt_p(c.get("p_adjusted")),
        "arrow": arrow,
        "reading": c.get("reading") or c.get("reason") or label,
    }


def _ci_span(metric: str, ci) -> str:
    """A value's CI for the ``ci`` span of a cell: '' (no span) when it has none."""
    text = fmt_interval(metric, ci)
    return "" if text == MISSING else text


def _group_values(d: RunData) -> dict:
    p = d.payload
    metrics = list(
        dict.fromkeys((p.get("tested_metrics") or []) + (p.get("descriptive_metrics") or []))
    )
    rows = []
    for g in p.get("groups") or []:
        cells = []
        for m in metrics:
            v = (g.get("values") or {}).get(m, g.get(m))
            ci = (g.get("ci") or {}).get(m)
            note = (g.get("ci_note") or {}).get(m) or ""
            scheme = (g.get("ci_scheme") or {}).get(m) or ""
            cells.append(
                {
                    "value": fmt_value(m, v),
                    "ci": _ci_span(m, ci),
                    "note": note,
                    "scheme": scheme,
                }
            )
        rows.append(
            {
                "group": g["group"],
                "excluded": bool(g.get("excluded")),
                "reference": g["group"] == p.get("reference"),
                "cells": cells,
            }
        )
    overall = []
    summary = p.get("summary") or {}
    for m in metrics:
        o = (summary.get(m) or {}).get("overall") or {}
        overall.append(
            {
                "value": fmt_value(m, o.get("value")),
                "ci": _ci_span(m, o.get("ci")),
                "scheme": str(o.get("scheme") or ""),
            }
        )
    has_overall = any(o["value"] != MISSING for o in overall)
    summ = []
    for m in p.get("tested_metrics") or []:
        s = summary.get(m) or {}
        if not s:
            continue
        summ.append(
            {
                "metric": metric_label(m),
                "max_gap": fmt_gap(m, s.get("max_gap")),
                "ratio": fmt_ratio(s.get("disparity_ratio")),
                "gini": fmt_number(s.get("gini"), 3),
                "wstd": fmt_value(m, s.get("weighted_std")),
                "best": s.get("best_group") or "–",
                "worst": s.get("worst_group") or "–",
            }
        )
    return {
        "metrics": [metric_short(m) for m in metrics],
        "rows": rows,
        "overall": overall if has_overall else None,
        "summary": summ,
        "has_ci": any(c["ci"] for r in rows for c in r["cells"]),
    }


def _gap_rows(d: RunData) -> list[dict]:
    rows = []
    for c in d.payload.get("comparisons") or []:
        m = c.get("metric", "")
        label, bg, fg = verdict_style(c.get("verdict"))
        blocks = _blocks(c.get("n_blocks") or {})
        nv = c.get("no_variation") or {}
        extra = c.get("reason") or ""
        if nv:
            extra = (
                f"constant at {nv.get('value')}; rule-of-three bound "
                f"{fmt_value(m, nv.get('bound_group'))} (group), "
                f"{fmt_value(m, nv.get('bound_reference'))} (reference)"
            )
        rows.append(
            {
                "metric": metric_short(m),
                "group": c.get("group"),
                "value": fmt_value(m, c.get("value")),
                "ref": fmt_value(m, c.get("reference_value")),
                "gap": fmt_gap(m, c.get("gap")),
                "ratio": fmt_ratio(c.get("ratio")),
                "ci": fmt_ci(m, c.get("ci_low"), c.get("ci_high")),
                "p": fmt_p(c.get("p_value")),
                "p_adj": fmt_p(c.get("p_adjusted")),
                "mde": fmt_value(m, c.get("mde")),
                "effect": fmt_number(c.get("effect_size"), 2),
                "estimator": str(c.get("estimator") or "–"),
                "blocks": blocks,
                "design": str(c.get("design") or "").replace("_", " "),
                "verdict": label,
                "bg": bg,
                "fg": fg,
                "flags": ", ".join(str(f).replace("_", " ") for f in c.get("flags") or []),
                "extra": extra,
            }
        )
    return rows


def _blocks(nb: dict) -> str:
    """``5 + 5 speakers, 30 contents, 20 + 20 items`` from a comparison's block counts."""
    bits = []
    for what, g, r in (
        ("speakers", "group_speakers", "reference_speakers"),
        ("items", "group_items", "reference_items"),
    ):
        if nb.get(g) is not None or nb.get(r) is not None:
            bits.append(f"{nb.get(g, '–')} + {nb.get(r, '–')} {what}")
    if nb.get("contents") is not None:
        bits.insert(1 if bits else 0, f"{nb['contents']} contents")
    return ", ".join(bits)


def _confusions(d: RunData) -> list[dict]:
    out = []
    for kind, what in (("intent_confusion", "Intent"), ("confusion", "Label")):
        for g, conf in (d.payload.get(kind) or {}).items():
            mat = conf.get("matrix") or []
            top = max((v for row in mat for v in row), default=0) or 1
            rows = [
                {
                    "true": t,
                    "cells": [{"n": v, "alpha": round(0.08 + 0.8 * v / top, 2)} for v in row],
                }
                for t, row in zip(conf.get("true") or [], mat)
            ]
            out.append(
                {"group": g, "what": what, "predicted": conf.get("predicted") or [], "rows": rows}
            )
    return out


def _representation(d: RunData) -> dict | None:
    rep = d.payload.get("representation")
    if not rep:
        return None
    if rep.get("error"):
        return {"error": rep["error"]}
    leak = rep.get("leakage") or {}
    rows = [
        ("Silhouette (cosine, by group)", _num3(rep.get("silhouette"))),
        ("Structure threshold", _num3(rep.get("threshold"))),
        ("Structure", "yes" if rep.get("structure") else "no"),
    ]
    if isinstance(leak, dict):
        for k, v in leak.items():
            shown = str(v) if isinstance(v, (int, str)) and not isinstance(v, bool) else _num3(v)
            rows.append((f"Leakage probe: {k.replace('_', ' ')}", shown))
    else:
        rows.append(("Leakage", _num3(leak)))
    cases = [
        (metric_label(m), str(c).replace("_", " ")) for m, c in (rep.get("cases") or {}).items()
    ]
    return {"error": None, "rows": rows, "cases": cases, "n_items": rep.get("n_items")}


def _grounding(d: RunData) -> dict | None:
    ex = d.payload.get("explain")
    comps = [c for c in d.payload.get("comparisons") or [] if c.get("metric") == "grounding_lift"]
    if not ex and not comps:
        return None
    ex = ex or {}
    per_group = []
    for g in d.payload.get("groups") or []:
        v = (g.get("values") or {}).get("grounding_lift", g.get("grounding_lift"))
        if v is not None:
            per_group.append(
                {
                    "group": g["group"],
                    "lift": fmt_ratio(v),
                    "ci": fmt_interval("grounding_lift", (g.get("ci") or {}).get("grounding_lift")),
                    "n": (ex.get("items_explained") or {}).get(g["group"], "–"),
                }
            )
    return {
        "method": ex.get("method"),
        "regions": ex.get("regions"),
        "aligner": ex.get("aligner"),
        "per_group": per_group,
        "comparisons": [
            {
                "group": c.get("group"),
                "lift": fmt_ratio(c.get("value")),
                "ref": fmt_ratio(c.get("reference_value")),
                "ratio": fmt_ratio(c.get("ratio")),
                "gap": fmt_gap("grounding_lift", c.get("gap")),
                "p_adj": fmt_p(c.get("p_adjusted")),
                "verdict": verdict_style(c.get("verdict"))[0],
            }
            for c in comps
        ],
        "failures": ex.get("failures") or [],
    }


def _num3(v) -> str:
    return fmt_number(v, 3)


def rank_items(items):
    """Items worst first (the ranking of ``fairdesk show``)."""
    from ..review import rank_failures

    return rank_failures(items)


def _worst(d: RunData, per_group: int, embed_audio: bool, skipped: list[str]) -> list[dict]:
    if d.items.empty or per_group <= 0 or "group" not in d.items.columns:
        return []
    norm = normaliser(d.settings, d.language)
    out = []
    ranked = rank_items(d.items)
    for g in [x["group"] for x in d.payload.get("groups") or [] if not x.get("excluded")]:
        rows = ranked[ranked["group"].astype(str) == str(g)].head(per_group)
        entries = []
        for r in rows.to_dict(orient="records"):
            ops = align_texts(r.get("reference"), r.get("hypothesis"), norm)
            n_err = sum(1 for o in ops if o.op != "=")
            if n_err == 0 and not r.get("em") == 0:
                continue
            audio = None
            if embed_audio:
                audio = _opus_uri(d.audio_path(r), skipped, str(r.get("id")))
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


def _opus_uri(path, skipped: list[str], item: str) -> str | None:
    """The clip as Ogg/Opus (libsndfile's encoder) in a ``data:`` URI; None if unreadable."""
    import soundfile as sf

    from ..core import audio as audio_io
    from ..core.errors import AudioError

    if path is None:
        skipped.append(f"{item}: the run's dataset is gone, no audio")
        return None
    try:
        samples = audio_io.load(path).samples
    except AudioError as exc:
        skipped.append(f"{item}: {exc.reason}")
        return None
    buf = io.BytesIO()
    sf.write(buf, samples, audio_io.SAMPLE_RATE, format="OGG", subtype="OPUS")
    return "data:audio/ogg;codecs=opus;base64," + base64.b64encode(buf.getvalue()).decode()


def _definitions(d: RunData) -> list[dict]:
    from ..core.demo import resources_dir

    path = resources_dir() / "reports" / "definitions.md"
    sections: list[dict] = []
    cur = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            key, _, title = line[3:].partition("|")
            cur = {"id": key.strip(), "title": title.strip(), "text": []}
            sections.append(cur)
        elif cur is not None and line.strip():
            cur["text"].append(line.strip())
    p = d.payload
    used = set(p.get("tested_metrics") or []) | set(p.get("descriptive_metrics") or [])
    if p.get("representation"):
        used.add("representation")
    if p.get("explain"):
        used.add("grounding_lift")
    if "ter" in used or "der" in used:
        used |= {"der", "ter"}
    keep = [s for s in sections if "(always)" in s["title"] or s["id"] in used]
    for s in keep:
        s["title"] = s["title"].replace(" (always)", "")
        s["text"] = " ".join(s["text"])
    return keep


def _failures(d: RunData) -> dict:
    p = d.payload
    probs = []
    for pr in p.get("prediction_problems") or []:
        if isinstance(pr, dict):
            probs.append(f"line {pr.get('row')}: {pr.get('key') or ''} {pr.get('reason')}")
        else:
            probs.append(str(pr))
    return {
        "failures": p.get("failures") or [],
        "excluded": p.get("excluded") or [],
        "notes": p.get("notes") or [],
        "prediction_problems": probs,
        "problems": p.get("problems") or [],
    }


# -- assembling ----------------------------------------------------------------------------
def report_context(d: RunData, embed_audio: bool = False, worst: int = 3) -> dict:
    """Everything the template shows, as plain (unescaped) values."""
    from .charts import report_charts, svg_text
    from .phones import phones_context

    skipped: list[str] = []
    charts = []
    for i, ch in enumerate(report_charts(d.payload, confusion=False)):
        charts.append(
            {"title": ch.title, "caption": ch.caption, "svg": svg_text(ch.figure, prefix=f"f{i}")}
        )
    p = d.payload
    return {
        "title": f"fairdesk audit: {p.get('model') or d.model_key} on "
        f"{p.get('dataset') or 'a table'} (run {d.run_id})",
        "audited": _audited(d),
        "corpus": _corpus(d),
        "cards": [_card(c) for c in p.get("comparisons") or []],
        "groups": _group_values(d),
        "gaps": _gap_rows(d),
        "charts": charts,
        "confusions": _confusions(d),
        "representation": _representation(d),
        "grounding": _grounding(d),
        "phones": phones_context(p),
        "worst": _worst(d, worst, embed_audio, skipped),
        "worst_n": worst,
        "failures": _failures(d),
        "definitions": _definitions(d),
        "reference": p.get("reference"),
        "audio_skipped": skipped,
        "version": __version__,
        "short_group": short_group,
        "model_based": model_based_section(d),
        "regressions": regression_sections(d),
        "pitfalls": pitfalls_section(d),
        "sensitivity": sensitivity_section(d),
    }


def render(context: dict) -> str:
    """The HTML text of a report context (jinja2, autoescape on)."""
    import jinja2
    from markupsafe import Markup

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    ctx = dict(context)
    ctx["charts"] = [{**c, "svg": Markup(c["svg"])} for c in context["charts"]]
    ctx["regressions"] = [
        {**r, "charts": [{**c, "svg": Markup(c["svg"])} for c in r["charts"]]}
        for r in context.get("regressions") or []
    ]
    for key in ("model_based", "pitfalls", "sensitivity"):
        ctx.setdefault(key, None)
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
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    out = ReportFiles(path, audio_skipped=list(ctx["audio_skipped"]))
    if pdf is not None:
        from .pdf import write_pdf

        out.pdf = write_pdf(render({**ctx, "worst": _strip_audio(ctx["worst"])}), pdf)
    if figures is not None:
        from .charts import save_figures

        out.figures = save_figures(d.payload, figures)
    return out


def _strip_audio(worst: list[dict]) -> list[dict]:
    return [{**g, "items": [{**i, "audio": None} for i in g["items"]]} for g in worst]
