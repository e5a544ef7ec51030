"""Audio behind the player: decoded files cached and prefetched in background jobs, the
output sink that plays samples, and pitch-preserving slower playback.

- :class:`AudioCache` decodes a file and computes its envelope and spectrogram in a job (never
  on the GUI thread), keeps the last few, and prefetches the neighbours of the shown item. Each
  result is announced with its path; a receiver ignores paths it no longer shows (stale).
- :class:`OutputSink` is what the player plays through: :class:`SoundDeviceSink` (PortAudio,
  imported lazily) or :class:`NullSink` (no device: tests, headless machines, screenshots).
- :func:`stretch` slows a signal down without changing its pitch (WSOLA, ``audiotsm``).
"""

from __future__ import annotations

import logging
from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from ...jobs import tasks
from ..jobs import Job, JobRegistry

log = logging.getLogger("fairdesk.gui.audio")

#: Decoded files kept (each a few hundred kB for an utterance).
CACHE_FILES = 16


def stretch(samples: np.ndarray, speed: float) -> np.ndarray:
    """``samples`` played at ``speed`` (0.5: twice as long) with the pitch unchanged.

    Uses WSOLA (waveform-similarity overlap-add) from ``audiotsm``; ``speed`` 1 returns the
    input.
    """
    x = np.asarray(samples, dtype=np.float32).ravel()
    if abs(float(speed) - 1.0) < 1e-6 or x.size == 0:
        return x
    from audiotsm import wsola
    from audiotsm.io.array import ArrayReader, ArrayWriter

    # audiotsm's output lags by half a frame and stops a frame short of the end: pad the
    # input with two frames of silence, then keep len(x) / speed samples after the lag.
    frame = 1024
    padded = np.concatenate([x, np.zeros(2 * frame, dtype=np.float32)])
    reader, writer = ArrayReader(padded[None, :]), ArrayWriter(1)
    wsola(1, frame_length=frame, speed=float(speed)).run(reader, writer)
    y = writer.data[0]
    n = int(round(x.size / float(speed)))
    return np.ascontiguousarray(y[frame // 2 : frame // 2 + n], dtype=np.float32)


class OutputSink:
    """Where the player's samples go. ``available`` and ``reason`` say whether it can play."""

    available = False
    reason = "no audio output"

    def start(self, samples: np.ndarray, sample_rate: int) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError


class NullSink(OutputSink):
    """Plays nothing, remembers what it was given (tests; machines without a device)."""

    available = True
    reason = ""

    def __init__(self):
        self.played: list[np.ndarray] = []
        self.stopped = 0

    def start(self, samples, sample_rate) -> None:
        self.played.append(np.asarray(samples))

    def stop(self) -> None:
        self.stopped += 1


class SoundDeviceSink(OutputSink):
    """PortAudio output through ``sounddevice`` (the default device, or ``device``)."""

    def __init__(self, device=None):
        self.device = device
        self.available, self.reason = _probe(device)

    def start(self, samples, sample_rate) -> None:
        import sounddevice as sd

        sd.play(samples, sample_rate, device=self.device)

    def stop(self) -> None:
        import sounddevice as sd

        sd.stop()


def _probe(device=None) -> tuple[bool, str]:
    try:
        import sounddevice as sd
    except OSError as exc:
        return False, (
            f"Playback unavailable: the PortAudio library is missing ({exc}). "
            "Install it (Debian/Ubuntu: apt-get install libportaudio2)."
        )
    except ImportError:
        return False, (
            "Playback unavailable: the sounddevice package is not installed "
            "(pip install 'fairdesk[gui]')."
        )
    try:
        sd.query_devices(device, kind="output")
    except Exception as exc:  # noqa: BLE001 - PortAudioError, ValueError: no device
        return False, (
            f"Playback unavailable: no audio output device ({exc}). Connect one, then "
            "choose it with the player's 'No output…' button or File ▸ Audio output…"
        )
    return True, ""


_DEFAULT: OutputSink | None = None


def default_sink() -> OutputSink:
    """The default output (probed once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = SoundDeviceSink()
    return _DEFAULT


def set_default_sink(sink: OutputSink) -> None:
    """Make ``sink`` the default output (see
    :func:`fairdesk.gui.audio.output_picker.choose_output`)."""
    global _DEFAULT
    _DEFAULT = sink


def audio_key(path, span=None, context: float = 0.0) -> str:
    """The cache key of what the player shows: a whole file by its path, a segment by its path
    and span (and the context around it, when asked for)."""
    if span is None:
        return str(path)
    key = f"{path}#{float(span[0]):.4f}-{float(span[1]):.4f}"
    return key + (f"+{float(context):g}" if context else "")


def _source(src):
    """``(path, span)`` of a prefetch entry: a path, or a ``(path, span)`` pair."""
    if isinstance(src, tuple):
        return str(src[0]), src[1]
    return str(src), None


class AudioCache(QObject):
    """Decoded files or segments (samples, envelope, spectrogram) by :func:`audio_key`, filled
    by background jobs.

    Signals
    -------
    loaded(str, object) : an analysis is ready (key, dict).
    failed(str, str) : a file could not be read (key, message).
    """

    loaded = Signal(str, object)
    failed = Signal(str, str)

    def __init__(self, jobs: JobRegistry, capacity: int = CACHE_FILES, parent=None):
        super().__init__(parent)
        self.jobs = jobs
        self.capacity = capacity
        self._data: OrderedDict[str, dict] = OrderedDict()
        self._pending: dict[str, Job] = {}

    def get(self, path, span=None, context: float = 0.0) -> dict | None:
        key = audio_key(path, span, context)
        out = self._data.get(key)
        if out is not None:
            self._data.move_to_end(key)
        return out

    def request(self, path, span=None, context: float = 0.0) -> Job | None:
        """Start analysing ``path`` (only ``span`` of it, with ``context`` seconds around, when
        given) unless it is cached or under way (returns the job)."""
        key = audio_key(path, span, context)
        if key in self._data:
            return None
        job = self._pending.get(key)
        if job is not None:
            return job
        job = Job(
            tasks.load_audio,
            str(path),
            span=None if span is None else (float(span[0]), float(span[1])),
            context=float(context),
            name="load audio",
            request=key,
        )
        job.signals.result.connect(lambda out, k=key: self._done(k, out))
        job.signals.error.connect(lambda msg, k=key: self._error(k, msg))
        job.signals.finished.connect(lambda k=key, j=job: self._finished(k, j))
        self._pending[key] = job
        return self.jobs.submit(job)

    def prefetch(self, sources) -> None:
        """Analyse ``sources`` ahead (the neighbours of the shown item): paths, or ``(path,
        span)`` pairs for segments."""
        for src in sources:
            if src:
                self.request(*_source(src))

    def _done(self, path: str, out: dict) -> None:
        if not isValid(self):  # the view was closed while the job ran
            return
        self._data[path] = out
        self._data.move_to_end(path)
        while len(self._data) > self.capacity:
            self._data.popitem(last=False)
        self.loaded.emit(path, out)

    def _error(self, path: str, message: str) -> None:
        if isValid(self):
            self.failed.emit(path, message)

    def _finished(self, path: str, job: Job) -> None:
        if self._pending.get(path) is job:
            del self._pending[path]
