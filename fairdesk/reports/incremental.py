"""The report of an incremental (streaming) run: one self-contained HTML file (and PDF).

An incremental run (:mod:`fairdesk.incremental.store`) is reported as: what was run (models,
policies, chunk size, decoder settings, hardware, date), Whetten et al.'s models × policies table
(its Table 2: WER, both LATs, EO, RPS, SPR, RTF; a column per engine × policy × stream), the
per-group comparisons when the run has them, and the add/revoke timeline (Whetten et al.'s
Figure 1) of the worst streams by edit overhead, drawn with the encodings of the GUI's
Incremental tab (:mod:`fairdesk.gui.incremental.incremental_panel`): x is the computation
clock when each prediction was shown, y the word position (first word on top); an added word
is a green square with its text to the right, a revoked word a red cross at its old position
with its text to the left; a blue diamond on row -1 per update, with a grey bar from the
chunk's arrival to the prediction.

As in :mod:`fairdesk.reports.html`, every user string goes through jinja2's autoescape and
only matplotlib's SVG (which escapes its own text) is inserted as markup.
"""

from __future__ import annotations

import math
import time
from typing import Any

from .._meta import __version__
from ..core.atomic import write_text
from ..incremental.result_parts import Timeline
from ..presentation import (
    MISSING,
    count,
    fmt_count,
    fmt_number,
    fmt_p,
    timeline_points,
)
from ..presentation.estimability_words import reason_text
from ..presentation.incremental import (
    column_head,
    fmt_stream_ci,
    fmt_stream_gap,
    fmt_stream_value,
    row_help,
    row_name,
)
from .data import num, verdict_style

__all__ = [
    "incremental_context",
    "is_incremental_run",
    "timeline_chart",
    "worst_timelines",
    "write_incremental_report",
]

ADD, REVOKE, UPDATE, ARRIVAL = "#2e7d32", "#c62828", "#1565c0", "#9e9e9e"
#: Word labels drawn per timeline (the markers are always all drawn).
MAX_LABELS = 300


def is_incremental_run(project, run_id: int) -> bool:
    """Whether ``run_id`` is a stored incremental run (its ``runs.settings`` say so)."""
    from ..core.runs import run_row
    from ..incremental.store import is_incremental_settings

    r = run_row(project, int(run_id))
    return r is not None and is_incremental_settings(r["settings"])


# -- values ----------------------------------------------------------------------------------
def _table(p) -> dict | None:
    t = p.table
    cols = t.columns
    if not cols:
        return None
    engines: list[dict[str, Any]] = []
    for c in cols:
        if engines and engines[-1]["model"] == c.model:
            engines[-1]["span"] += 1
        else:
            engines.append({"model": c.model, "span": 1})
    heads = [column_head(c) for c in cols]
    rows = []
    for m in t.rows:
        cells = []
        for v in t.values.get(m) or []:
            finite = math.isfinite(num(v))
            cells.append(
                {"text": fmt_stream_value(m, v), "value": repr(float(v)) if finite else ""}
            )
        rows.append({"metric": m, "name": row_name(m), "help": row_help(m), "cells": cells})
    rows_of = [p.summary_row(c) for c in cols]
    n_items = [MISSING if r is None else fmt_count(r.n_items) for r in rows_of]
    return {"engines": engines, "heads": heads, "rows": rows, "n_items": n_items}


def _groups(p) -> list[dict]:
    metrics = p.metrics
    out = []
    for b in p.groups or ():
        run = b.stats
        model, policy, stream = b.model, b.policy, b.stream
        ms = metrics or sorted({k for g in run.groups for k in g.values or {}})
        rows = [
            {
                "group": g.group,
                "n": fmt_count(g.n_items),
                "excluded": bool(g.excluded),
                "reference": g.group == run.reference,
                "values": [fmt_stream_value(m, (g.values or {}).get(m)) for m in ms],
            }
            for g in run.groups
        ]
        comps = []
        for c in run.comparisons:
            m = c.metric or ""
            label, bg, fg = verdict_style(c.verdict)
            ci = fmt_stream_ci(m, c.ci_low, c.ci_high)
            comps.append(
                {
                    "metric": m,
                    "group": c.group,
                    "value": fmt_stream_value(m, c.value),
                    "ref": fmt_stream_value(m, c.reference_value),
                    "gap": fmt_stream_gap(m, c.gap),
                    "ci": "" if ci == MISSING else ci,
                    "p_adj": fmt_p(c.p_adjusted),
                    "verdict": label,
                    "bg": bg,
                    "fg": fg,
                }
            )
        out.append(
            {
                "title": " · ".join(x for x in (model, policy) if x)
                + ("" if stream == "displayed" else f" ({stream})"),
                "reference": run.reference,
                "metrics": ms,
                "rows": rows,
                "comparisons": comps,
                "excluded": [f"{e.group}: {reason_text(e.reason)}" for e in run.excluded],
            }
        )
    return out


