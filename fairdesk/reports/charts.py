"""The result charts drawn headless with matplotlib (Agg and SVG; never Qt).

The encodings of the results pane: points coloured by verdict (the GUI's palette), the
reference group in near-black, 95% CIs as error bars, a dashed line at the reference.

* :func:`value_chart`: each group's value of a metric with its own 95% CI (the
  ``run.group(g).ci[metric]`` of the result; a point without bars when the run has none);
* :func:`gap_chart`: each group's gap to the reference with the CI of the gap;
* :func:`radar_chart`: one axis per metric, one line per group, each value divided by the
  reference group's, so the reference is the unit circle; on an axis where the reference
  value is 0 (no ratio exists) values are divided by the largest group value instead, and the
  caption and the axis label say so;
* :func:`confusion_chart`: one group's confusion matrix.

:func:`report_charts` lists every chart of a result; :func:`save_figures` writes each as PNG
and SVG (``fairdesk report --figures DIR`` and the GUI's per-chart export).

Each public function takes the result as a :class:`fairdesk.jobs.result.AuditRun` and reads it
by attribute.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..jobs.result import AuditRun
from ..jobs.result_parts import ConfusionMatrix
from ..presentation import (
    GroupRow,
    RadarScale,
    fmt_ratio,
    is_ratio,
    metric_label,
    metric_short,
    radar,
    short_group,
    small_note,
    unit,
)
from ..presentation import group_rows as present_rows
from ..presentation import scale as unit_scale
from ..presentation.rows import n_flagged
from .data import REFERENCE_COLOUR, SERIES, num, verdict_style

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

_FONT: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "svg.fonttype": "none",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "fairdesk",
}


@dataclass
class Chart:
    """A drawn chart: file-safe ``name``, ``title``, the matplotlib ``figure``, a ``caption``."""

    name: str
    title: str
    figure: Figure
    caption: str = ""


def _figure(w: float, h: float, polar: bool = False):
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_FONT):
        fig = Figure(figsize=(w, h), dpi=100, layout="constrained")
        ax = fig.add_subplot(projection="polar" if polar else None)
    return fig, ax


def plain(text) -> str:
    """A user string safe for matplotlib (``$`` would start mathtext)."""
    return str(text).replace("\\", "\\\\").replace("$", r"\$")


def _verdicts(run: AuditRun, metric: str) -> dict:
    return {c.group: c.verdict for c in run.comparisons if c.metric == metric}


def _scale(metric: str) -> float:
    return unit_scale(metric)


def _unit(metric: str) -> str:
    return unit(metric)


def group_rows(run: AuditRun, metric: str) -> list[GroupRow]:
    """One :class:`fairdesk.presentation.GroupRow` per group not excluded (display units:
    percent for rates, the ratio itself for ratios): what the report's and the GUI's value
    charts draw."""
    return present_rows(run.groups, metric, run.reference, _verdicts(run, metric))


def value_chart(run: AuditRun, metric: str) -> Chart:
    """Each analysed group's value of ``metric`` with its 95% CI (see the module doc)."""
    rows = group_rows(run, metric)
    fig, ax = _figure(max(4.0, 1.0 + 0.9 * len(rows)), 3.2)
    n_ci = 0
    for i, r in enumerate(rows):
        colour = REFERENCE_COLOUR if r.verdict == "reference" else verdict_style(r.verdict)[1]
        if r.value is not None and r.low is not None and r.high is not None:
            ax.errorbar(
                [i],
                [r.value],
                yerr=[[max(r.value - r.low, 0)], [max(r.high - r.value, 0)]],
                fmt="none",
                ecolor="#37474f",
                elinewidth=2,
                capsize=6,
                zorder=2,
            )
            n_ci += 1
        if r.value is not None:
            ax.scatter([i], [r.value], s=90, color=colour, edgecolor="#263238", zorder=3)
    ref_v = next((r.value for r in rows if r.verdict == "reference"), None)
    if ref_v is not None:
        ax.axhline(ref_v, color="#444444", ls="--", lw=1.2, zorder=1)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(
        [plain(r.label) + (" (ref.)" if r.verdict == "reference" else "") for r in rows],
        rotation=20 if len(rows) > 4 else 0,
    )
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_ylabel(f"{metric_short(metric)} ({_unit(metric)})")
    ax.grid(axis="y", alpha=0.3)
    lo, hi = ax.get_ylim()
    floor = 0.0 if not is_ratio(metric) else min(lo, 0.0)
    ax.set_ylim(floor, max(hi, floor + (1.0 if is_ratio(metric) else 5.0)))
    ax.set_title(f"{plain(metric_label(metric))} by group (95% CI)", fontsize=10)
    cap = (
        "Each group's value with its own 95% bootstrap CI; dashed line: the reference "
        "group; colours: the verdict against the reference."
    )
    if not n_ci:
        cap += " This run stored no per-group CIs (an older fairdesk), so no bars are drawn."
    return Chart(f"values_{_safe(metric)}", f"{metric_label(metric)} by group", fig, cap)


