"""Crash-safe audio recording (no Qt).

The sounddevice callback only copies each block into a queue; a writer thread appends the
blocks to the take's WAV file as they arrive.

Crash safety
------------
A take is a plain WAV file written by :class:`WavAppender`, not by libsndfile: libsndfile's
``sf_write_sync`` (``SoundFile.flush()``) only syncs and leaves the header's sizes at 0 until
the file is closed, so strict readers see an empty file after a crash. Instead, after every
block the writer

1. appends the block's bytes with an unbuffered ``os.write`` (in the kernel's page cache at
   once, so they survive ``kill -9`` of the process), then
2. rewrites the RIFF and ``data`` chunk sizes in the header (two 4-byte writes),

and calls ``fsync`` about once a second (survives a power cut, up to that second). After a
``kill -9`` the file on disk is therefore already a valid WAV holding every block whose write
finished; at most the block being written at that instant is beyond the header's sizes.

Next to each take a sidecar ``<take>.wav.json`` records its format and ``status``
(``recording`` while the recorder runs, ``done`` after :meth:`Recorder.stop`).
:func:`recover` finds takes still marked ``recording`` whose writer is gone (its
``fcntl.flock`` on the take's file is free), extends the
header over every whole frame on disk (a torn last frame of a few bytes is cut) and marks
them ``recovered``. Audio is never deleted.
"""

from __future__ import annotations

import os
import queue
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..constants import SAMPLE_RATE
from .devices import (
    ArrayStream,
    RecorderUnavailable,
    input_status,
    sounddevice_stream,
    synthetic_speech,
)
from .wavfile import (
    DONE,
    FAILED,
    FORMATS,
    RECORDING,
    RECOVERED,
    SIDECAR_SUFFIX,
    RecorderError,
    WavAppender,
    _parse_wav,
    _write_json_atomic,
    read_sidecar,
    sidecar_path,
    take_is_locked,
)

__all__ = [
    "DONE",
    "FAILED",
    "FORMATS",
    "RECORDING",
    "RECOVERED",
    "SIDECAR_SUFFIX",
    "ArrayStream",
    "Level",
    "RecordedTake",
    "Recorder",
    "RecorderError",
    "RecorderUnavailable",
    "WavAppender",
    "input_status",
    "read_sidecar",
    "recover",
    "sidecar_path",
    "sounddevice_stream",
    "synthetic_speech",
]

#: Resolution of the display envelope kept while recording (frames per min/max pair).
ENVELOPE_HOP = 160


# -- the recorder ------------------------------------------------------------------------
@dataclass(frozen=True)
class Level:
    """Level of the last block, full scale = 1: RMS and absolute peak."""

    rms: float = 0.0
    peak: float = 0.0

    @property
    def dbfs(self) -> float:
        return 20 * np.log10(max(self.rms, 1e-6))


@dataclass(frozen=True)
class RecordedTake:
    """A finished take."""

    path: Path
    samplerate: int
    channels: int
    frames: int
    dtype: str
    overflows: int = 0
    status: str = DONE
    meta: dict = field(default_factory=dict)

    @property
    def duration(self) -> float:
        return self.frames / float(self.samplerate)


#: Takes being written by a recorder of this process (recover() leaves them alone).
_ACTIVE: set[str] = set()
_ACTIVE_LOCK = threading.Lock()