def _kv(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k}={_kv(x)}" for k, x in v.items()) or "–"
    if isinstance(v, (list, tuple)):
        return ", ".join(map(_kv, v)) or "–"
    return "–" if v is None else str(v)


def _what_was_run(p, run: dict, run_id: int) -> list[tuple[str, str]]:
    t = run.get("finished_at") or run.get("created_at")
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t)) if t else "unknown"
    rows = [
        ("Run", f"{run_id} (incremental), finished {when}"),
        ("Dataset", _kv(p.dataset or None)),
        ("Items", _kv(p.n_items)),
        ("Models", _kv(p.models)),
        ("Policies", _kv(p.policies)),
        ("Chunk", f"{_kv(p.chunk_s)} s"),
        ("Split on silence", _kv(p.split) if p.split else "no"),
    ]
    for d in p.decoders:
        dec = {k: v for k, v in d.decoder.items() if k != "model"}
        rows.append(
            (
                f"Decoder: {d.model}",
                f"{_kv(dec)}; policies {_kv(list(d.policies))}; warm-up "
                f"{_kv(round(num(d.warm_up_s), 3))} s (not timed)",
            )
        )
    for pol, opts in p.policy_options.items():
        if pol in p.policies and opts:
            rows.append((f"Options: {pol}", _kv(opts)))
    rows.append(("Hardware", _kv(p.hardware)))
    if p.by:
        rows.append(("Grouped by", _kv(p.by)))
    if p.filters:
        rows.append(("Filters", _kv(p.filters)))
    if p.sample:
        rows.append(("Sample", _kv(p.sample)))
    if p.metrics:
        rows.append(("Compared metrics", _kv(p.metrics)))
    rows.append(("fairdesk", f"report by {__version__}"))
    return rows


# -- timelines -------------------------------------------------------------------------------
def _eo(tl: Timeline) -> tuple[float, int]:
    a = sum(len(e.added) for e in tl.events)
    r = sum(len(e.revoked) for e in tl.events)
    return (r / (a + r) if a + r else 0.0), r


def worst_timelines(p, n: int) -> list[Timeline]:
    """The ``n`` timelines of an :class:`~fairdesk.incremental.result.IncrementalResult`
    with the highest word-level edit overhead (ties: more revokes first, then the stored
    order)."""
    tls = list(p.timelines)
    order = sorted(range(len(tls)), key=lambda i: (-_eo(tls[i])[0], -_eo(tls[i])[1], i))
    return [tls[i] for i in order[: max(0, int(n))]]


