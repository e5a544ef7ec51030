"""A take on disk: the WAV file appended block by block (crash-safe) and its JSON sidecar.

See :mod:`fairdesk.recording.recorder` for why the header is patched after every block.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import numpy as np

from ..core.atomic import OutputError, atomic_write
from ..core.errors import FairdeskError

#: Sample formats a take can be written in: dtype -> (WAV format tag, bytes per sample).
FORMATS = {"int16": (1, 2), "float32": (3, 4)}
#: Status values of a take's sidecar.
RECORDING, DONE, RECOVERED, FAILED = "recording", "done", "recovered", "failed"
SIDECAR_SUFFIX = ".json"


class RecorderError(FairdeskError):
    """A take could not be recorded or written (the message says where and what to do)."""


# -- the WAV file ----------------------------------------------------------------------
def _header(samplerate: int, channels: int, dtype: str) -> tuple[bytes, int, int | None]:
    """A WAV header for zero frames; returns (bytes, offset of data size, offset of fact)."""
    tag, width = FORMATS[dtype]
    block_align = channels * width
    fmt = struct.pack(
        "<HHIIHH", tag, channels, samplerate, samplerate * block_align, block_align, width * 8
    )
    if tag == 1:
        chunks = b"fmt " + struct.pack("<I", 16) + fmt
        fact = None
    else:  # IEEE float: cbSize and a fact chunk (sample count), as the format requires
        chunks = b"fmt " + struct.pack("<I", 18) + fmt + struct.pack("<H", 0)
        fact = 12 + len(chunks) + 8
        chunks += b"fact" + struct.pack("<I", 4) + struct.pack("<I", 0)
    body = b"WAVE" + chunks + b"data" + struct.pack("<I", 0)
    # RIFF size = file size - 8 already for the empty take, so even a file with no block yet
    # is a valid (empty) WAV
    head = b"RIFF" + struct.pack("<I", len(body)) + body
    return head, len(head) - 4, fact


class WavAppender:
    """A WAV file that is valid on disk after every :meth:`append` (see the module notes).

    Parameters
    ----------
    path : the file to create; an existing file is never overwritten.
    samplerate, channels : the format.
    dtype : ``"int16"`` (PCM 16-bit) or ``"float32"`` (IEEE float).
    """

    def __init__(self, path, samplerate: int, channels: int, dtype: str = "int16"):
        if dtype not in FORMATS:
            raise RecorderError(f"sample format {dtype!r} is not supported; use int16 or float32")
        self.path = Path(path)
        self.samplerate, self.channels, self.dtype = int(samplerate), int(channels), dtype
        self.frame_bytes = FORMATS[dtype][1] * self.channels
        head, self._size_at, self._fact_at = _header(self.samplerate, self.channels, dtype)
        self.data_offset = len(head)
        self.frames = 0
        # O_EXCL: never overwrite a take (user audio is never deleted).
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        self.fd = os.open(self.path, flags, 0o644)
        # Held while the take is written; the OS drops it when the writer dies, however it
        # dies, so recovery knows a take whose lock is free is unfinished (a PID is reused).
        lock_take(self.fd)
        _write_all(self.fd, head)
        os.fsync(self.fd)

    def append(self, block: np.ndarray) -> None:
        """Append a (frames, channels) block, then rewrite the header's sizes."""
        data = np.ascontiguousarray(block, dtype=np.dtype(self.dtype).newbyteorder("<"))
        if data.ndim == 1:
            data = data[:, None]
        if data.shape[1] != self.channels:
            raise RecorderError(
                f"{self.path}: a block has {data.shape[1]} channels, the take {self.channels}"
            )
        _write_all(self.fd, data.tobytes())
        self.frames += data.shape[0]
        self._patch()

    def _patch(self) -> None:
        nbytes = self.frames * self.frame_bytes
        self._put(4, self.data_offset - 8 + nbytes)
        self._put(self._size_at, nbytes)
        if self._fact_at is not None:
            self._put(self._fact_at, self.frames)
        os.lseek(self.fd, 0, os.SEEK_END)

    def _put(self, offset: int, value: int) -> None:
        # lseek + write rather than os.pwrite, which Windows lacks.
        os.lseek(self.fd, offset, os.SEEK_SET)
        _write_all(self.fd, struct.pack("<I", value))

    def sync(self) -> None:
        os.fsync(self.fd)

    def close(self) -> None:
        if self.fd < 0:
            return
        try:
            self._patch()
            os.fsync(self.fd)
        finally:
            os.close(self.fd)
            self.fd = -1


def lock_take(fd: int) -> None:
    """Take the writer's lock on an open take (``fcntl.flock``; a no-op without fcntl)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RecorderError("the take is being written by another recorder") from None


def take_is_locked(path) -> bool:
    """Whether a live writer holds the take's lock (see :func:`lock_take`)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _parse_wav(path: Path) -> dict:
    """Format and data-chunk position of a WAV written by :class:`WavAppender` (or any
    canonical WAV); raises ValueError when the header is unusable."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        raise ValueError("no RIFF/WAVE header (the recorder stopped before writing it)")
    pos, fmt, fact_at = 12, None, None
    while pos + 8 <= len(head):
        cid, size = head[pos : pos + 4], struct.unpack("<I", head[pos + 4 : pos + 8])[0]
        if cid == b"fmt ":
            tag, ch, sr, _, align, bits = struct.unpack("<HHIIHH", head[pos + 8 : pos + 24])
            fmt = {"tag": tag, "channels": ch, "samplerate": sr, "frame_bytes": align, "bits": bits}
        elif cid == b"fact":
            fact_at = pos + 8
        elif cid == b"data":
            if fmt is None:
                raise ValueError("data chunk before the fmt chunk")
            return {
                **fmt,
                "data_offset": pos + 8,
                "size_at": pos + 4,
                "fact_at": fact_at,
                "declared": size,
            }
        pos += 8 + size + (size & 1)
    raise ValueError("no data chunk in the header")


# -- sidecar -------------------------------------------------------------------------------
def sidecar_path(wav) -> Path:
    """``<take>.wav.json``: format and status of a take."""
    p = Path(wav)
    return p.with_name(p.name + SIDECAR_SUFFIX)


def read_sidecar(wav) -> dict | None:
    try:
        return json.loads(sidecar_path(wav).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json_atomic(path: Path, obj: dict) -> None:
    """The sidecar, complete or not at all (:func:`fairdesk.core.atomic.atomic_write`); the
    take itself is appended in place (:class:`WavAppender`), as the audio arrives. A disk
    that refuses it is a :class:`RecorderError` (the message says why and what to do)."""
    try:
        with atomic_write(path, "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=1)
    except OutputError as exc:
        raise RecorderError(str(exc)) from None
