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

from ...constants import SAMPLE_RATE
from ..jobs import Job, JobRegistry
from .audio_worker import AudioCache, OutputSink, audio_key, default_sink, stretch
from .player_layers import (
    SaliencyLayer,
    Shading,
    WordStrip,
    clock,
    envelope_curve,
    info_text,
    nonspeech_stretches,
    plot_widget,
)

log = logging.getLogger("fairdesk.gui.audio.player")

#: Playback speeds offered (1 = as recorded); slower ones keep the pitch.
SPEEDS = (1.0, 0.75, 0.5)


#: Seconds of the file shown and played on each side of a segment when Context is checked.
CONTEXT_S = 1.0


class AudioPlayer(QWidget):
    """Waveform, words and spectrogram of one file, or of one segment of a file, with
    playback controls.

    Times are the item's: a segment (an interval of a session recording) runs from 0 at its
    start, as its word times and saliency do; the info line says where it lies in the file.
    Context (a segment only) shows and plays :data:`CONTEXT_S` of the file on each side,
    shaded as outside the item; the loop selection stays the segment.

    Parameters
    ----------
    jobs : the registry that runs decoding and spectrograms.
    sink : where samples are played (default: the sounddevice output).

    Signals
    -------
    ready(str) : the file's waveform and spectrogram are drawn.
    failed(str) : the file could not be shown (message).
    message(str) : why a request did nothing (no audio output ...), for the status bar.
    """

    ready = Signal(str)
    failed = Signal(str)
    message = Signal(str)

    def __init__(self, jobs: JobRegistry, parent=None, sink: OutputSink | None = None):
        super().__init__(parent)
        self.jobs = jobs
        self.cache = AudioCache(jobs, parent=self)
        self.cache.loaded.connect(self._loaded)
        self.cache.failed.connect(lambda k, m: self._failed(m) if k == self._key else None)
        self.sink = sink if sink is not None else default_sink()
        self._follows_default = sink is None  # a new choice of output applies here too
        self.path: str | None = None
        self.span: tuple[float, float] | None = None  # the segment of the file shown
        self._key: str | None = None  # the cache key of what is shown (audio_key)
        self.origin = 0.0  # item time of the first sample (negative with context)
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
        self.nonspeech: list[tuple[float, float]] = []

        self.wave = plot_widget(90)
        self.wave.setMouseEnabled(x=True, y=False)  # wheel / drag zooms and pans in time
        self.wave.getPlotItem().hideAxis("bottom")
        self.wave.setYRange(-1, 1, padding=0.05)
        # one curve of vertical min-max segments (FillBetweenItem rebuilt its path in ~80 ms)
        self._env = pg.PlotCurveItem(
            pen=pg.mkPen("#1565c0", width=1), connect="pairs", skipFiniteCheck=True
        )
        self._env.setZValue(10)  # above the saliency fill: the waveform stays visible
        self.wave.addItem(self._env)
        # the zero line under the segments: digital silence (min = max = 0) draws a flat
        # line, not a gap
        self._base = pg.PlotCurveItem(pen=pg.mkPen("#1565c0", width=1))
        self._base.setZValue(9)
        self.wave.addItem(self._base)
        # a light tint: the reference-word shading (drawn above it) stays visible through it
        self.selection = pg.LinearRegionItem(
            values=(0, 0), brush=pg.mkBrush(255, 193, 7, 38), pen=pg.mkPen("#ff8f00", width=1)
        )
        self.selection.setZValue(20)
        self.selection.setVisible(False)
        self.wave.addItem(self.selection)

        self.word_strip = plot_widget(26)
        self.word_strip.setMaximumHeight(30)
        self.word_strip.setMouseEnabled(x=False, y=False)
        self.word_strip.getPlotItem().hideAxis("bottom")
        self.word_strip.getPlotItem().getAxis("left").setTicks([[]])
        self.word_strip.setYRange(0, 1, padding=0)
        self.word_strip.setToolTip("Click a word to hear and select it (L loops it)")
        self.word_strip.setXLink(self.wave)
        self.strip = WordStrip(self.word_strip)

        self.spec = plot_widget(130)
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
        self.overlay = SaliencyLayer(self.wave, aligned=(self.word_strip, self.spec))
        self.nonspeech_shade = Shading(self.wave, (96, 108, 122, 45), z=-20)
        self.context_shade = Shading(self.wave, (120, 120, 120, 70), z=-15)

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
        self.context = QCheckBox("Context")
        self.context.setToolTip(
            f"Also show and play {CONTEXT_S:g} s of the recording before and after the "
            "segment (shaded: not part of the item)"
        )
        self.context.setVisible(False)  # segments only
        self.context.toggled.connect(self._context_toggled)
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
        self.no_output = QPushButton("No output…")
        self.no_output.setFocusPolicy(Qt.NoFocus)
        self.no_output.setMinimumWidth(self.no_output.sizeHint().width())  # never clipped
        self.no_output.clicked.connect(self.pick_output)
        self.set_sink(self.sink)
        controls = QHBoxLayout()
        controls.addWidget(self.play_btn)
        controls.addWidget(self.time_label)
        controls.addWidget(self.speed_box)
        controls.addWidget(self.loop)
        controls.addWidget(self.context)
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

        from .output_picker import outputs

        outputs().changed.connect(self._default_output_changed)
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
        self.no_output.setVisible(not ok)
        self.no_output.setToolTip(f"{why}\nClick to choose an output device.")

    def pick_output(self) -> None:
        """The output dialog (the same setting as File ▸ Audio output… and Record's list)."""
        from .output_picker import OutputPicker

        OutputPicker(self).exec()

    def _default_output_changed(self) -> None:
        if self._follows_default:
            self.set_sink(default_sink())

    # -- loading --------------------------------------------------------------------------
    def load(self, path, duration_hint: float | None = None, span=None, words=()) -> Job | None:
        """Show ``path`` (only its segment ``span = (start_s, end_s)`` when given) with its
        ``words`` (as :meth:`set_words`; set here, so that the strip is not hidden and shown
        again): at once when it is cached, else when its job is done (returned)."""
        self.stop()
        self.clear_saliency()
        self.set_words(words)
        self.path = str(path)
        self.span = None if span is None else (float(span[0]), float(span[1]))
        self.context.setVisible(self.span is not None)
        return self._request(f"loading {Path(path).name}…")

    def _request(self, note: str) -> Job | None:
        ctx = CONTEXT_S if self.span is not None and self.context.isChecked() else 0.0
        self._key = audio_key(self.path, self.span, ctx)
        hit = self.cache.get(self.path, self.span, ctx)
        if hit is not None:
            self._loaded(self._key, hit)
            return None
        self._clear()
        self.info.setText(note)
        return self.cache.request(self.path, self.span, ctx)

    def _context_toggled(self, _on: bool) -> None:
        """Reload the segment with (or without) the recording around it; the words, the
        saliency and the playhead's item time stay."""
        if self.path is None or self.span is None:
            return
        self.stop()
        self._request(f"loading {Path(self.path).name}…")

    def prefetch(self, sources) -> None:
        """Analyse ``sources`` (paths, or ``(path, span)`` pairs for segments) in the
        background so that showing them later is immediate."""
        self.cache.prefetch(s for s in sources if s)

    def clear(self, info: str = "") -> None:
        """Show no file: empty plots, the time at 0:00.00 / 0:00.00 and ``info``."""
        self.stop()
        self.clear_saliency()
        self.set_words(())
        self.path = None
        self.span = None
        self._key = None
        self.context.setVisible(False)
        self._clear()
        self.info.setText(info)
        self.info.setToolTip(info)

    def _clear(self) -> None:
        self.samples = None
        self.spectrogram = None
        self._stretched = {}
        self._env.setData([], [])
        self._base.setData([], [])
        self.image.clear()
        self.play_btn.setEnabled(False)
        self.duration = 0.0
        self.origin = 0.0
        self._shade_context()
        self.set_position(0.0)

    @property
    def t_lo(self) -> float:
        """The first second shown (item time: below 0 with a segment's context)."""
        return self.origin

    @property
    def t_hi(self) -> float:
        """The last second shown."""
        if self.samples is None:
            return self.duration
        return self.origin + len(self.samples) / SAMPLE_RATE

    def _loaded(self, key: str, out: dict) -> None:
        if key != self._key:  # a stale result: another file is shown now (it stays cached)
            return
        self.samples = out["samples"]
        self._stretched = {}
        self.origin = float(out.get("origin", 0.0))
        total = len(self.samples) / SAMPLE_RATE
        if self.span is not None:
            # the item is the segment; context samples lie outside 0..duration
            self.duration = min(self.span[1] - self.span[0], total + self.origin)
        else:
            self.duration = total
        seg, peak = envelope_curve(out, self.origin)
        self._env.setData(*seg)
        self._base.setData([self.t_lo, self.t_hi], [0.0, 0.0])
        # room above and below ±peak for half a tick label: the saliency scale's top tick
        # (the curve's maximum, at +peak) was cut in half at the plot's edge
        half_label = self.wave.fontMetrics().height() / 2 + 2
        view_h = max(1.0, self.wave.getPlotItem().getViewBox().height())
        self.wave.setYRange(-peak, peak, padding=min(0.2, half_label / view_h))
        self._peak = peak
        for w in (self.wave, self.spec):
            w.getPlotItem().getViewBox().setLimits(
                xMin=self.t_lo, xMax=max(self.t_hi, self.t_lo + 0.01)
            )
        self.zoom_fit()
        if self.overlay.data is not None:
            self._draw_saliency()
        self._draw_words()
        self._shade_context()
        self.selection.setRegion((0.0, self.duration))
        self.selection.setVisible(self.loop.isChecked())
        self.set_position(self.t_lo)
        self.play_btn.setEnabled(self.can_play)
        text = info_text(
            Path(self.path or key).name, self.span, self.duration, self.origin, self.t_hi
        )
        self.info.setText(text)
        self.info.setToolTip(text if self.path is None else f"{self.path}\n{text}")
        if out.get("spectrogram") is not None:
            self._show_spectrogram(out["spectrogram"])
        self.ready.emit(self.path or key)

    def _shade_context(self) -> None:
        """Shade what is shown of the recording outside the segment (Context)."""
        regions = []
        if self.samples is not None and self.span is not None:
            for a, b, where in ((self.t_lo, 0.0, "before"), (self.duration, self.t_hi, "after")):
                if b - a >= 0.005:
                    regions.append((a, b, f"context {where} the segment (not part of the item)"))
        self.context_shade.set(regions)

    # -- words -------------------------------------------------------------------------------
    @property
    def words(self) -> list[tuple[str, float, float]]:
        return self.strip.words

    def set_words(self, words) -> None:
        """Show word spans under the waveform (dicts/objects with ``word`` or ``text``,
        ``start``, ``end`` in seconds); clicking one selects it and plays it."""
        self.strip.set(words)
        shown = bool(self.strip.words)  # no strip without word times
        if shown != self.word_strip.isVisible():  # a change of layout: only when it changes
            self.word_strip.setVisible(shown)

    def _draw_words(self) -> None:
        self.strip.draw()

    def word_at(self, t: float) -> tuple[str, float, float] | None:
        k = self.strip.index_at(t)
        return None if k is None else self.strip.words[k]

    def _word_clicked(self, ev) -> None:
        vb = self.word_strip.getPlotItem().getViewBox()
        self.click_word(vb.mapSceneToView(ev.scenePos()).x())

    def click_word(self, t: float) -> None:
        """What a click at ``t`` s on the word strip does: select the word there (the loop
        selection, so L loops it) and play it."""
        k = self.strip.index_at(t)
        if k is None or self.samples is None:
            return
        self.strip.select(k)
        lo, hi = WordStrip.shown_span(*self.strip.words[k][1:])
        self.selection.setRegion((lo, min(hi, self.duration)))
        self.selection.setVisible(True)
        self.play_span(lo, hi)

    # -- non-speech stretches (hallucination evidence) ---------------------------------------
    def set_nonspeech(self, speech_regions, duration: float | None) -> None:
        """Shade the stretches of the clip outside the VAD's ``speech_regions`` (``[[start,
        end], …]`` in seconds), so that words over non-speech show; None clears."""
        self.nonspeech = nonspeech_stretches(speech_regions, duration)
        self.nonspeech_shade.set(
            [(a, b, f"non-speech (VAD) {a:.2f}–{b:.2f} s") for a, b in self.nonspeech]
        )

    # -- saliency overlay (explain stage) ----------------------------------------------------
    def set_saliency(self, curve, frame_s: float, words=(), method: str | None = None) -> None:
        """Overlay a saliency curve (one value per frame of ``frame_s`` seconds) on the
        waveform as a translucent curve under it (negative values clipped at 0, the maximum at
        the top, its scale on the right axis in the ``method``'s unit), and the reference words
        as labelled regions (``words``: dicts or objects with ``word``, ``start``, ``end``)."""
        self.overlay.set(curve, frame_s, words, method)
        self._draw_saliency()

    def clear_saliency(self) -> None:
        self.overlay.clear()

    @property
    def saliency_shown(self) -> bool:
        return bool(self.overlay.items)

    def _draw_saliency(self) -> None:
        self.overlay.draw(self._peak)

    def _show_spectrogram(self, spec) -> None:
        self.spectrogram = spec
        top = float(spec.db.max())
        self.image.setImage(spec.db, autoLevels=False, levels=(top - 80.0, top))
        self.image.setRect(QRectF(self.origin, 0, spec.duration, spec.sample_rate / 2000.0))
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
        t_lo, t_hi = self.t_lo, self.t_hi
        c = self.position if centre is None else centre
        width = min(t_hi - t_lo, max(0.05, (hi - lo) / factor))
        lo = min(max(t_lo, c - width / 2), max(t_lo, t_hi - width))
        self.wave.setXRange(lo, lo + width, padding=0)

    def zoom_in(self) -> None:
        self.zoom(2.0)

    def zoom_out(self) -> None:
        self.zoom(0.5)

    def zoom_fit(self) -> None:
        self.wave.setXRange(self.t_lo, max(self.t_hi, self.t_lo + 0.01), padding=0)

    # -- playback ---------------------------------------------------------------------
    def set_position(self, seconds: float) -> None:
        self.position = max(self.t_lo, min(self.t_hi, float(seconds)))
        for h in self.heads:
            h.setValue(self.position)
        self.time_label.setText(f"{clock(self.position)} / {clock(self.duration)}")

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
            if hi - lo < 0.02 or hi > self.t_hi:
                w = self.word_at(self.position)
                self.selection.setRegion((w[1], w[2]) if w else self.view_range())

    def toggle(self) -> None:
        if self.samples is None and not self.playing:
            self.message.emit("Nothing to play: no audio is loaded here yet.")
            return
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
        start = self.position if self.position < self.t_hi - 0.05 else self.t_lo
        self.play_span(start, self.t_hi)

    def play_span(self, start: float, end: float) -> None:
        """Play from ``start`` to ``end`` seconds (item time) at the chosen speed."""
        if self.samples is None:
            return
        if not self.can_play:  # say why nothing plays (Space, a word click)
            self.message.emit(self.sink.reason or "Playback unavailable: no audio output.")
            return
        self.stop()
        start, end = max(self.t_lo, float(start)), min(self.t_hi, float(end))
        if end - start < 0.01:
            return
        first = int(round((start - self.origin) * SAMPLE_RATE))
        seg = self.samples[first : int(round((end - self.origin) * SAMPLE_RATE))]
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
            self.set_position(self.t_lo if end >= self.t_hi - 1e-6 else start)
            return
        self.set_position(t)
