"""The disparity radar (after the fairness-slicing panel, docs/METHODS.md, "Sources"): one axis per metric, one line per group, each axis scaled
so that the reference group lies on the unit circle.

:func:`fairdesk.presentation.radar` is the pure computation (tested with known answers;
the report's chart draws the same); :class:`RadarWidget` only draws what it returns. Where the reference's value on a metric is 0 (a perfect WER, say)
the ratio is undefined: that axis is scaled by the largest group value instead (the largest
group sits on the unit circle, the reference at the centre), and the chart says so.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ...jobs.result import AuditRun
from ...presentation import (
    RadarScale,
    fmt_value,
    higher_is_better,
    metric_short,
    radar,
    radar_axes,
    short_group,
    small_note,
)
from ...presentation.rows import n_flagged
from ..widgets.fit_scroll import FitScrollArea
from ..widgets.theme import SERIES, esc


def radar_inputs(run: AuditRun) -> tuple[dict, str | None, list[str]]:
    """(group -> metric -> value, reference, metrics) of a run, groups not excluded; the metrics are
    :func:`fairdesk.presentation.radar_axes` (the report's)."""
    vals = {g.group: dict(g.values or {}) for g in run.groups if g.compared}
    metrics, _zero = radar_axes(vals, run.tested_metrics, run.descriptive_metrics, n_flagged(run))
    return vals, run.reference, metrics


class RadarWidget(QWidget):
    """The radar with a caption naming the reference and any axis scaled by its maximum."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.canvas = RadarCanvas()
        self.caption = QLabel()
        self.caption.setObjectName("muted")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.RichText)
        page = QWidget()
        lay = QVBoxLayout(page)
        lay.addWidget(self.canvas, 1)
        lay.addWidget(self.caption)
        # below the canvas' minimum (a 700-px screen) the tab scrolls: the caption used to be
        # drawn over the chart's lower axis label
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(FitScrollArea(page))
        self.scale: RadarScale | None = None

    def set_result(self, run: AuditRun | None) -> None:
        """Draw a run."""
        if run is None:
            self.scale = None
            self.canvas.set_scale(None, {})
            self.caption.setText("")
            return
        vals, ref, metrics = radar_inputs(run)
        if ref not in vals or not metrics:
            self.scale = None
            self.canvas.set_scale(None, {})
            self.caption.setText("No reference group with values: nothing to scale by.")
            return
        self.scale = radar(vals, ref, run.tested_metrics, run.descriptive_metrics, n_flagged(run))
        self.canvas.set_scale(self.scale, vals)
        notes = [
            f"Each axis is one metric, each line one group, scaled so that the reference "
            f"<b>{esc(ref)}</b> is the dashed unit circle: a point at 1.5 is 1.5× the "
            "reference's value."
        ]
        if self.scale.by_max:
            notes.append(
                "The reference's value is 0 on "
                + ", ".join(metric_short(m) for m in self.scale.by_max)
                + ": those axes are scaled by the "
                "largest group value instead (marked * on the chart)."
            )
        if self.scale.empty:
            notes.append(
                "Every group is at 0 on "
                + ", ".join(metric_short(m) for m in self.scale.empty).rstrip(".")
                + "."
            )
        if self.scale.small:
            notes.append(esc(small_note(self.scale, metric_short)))
        self.caption.setText(" ".join(notes))


class RadarCanvas(QWidget):
    """Draws a :class:`RadarScale` (QPainter; text drawn as plain text)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(320, 200)  # with its caption: fits the sub-tab at 1366x768
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.scale: RadarScale | None = None
        self.values: dict = {}

    def set_scale(self, scale: RadarScale | None, values: dict) -> None:
        self.scale, self.values = scale, values
        self.update()

    @staticmethod
    def _group_label(s, gi: int) -> str:
        return short_group(s.groups[gi]) + ("  (reference)" if gi == 0 else "")

    def _reference_lines(self, s) -> list[str]:
        """The legend's lines under the groups: each metric's reference value (and the
        maximum an axis is scaled by)."""
        ref, out = s.groups[0], []
        for m in s.metrics:
            v = (self.values.get(ref) or {}).get(m)
            lab = f"{metric_short(m)}: reference {fmt_value(m, v) or '–'}"
            if m in s.by_max:
                lab += f"; 1 = max {fmt_value(m, s.divisor[m])}"
            out.append(lab)
        return out

    def _legend_width(self, s) -> int:
        """Wide enough for the longest group name and reference line (190 px at least, at
        most 40% of the chart); what is longer still wraps instead of being cut."""
        label_font = QFont(self.font())
        label_font.setPointSize(9)
        small = QFont(self.font())
        small.setPointSize(8)
        fm, sm = QFontMetrics(label_font), QFontMetrics(small)
        names = [fm.horizontalAdvance(self._group_label(s, i)) + 40 for i in range(len(s.groups))]
        refs = [sm.horizontalAdvance(t) + 14 for t in self._reference_lines(s)]
        return int(min(max([190, *names, *refs]), max(190, 0.4 * self.width())))

    def paintEvent(self, _event):  # noqa: N802 - Qt API
        p = QPainter(self)
        try:
            self._paint(p)
        finally:
            p.end()

    def _paint(self, p: QPainter) -> None:
        p.setRenderHint(QPainter.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        s = self.scale
        if s is None or not s.drawable:
            p.setPen(QColor("#777777"))
            p.drawText(
                self.rect(),
                Qt.AlignCenter,
                "The radar needs a reference group, another group and at least three metrics "
                "with values.",
            )
            return
        legend_w = self._legend_width(s)
        w, h = self.width() - legend_w, self.height()
        line = QFontMetrics(self.font()).height()
        radius = max(40.0, min((w - 240) / 2, (h - 4 * line - 40) / 2))
        c = QPointF(w / 2, h / 2)
        n, outer = len(s.metrics), s.outer

        def at(k, r):
            a = -math.pi / 2 + 2 * math.pi * k / n
            rr = radius * r / outer
            return QPointF(c.x() + rr * math.cos(a), c.y() + rr * math.sin(a))

        small = QFont(self.font())
        small.setPointSize(8)
        p.setFont(small)
        ring = 0.5
        label_every = max(1, math.ceil(14 / max(radius / outer, 1e-9)))
        while ring <= outer + 1e-9:  # rings every 0.5× of the reference
            p.setPen(QPen(QColor("#d5d9de"), 1))
            p.setBrush(Qt.NoBrush)
            p.drawPolygon(QPolygonF([at(k, ring) for k in range(n)]))
            if outer <= 2 or (
                abs(ring - round(ring)) < 1e-9 and round(ring) % label_every == 0
            ):  # many rings: whole ones only, 14 px apart at least
                p.setPen(QColor("#8a939c"))
                q = at(0, ring)
                p.drawText(
                    QRectF(q.x() + 4, q.y() - 14, 60, 14),
                    Qt.AlignLeft | Qt.AlignBottom,
                    f"{ring:g}×",
                )
            ring += 0.5
        p.setPen(QPen(QColor("#c3c8ce"), 1))
        for k in range(n):
            p.drawLine(c, at(k, outer))
        p.setPen(QPen(QColor("#222222"), 1.6, Qt.DashLine))  # the reference: unit circle
        p.drawPolygon(QPolygonF([at(k, 1.0) for k in range(n)]))
        label_font = QFont(self.font())
        label_font.setPointSize(9)
        p.setFont(label_font)
        fm = QFontMetrics(label_font)
        for k, m in enumerate(s.metrics):
            a = -math.pi / 2 + 2 * math.pi * k / n
            end = QPointF(c.x() + (radius + 16) * math.cos(a), c.y() + (radius + 16) * math.sin(a))
            text = metric_short(m) + ("*" if m in s.by_max else "")
            sub = "higher is better" if higher_is_better(m) else "lower is better"
            tw = max(fm.horizontalAdvance(text), fm.horizontalAdvance(sub)) + 8
            x = end.x() - tw / 2 + (tw / 2) * math.cos(a)
            y = end.y() - fm.height() + fm.height() * math.sin(a)
            p.setPen(QColor("#1f2933"))
            p.drawText(QRectF(x, y, tw, fm.height()), Qt.AlignCenter, text)
            p.setPen(QColor("#6b7785"))
            p.drawText(QRectF(x, y + fm.height(), tw, fm.height()), Qt.AlignCenter, sub)
        for gi, g in enumerate(s.groups):
            if gi == 0:
                continue  # the reference is the unit circle
            color = QColor(SERIES[(gi - 1) % len(SERIES)])
            rs = s.radius[g]
            p.setPen(QPen(color, 2.2))
            for k in range(n):  # segments between neighbouring values (missing: a gap)
                r0, r1 = rs[k], rs[(k + 1) % n]
                if math.isfinite(r0) and math.isfinite(r1) and (n > 2 or k == 0):
                    p.drawLine(at(k, r0), at((k + 1) % n, r1))
            p.setBrush(color)
            for k in range(n):
                if math.isfinite(rs[k]):
                    p.drawEllipse(at(k, rs[k]), 3.5, 3.5)
        # legend: one line per group, with its values
        x0, y = self.width() - legend_w + 6, 14
        p.setFont(label_font)
        for gi in range(len(s.groups)):
            if gi == 0:
                p.setPen(QPen(QColor("#222222"), 1.6, Qt.DashLine))
            else:
                p.setPen(QPen(QColor(SERIES[(gi - 1) % len(SERIES)]), 3))
            p.drawLine(QPointF(x0, y + 7), QPointF(x0 + 22, y + 7))
            p.setPen(QColor("#1f2933"))
            name = self._group_label(s, gi)
            box = fm.boundingRect(
                QRect(0, 0, int(legend_w - 34), 1000), int(Qt.AlignLeft | Qt.TextWordWrap), name
            )
            p.drawText(
                QRectF(x0 + 28, y, legend_w - 34, max(16, box.height())),
                int(Qt.AlignLeft | Qt.AlignVCenter | Qt.TextWordWrap),
                name,
            )
            y += max(16, box.height()) + 2
        y += 8
        p.setPen(QColor("#6b7785"))
        p.setFont(small)
        sm = QFontMetrics(small)
        for lab in self._reference_lines(s):
            # wrapped, never elided: "WER unflagged: reference 37.2%" is read whole
            box = sm.boundingRect(
                QRect(0, 0, int(legend_w - 8), 1000), int(Qt.AlignLeft | Qt.TextWordWrap), lab
            )
            p.drawText(
                QRectF(x0, y, legend_w - 8, box.height()),
                int(Qt.AlignLeft | Qt.TextWordWrap),
                lab,
            )
            y += box.height() + 1