def interval_points(ax, points) -> None:
    """One point per ``(value, low, high, colour)`` at x = 0, 1, ... with its 95% CI as an
    error bar (a missing bound: no bar; a missing value: no point), over a dashed line at 0:
    the gap chart and the gap-difference chart of a comparison of systems alike."""
    ax.axhline(0, color="#444444", ls="--", lw=1.2)
    for i, (y, lo, hi, colour) in enumerate(points):
        if not any(math.isnan(x) for x in (y, lo, hi)):
            ax.errorbar(
                [i],
                [y],
                yerr=[[max(y - lo, 0)], [max(hi - y, 0)]],
                fmt="none",
                ecolor="#37474f",
                elinewidth=2,
                capsize=6,
            )
        if not math.isnan(y):
            ax.scatter([i], [y], s=90, color=colour, edgecolor="#263238", zorder=3)


def gap_chart(run: AuditRun, metric: str) -> Chart:
    """Each group's gap to the reference with the 95% CI of the gap (the GUI's gap plot)."""
    rows = [c for c in run.comparisons if c.metric == metric]
    ref = run.reference
    fig, ax = _figure(max(4.0, 1.2 + 0.9 * len(rows)), 3.0)
    k = _scale(metric)
    interval_points(
        ax,
        [
            (num(c.gap) * k, num(c.ci_low) * k, num(c.ci_high) * k, verdict_style(c.verdict)[1])
            for c in rows
        ],
    )
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(
        [plain(short_group(c.group)) for c in rows], rotation=20 if len(rows) > 4 else 0
    )
    ax.set_xlim(-0.6, max(len(rows), 1) - 0.4)
    ax.set_ylabel(f"gap ({unit(metric, gap=True)})")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(
        f"{plain(metric_short(metric))} gap vs {plain(short_group(ref))} (95% CI)", fontsize=10
    )
    return Chart(
        f"gaps_{_safe(metric)}",
        f"{metric_label(metric)}: gap to the reference",
        fig,
        "Gap (group − reference) with its 95% bootstrap CI, coloured by verdict.",
    )


#: Radar ratios above this are drawn on the rim with their value written next to them.
RADAR_MAX = 3.0


def _radar_values(run: AuditRun) -> dict:
    """Group → metric → value of the analysed groups (not the row of no values)."""
    return {g.group: dict(g.values or {}) for g in run.groups if g.compared}


def radar_scale_of(run: AuditRun) -> RadarScale:
    """The radar of a result: :func:`fairdesk.presentation.radar` (the GUI's)."""
    return radar(
        _radar_values(run),
        run.reference or "",  # a run without statistics has no reference: no group is it
        run.tested_metrics,
        run.descriptive_metrics,
        n_flagged(run),
    )


def radar_metrics(run: AuditRun) -> list[str]:
    """The radar's axes (:func:`fairdesk.presentation.radar_axes`, the GUI's)."""
    return list(radar_scale_of(run).metrics)


