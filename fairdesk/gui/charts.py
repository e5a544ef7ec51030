"""Charts of a result: each group's gap with its 95% CI (pyqtgraph) and the disparity radar
(QPainter). They only render the stored result dict."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from .theme import metric_label, metric_short, pct, verdict_style

pg.setConfigOptions(antialias=True, background="w", foreground="#222222")


def short_group(label: str) -> str:
    """``accent=en-gb × gender=male`` → ``en-gb × male`` (axis labels)."""
    return " × ".join(p.split("=", 1)[-1] for p in str(label).split(" × "))


class GapPlot(pg.GraphicsLayoutWidget):
    """One plot per tested metric: each group's gap to the reference (percentage points)
    with its 95% bootstrap CI as error bars, points coloured by verdict, a line at 0."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plots: dict[str, pg.PlotItem] = {}
        self.setMinimumHeight(200)

    def set_result(self, result: dict | None) -> None:
        self.clear()
        self.plots.clear()
        if not result:
            return
        comps = result.get("comparisons") or []
        metrics = [m for m in (result.get("tested_metrics") or []) if
                   any(c["metric"] == m for c in comps)]
        ncols = 2 if len(metrics) > 1 else 1
        ref = result.get("reference")
        for k, metric in enumerate(metrics):
            rows = [c for c in comps if c["metric"] == metric]
            p = self.addPlot(row=k // ncols, col=k % ncols)
            self.plots[metric] = p
            self._draw(p, metric, rows, ref)

    @staticmethod
    def _draw(p: pg.PlotItem, metric: str, rows: list[dict], ref) -> None:
        p.setTitle(f"<b>{metric_short(metric)}</b> gap vs {short_group(ref)} "
                   "<span style='color:#666'>(percentage points, 95% CI)</span>", size="10pt")
        p.showGrid(x=False, y=True, alpha=0.25)
        p.setMenuEnabled(False)
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        x = np.arange(len(rows), dtype=float)

        def num(v):
            return float(v) * 100 if v is not None else math.nan

        y = np.array([num(r.get("gap")) for r in rows])
        lo = np.array([num(r.get("ci_low")) for r in rows])
        hi = np.array([num(r.get("ci_high")) for r in rows])
        ok = np.isfinite(y) & np.isfinite(lo) & np.isfinite(hi)
        p.addItem(pg.InfiniteLine(pos=0, angle=0,
                                  pen=pg.mkPen("#444444", width=1.5, style=Qt.DashLine)))
        if ok.any():
            err = pg.ErrorBarItem(x=x[ok], y=y[ok], top=(hi - y)[ok], bottom=(y - lo)[ok],
                                  beam=0.22, pen=pg.mkPen("#37474f", width=2))
            p.addItem(err)
        brushes = [pg.mkBrush(verdict_style(r.get("verdict", ""))[1]) for r in rows]
        fin = np.isfinite(y)
        scatter = pg.ScatterPlotItem(x=x[fin], y=y[fin], size=13,
                                     brush=[b for b, f in zip(brushes, fin) if f],
                                     pen=pg.mkPen("#263238", width=1))
        p.addItem(scatter)
        ax = p.getAxis("bottom")
        ax.setTicks([[(float(i), short_group(r["group"])) for i, r in enumerate(rows)]])
        ax.setStyle(tickFont=QFont(QFont().family(), 9))
        p.getAxis("left").setLabel("gap (pp)")
        span = np.concatenate([lo[ok], hi[ok], [0.0]]) if ok.any() else np.array([-1.0, 1.0])
        pad = max(0.5, (span.max() - span.min()) * 0.12)
        p.setYRange(span.min() - pad, span.max() + pad, padding=0)
        p.setXRange(-0.6, len(rows) - 0.4, padding=0)


class RadarWidget(QWidget):
    """Disparity radar: one axis per group, the polygon of one metric's group values, the
    reference group's value as a dashed ring; vertices coloured by verdict."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.metric_box = QComboBox()
        self.caption = QLabel()
        self.caption.setObjectName("muted")
        self.caption.setWordWrap(True)
        self.canvas = _RadarCanvas()
        top = QHBoxLayout()
        top.addWidget(QLabel("Metric"))
        top.addWidget(self.metric_box)
        top.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.canvas, 1)
        lay.addWidget(self.caption)
        self._result: dict | None = None
        self.metric_box.currentIndexChanged.connect(self._redraw)

    def set_result(self, result: dict | None) -> None:
        self._result = result
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        if result:
            for m in result.get("tested_metrics") or []:
                self.metric_box.addItem(metric_label(m), m)
        self.metric_box.blockSignals(False)
        self._redraw()

    def set_metric(self, metric: str) -> None:
        i = self.metric_box.findData(metric)
        if i >= 0:
            self.metric_box.setCurrentIndex(i)

    def _redraw(self, *_):
        r, m = self._result, self.metric_box.currentData()
        if not r or not m:
            self.canvas.set_data([], None, m)
            self.caption.setText("")
            return
        verdicts = {c["group"]: c.get("verdict") for c in r.get("comparisons") or []
                    if c["metric"] == m}
        ref = r.get("reference")
        pts = []
        for g in r.get("groups") or []:
            if g.get("excluded"):
                continue
            v = (g.get("values") or {}).get(m, g.get(m))
            pts.append((g["group"], v, "reference" if g["group"] == ref else verdicts.get(
                g["group"], "")))
        self.canvas.set_data(pts, ref, m)
        s = (r.get("summary") or {}).get(m) or {}
        bits = []
        if s.get("worst_group") is not None:
            bits.append(f"worst: <b>{short_group(s['worst_group'])}</b>")
        if s.get("best_group") is not None:
            bits.append(f"best: <b>{short_group(s['best_group'])}</b>")
        if s.get("disparity_ratio") is not None:
            bits.append(f"disparity ratio {s['disparity_ratio']:.2f}")
        if s.get("gini") is not None:
            bits.append(f"Gini {s['gini']:.3f}")
        self.caption.setText(f"{metric_label(m)} by group — " + " · ".join(bits))


class _RadarCanvas(QWidget):
    def __init__(self):
        super().__init__()
        self.setMinimumSize(300, 220)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.points: list[tuple[str, float | None, str]] = []
        self.reference = None
        self.metric_id = None

    def set_data(self, points, reference, metric) -> None:
        self.points, self.reference, self.metric_id = list(points), reference, metric
        self.update()

    def paintEvent(self, _event):  # noqa: N802 - Qt API
        p = QPainter(self)
        try:
            self._paint(p)
        finally:
            p.end()

    def _paint(self, p: QPainter) -> None:
        p.setRenderHint(QPainter.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        pts = [(g, float(v), verdict) for g, v, verdict in self.points
               if v is not None and math.isfinite(float(v))]
        if len(pts) < 2:
            p.setPen(QColor("#777777"))
            p.drawText(self.rect(), Qt.AlignCenter, "The radar needs at least two groups.")
            return
        w, h = self.width(), self.height()
        radius = max(40.0, min((w - 260) / 2, (h - 80) / 2))
        c = QPointF(w / 2, h / 2 + 4)
        top = max(v for _, v, _ in pts)
        scale_max = _nice_ceiling(top) if top > 0 else 1.0
        n = len(pts)

        def at(i, value):
            a = -math.pi / 2 + 2 * math.pi * i / n
            r = radius * (value / scale_max)
            return QPointF(c.x() + r * math.cos(a), c.y() + r * math.sin(a))

        small = QFont(self.font())
        small.setPointSize(8)
        p.setFont(small)
        for k in range(1, 5):  # rings with their values
            val = scale_max * k / 4
            ring = QPolygonF([at(i, val) for i in range(n)])
            p.setPen(QPen(QColor("#d5d9de"), 1))
            p.setBrush(Qt.NoBrush)
            p.drawPolygon(ring)
            p.setPen(QColor("#8a939c"))
            q = at(0, val)
            p.drawText(QRectF(q.x() - 64, q.y() - 8, 60, 16), Qt.AlignRight | Qt.AlignVCenter,
                       pct(val, 1 if scale_max < 0.2 else 0))
        p.setPen(QPen(QColor("#c3c8ce"), 1))
        for i in range(n):
            p.drawLine(c, at(i, scale_max))
        ref_v = next((v for g, v, _ in pts if g == self.reference), None)
        if ref_v is not None:
            p.setPen(QPen(QColor("#222222"), 1.5, Qt.DashLine))
            p.drawPolygon(QPolygonF([at(i, ref_v) for i in range(n)]))
        poly = QPolygonF([at(i, v) for i, (_, v, _) in enumerate(pts)])
        path = QPainterPath()
        path.addPolygon(poly)
        path.closeSubpath()
        p.setPen(QPen(QColor("#1565c0"), 2.2))
        p.setBrush(QBrush(QColor(21, 101, 192, 55)))
        p.drawPath(path)
        label_font = QFont(self.font())
        label_font.setPointSize(9)
        for i, (g, v, verdict) in enumerate(pts):
            q = at(i, v)
            color = QColor("#222222") if verdict == "reference" else verdict_style(verdict)[1]
            p.setPen(QPen(QColor("#263238"), 1))
            p.setBrush(color)
            p.drawEllipse(q, 6, 6)
            a = -math.pi / 2 + 2 * math.pi * i / n
            end = QPointF(c.x() + (radius + 70) * math.cos(a),
                          c.y() + (radius + 20) * math.sin(a))
            text = f"{short_group(g)}\n{pct(v)}" + ("  (ref.)" if verdict == "reference"
                                                    else "")
            p.setFont(label_font)
            p.setPen(QColor("#1f2933"))
            box = QRectF(end.x() - 80, end.y() - 17, 160, 34)
            p.drawText(box, Qt.AlignCenter, text)


def _nice_ceiling(x: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k at or above ``x``."""
    k = math.floor(math.log10(x))
    for m in (1, 2, 2.5, 5, 10):
        v = m * 10 ** k
        if v >= x * 1.0001:
            return min(v, 1.0) if x <= 1.0 else v
    return 10 ** (k + 1)
