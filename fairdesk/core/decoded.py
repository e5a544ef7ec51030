"""Compressed recordings decoded once, to a PCM file that spans are read from by seeking.

libsndfile cannot open M4A/AAC/MP4 (nor whatever else only FFmpeg reads), so a segment of
such a session can only be had by decoding the file from its start. A session of N segments
would be decoded N times, each time whole in memory. Instead, the first span read of such a
file decodes it once, frame by frame (memory bounded by one decoded frame), into a float32
Sony Wave64 file (``.w64``: no 4 GB limit; float32 keeps the decoder's samples exactly) in
the decoded-audio cache, and every span is then read from that file by frame seek, as a WAV
would be.

The cache file is named by the BLAKE2b of the source file's bytes
(:func:`fairdesk.core.spans.file_hash`), so an edited or replaced recording gets a new entry
and a moved or copied one reuses it. Entries are written atomically (:mod:`.atomic`): a
killed process leaves no half-written entry. Entries not used for :data:`STALE_DAYS` days are
removed whenever a new one is written, and so are the oldest ones when the cache exceeds
:data:`MAX_BYTES`.

The cache folder is ``FAIRDESK_CACHE``/decoded when that variable is set, else the user's
cache folder (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
``%LOCALAPPDATA%`` on Windows) ``/fairdesk/decoded``. When it cannot be written (a read-only
or full disk), spans are decoded from the file as before.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from pathlib import Path

from . import audio as audio_io
from .errors import AudioError

__all__ = ["MAX_BYTES", "STALE_DAYS", "cache_folder", "decoded_file"]

log = logging.getLogger(__name__)

#: Days an entry may go unused before it is removed.
STALE_DAYS = 14.0
#: Size the cache is trimmed to (oldest-used entries first) when a new entry is written.
MAX_BYTES = 20 * 2**30
#: Suffix of an entry (Sony Wave64, float32).
SUFFIX = ".w64"
#: Format version in the names: a change in how entries are written makes old ones stale.
VERSION = "v1"

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()
_TOUCHED: set[str] = set()


def cache_folder() -> Path:
    """The folder of the decoded-audio cache (module docstring)."""
    env = os.environ.get("FAIRDESK_CACHE")
    if env:
        return Path(env).expanduser() / "decoded"
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "fairdesk" / "decoded"


def _lock(key: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


class _Unsteady(Exception):
    """The stream changes its sample rate or channels midway: not one PCM file."""


def decoded_file(path, digest: str, sf_error: str | None = None) -> Path | None:
    """The cache entry holding ``path`` decoded (float32 Wave64), decoding it first when
    there is none; None when the cache cannot be written (the caller decodes the file
    itself). ``digest``: the hash of the file's bytes
    (:func:`fairdesk.core.spans.file_hash`), the entry's name. ``sf_error``: why libsndfile
    refused the file, for the decoder's message.

    Raises
    ------
    AudioError
        When the file cannot be decoded (the same message as decoding it directly).
    """
    p = Path(path)
    key = f"{digest}-{VERSION}"
    folder = cache_folder()
    entry = folder / f"{key}{SUFFIX}"
    with _lock(key):
        if entry.is_file():
            _touch(entry, key)
            return entry
        try:
            _write(p, entry, sf_error)
        except AudioError:
            raise
        except Exception as exc:  # noqa: BLE001 - OutputError, _Unsteady: decode directly
            log.info("decoded-audio cache not used for %s: %s", p, exc)
            return None
        _TOUCHED.add(key)
    _clean(folder, keep=entry)
    return entry


def _write(p: Path, entry: Path, sf_error: str | None) -> None:
    """Decode ``p`` frame by frame into ``entry`` (atomically)."""
    import soundfile as sf

    from .atomic import atomic_path

    blocks = audio_io.av_blocks(p, sf_error)
    first = next(blocks, None)
    if first is None:
        raise AudioError(p, "audio has zero length; re-record or remove this item")
    arr, sr = first
    channels = int(arr.shape[1])
    with atomic_path(entry, make_parents=True) as tmp:
        with sf.SoundFile(str(tmp), "w", sr, channels, subtype="FLOAT", format="W64") as f:
            f.write(arr)
            for arr, rate in blocks:
                if rate != sr or arr.shape[1] != channels:
                    raise _Unsteady(f"the stream changes to {rate} Hz, {arr.shape[1]} channels")
                f.write(arr)


def _touch(entry: Path, key: str) -> None:
    """Mark an entry as used (its modification time), once per process."""
    if key in _TOUCHED:
        return
    _TOUCHED.add(key)
    try:
        os.utime(entry)
    except OSError:
        pass


def _clean(folder: Path, keep: Path) -> None:
    """Remove entries unused for :data:`STALE_DAYS`, then the oldest beyond :data:`MAX_BYTES`."""
    try:
        entries = []
        for e in os.scandir(folder):
            if e.name.endswith(SUFFIX) and e.is_file():
                st = e.stat()
                entries.append((st.st_mtime, st.st_size, Path(e.path)))
    except OSError:
        return
    now = time.time()
    entries.sort()
    total = sum(size for _, size, _ in entries)
    for mtime, size, entry in entries:
        if entry == keep:
            continue
        if now - mtime > STALE_DAYS * 86400 or total > MAX_BYTES:
            try:
                entry.unlink()
                total -= size
            except OSError:
                pass
