"""The player's overlays: the word strip under the waveform (click a word to hear and select
it) and the saliency overlay on the waveform, with its scale on the right axis.

Draw order on the waveform, bottom to top: non-speech shading (z −20), a segment's
context (−15), the saliency fill
(−5), the waveform (10), the loop selection (20, a light tint), the reference-word shading
of the saliency overlay (22, so the selection never hides it), the playhead (30).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsRectItem

from ...presentation import fmt_segment

#: A word shorter than this (zero-length ones included) is drawn this wide, centred on its
#: time, so that it stays visible and clickable as in the diff.
MIN_WORD_S = 0.04
#: Width of the saliency scale (the right axis), in pixels.
AXIS_WIDTH = 64
#: z of the reference-word shading: above the loop selection (20), below the playhead (30).
WORD_SHADE_Z = 22


def nonspeech_stretches(speech_regions, duration) -> list[tuple[float, float]]:
    """The complement of ``speech_regions`` in ``[0, duration]`` (stretches under 10 ms
    left out); empty without regions or a duration."""
    if speech_regions is None or not duration or duration <= 0:
        return []
    out, t = [], 0.0
    for a, b in sorted((float(a), float(b)) for a, b in speech_regions):
        if a - t >= 0.01:
            out.append((t, min(a, duration)))
        t = max(t, b)
    if duration - t >= 0.01:
        out.append((t, float(duration)))
    return out


def clock(t: float) -> str:
    """The player's time, ``1:03.25`` (``−0:00.50`` before a segment's start)."""
    sign = "−" if t < -0.005 else ""
    t = abs(t)
    return f"{sign}{int(t // 60)}:{t % 60:05.2f}"


def plot_widget(height: int) -> pg.PlotWidget:
    """A bare plot of the player (no menu, no buttons, no SI prefixes), 0–1 s when empty."""
    w = pg.PlotWidget()
    w.setMinimumHeight(height)
    w.setMenuEnabled(False)
    w.hideButtons()
    pi = w.getPlotItem()
    for name in ("left", "bottom"):
        pi.getAxis(name).enableAutoSIPrefix(False)  # no "(x0.001)" labels
    pi.getAxis("left").setWidth(48)
    w.setXRange(0, 1, padding=0)  # an empty plot shows 0..1 s, not -400..400
    return w


def envelope_curve(out: dict, origin: float = 0.0):
    """The waveform of a decoded file (:func:`fairdesk.jobs.tasks.load_audio`'s result) as
    ``((x, y) of vertical min-max segments, the y half-range to show)``."""
    env = out["envelope"]
    peak = 1.0
    if env.lo.size:
        peak = max(0.05, float(max(np.max(np.abs(env.lo)), np.max(np.abs(env.hi)))) * 1.1)
    seg = out.get("segments")
    if seg is None:
        seg = (np.repeat(env.times, 2) + origin, np.column_stack([env.lo, env.hi]).ravel())
    return seg, peak


def info_text(name: str, span, duration: float, origin: float, t_hi: float) -> str:
    """The player's line about what it shows: the file, a segment's place in it (and the
    context shown around it), the length."""
    if span is None:
        return f"{name} · {duration:.2f} s"
    text = f"{name} · segment {fmt_segment(*span)} · {duration:.2f} s"
    if origin < 0 or t_hi > duration + 1e-3:
        text += f" (with {-origin:.2f} s before, {t_hi - duration:.2f} s after)"
    return text


#: The y extent of a band: beyond any waveform's range (samples lie in ±1), so that a band
#: spans the plot's height whatever its y range (the view clips it).
BAND_Y = 100.0


class Bands:
    """A pool of rectangles spanning stretches of time on ``plot``, reused from item to item:
    one plain ``QGraphicsRectItem`` each (a ``LinearRegionItem`` with its two lines cost
    ~1 ms to create and more to paint), not counted in the plot's auto-range."""

    def __init__(self, plot, z: float, y: tuple[float, float] = (-BAND_Y, BAND_Y)):
        self.plot, self.z, self.y = plot, z, y
        self.items: list[QGraphicsRectItem] = []
        self.shown = 0  # the first ``shown`` items of the pool are in use

    def set(self, spans) -> list[QGraphicsRectItem]:
        """Show ``spans`` (``(start, end)`` s) and hide the rest of the pool; the items shown,
        in order, for their brushes and tooltips."""
        spans = list(spans)
        while len(self.items) < len(spans):
            it = QGraphicsRectItem()
            it.setPen(QPen(Qt.NoPen))
            it.setZValue(self.z)
            self.plot.addItem(it, ignoreBounds=True)
            self.items.append(it)
        y0, y1 = self.y
        for it, (a, b) in zip(self.items, spans):
            it.setRect(QRectF(float(a), y0, float(b) - float(a), y1 - y0))
            it.setVisible(True)
        for it in self.items[len(spans) :]:
            it.setVisible(False)
        self.shown = len(spans)
        return self.items[: self.shown]


class Shading:
    """Stretches of time shaded on a plot (non-speech, a segment's context), each with its
    tooltip; :meth:`set` replaces them."""

    def __init__(self, plot, rgba: tuple, z: float):
        self.brush = pg.mkBrush(*rgba)
        self.bands = Bands(plot, z)

    @property
    def items(self) -> list:
        """The rectangles shown."""
        return self.bands.items[: self.bands.shown]

    def set(self, regions) -> None:
        """Shade ``regions``: ``(start, end, tooltip)`` in seconds (empty: none)."""
        regions = list(regions)
        for it, (_a, _b, tip) in zip(self.bands.set((a, b) for a, b, _t in regions), regions):
            it.setBrush(self.brush)
            it.setToolTip(tip)


def saliency_axis_label(method: str | None) -> tuple[str, str]:
    """What the saliency values are: ``(short, long)``, the right axis's label and its
    tooltip, both with the unit."""
    m = (method or "occlusion").split(":")[0]
    if m == "occlusion":
        return "Δ log p, nats", (
            "saliency (occlusion): the drop in the reference transcript's log-probability "
            "when a 0.1 s window around the frame is masked, in nats"
        )
    if m in ("gradxinput", "integrated_gradients"):
        name = "gradient × input" if m == "gradxinput" else "integrated gradients"
        return "attribution, nats", (
            f"saliency ({name}): the attribution of the reference transcript's "
            "log-probability to the frame, in nats"
        )
    return "saliency", f"saliency ({m})"


def _get(w, key):
    return w.get(key) if isinstance(w, dict) else getattr(w, key, None)


class WordStrip:
    """Word spans drawn on ``plot``: a pool of boxes (:class:`Bands`) and labels reused from
    item to item (creating pyqtgraph items is the slow part of showing an item)."""

    def __init__(self, plot: pg.PlotWidget):
        self.plot = plot
        self.words: list[tuple[str, float, float]] = []
        self.selected: int | None = None
        self.boxes = Bands(plot, z=0, y=(0.0, 1.0))
        self.labels: list = []
        self._brushes = (pg.mkBrush(21, 101, 192, 60), pg.mkBrush(21, 101, 192, 35))
        self._selected = pg.mkBrush(255, 143, 0, 110)

    def set(self, words) -> None:
        """Words as dicts/objects with ``word`` or ``text``, ``start``, ``end`` (s); a word
        with ``end == start`` is kept (drawn :data:`MIN_WORD_S` wide)."""
        spans = []
        for w in words or ():
            start, end = _get(w, "start"), _get(w, "end")
            text = _get(w, "word") or _get(w, "text") or ""
            if start is not None and end is not None and float(end) >= float(start):
                spans.append((str(text).strip(), float(start), float(end)))
        self.words = spans
        self.selected = None
        self.draw()

    @staticmethod
    def shown_span(start: float, end: float) -> tuple[float, float]:
        """The span drawn for a word: at least :data:`MIN_WORD_S` wide, centred."""
        if end - start >= MIN_WORD_S:
            return start, end
        mid = (start + end) / 2
        lo = max(0.0, mid - MIN_WORD_S / 2)
        return lo, lo + MIN_WORD_S

    def draw(self) -> None:
        shown = [self.shown_span(start, end) for _w, start, end in self.words]
        boxes = self.boxes.set(shown)
        while len(self.labels) < len(self.words):
            label = pg.TextItem("", color="#0d47a1", anchor=(0.5, 0.5))
            self.plot.addItem(label, ignoreBounds=True)
            self.labels.append(label)
        for k, (box, (lo, hi)) in enumerate(zip(boxes, shown)):
            box.setBrush(self._selected if k == self.selected else self._brushes[k % 2])
            label = self.labels[k]
            if label.toPlainText() != self.words[k][0]:
                label.setText(self.words[k][0])
            label.setPos((lo + hi) / 2, 0.5)
            label.setVisible(True)
        for label in self.labels[len(self.words) :]:
            label.setVisible(False)

    def index_at(self, t: float) -> int | None:
        for k, (_w, start, end) in enumerate(self.words):
            lo, hi = self.shown_span(start, end)
            if lo <= t <= hi:
                return k
        return None

    def select(self, k: int | None) -> None:
        self.selected = k
        self.draw()


class SaliencyLayer:
    """The saliency curve (a translucent fill under the waveform) and the reference words'
    shading on ``plot``, with the curve's scale on the plot's right axis."""

    def __init__(self, plot: pg.PlotWidget, aligned=()):
        self.plot = plot
        #: plots x-linked to ``plot`` (word strip, spectrogram): they get an empty right
        #: axis of the same width while the scale shows, so their time axes stay aligned
        self.aligned = list(aligned)
        self.data: tuple | None = None  # (times, curve, words, method)
        self.items: list = []
        self.top = 0.0
        for p in (plot, *self.aligned):
            axis = p.getPlotItem().getAxis("right")
            axis.enableAutoSIPrefix(False)
            axis.setWidth(AXIS_WIDTH)
        for p in self.aligned:
            p.getPlotItem().getAxis("right").setTicks([[]])

    def _show_axes(self, on: bool) -> None:
        for p in (self.plot, *self.aligned):
            (p.getPlotItem().showAxis if on else p.getPlotItem().hideAxis)("right")

    def set(self, curve, frame_s: float, words=(), method: str | None = None) -> None:
        c = np.clip(np.asarray(curve, dtype=float), 0.0, None)
        times = (np.arange(c.size) + 0.5) * float(frame_s)
        spans = []
        for w in words or ():
            if _get(w, "start") is not None and _get(w, "end") is not None:
                spans.append((str(_get(w, "word")), float(_get(w, "start")), float(_get(w, "end"))))
        self.data = (times, c, spans, method)

    def clear(self) -> None:
        self.data = None
        self._remove()
        self._show_axes(False)

    def _remove(self) -> None:
        for it in self.items:
            self.plot.removeItem(it)
        self.items = []

    def draw(self, peak: float) -> None:
        """Draw over a waveform whose y range is ``±peak``: saliency 0 at the bottom, the
        curve's maximum at the top, and the right axis labelled in saliency units."""
        self._remove()
        if self.data is None:
            return
        times, c, spans, method = self.data
        top = float(c.max()) if c.size else 0.0
        self.top = top
        y = -peak + 2 * peak * (c / top if top > 0 else c)
        for k, (word, start, end) in enumerate(spans):
            region = pg.LinearRegionItem(
                values=(start, end),
                movable=False,
                brush=pg.mkBrush(67, 160, 71, 30 if k % 2 else 48),
                pen=pg.mkPen(67, 160, 71, 110),
            )
            region.setZValue(WORD_SHADE_Z)
            region.setAcceptHoverEvents(False)
            label = pg.TextItem(word, color="#2e7d32", anchor=(0.5, 0))
            label.setPos((start + end) / 2, peak)
            label.setZValue(WORD_SHADE_Z)
            self.items += [region, label]
        curve = pg.PlotDataItem(
            times,
            y,
            pen=pg.mkPen(239, 108, 0, 230, width=1.5),
            fillLevel=-peak,
            brush=pg.mkBrush(255, 152, 0, 45),
        )
        curve.setZValue(-5)
        self.items.append(curve)
        for it in self.items:
            self.plot.addItem(it)
        self._show_axes(True)
        axis = self.plot.getPlotItem().getAxis("right")
        short, long = saliency_axis_label(method)
        axis.setTicks([self.ticks(peak)])
        axis.setLabel(short, color="#ef6c00")
        axis.setToolTip(
            f"{long}; the orange curve: 0 at the bottom, {top:.3g} (this clip's maximum) "
            "at the top; negative values are drawn as 0"
        )

    def ticks(self, peak: float) -> list[tuple[float, str]]:
        """``(y, text)`` of the right axis: 0, half and the maximum of the curve."""
        top = self.top
        return [(-peak + 2 * peak * f, f"{f * top:.2g}") for f in (0.0, 0.5, 1.0)]