def timeline_chart(tl: Timeline, name: str = "timeline"):
    """The add/revoke timeline of one stream as a :class:`fairdesk.reports.charts.Chart`;
    the add markers are in the SVG group ``adds``, the revokes in ``revokes``."""
    from .charts import Chart, _figure, plain

    adds, revs = timeline_points(tl)
    ev = tl.events
    top = max([q[1] for q in adds + revs], default=0)
    fig, ax = _figure(7.6, min(9.0, max(2.6, 1.3 + 0.2 * (top + 2))))
    for e in ev:
        ax.plot(
            [float(e.arrival_s), float(e.shown_s)],
            [-1, -1],
            color=ARRIVAL,
            lw=3,
            solid_capstyle="butt",
            zorder=1,
        )
    up = ax.scatter(
        [float(e.shown_s) for e in ev],
        [-1.0] * len(ev),
        marker="D",
        s=28,
        color=UPDATE,
        zorder=3,
    )
    up.set_gid("updates")
    a = ax.scatter(
        [q[0] for q in adds], [q[1] for q in adds], marker="s", s=22, color=ADD, zorder=3
    )
    a.set_gid("adds")
    r = ax.scatter(
        [q[0] for q in revs],
        [q[1] for q in revs],
        marker="x",
        s=34,
        color=REVOKE,
        linewidths=1.5,
        zorder=4,
    )
    r.set_gid("revokes")
    for colour, pts, ha, dx in ((ADD, adds, "left", 6), (REVOKE, revs, "right", -6)):
        for t, y, text in pts[: MAX_LABELS // 2]:
            ax.annotate(
                plain(text),
                (t, y),
                xytext=(dx, 0),
                textcoords="offset points",
                ha=ha,
                va="center",
                fontsize=7,
                color=colour,
            )
    ax.set_ylim(top + 0.8, -1.8)
    step = max(1, (top + 1) // 12)
    ticks = [-1] + list(range(0, top + 1, step))
    ax.set_yticks(ticks)
    ax.set_yticklabels(["updates"] + [str(k + 1) for k in ticks[1:]])
    lo, hi = ax.get_xlim()
    ax.set_xlim(lo, hi + 0.15 * (hi - lo))  # room for the last labels
    ax.set_xlabel("s (computation clock)")
    ax.set_ylabel("word position")
    ax.grid(axis="x", alpha=0.3)
    title = " · ".join(str(x) for x in (tl.item, tl.model, tl.policy) if x not in (None, ""))
    ax.set_title(plain(title), fontsize=10)
    eo, nr = _eo(tl)
    caption = (
        f"{count(len(ev), 'update')}, {count(len(adds), 'add')}, {count(nr, 'revoke')} (EO {fmt_number(eo, 3)}); "
        f"chunk {tl.chunk_s} s, audio {fmt_number(tl.duration_s, 2)} s."
    )
    return Chart(name, title, fig, caption)


def _timelines(p, worst: int) -> list[dict]:
    from .charts import svg_text

    out = []
    for i, tl in enumerate(worst_timelines(p, worst)):
        ch = timeline_chart(tl, f"timeline_{i + 1}")
        out.append(
            {
                "item": tl.item,
                "model": tl.model or "",
                "policy": tl.policy,
                "stream": tl.stream or "displayed",
                "caption": ch.caption,
                "final": tl.final_text,
                "svg": svg_text(ch.figure, prefix=f"t{i}"),
                "chart": ch,
            }
        )
    return out


# -- assembling ------------------------------------------------------------------------------
def incremental_context(project, run_id: int, worst: int = 3) -> dict:
    """Everything the template shows, as plain (unescaped) values; ``timelines[i]["chart"]``
    is the drawn :class:`~fairdesk.reports.charts.Chart`."""
    from ..core.runs import run_row
    from ..incremental.store import load_incremental

    p = load_incremental(project, int(run_id))
    run = run_row(project, int(run_id)) or {}
    n_seg = len(p.segments or ())
    models = " + ".join(map(str, p.models or ["?"]))
    return {
        "title": f"fairdesk incremental: {models} on {p.dataset or '?'} (run {run_id})",
        "what": _what_was_run(p, run, int(run_id)),
        "table": _table(p),
        "groups": _groups(p),
        "timelines": _timelines(p, worst),
        "n_timelines": len(p.timelines),
        "worst_n": worst,
        "n_segments": n_seg,
        "failures": [f"{f.model or ''} {f.item}: {f.reason}".strip() for f in p.failures],
        "version": __version__,
    }


def render_incremental(context: dict) -> str:
    """The HTML text of an incremental report context (jinja2, autoescape on)."""
    from markupsafe import Markup

    from .files import environment

    env = environment()
    ctx = dict(context)
    ctx["timelines"] = [{**t, "svg": Markup(t["svg"])} for t in context["timelines"]]
    return env.get_template("incremental.html.j2").render(**ctx)


def write_incremental_report(project, run_id: int, path, worst: int = 3, pdf=None, figures=None):
    """Write the HTML report of an incremental run; optionally the PDF and each timeline
    figure as PNG and SVG.

    Parameters
    ----------
    project : an open ``fairdesk.core.store.Project``.
    run_id : a stored incremental run of it.
    path : the HTML file to write.
    worst : timelines shown (the worst streams by edit overhead).
    pdf : a PDF file with the same content.
    figures : a folder for each timeline as ``timeline_<k>.png`` and ``.svg``.

    Returns
    -------
    fairdesk.reports.html.ReportFiles
    """
    from .files import ReportFiles

    ctx = incremental_context(project, run_id, worst)
    text = render_incremental(ctx)
    path = write_text(path, text, make_parents=True)  # complete or not at all
    out = ReportFiles(path)
    if pdf is not None:
        from .pdf import write_pdf

        out.pdf = write_pdf(text, pdf)
    if figures is not None:
        from .charts import save_chart

        for t in ctx["timelines"]:
            out.figures += save_chart(t["chart"], figures)
    return out