def radar_chart(run: AuditRun) -> Chart | None:
    """One axis per metric, one line per group, the reference as the unit circle.

    Axes where every group's value is 0 carry no information and are left out (the caption
    names them). Returns None with fewer than two analysed groups or three axes.
    """
    import numpy as np

    ref = run.reference
    if ref not in _radar_values(run):
        return None
    s = radar_scale_of(run)
    if not s.drawable:
        return None
    axes, scaled_by_max, all_zero = list(s.metrics), list(s.by_max), list(s.empty)
    angles = np.linspace(0, 2 * np.pi, len(axes), endpoint=False)
    closed = np.concatenate([angles, angles[:1]])
    fig, ax = _figure(6.4, 5.2, polar=True)
    ax.set_theta_offset(np.pi / 2)
    ax.set_theta_direction(-1)

    def ring(group):
        v = np.array(s.radius[group], dtype=float)
        return np.concatenate([v, v[:1]])

    if scaled_by_max:  # the reference is off the unit circle on those axes
        ax.plot(
            closed,
            ring(ref),
            color=REFERENCE_COLOUR,
            ls="--",
            lw=1.6,
            label=f"{plain(short_group(ref))} (reference)",
        )
    else:
        theta = np.linspace(0, 2 * np.pi, 181)
        ax.plot(
            theta,
            np.ones_like(theta),
            color=REFERENCE_COLOUR,
            ls="--",
            lw=1.6,
            label=f"{plain(short_group(ref))} (reference = 1)",
        )
    ax.set_rlabel_position(180.0 / len(axes))
    lines = [(g, ring(g)) for g in s.groups if g != ref]
    top = max([1.0] + [float(np.nanmax(v)) for _, v in lines if np.isfinite(v).any()])
    rim = min(top, RADAR_MAX)
    clipped = False
    for i, (g, line) in enumerate(lines):
        if not np.isfinite(line).any():
            continue
        colour = SERIES[i % len(SERIES)]
        shown = np.minimum(line, rim)
        ax.plot(closed, shown, color=colour, lw=2, marker="o", label=plain(short_group(g)))
        ax.fill(closed, np.nan_to_num(shown), color=colour, alpha=0.08)
        for a, v in zip(closed[:-1], line[:-1]):
            if np.isfinite(v) and v > rim:
                clipped = True
                ax.annotate(
                    fmt_ratio(v, 1),
                    (a, rim),
                    textcoords="offset points",
                    xytext=(6, 4),
                    fontsize=7,
                    color=colour,
                )
    ax.set_xticks(angles)
    ax.set_xticklabels(
        [plain(metric_short(m)) + (" *" if m in scaled_by_max else "") for m in axes]
    )
    ax.set_ylim(0, max(1.2, rim * 1.08))
    ax.legend(loc="upper right", bbox_to_anchor=(1.35, 1.12), fontsize=8, frameon=False)
    ax.set_title("Group value ÷ reference value, per metric", fontsize=10, pad=18)
    cap = (
        "One axis per metric, one line per group; each value is divided by the reference "
        "group's, so the reference is the dashed unit circle and a line outside it is "
        "higher than the reference (worse for error rates, better for accuracies)."
    )
    if scaled_by_max:
        cap += (
            " * The reference value is 0 on "
            + ", ".join(metric_short(m) for m in scaled_by_max)
            + ": no ratio exists there, so those axes are divided by the largest group "
            "value instead (the worst group reaches 1, the reference sits at 0)."
        )
    if clipped:
        cap += f" Ratios above {RADAR_MAX:g}× sit on the rim with their value written next to them."
    if all_zero:
        cap += (
            " Left out because every group is at 0: "
            + ", ".join(metric_short(m) for m in all_zero)
            + "."
        )
    if s.small:
        cap += " " + small_note(s, metric_short)
    return Chart("radar", "Disparity radar", fig, cap)


def confusion_chart(group: str, conf: ConfusionMatrix, kind: str = "confusion") -> Chart:
    """One group's confusion matrix (rows: true, columns: predicted; ``kind``
    ``intent_confusion`` or ``confusion``)."""
    import numpy as np

    mat = np.asarray(conf.matrix or [[0]], dtype=float)
    true, pred = conf.true or (), conf.predicted or ()
    fig, ax = _figure(max(3.2, 1.6 + 0.55 * len(pred)), max(2.6, 1.2 + 0.45 * len(true)))
    ax.imshow(mat, cmap="Blues", aspect="auto")
    for (r, c), v in np.ndenumerate(mat):
        ax.text(
            c,
            r,
            f"{int(v)}",
            ha="center",
            va="center",
            color="white" if v > mat.max() / 2 else "#1a1a1a",
            fontsize=8,
        )
    ax.set_xticks(range(len(pred)))
    ax.set_xticklabels([plain(p) for p in pred], rotation=35, ha="right")
    ax.set_yticks(range(len(true)))
    ax.set_yticklabels([plain(t) for t in true])
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    what = "intent" if kind == "intent_confusion" else "label"
    ax.set_title(f"{plain(short_group(group))}: {what} confusion", fontsize=10)
    return Chart(f"{kind}_{_safe(group)}", f"{short_group(group)}: {what} confusion", fig)


