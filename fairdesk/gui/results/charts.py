"""Group error bars (docs/METHODS.md, "Group values and their intervals"): each group's value of each metric with its 95% CI, the
reference's value as a dashed line, points coloured by the group's verdict. pyqtgraph; the
chart only renders the run's typed result (:class:`~fairdesk.jobs.result.AuditRun`). (The
radar is in :mod:`fairdesk.gui.results.radar`.)

The per-group CIs are ``run.group(name).ci[metric] = [low, high]``; runs stored before they
existed have none, and their points are drawn without error bars.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from ...jobs.result import AuditRun
from ...presentation import GroupRow, is_ratio, metric_short, short_group
from ...presentation import group_rows as present_rows
from ...presentation.rows import value_metrics
from ...reports.charts import group_rows  # noqa: F401 - the report's rows, the same
from ..widgets.theme import esc, verdict_style

pg.setConfigOptions(antialias=True, background="w", foreground="#222222")


def value_rows(run: AuditRun, metric: str) -> list[GroupRow]:
    """The analysed groups' values of ``metric`` with their CIs and verdicts (the rows the
    report's value chart draws, :func:`fairdesk.reports.charts.group_rows`)."""
    verdicts = {c.group: c.verdict for c in run.comparisons if c.metric == metric}
    return present_rows(run.groups, metric, run.reference, verdicts)


class GroupValuePlot(pg.GraphicsLayoutWidget):
    """One plot per tested metric: every group's value with its 95% CI as an error bar."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plots: dict[str, pg.PlotItem] = {}
        self.has_ci = False
        self.setMinimumHeight(200)

    def set_result(self, run: AuditRun | None) -> None:
        """Plot a run."""
        self.clear()
        self.plots.clear()
        self.has_ci = False
        if run is None:
            return
        rows = {m: value_rows(run, m) for m in value_metrics(run)}
        metrics = [m for m, rs in rows.items() if any(r.value is not None for r in rs)]
        ncols = 2 if len(metrics) > 1 else 1
        # 160 px a row of plots, so six metrics do not squeeze into 40-px strips (the tab
        # scrolls instead)
        self.setMinimumHeight(max(200, 160 * ((len(metrics) + ncols - 1) // ncols)))
        for k, metric in enumerate(metrics):
            p = self.addPlot(row=k // ncols, col=k % ncols)
            self.plots[metric] = p
            self._draw(p, metric, rows[metric], run.reference)
        if metrics and not self.has_ci:
            self.addLabel(
                "<span style='color:#5f6b7a'>This run was stored without per-group "
                "confidence intervals: each group's value is shown without an error "
                "bar (audit again to get them).</span>",
                row=(len(metrics) + ncols - 1) // ncols,
                col=0,
                colspan=ncols,
                size="9pt",
            )

    def _draw(self, p: pg.PlotItem, metric: str, rows: list[GroupRow], ref) -> None:
        unit = "×" if is_ratio(metric) else "%"
        p.setTitle(
            f"<b>{esc(metric_short(metric))}</b> by group <span style='color:#666'>"
            f"(value and 95% CI; dashed: reference {esc(short_group(ref))})</span>",
            size="10pt",
        )
        p.showGrid(x=False, y=True, alpha=0.25)
        p.setMenuEnabled(False)
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        x = np.arange(len(rows), dtype=float)
        nan = float("nan")
        y = np.array([r.value if r.value is not None else nan for r in rows])
        lo = np.array([r.low if r.low is not None else nan for r in rows])
        hi = np.array([r.high if r.high is not None else nan for r in rows])
        ok = np.isfinite(y) & np.isfinite(lo) & np.isfinite(hi)
        ref_v = next((r.value for r in rows if r.group == ref), None)
        if ref_v is not None:
            p.addItem(
                pg.InfiniteLine(
                    pos=ref_v, angle=0, pen=pg.mkPen("#444444", width=1.3, style=Qt.DashLine)
                )
            )
        if ok.any():
            self.has_ci = True
            p.addItem(
                pg.ErrorBarItem(
                    x=x[ok],
                    y=y[ok],
                    top=(hi - y)[ok],
                    bottom=(y - lo)[ok],
                    beam=0.22,
                    pen=pg.mkPen("#37474f", width=2),
                )
            )
        fin = np.isfinite(y)
        brushes = [
            pg.mkBrush("#222222" if r.verdict == "reference" else verdict_style(r.verdict or "")[1])
            for r in rows
        ]
        p.addItem(
            pg.ScatterPlotItem(
                x=x[fin],
                y=y[fin],
                size=12,
                brush=[b for b, f in zip(brushes, fin) if f],
                pen=pg.mkPen("#263238", width=1),
            )
        )
        ax = p.getAxis("bottom")
        ax.setTicks([[(float(i), r.label) for i, r in enumerate(rows)]])
        ax.setStyle(tickFont=QFont(QFont().family(), 9))
        left = p.getAxis("left")
        left.enableAutoSIPrefix(False)  # no "(x0.001)" on the axis
        left.setLabel("lift (×)" if is_ratio(metric) else f"{metric_short(metric)} ({unit})")
        span = np.concatenate([y[fin], lo[ok], hi[ok]])
        if span.size:
            lo_, hi_ = float(span.min()), float(span.max())
            if not is_ratio(metric):
                lo_ = min(lo_, 0.0)
            pad = max(0.02 if is_ratio(metric) else 1.0, (hi_ - lo_) * 0.15)
            p.setYRange(lo_ - (pad * 0.3 if lo_ == 0 else pad), hi_ + pad, padding=0)
        p.setXRange(-0.6, len(rows) - 0.4, padding=0)