class Recorder:
    """Record takes to crash-safe WAV files.

    Parameters
    ----------
    stream_factory : ``factory(samplerate, channels, dtype, blocksize, callback, device)``
        returning an object with ``start()``, ``stop()`` and ``close()`` that calls
        ``callback(indata, frames, time, status)`` from its own thread. Default:
        :func:`sounddevice_stream`; tests pass :meth:`ArrayStream.factory`.
    blocksize : frames per block.
    dtype : sample format of the device and the file (``int16`` or ``float32``).
    fsync_every : seconds between two ``fsync`` calls (power-cut safety).
    on_written : ``on_written(frames_on_disk)``, called by the writer thread after each
        block is on disk and the header covers it (tests use it as an acknowledgement).

    Notes
    -----
    ``level``, ``frames``, ``duration`` and :meth:`envelope` may be read from any thread
    (the GUI's display timer polls them).
    """

    def __init__(
        self,
        stream_factory: Callable | None = None,
        *,
        blocksize: int = 1024,
        dtype: str = "int16",
        fsync_every: float = 1.0,
        on_written: Callable[[int], None] | None = None,
    ):
        if dtype not in FORMATS:
            raise RecorderError(f"sample format {dtype!r} is not supported; use int16 or float32")
        self.stream_factory = stream_factory or sounddevice_stream
        self.blocksize, self.dtype, self.fsync_every = int(blocksize), dtype, fsync_every
        self.on_written = on_written
        self._scale = 32768.0 if dtype == "int16" else 1.0
        self._reset()

    def _reset(self) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._stream = None
        self._writer: threading.Thread | None = None
        self._file: WavAppender | None = None
        self._meta: dict = {}
        self._error: BaseException | None = None
        self._overflows = 0
        self._env_lock = threading.Lock()
        self._env: list[np.ndarray] = []
        self._carry = np.zeros(0, np.float32)
        self.level = Level()
        self.frames = 0
        self.samplerate = SAMPLE_RATE
        self.channels = 1
        self.path: Path | None = None

    # -- state ------------------------------------------------------------------------
    @property
    def recording(self) -> bool:
        return self._writer is not None

    @property
    def duration(self) -> float:
        """Seconds of the current (or last) take on disk."""
        return self.frames / float(self.samplerate)

    @property
    def input_finished(self) -> bool:
        """Whether the input has nothing more to give (a file played as the microphone
        reached its end: its stream's ``finished`` event is set); a device never finishes."""
        done = getattr(self._stream, "finished", None)
        return bool(done is not None and done.is_set())

    @property
    def error(self) -> BaseException | None:
        """The writer's error (disk full, ...), if it failed; the take stops growing."""
        return self._error

    def envelope(self) -> np.ndarray:
        """(n, 2) min/max pairs of the take so far, one per :data:`ENVELOPE_HOP` frames,
        full scale = 1 (mono mix)."""
        with self._env_lock:
            parts = list(self._env)
        return np.concatenate(parts) if parts else np.zeros((0, 2), np.float32)

    # -- start / stop -------------------------------------------------------------------
    def start(
        self,
        path,
        samplerate: int = SAMPLE_RATE,
        channels: int = 1,
        *,
        device=None,
        meta: dict | None = None,
    ) -> None:
        """Create ``path`` and start recording into it.

        Raises
        ------
        RecorderUnavailable
            No usable input (the file is not created).
        RecorderError
            Already recording, or ``path`` exists (takes are never overwritten).
        """
        if self.recording:
            raise RecorderError(f"already recording {self.path}; stop it first")
        self._reset()
        path = Path(path)
        if path.exists():
            raise RecorderError(
                f"{path}: a take with this name exists; it is never "
                "overwritten (choose the next take number)"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        self.samplerate, self.channels, self.path = int(samplerate), int(channels), path
        self._meta = {
            "status": RECORDING,
            "samplerate": self.samplerate,
            "channels": self.channels,
            "dtype": self.dtype,
            "started_at": time.time(),
            "pid": os.getpid(),
            "host": socket.gethostname(),
            **(meta or {}),
        }
        try:
            stream = self.stream_factory(
                self.samplerate, self.channels, self.dtype, self.blocksize, self._callback, device
            )
        except RecorderUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 - a factory's own failure, made typed
            raise RecorderUnavailable(f"cannot open the audio input: {exc}") from None
        try:
            self._file = WavAppender(path, self.samplerate, self.channels, self.dtype)
        except FileExistsError:
            stream.close()
            raise RecorderError(
                f"{path}: a take with this name exists; it is never overwritten"
            ) from None
        except OSError as exc:
            stream.close()
            raise RecorderError(
                f"{path}: cannot create the take ({exc.strerror}); check the "
                "folder is writable and the disk is not full"
            ) from None
        with _ACTIVE_LOCK:
            _ACTIVE.add(str(path.resolve()))
        _write_json_atomic(sidecar_path(path), self._meta)
        self._stream = stream
        self._writer = threading.Thread(
            target=self._write_loop, args=(self._file,), name="fairdesk-take-writer", daemon=True
        )
        self._writer.start()
        try:
            stream.start()
        except Exception as exc:  # noqa: BLE001
            self._finish_writer()
            self._close_stream()
            self._finalise(FAILED)
            if self.frames == 0:  # nothing was recorded: leave no empty take behind
                path.unlink(missing_ok=True)
                sidecar_path(path).unlink(missing_ok=True)
            ok, why = input_status(device)
            why = why.removeprefix("Recording unavailable: ")
            raise RecorderUnavailable(
                why
                if not ok
                else f"the audio input did not start ({exc}); check the device and try again"
            ) from None

    def _callback(self, indata, frames, time_info, status) -> None:
        # Runs on the audio thread: copy and queue, nothing else.
        if status:
            self._overflows += 1
        self._queue.put_nowait(indata.copy())

    def _write_loop(self, f: WavAppender) -> None:
        last_sync = time.monotonic()
        while True:
            block = self._queue.get()
            if block is None:
                break
            if self._error is not None:
                continue  # keep draining so memory stays flat; the take stops growing
            try:
                f.append(block)
                self.frames = f.frames
                if time.monotonic() - last_sync >= self.fsync_every:
                    f.sync()
                    last_sync = time.monotonic()
            except Exception as exc:  # noqa: BLE001 - disk full, removed drive ...
                self._error = exc
                continue
            self._measure(block)
            if self.on_written is not None:
                self.on_written(self.frames)

    def _measure(self, block: np.ndarray) -> None:
        x = np.asarray(block, dtype=np.float32) / self._scale
        mono = x.mean(axis=1) if x.ndim == 2 else x
        if mono.size:
            self.level = Level(float(np.sqrt(np.mean(mono * mono))), float(np.max(np.abs(x))))
            # Carry the frames short of a whole hop over to the next block, so that the
            # envelope has exactly one point per ENVELOPE_HOP frames.
            mono = np.concatenate([self._carry, mono]) if self._carry.size else mono
            n = mono.size // ENVELOPE_HOP * ENVELOPE_HOP
            self._carry = mono[n:].copy()
            if n:
                m = mono[:n].reshape(-1, ENVELOPE_HOP)
                pairs = np.stack([m.min(axis=1), m.max(axis=1)], axis=1)
                with self._env_lock:
                    self._env.append(pairs)

    def _finish_writer(self) -> None:
        if self._writer is not None:
            self._queue.put(None)
            self._writer.join()
            self._writer = None

    def _close_stream(self) -> None:
        s, self._stream = self._stream, None
        if s is not None:
            try:
                s.stop()
            finally:
                s.close()

    def _finalise(self, status: str) -> None:
        f, self._file = self._file, None
        if f is not None:
            f.close()
            self.frames = f.frames
        if self.path is not None:
            with _ACTIVE_LOCK:
                _ACTIVE.discard(str(self.path.resolve()))
            self._meta.update(
                status=status,
                frames=self.frames,
                duration=self.frames / float(self.samplerate),
                stopped_at=time.time(),
                overflows=self._overflows,
            )
            if self._error is not None:
                self._meta["error"] = str(self._error)
            _write_json_atomic(sidecar_path(self.path), self._meta)

    def stop(self) -> RecordedTake:
        """Stop the stream, write what is queued, close the file and mark the take done.

        Raises
        ------
        RecorderError
            Writing failed during the take (the audio before the failure is kept).
        """
        if not self.recording:
            raise RecorderError("not recording")
        path = self.path
        assert path is not None  # set by start()
        try:
            self._close_stream()
        finally:
            self._finish_writer()
            self._finalise(DONE if self._error is None else FAILED)
        if self._error is not None:
            raise RecorderError(
                f"{self.path}: writing the take failed after "
                f"{self.duration:.1f} s ({self._error}); the audio before "
                "that is kept. Free disk space or choose another folder"
            )
        return RecordedTake(
            path,
            self.samplerate,
            self.channels,
            self.frames,
            self.dtype,
            self._overflows,
            DONE,
            dict(self._meta),
        )


# -- recovery ----------------------------------------------------------------------------
def _alive(wav: Path) -> bool:
    """A live recorder writes ``wav``: it holds the take's OS lock (released on death)."""
    return take_is_locked(wav)


def recover(folder) -> list[RecordedTake]:
    """Make every unfinished take under ``folder`` readable and mark it ``recovered``.

    A take is unfinished when its sidecar still says ``recording`` and no live recorder
    writes it (not this process's, and no process holds the take's lock: the OS releases
    it when the writer dies, and unlike a process id it is never reused). The header is extended over
    every whole frame on disk; a torn last frame (less than one frame of bytes) is cut.
    Takes whose header never reached the disk are marked ``failed`` and left as they are.

    Returns
    -------
    list of RecordedTake
        One per take looked at, with ``status`` ``recovered`` or ``failed`` (and
        ``meta["error"]`` saying why).
    """
    out = []
    for side in sorted(Path(folder).rglob("*.wav" + SIDECAR_SUFFIX)):
        wav = side.with_name(side.name[: -len(SIDECAR_SUFFIX)])
        meta = read_sidecar(wav)
        if not meta or meta.get("status") != RECORDING:
            continue
        with _ACTIVE_LOCK:
            if str(wav.resolve()) in _ACTIVE:
                continue
        if _alive(wav):
            continue
        out.append(_recover_one(wav, meta))
    return out


def _recover_one(wav: Path, meta: dict) -> RecordedTake:
    sr, ch = int(meta.get("samplerate", SAMPLE_RATE)), int(meta.get("channels", 1))
    dtype = meta.get("dtype", "int16")
    try:
        if not wav.exists():
            raise ValueError("the take's file is missing")
        h = _parse_wav(wav)
        size = wav.stat().st_size
        frames = max(0, size - h["data_offset"]) // h["frame_bytes"]
        end = h["data_offset"] + frames * h["frame_bytes"]
        with open(wav, "r+b") as f:
            if size > end:
                f.truncate(end)  # a torn frame: less than one sample per channel
            f.seek(4)
            f.write(struct.pack("<I", end - 8))
            f.seek(h["size_at"])
            f.write(struct.pack("<I", end - h["data_offset"]))
            if h["fact_at"] is not None:
                f.seek(h["fact_at"])
                f.write(struct.pack("<I", frames))
            f.flush()
            os.fsync(f.fileno())
        sr, ch = h["samplerate"], h["channels"]
        status = RECOVERED
        meta = {
            **meta,
            "status": status,
            "frames": frames,
            "duration": frames / float(sr),
            "recovered_at": time.time(),
        }
    except (OSError, ValueError, struct.error) as exc:
        frames, status = 0, FAILED
        meta = {
            **meta,
            "status": status,
            "error": f"cannot recover: {exc}",
            "recovered_at": time.time(),
        }
    _write_json_atomic(sidecar_path(wav), meta)
    return RecordedTake(wav, sr, ch, frames, dtype, int(meta.get("overflows", 0)), status, meta)
