"""An audio file as the microphone: an input stream that plays a file into the recorder.

:class:`FileStream` has the interface :class:`fairdesk.recording.recorder.Recorder` expects of a
stream (``start``, ``stop``, ``close`` and a ``callback(indata, frames, time, status)`` called
from the stream's own thread), so a file takes the same path as a device: callback → queue →
writer thread → the take's WAV on disk, block by block as they arrive. Used by
``fairdesk gui --input-file WAV``, demos and tests; no audio device is touched.

Pass ``file_stream_factory(path)`` as the recorder's ``stream_factory``. The file is decoded
once, downmixed and resampled (soxr) to the rate the recorder asks for, and converted to its
sample format.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

__all__ = ["FileStream", "file_samples", "file_stream_factory"]


def file_samples(path, samplerate: int, channels: int = 1, dtype: str = "int16") -> np.ndarray:
    """The samples a :class:`FileStream` delivers: ``path`` decoded, mixed to mono, resampled to
    ``samplerate`` and converted to ``dtype``, shape (frames, channels).

    Raises
    ------
    fairdesk.core.errors.AudioError
        The file is missing, corrupt or empty (the message names it).
    """
    from ..core.audio import load

    mono = load(path, int(samplerate)).samples
    if dtype == "int16":
        x = np.round(np.clip(mono, -1.0, 32767 / 32768) * 32768.0).astype(np.int16)
    else:
        x = mono.astype(np.float32)
    return np.repeat(x[:, None], int(channels), axis=1)


class FileStream:
    """Feed a file's samples to ``callback`` block by block from a thread.

    Parameters
    ----------
    samples : (frames, channels) array in the stream's dtype (see :func:`file_samples`).
    samplerate, blocksize, callback : as a sounddevice input stream.
    speed : pace relative to real time (1.0: real time, as a microphone; 0 or None: as fast as
        the callback takes them).
    loop : start again at the end; else, at the end, the stream stays open and feeds nothing
        (like a device whose speaker stopped talking) and ``finished`` is set.
    """

    def __init__(
        self,
        samples: np.ndarray,
        samplerate: int,
        blocksize: int,
        callback: Callable,
        speed: float | None = 1.0,
        loop: bool = False,
    ):
        self.samples = samples
        self.samplerate, self.blocksize, self.callback = int(samplerate), int(blocksize), callback
        self.speed, self.loop = speed, loop
        self.fed = 0
        self.finished = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="fairdesk-file-input", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        n, pos, sent, t0 = len(self.samples), 0, 0, time.monotonic()
        while not self._stop.is_set():
            if pos >= n:
                if not self.loop:
                    self.finished.set()
                    self._stop.wait(0.05)
                    continue
                pos = 0
            block = self.samples[pos : pos + self.blocksize]
            pos += len(block)
            self.callback(block, len(block), None, None)
            self.fed += len(block)
            sent += len(block)
            if self.speed:
                due = t0 + sent / (self.samplerate * float(self.speed))
                wait = due - time.monotonic()
                if wait > 0:
                    self._stop.wait(wait)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)

    def close(self) -> None:
        self.stop()


def file_stream_factory(path, speed: float | None = 1.0, loop: bool = False) -> Callable:
    """A ``stream_factory`` for the recorder that plays ``path`` as the input.

    The file is checked now (a clear error before any take starts) and decoded again at each
    take's sample rate when that differs.

    Raises
    ------
    fairdesk.core.errors.AudioError
        The file cannot be used as input.
    """
    from ..core.audio import probe

    path = Path(path).expanduser()
    probe(path)
    return _FileStreamFactory(path, speed, loop)


class _FileStreamFactory:
    """The ``stream_factory`` :func:`file_stream_factory` makes: decoded samples are kept per
    (rate, channels, dtype); ``source`` names the file (the GUI shows which is the input)."""

    def __init__(self, path: Path, speed: float | None, loop: bool):
        self.path, self.speed, self.loop = path, speed, loop
        self.source = str(path)
        self._cache: dict[tuple, np.ndarray] = {}

    def __call__(self, samplerate, channels, dtype, blocksize, callback, device=None):
        key = (int(samplerate), int(channels), dtype)
        if key not in self._cache:
            self._cache[key] = file_samples(self.path, samplerate, channels, dtype)
        return FileStream(
            self._cache[key], samplerate, blocksize, callback, speed=self.speed, loop=self.loop
        )