def report_charts(run: AuditRun, confusion: bool = True) -> list[Chart]:
    """Every chart of a result, in report order (``confusion=False``: without the confusion
    matrices, which the HTML report shows as tables)."""
    charts: list[Chart] = []
    for m in run.tested_metrics:
        charts.append(value_chart(run, m))
    for m in run.tested_metrics:
        if any(c.metric == m for c in run.comparisons):
            charts.append(gap_chart(run, m))
    radar = radar_chart(run)
    if radar is not None:
        charts.append(radar)
    blocks = (("intent_confusion", run.intent_confusion), ("confusion", run.confusion))
    for kind, block in blocks if confusion else ():
        for g, conf in (block or {}).items():
            charts.append(confusion_chart(g, conf, kind))
    return charts


def _safe(text) -> str:
    s = re.sub(r"[^0-9A-Za-z._-]+", "-", str(text)).strip("-")
    return s or "chart"


def svg_text(fig, prefix: str = "c") -> str:
    """The figure as an inline ``<svg>`` element: no XML prolog, DOCTYPE or metadata, and
    every id prefixed (several charts share one HTML page)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_FONT):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    s = buf.getvalue()
    s = s[s.index("<svg") :]
    s = re.sub(r"<metadata>.*?</metadata>", "", s, flags=re.S)
    s = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', s)
    s = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"', s)
    s = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", s)
    return s


def png_bytes(fig, dpi: int = 150) -> bytes:
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context(_FONT):
        fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def save_chart(chart: Chart, folder) -> list[Path]:
    """Write one chart as ``<name>.png`` and ``<name>.svg`` in ``folder``."""
    import matplotlib

    from ..core.atomic import atomic_write, make_folder

    folder = make_folder(folder, "the figures")
    out = []
    with matplotlib.rc_context(_FONT):
        for ext in ("png", "svg"):
            path = folder / f"{chart.name}.{ext}"
            with atomic_write(path, "wb") as f:  # complete or not at all
                chart.figure.savefig(f, format=ext, dpi=150, metadata={"Date": None})
            out.append(path)
    return out


def export_chart(chart: Chart, path) -> Path:
    """Write one chart to ``path`` as PNG, SVG or PDF, chosen by the extension (what the
    GUI's per-chart "Export as PNG/SVG" calls)."""
    import matplotlib

    path = Path(path)
    ext = path.suffix.lower().lstrip(".")
    if ext not in ("png", "svg", "pdf"):
        raise ValueError(f"{path}: save a chart as .png, .svg or .pdf")
    from ..core.atomic import atomic_write

    with matplotlib.rc_context(_FONT), atomic_write(path, "wb", make_parents=True) as f:
        chart.figure.savefig(
            f,
            format=ext,
            dpi=150,
            metadata={"Date": None} if ext != "pdf" else {"CreationDate": None},
        )
    return path


def save_figures(run: AuditRun, folder, more=None) -> list[Path]:
    """Every chart of a result as PNG and SVG in ``folder``, all or none
    (:func:`fairdesk.core.atomic.atomic_folder`); ``more(tmp)`` writes further charts into
    the same folder before it is put in place. Returns the files written (in ``folder``)."""
    from ..core.atomic import atomic_folder

    folder = Path(folder)
    paths: list[Path] = []
    with atomic_folder(folder, "the figures") as tmp:
        for chart in report_charts(run):
            paths += save_chart(chart, tmp)
        if more is not None:
            paths += more(tmp)
    return [folder / p.relative_to(tmp) for p in paths]
