"""The audio player: min/max waveform envelope, log spectrogram, play/stop with a moving
playhead. Playback uses sounddevice, imported lazily here only; without PortAudio or an
output device the play button is disabled with a tooltip saying why."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ..constants import SAMPLE_RATE
from . import tasks
from .jobs import Job, JobRegistry

log = logging.getLogger("fairdesk.gui.player")

#: Files longer than this (seconds) are decoded and analysed in a background job.
LONG_SECONDS = 20.0
_OUTPUT: tuple[bool, str] | None = None


def audio_output() -> tuple[bool, str]:
    """Whether audio can be played here, and if not why (checked once, lazily)."""
    global _OUTPUT
    if _OUTPUT is not None:
        return _OUTPUT
    try:
        import sounddevice as sd
    except OSError as exc:
        _OUTPUT = (False, f"Playback unavailable: the PortAudio library is missing ({exc}). "
                          "Install it (Debian/Ubuntu: apt-get install libportaudio2).")
        return _OUTPUT
    except ImportError:
        _OUTPUT = (False, "Playback unavailable: the sounddevice package is not installed.")
        return _OUTPUT
    try:
        sd.query_devices(kind="output")
        _OUTPUT = (True, "")
    except Exception as exc:  # noqa: BLE001 - PortAudioError, ValueError: no device
        _OUTPUT = (False, f"Playback unavailable: no audio output device ({exc}).")
    return _OUTPUT


def _fmt(t: float) -> str:
    return f"{int(t // 60)}:{t % 60:05.2f}"


class AudioPlayer(QWidget):
    """Waveform + spectrogram of one file, and a play/stop button.

    Parameters
    ----------
    jobs : the registry that runs decoding and spectrograms of long files.

    Signals
    -------
    ready(str) : the file's waveform and spectrogram are drawn.
    failed(str) : the file could not be shown (message).
    """

    ready = Signal(str)
    failed = Signal(str)

    def __init__(self, jobs: JobRegistry, parent=None):
        super().__init__(parent)
        self.jobs = jobs
        self.path: str | None = None
        self.samples: np.ndarray | None = None
        self.duration = 0.0
        self.position = 0.0
        self._play_from = 0.0
        self._t0 = 0.0
        self.playing = False
        self.spectrogram = None
        self._peak = 1.0
        self._saliency: tuple | None = None  # (times, curve, words) shown over the waveform
        self._saliency_items: list = []

        self.wave = pg.PlotWidget()
        self.wave.setMinimumHeight(90)
        self.wave.setMenuEnabled(False)
        self.wave.setMouseEnabled(x=False, y=False)
        self.wave.hideButtons()
        self.wave.getPlotItem().hideAxis("bottom")
        self.wave.getPlotItem().getAxis("left").setWidth(48)
        self.wave.setYRange(-1, 1, padding=0.05)
        self._lo = pg.PlotDataItem(pen=pg.mkPen("#1565c0", width=1))
        self._hi = pg.PlotDataItem(pen=pg.mkPen("#1565c0", width=1))
        self._fill = pg.FillBetweenItem(self._lo, self._hi, brush=pg.mkBrush(21, 101, 192, 150))
        for it in (self._lo, self._hi, self._fill):
            self.wave.addItem(it)

        self.spec = pg.PlotWidget()
        self.spec.setMinimumHeight(130)
        self.spec.setMenuEnabled(False)
        self.spec.setMouseEnabled(x=False, y=False)
        self.spec.hideButtons()
        self.spec.getPlotItem().getAxis("left").setWidth(48)
        self.spec.getPlotItem().getAxis("left").setLabel("kHz")
        self.spec.getPlotItem().getAxis("bottom").setLabel("s")
        self.spec.setXLink(self.wave)
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("inferno"))
        self.spec.addItem(self.image)

        self.heads = []
        for w in (self.wave, self.spec):
            line = pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen("#e53935", width=2))
            w.addItem(line)
            self.heads.append(line)
            w.scene().sigMouseClicked.connect(lambda ev, w=w: self._clicked(w, ev))

        self.play_btn = QPushButton("▶  Play")
        self.play_btn.setMinimumWidth(90)
        self.time_label = QLabel("0:00.00 / 0:00.00")
        self.info = QLabel("")
        self.info.setObjectName("muted")
        ok, why = audio_output()
        self.can_play = ok
        self.play_btn.setEnabled(False)
        self.play_btn.setToolTip("Play from the playhead (click the waveform to move it)"
                                 if ok else why)
        self.no_output = QLabel("" if ok else "no audio output here")
        self.no_output.setObjectName("muted")
        self.no_output.setToolTip(why)
        controls = QHBoxLayout()
        controls.addWidget(self.play_btn)
        controls.addWidget(self.time_label)
        controls.addSpacing(10)
        controls.addWidget(self.no_output)
        controls.addStretch(1)
        controls.addWidget(self.info)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.wave, 2)
        lay.addWidget(self.spec, 3)
        lay.addLayout(controls)

        self.timer = QTimer(self)  # the one display timer of the player
        self.timer.setInterval(30)
        self.timer.timeout.connect(self._tick)
        self.play_btn.clicked.connect(self.toggle)

    # -- loading --------------------------------------------------------------------------
    def load(self, path, duration_hint: float | None = None) -> Job | None:
        """Show ``path``; long files are decoded and analysed in a job (returned)."""
        self.stop()
        self.clear_saliency()
        self.path = str(path)
        self.info.setText(Path(path).name)
        if duration_hint is not None and duration_hint > LONG_SECONDS:
            self._clear()
            self.info.setText(f"analysing {Path(path).name} ({duration_hint:.0f} s)…")
            job = Job(tasks.load_audio, self.path, name="load audio", request=self.path)
            job.signals.result.connect(lambda out, p=self.path: self._loaded(p, out))
            job.signals.error.connect(self._failed)
            return self.jobs.submit(job, channel="player")
        try:
            out = tasks.load_audio(self.path, spectrogram_too=False,
                                   progress=lambda *_: None, cancelled=lambda: False)
        except Exception as exc:  # noqa: BLE001 - an unreadable file is shown, not raised
            self._failed(str(exc))
            return None
        self._loaded(self.path, out)
        if len(out["samples"]) / SAMPLE_RATE <= LONG_SECONDS:
            from ..recording.signal import spectrogram

            self._show_spectrogram(spectrogram(out["samples"]))
            self.ready.emit(self.path)
            return None
        job = Job(tasks.spectrogram, out["samples"], name="spectrogram", request=self.path)
        job.signals.result.connect(lambda s, p=self.path: self._spec_done(p, s))
        job.signals.error.connect(self._failed)
        return self.jobs.submit(job, channel="player")

    def _clear(self) -> None:
        self.samples = None
        self._lo.setData([], [])
        self._hi.setData([], [])
        self.image.clear()
        self.play_btn.setEnabled(False)

    def _loaded(self, path: str, out: dict) -> None:
        if path != self.path:  # a newer file was asked for meanwhile
            return
        self.samples = out["samples"]
        self.duration = len(self.samples) / SAMPLE_RATE
        env = out["envelope"]
        peak = max(0.05, float(np.max(np.abs(np.concatenate([env.lo, env.hi])))) * 1.1
                   if env.lo.size else 1.0)
        self._lo.setData(env.times, env.lo)
        self._hi.setData(env.times, env.hi)
        self.wave.setYRange(-peak, peak, padding=0)
        self.wave.setXRange(0, self.duration, padding=0)
        self._peak = peak
        if self._saliency is not None:
            self._draw_saliency()
        self.set_position(0.0)
        self.play_btn.setEnabled(self.can_play)
        self.info.setText(f"{Path(path).name} · {self.duration:.2f} s")
        if out.get("spectrogram") is not None:
            self._show_spectrogram(out["spectrogram"])
            self.ready.emit(path)

    # -- saliency overlay (explain stage) ----------------------------------------------------
    def set_saliency(self, curve, frame_s: float, words=()) -> None:
        """Overlay a saliency curve (one value per frame of ``frame_s`` seconds) on the
        waveform as a filled translucent curve scaled to the plot (negative values clipped
        at 0, the maximum at the top), and the reference words as labelled regions
        (``words``: dicts or objects with ``word``, ``start``, ``end``)."""
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
            region = pg.LinearRegionItem(values=(start, end), movable=False,
                                         brush=pg.mkBrush(67, 160, 71, 28 if k % 2 else 45),
                                         pen=pg.mkPen(67, 160, 71, 90))
            region.setZValue(-10)
            label = pg.TextItem(word, color="#2e7d32", anchor=(0.5, 0))
            label.setPos((start + end) / 2, peak)
            self._saliency_items += [region, label]
        curve = pg.PlotDataItem(times, y, pen=pg.mkPen(239, 108, 0, 200, width=1),
                                fillLevel=-peak, brush=pg.mkBrush(255, 152, 0, 90))
        curve.setZValue(5)
        self._saliency_items.append(curve)
        for it in self._saliency_items:
            self.wave.addItem(it)

    def _spec_done(self, path: str, spec) -> None:
        if path == self.path:
            self._show_spectrogram(spec)
            self.ready.emit(path)

    def _show_spectrogram(self, spec) -> None:
        self.spectrogram = spec
        top = float(spec.db.max())
        self.image.setImage(spec.db, autoLevels=False, levels=(top - 80.0, top))
        self.image.setRect(QRectF(0, 0, spec.duration, spec.sample_rate / 2000.0))
        self.spec.setYRange(0, spec.sample_rate / 2000.0, padding=0)
        self.spec.setXRange(0, spec.duration, padding=0)

    def _failed(self, message: str) -> None:
        self._clear()
        self.info.setText(f"<span style='color:#c62828'>{message}</span>")
        self.failed.emit(message)

    # -- playback ---------------------------------------------------------------------
    def set_position(self, seconds: float) -> None:
        self.position = max(0.0, min(self.duration, float(seconds)))
        for h in self.heads:
            h.setValue(self.position)
        self.time_label.setText(f"{_fmt(self.position)} / {_fmt(self.duration)}")

    def _clicked(self, widget, ev) -> None:
        if self.samples is None or self.playing:
            return
        vb = widget.getPlotItem().getViewBox()
        pt = vb.mapSceneToView(ev.scenePos())
        self.set_position(pt.x())

    def toggle(self) -> None:
        if self.playing:
            self.stop()
        else:
            self.play()

    def play(self) -> None:
        if self.samples is None or not self.can_play:
            return
        import sounddevice as sd

        start = self.position if self.position < self.duration - 0.05 else 0.0
        try:
            sd.play(self.samples[int(start * SAMPLE_RATE):], SAMPLE_RATE)
        except Exception as exc:  # noqa: BLE001 - a device can vanish between check and use
            self.can_play = False
            self.play_btn.setEnabled(False)
            self.play_btn.setToolTip(f"Playback failed: {exc}")
            log.warning("playback failed: %s", exc)
            return
        self._play_from, self._t0, self.playing = start, time.monotonic(), True
        self.play_btn.setText("■  Stop")
        self.timer.start()

    def stop(self) -> None:
        if not self.playing:
            return
        self.playing = False
        self.timer.stop()
        self.play_btn.setText("▶  Play")
        try:
            import sounddevice as sd

            sd.stop()
        except Exception as exc:  # noqa: BLE001
            log.warning("stopping playback failed: %s", exc)

    def _tick(self) -> None:
        t = self._play_from + (time.monotonic() - self._t0)
        if t >= self.duration:
            self.stop()
            self.set_position(0.0)
            return
        self.set_position(t)
