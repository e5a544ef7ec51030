"""The audio player: min/max waveform envelope, the words (click one to hear it), the log
spectrogram, and playback with a moving playhead: play/pause, loop a selection, slower speeds
with the pitch kept, zoom.

Files are decoded and analysed in background jobs (:class:`~.audio_worker.AudioCache`), with
the neighbouring items prefetched by the panels; a result for a file no longer shown is
dropped. Samples go to an :class:`~.audio_worker.OutputSink` (sounddevice by default; without
PortAudio or an output device the play button is disabled with a tooltip saying why).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ..constants import SAMPLE_RATE
from .audio_worker import AudioCache, OutputSink, default_sink, stretch
from .jobs import Job, JobRegistry

log = logging.getLogger("fairdesk.gui.player")

#: Playback speeds offered (1 = as recorded); slower ones keep the pitch.
SPEEDS = (1.0, 0.75, 0.5)
#: Kept for callers that pass a duration hint; every file is analysed in a job now.
LONG_SECONDS = 20.0


def audio_output() -> tuple[bool, str]:
    """Whether the default output can play here, and if not why (checked once, lazily)."""
    s = default_sink()
    return s.available, s.reason


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


def _fmt(t: float) -> str:
    return f"{int(t // 60)}:{t % 60:05.2f}"


def _plot(height: int) -> pg.PlotWidget:
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


class AudioPlayer(QWidget):
    """Waveform, words and spectrogram of one file, with playback controls.

    Parameters
    ----------
    jobs : the registry that runs decoding and spectrograms.
    sink : where samples are played (default: the sounddevice output).

    Signals
    -------
    ready(str) : the file's waveform and spectrogram are drawn.
    failed(str) : the file could not be shown (message).
    """

    ready = Signal(str)
    failed = Signal(str)

    def __init__(self, jobs: JobRegistry, parent=None, sink: OutputSink | None = None):
        super().__init__(parent)
        self.jobs = jobs
        self.cache = AudioCache(jobs, parent=self)
        self.cache.loaded.connect(self._loaded)
        self.cache.failed.connect(lambda p, m: self._failed(m) if p == self.path else None)
        self.sink = sink if sink is not None else default_sink()
        self.path: str | None = None
        self.samples: np.ndarray | None = None
        self.duration = 0.0
        self.position = 0.0
        self.speed = 1.0
        self.playing = False
        self.spectrogram = None
        self._peak = 1.0
        self._seg = (0.0, 0.0)  # the span being played (seconds of the file)
        self._play_from = 0.0
        self._t0 = 0.0
        self._stretched: dict = {}
        self._saliency: tuple | None = None  # (times, curve, words) shown over the waveform
        self._saliency_items: list = []
        self._nonspeech_items: list = []
        self.nonspeech: list[tuple[float, float]] = []
        self.words: list[tuple[str, float, float]] = []
        self._word_items: list = []

        self.wave = _plot(90)
        self.wave.setMouseEnabled(x=True, y=False)  # wheel / drag zooms and pans in time
        self.wave.getPlotItem().hideAxis("bottom")
        self.wave.setYRange(-1, 1, padding=0.05)
        # one curve of vertical min-max segments (FillBetweenItem rebuilt its path in ~80 ms)
        self._env = pg.PlotCurveItem(
            pen=pg.mkPen("#1565c0", width=1), connect="pairs", skipFiniteCheck=True
        )
        self._env.setZValue(10)  # above the saliency fill: the waveform stays visible
        self.wave.addItem(self._env)
        self.selection = pg.LinearRegionItem(
            values=(0, 0), brush=pg.mkBrush(255, 193, 7, 60), pen=pg.mkPen("#ff8f00", width=1)
        )
        self.selection.setZValue(20)
        self.selection.setVisible(False)
        self.wave.addItem(self.selection)

        self.word_strip = _plot(26)
        self.word_strip.setMaximumHeight(30)
        self.word_strip.setMouseEnabled(x=False, y=False)
        self.word_strip.getPlotItem().hideAxis("bottom")
        self.word_strip.getPlotItem().getAxis("left").setTicks([[]])
        self.word_strip.setYRange(0, 1, padding=0)
        self.word_strip.setToolTip("Click a word to hear it")
        self.word_strip.setXLink(self.wave)

        self.spec = _plot(130)
        self.spec.setMouseEnabled(x=False, y=False)
        self.spec.getPlotItem().getAxis("left").setLabel("kHz")
        self.spec.getPlotItem().getAxis("bottom").setLabel("s")
        self.spec.setXLink(self.wave)
        self.spec.setYRange(0, SAMPLE_RATE / 2000.0, padding=0)
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("inferno"))
        self.spec.addItem(self.image)
        for w in (self.wave, self.spec):
            w.getPlotItem().getViewBox().setLimits(xMin=0)

        self.heads = []
        for w in (self.wave, self.spec):
            line = pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen("#e53935", width=2))
            line.setZValue(30)
            w.addItem(line)
            self.heads.append(line)
            w.scene().sigMouseClicked.connect(lambda ev, w=w: self._clicked(w, ev))
        self.word_strip.scene().sigMouseClicked.connect(self._word_clicked)

        self.play_btn = QPushButton("▶  Play")
        self.play_btn.setMinimumWidth(90)
        self.time_label = QLabel("0:00.00 / 0:00.00")
        # the time never gives way to its neighbours ("0:00.00 / 0:0" at 1024 px)
        fm = self.time_label.fontMetrics()
        self.time_label.setMinimumWidth(fm.horizontalAdvance("00:00.00 / 00:00.00") + 6)
        self.speed_box = QComboBox()
        for s in SPEEDS:
            self.speed_box.addItem(f"{s:g}×", s)
        self.speed_box.setToolTip("Playback speed; slower speeds keep the pitch")
        self.speed_box.currentIndexChanged.connect(
            lambda _i: self.set_speed(self.speed_box.currentData())
        )
        self.loop = QCheckBox("Loop")
        self.loop.setToolTip("Loop the selection (drag its edges on the waveform); L")
        self.loop.toggled.connect(self._loop_toggled)
        self.zoom_in_btn, self.zoom_out_btn, self.fit_btn = (
            QPushButton(t) for t in ("+", "−", "Fit")
        )
        for b, slot, tip in (
            (self.zoom_in_btn, self.zoom_in, "Zoom in (+)"),
            (self.zoom_out_btn, self.zoom_out, "Zoom out (−)"),
            (self.fit_btn, self.zoom_fit, "Whole file (0)"),
        ):
            b.setMaximumWidth(44)
            b.setToolTip(tip)
            b.setFocusPolicy(Qt.NoFocus)
            b.clicked.connect(slot)
        self.info = QLabel("select an item to hear it")
        self.info.setObjectName("muted")
        self.info.setTextFormat(Qt.PlainText)
        # the file name is the one that gives way on a narrow window (full text as tooltip)
        self.info.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.no_output = QLabel("")
        self.no_output.setObjectName("muted")
        self.set_sink(self.sink)
        controls = QHBoxLayout()
        controls.addWidget(self.play_btn)
        controls.addWidget(self.time_label)
        controls.addWidget(self.speed_box)
        controls.addWidget(self.loop)
        controls.addSpacing(6)
        for b in (self.zoom_in_btn, self.zoom_out_btn, self.fit_btn):
            controls.addWidget(b)
        controls.addStretch(1)
        # the device note and the file name on a line of their own: beside the controls they
        # made the Record tab wider than a 1024-px screen
        notes = QHBoxLayout()
        notes.addWidget(self.no_output)
        notes.addSpacing(12)
        notes.addWidget(self.info, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.wave, 2)
        lay.addWidget(self.word_strip)
        lay.addWidget(self.spec, 3)
        lay.addLayout(controls)
        lay.addLayout(notes)

        self.timer = QTimer(self)  # the one display timer of the player
        self.timer.setInterval(30)
        self.timer.timeout.connect(self._tick)
        self.play_btn.clicked.connect(self.toggle)
        self.play_btn.setFocusPolicy(Qt.NoFocus)  # Space belongs to the view, not the button

    @property
    def can_play(self) -> bool:
        return bool(self.sink.available)

    def set_sink(self, sink: OutputSink) -> None:
        """Play through ``sink`` from now on."""
        self.stop()
        self.sink = sink
        ok, why = sink.available, sink.reason
        self.play_btn.setEnabled(ok and self.samples is not None)
        self.play_btn.setToolTip(
            "Play / pause from the playhead (Space; click the spectrogram to move it)"
            if ok
            else why
        )
        self.no_output.setText("" if ok else "no audio output")
        self.no_output.setToolTip(why)

    # -- loading --------------------------------------------------------------------------
    def load(self, path, duration_hint: float | None = None) -> Job | None:
        """Show ``path``: at once when it is cached, else when its job is done (returned)."""
        self.stop()
        self.clear_saliency()
        self.set_words(())
        self.path = str(path)
        hit = self.cache.get(self.path)
        if hit is not None:
            self._loaded(self.path, hit)
            return None
        self._clear()
        self.info.setText(f"loading {Path(path).name}…")
        return self.cache.request(self.path)

    def prefetch(self, paths) -> None:
        """Analyse ``paths`` in the background so that showing them later is immediate."""
        self.cache.prefetch(str(p) for p in paths if p)

    def _clear(self) -> None:
        self.samples = None
        self.spectrogram = None
        self._stretched = {}
        self._env.setData([], [])
        self.image.clear()
        self.play_btn.setEnabled(False)

    def _loaded(self, path: str, out: dict) -> None:
        if path != self.path:  # a stale result: another file is shown now (it stays cached)
            return
        self.samples = out["samples"]
        self._stretched = {}
        self.duration = len(self.samples) / SAMPLE_RATE
        env = out["envelope"]
        peak = max(
            0.05,
            float(max(np.max(np.abs(env.lo)), np.max(np.abs(env.hi)))) * 1.1
            if env.lo.size
            else 1.0,
        )
        seg = out.get("segments")
        if seg is None:
            seg = (np.repeat(env.times, 2), np.column_stack([env.lo, env.hi]).ravel())
        self._env.setData(*seg)
        self.wave.setYRange(-peak, peak, padding=0)
        self._peak = peak
        for w in (self.wave, self.spec):
            w.getPlotItem().getViewBox().setLimits(xMin=0, xMax=max(self.duration, 0.01))
        self.zoom_fit()
        if self._saliency is not None:
            self._draw_saliency()
        self._draw_words()
        self.selection.setRegion((0.0, self.duration))
        self.set_position(0.0)
        self.play_btn.setEnabled(self.can_play)
        self.info.setText(f"{Path(path).name} · {self.duration:.2f} s")
        self.info.setToolTip(self.info.text())
        if out.get("spectrogram") is not None:
            self._show_spectrogram(out["spectrogram"])
        self.ready.emit(path)

    # -- words -------------------------------------------------------------------------------
    def set_words(self, words) -> None:
        """Show word spans under the waveform (dicts/objects with ``word`` or ``text``,
        ``start``, ``end`` in seconds); clicking one plays it."""
        spans = []
        for w in words or ():
            get = w.get if isinstance(w, dict) else (lambda k, w=w: getattr(w, k, None))
            start, end = get("start"), get("end")
            text = get("word") or get("text") or ""
            if start is not None and end is not None and float(end) > float(start):
                spans.append((str(text).strip(), float(start), float(end)))
        self.words = spans
        self.word_strip.setVisible(bool(spans))  # no strip when the model gave no word times
        self._draw_words()

    def _draw_words(self) -> None:
        # a pool of boxes and labels, reused from item to item (creating pyqtgraph items is
        # the slow part of showing an item)
        while len(self._word_items) < len(self.words):
            k = len(self._word_items)
            box = pg.LinearRegionItem(
                values=(0, 0),
                movable=False,
                brush=pg.mkBrush(21, 101, 192, 35 if k % 2 else 60),
                pen=pg.mkPen(21, 101, 192, 120),
            )
            label = pg.TextItem("", color="#0d47a1", anchor=(0.5, 0.5))
            self.word_strip.addItem(box)
            self.word_strip.addItem(label)
            self._word_items.append((box, label))
        for k, (box, label) in enumerate(self._word_items):
            if k < len(self.words):
                word, start, end = self.words[k]
                box.setRegion((start, end))
                label.setText(word)
                label.setPos((start + end) / 2, 0.5)
            box.setVisible(k < len(self.words))
            label.setVisible(k < len(self.words))

    def word_at(self, t: float) -> tuple[str, float, float] | None:
        for span in self.words:
            if span[1] <= t <= span[2]:
                return span
        return None

    def _word_clicked(self, ev) -> None:
        if self.samples is None:
            return
        vb = self.word_strip.getPlotItem().getViewBox()
        span = self.word_at(vb.mapSceneToView(ev.scenePos()).x())
        if span is not None:
            self.play_span(span[1], span[2])

    # -- non-speech stretches (hallucination evidence) ---------------------------------------
    def set_nonspeech(self, speech_regions, duration: float | None) -> None:
        """Shade the stretches of the clip outside the VAD's ``speech_regions`` (``[[start,
        end], …]`` in seconds), so that words over non-speech show; None clears."""
        for it in self._nonspeech_items:
            self.wave.removeItem(it)
        self._nonspeech_items = []
        self.nonspeech = nonspeech_stretches(speech_regions, duration)
        for a, b in self.nonspeech:
            r = pg.LinearRegionItem(
                values=(a, b),
                movable=False,
                brush=pg.mkBrush(96, 108, 122, 45),
                pen=pg.mkPen(96, 108, 122, 0),
            )
            r.setZValue(-20)
            r.setToolTip(f"non-speech (VAD) {a:.2f}–{b:.2f} s")
            self._nonspeech_items.append(r)
            self.wave.addItem(r)

    # -- saliency overlay (explain stage) ----------------------------------------------------
    def set_saliency(self, curve, frame_s: float, words=()) -> None:
        """Overlay a saliency curve (one value per frame of ``frame_s`` seconds) on the
        waveform as a translucent curve under it (negative values clipped at 0, the maximum at
        the top), and the reference words as labelled regions (``words``: dicts or objects
        with ``word``, ``start``, ``end``)."""
        c = np.clip(np.asarray(curve, dtype=float), 0.0, None)
        times = (np.arange(c.size) + 0.5) * float(frame_s)
        spans = []
        for w in words or ():
            get = w.get if isinstance(w, dict) else (lambda k, w=w: getattr(w, k, None))
            if get("start") is not None and get("end") is not None:
                spans.append((str(get("word")), float(get("start")), float(get("end"))))
        self._saliency = (times, c, spans)
        self._draw_saliency()

    def clear_saliency(self) -> None:
        self._saliency = None
        for it in self._saliency_items:
            self.wave.removeItem(it)
        self._saliency_items = []

    @property
    def saliency_shown(self) -> bool:
        return bool(self._saliency_items)

    def _draw_saliency(self) -> None:
        for it in self._saliency_items:
            self.wave.removeItem(it)
        self._saliency_items = []
        if self._saliency is None:
            return
        times, c, spans = self._saliency
        peak = self._peak
        top = float(c.max()) if c.size else 0.0
        y = -peak + 2 * peak * (c / top if top > 0 else c)
        for k, (word, start, end) in enumerate(spans):
            region = pg.LinearRegionItem(
                values=(start, end),
                movable=False,
                brush=pg.mkBrush(67, 160, 71, 22 if k % 2 else 36),
                pen=pg.mkPen(67, 160, 71, 90),
            )
            region.setZValue(-10)
            label = pg.TextItem(word, color="#2e7d32", anchor=(0.5, 0))
            label.setPos((start + end) / 2, peak)
            self._saliency_items += [region, label]
        curve = pg.PlotDataItem(
            times,
            y,
            pen=pg.mkPen(239, 108, 0, 230, width=1.5),
            fillLevel=-peak,
            brush=pg.mkBrush(255, 152, 0, 45),
        )
        curve.setZValue(5)
        self._saliency_items.append(curve)
        for it in self._saliency_items:
            self.wave.addItem(it)

    def _show_spectrogram(self, spec) -> None:
        self.spectrogram = spec
        top = float(spec.db.max())
        self.image.setImage(spec.db, autoLevels=False, levels=(top - 80.0, top))
        self.image.setRect(QRectF(0, 0, spec.duration, spec.sample_rate / 2000.0))
        self.spec.setYRange(0, spec.sample_rate / 2000.0, padding=0)

    def _failed(self, message: str) -> None:
        self._clear()
        self.info.setText(message)
        self.failed.emit(message)

    # -- zoom ---------------------------------------------------------------------------------
    def view_range(self) -> tuple[float, float]:
        lo, hi = self.wave.getPlotItem().getViewBox().viewRange()[0]
        return float(lo), float(hi)

    def zoom(self, factor: float, centre: float | None = None) -> None:
        """Zoom the time axis by ``factor`` (2: twice as close) around ``centre``."""
        if self.duration <= 0:
            return
        lo, hi = self.view_range()
        c = self.position if centre is None else centre
        width = min(self.duration, max(0.05, (hi - lo) / factor))
        lo = min(max(0.0, c - width / 2), max(0.0, self.duration - width))
        self.wave.setXRange(lo, lo + width, padding=0)

    def zoom_in(self) -> None:
        self.zoom(2.0)

    def zoom_out(self) -> None:
        self.zoom(0.5)

    def zoom_fit(self) -> None:
        self.wave.setXRange(0, max(self.duration, 0.01), padding=0)

    # -- playback ---------------------------------------------------------------------
    def set_position(self, seconds: float) -> None:
        self.position = max(0.0, min(self.duration, float(seconds)))
        for h in self.heads:
            h.setValue(self.position)
        self.time_label.setText(f"{_fmt(self.position)} / {_fmt(self.duration)}")

    def _clicked(self, widget, ev) -> None:
        if self.samples is None or ev.double():
            return
        vb = widget.getPlotItem().getViewBox()
        pt = vb.mapSceneToView(ev.scenePos())
        was = self.playing
        self.stop()
        self.set_position(pt.x())
        if was:
            self.play()

    def set_speed(self, speed: float) -> None:
        """Play at ``speed`` (one of :data:`SPEEDS`); the pitch is kept."""
        speed = float(speed)
        if speed == self.speed:
            return
        i = self.speed_box.findData(speed)
        if i >= 0 and self.speed_box.currentIndex() != i:
            self.speed_box.setCurrentIndex(i)
        was = self.playing
        self.stop()
        self.speed = speed
        if was:
            self.play()

    def _loop_toggled(self, on: bool) -> None:
        self.selection.setVisible(on)
        if on and self.samples is not None:
            lo, hi = self.selection.getRegion()
            if hi - lo < 0.02 or hi > self.duration:
                w = self.word_at(self.position)
                self.selection.setRegion((w[1], w[2]) if w else self.view_range())

    def toggle(self) -> None:
        if self.playing:
            self.stop()
        else:
            self.play()

    def play(self) -> None:
        """Play from the playhead (the loop selection when Loop is on)."""
        if self.loop.isChecked():
            lo, hi = self.selection.getRegion()
            start = self.position if lo <= self.position < hi - 0.02 else lo
            self.play_span(start, hi)
            return
        start = self.position if self.position < self.duration - 0.05 else 0.0
        self.play_span(start, self.duration)

    def play_span(self, start: float, end: float) -> None:
        """Play the file from ``start`` to ``end`` seconds at the chosen speed."""
        if self.samples is None or not self.can_play:
            return
        self.stop()
        start, end = max(0.0, float(start)), min(self.duration, float(end))
        if end - start < 0.01:
            return
        seg = self.samples[int(start * SAMPLE_RATE) : int(end * SAMPLE_RATE)]
        if self.speed != 1.0:
            key = (start, end, self.speed)
            if key not in self._stretched:
                self._stretched = {key: stretch(seg, self.speed)}
            seg = self._stretched[key]
        try:
            self.sink.start(seg, SAMPLE_RATE)
        except Exception as exc:  # noqa: BLE001 - a device can vanish between check and use
            self.play_btn.setEnabled(False)
            self.play_btn.setToolTip(f"Playback failed: {exc}")
            log.warning("playback failed: %s", exc)
            return
        self._seg = (start, end)
        self._play_from, self._t0, self.playing = start, time.monotonic(), True
        self.set_position(start)
        self.play_btn.setText("❚❚  Pause")
        self.timer.start()

    def stop(self) -> None:
        """Pause: the playhead stays where playback was."""
        if not self.playing:
            return
        self.playing = False
        self.timer.stop()
        self.play_btn.setText("▶  Play")
        try:
            self.sink.stop()
        except Exception as exc:  # noqa: BLE001
            log.warning("stopping playback failed: %s", exc)

    def _tick(self) -> None:
        t = self._play_from + (time.monotonic() - self._t0) * self.speed
        start, end = self._seg
        if t >= end:
            if self.loop.isChecked():
                self.play_span(*self.selection.getRegion())
                return
            self.stop()
            self.set_position(0.0 if end >= self.duration - 1e-6 else start)
            return
        self.set_position(t)
