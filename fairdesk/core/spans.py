"""Items that are spans of an audio file (an utterance inside a longer recording).

An item with a span (``start_s``, ``end_s``: seconds from the start of the file) is read by
seeking to its first frame and decoding only its frames (soundfile for WAV, FLAC, OGG ...;
a 90-minute session is never decoded whole for one segment). Containers that libsndfile does
not read (M4A/AAC through PyAV) are decoded once, frame by frame, into the decoded-audio cache
(:mod:`fairdesk.core.decoded`), and their spans are read from that file by seeking: a session
of N segments is decoded once, never whole in memory. Only when the cache cannot be written
is the file decoded whole and cut, once per span.

The hash the caches are keyed by (predictions, embeddings, saliency) is the span's: a hash of
the file's bytes (read in chunks, once per file and process) with the start and end, so two
segments of one session never share a cached transcript, and no file is decoded to hash it.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading

import numpy as np

from ..constants import SAMPLE_RATE
from . import audio as audio_io
from .audio import AV_EXTENSIONS, Audio, AudioInfo, _check_file, _decode_av
from .decoded import decoded_file
from .errors import AudioError, SpanError

__all__ = [
    "END_TOLERANCE_S",
    "file_hash",
    "file_seconds",
    "item_spans",
    "load",
    "load_row",
    "load_with_context",
    "load_span",
    "probe_span",
    "read_span",
    "span_frames",
    "span_hash",
    "span_of",
]

#: Seconds an interval may run past the end of its file (rounding in annotation tools); the
#: span is cut at the end of the file. Further out, the interval is refused.
END_TOLERANCE_S = 0.02
_CHUNK = 1 << 20
_FILE_HASHES: dict[tuple, str] = {}
_LOCK = threading.Lock()


def span_frames(start_s: float, end_s: float, sample_rate: int) -> tuple[int, int]:
    """The frames ``[first, stop)`` a span covers at ``sample_rate`` (rounded to the nearest)."""
    return int(round(start_s * sample_rate)), int(round(end_s * sample_rate))


def span_of(row) -> tuple[float, float] | None:
    """``(start_s, end_s)`` of an item row (a dict or a DataFrame row), None for a whole file."""
    get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
    start, end = get("start_s", None), get("end_s", None)
    if start is None or end is None:
        return None
    try:
        start, end = float(start), float(end)
    except (TypeError, ValueError):
        return None
    if math.isnan(start) or math.isnan(end):
        return None
    return start, end


def item_spans(frame) -> list[tuple[float, float] | None]:
    """The span of each row of an items frame (:meth:`Project.items`), None for whole files."""
    if "start_s" not in getattr(frame, "columns", ()):
        return [None] * len(frame)
    return [span_of({"start_s": a, "end_s": b}) for a, b in zip(frame["start_s"], frame["end_s"])]


def file_hash(path) -> str:
    """BLAKE2b of a file's bytes, read in 1 MiB chunks; kept per (path, size, mtime)."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    with _LOCK:
        got = _FILE_HASHES.get(key)
    if got is not None:
        return got
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    digest = h.hexdigest()
    with _LOCK:
        if len(_FILE_HASHES) > 4096:
            _FILE_HASHES.clear()
        _FILE_HASHES[key] = digest
    return digest


def span_hash(path, start_s: float, end_s: float) -> str:
    """The cache key of a span: the file's byte hash, the start and the end (ms precision)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(b"span:" + file_hash(path).encode())
    h.update(f":{round(start_s * 1000)}:{round(end_s * 1000)}".encode())
    return h.hexdigest()


def read_span(path, start_s: float, end_s: float) -> tuple[np.ndarray, int, float]:
    """Decode the frames of one span: ``(data (frames, channels) float32, sample rate, file
    duration in s)``. The span is cut at the end of the file when it runs past it by at most
    :data:`END_TOLERANCE_S`.

    Raises
    ------
    AudioError
        When the file cannot be read, or the span is empty or lies outside the file.
    """
    p = _check_file(path)
    if not (end_s > start_s >= 0):
        raise SpanError(
            p,
            f"the span {start_s:g}–{end_s:g} s is empty or negative; give a start below the end",
        )
    sf_error = None
    data = None
    if p.suffix.lower() not in AV_EXTENSIONS:
        try:
            data, sr, total = _read_frames(p, p, start_s, end_s)
        except AudioError:
            raise
        except Exception as exc:  # noqa: BLE001 - soundfile's errors: FFmpeg may read it
            sf_error = str(exc).strip() or type(exc).__name__
    if data is None:
        entry = decoded_file(
            p, file_hash(p), sf_error
        )  # decoded once per file, then read by seeking
        if entry is not None:
            try:
                data, sr, total = _read_frames(entry, p, start_s, end_s)
            except AudioError:
                raise
            except Exception:  # noqa: BLE001 - an unreadable entry: decode the file itself
                data = None
    if data is None:
        whole, sr = _decode_av(p, sf_error)  # decoded whole, then cut
        total = whole.shape[0]
        first, stop = _bounds(p, start_s, end_s, sr, total)
        data = np.ascontiguousarray(whole[first:stop])
        del whole
    if data.shape[0] == 0:
        raise SpanError(p, f"the span {start_s:g}–{end_s:g} s holds no audio")
    if not np.all(np.isfinite(data)):
        raise AudioError(p, "audio contains NaN or infinite samples; re-export the file")
    return data, sr, total / float(sr)


def _read_frames(source, p, start_s: float, end_s: float) -> tuple[np.ndarray, int, int]:
    """The span's frames of ``source`` (a file libsndfile reads: ``p`` itself or its decoded
    cache entry) by seeking: ``(data, sample rate, frames of the file)``; messages name ``p``."""
    import soundfile as sf

    with sf.SoundFile(str(source)) as f:
        sr, total = int(f.samplerate), int(f.frames)
        first, stop = _bounds(p, start_s, end_s, sr, total)
        f.seek(first)
        data = f.read(stop - first, dtype="float32", always_2d=True)
    return data, sr, total


def _bounds(p, start_s: float, end_s: float, sr: int, total: int) -> tuple[int, int]:
    dur = total / float(sr)
    if start_s >= dur:
        raise SpanError(
            p,
            f"the span {start_s:g}–{end_s:g} s starts after the end of the file ({dur:.3f} s); "
            "fix the interval's times or the file it points at",
        )
    if end_s > dur + END_TOLERANCE_S:
        raise SpanError(
            p,
            f"the span {start_s:g}–{end_s:g} s ends after the end of the file ({dur:.3f} s); "
            "fix the interval's times or the file it points at",
        )
    first, stop = span_frames(start_s, end_s, sr)
    return first, min(stop, total)


def probe_span(path, start_s: float, end_s: float):
    """The :class:`~fairdesk.core.audio.AudioInfo` of a span (decoding only the span): its
    frames, duration, warnings, and :func:`span_hash` as the content hash."""
    data, sr, _dur = read_span(path, start_s, end_s)
    return AudioInfo(
        sample_rate=sr,
        channels=int(data.shape[1]),
        frames=int(data.shape[0]),
        duration=data.shape[0] / float(sr),
        content_hash=span_hash(path, start_s, end_s),
        warnings=audio_io.audio_warnings(data, sr, None),
    )


def load_span(path, start_s: float, end_s: float, sample_rate: int = SAMPLE_RATE):
    """A span decoded, mixed down to mono and resampled (only the span is resampled)."""
    data, sr, _dur = read_span(path, start_s, end_s)
    mono = audio_io.to_mono(data)
    info = AudioInfo(
        sr,
        int(data.shape[1]),
        int(data.shape[0]),
        data.shape[0] / float(sr),
        span_hash(path, start_s, end_s),
    )
    return Audio(audio_io.resample(mono, sr, sample_rate), info)


def file_seconds(path) -> float:
    """A file's duration in seconds from its header (libsndfile), or from its decoded cache
    entry when libsndfile does not read it (M4A/AAC through PyAV: decoded once)."""
    import soundfile as sf

    p = _check_file(path)
    if p.suffix.lower() not in AV_EXTENSIONS:
        try:
            info = sf.info(str(p))
            return info.frames / float(info.samplerate)
        except Exception:  # noqa: BLE001 - not libsndfile's: FFmpeg may read it
            pass
    entry = decoded_file(p, file_hash(p))
    if entry is not None:
        try:
            info = sf.info(str(entry))
            return info.frames / float(info.samplerate)
        except Exception:  # noqa: BLE001 - an unreadable entry: decode the file itself
            pass
    whole, sr = _decode_av(p, None)
    return whole.shape[0] / float(sr)


def load_with_context(
    path, start_s: float, end_s: float, context_s: float, sample_rate: int = SAMPLE_RATE
) -> tuple[Audio, float]:
    """A span with up to ``context_s`` seconds of the file on each side (cut at the file's
    start and end): the audio, and where its first sample lies relative to the span's start
    (0 or negative, in seconds). Only the window is decoded."""
    lo = max(0.0, float(start_s) - max(0.0, float(context_s)))
    hi = float(end_s) + max(0.0, float(context_s))
    if context_s > 0:
        hi = min(hi, max(file_seconds(path), float(end_s)))
    return load_span(path, lo, hi, sample_rate), lo - float(start_s)


def load(
    path, sample_rate: int = SAMPLE_RATE, start_s: float | None = None, end_s: float | None = None
):
    """:func:`fairdesk.core.audio.load` of the whole file, or of the span ``start_s``–``end_s``
    only (the info's hash is then :func:`span_hash`)."""
    if start_s is None:
        return audio_io.load(path, sample_rate)
    if end_s is None:
        raise TypeError("a span needs end_s as well as start_s")
    return load_span(path, float(start_s), float(end_s), sample_rate)


def load_row(root, row, sample_rate: int = SAMPLE_RATE):
    """The audio of an item row: ``path`` relative to ``root``, and only the item's span when
    it is a segment of its file."""

    span = span_of(row)
    start, end = span if span is not None else (None, None)
    from .audio_paths import audio_file

    return load(audio_file(root, row["path"]), sample_rate, start, end)


#: Seconds of audio one block holds when a long recording is read block by block.
BLOCK_S = 600.0
#: Bytes above which a whole compressed file (M4A/AAC) is read block by block from its
#: decoded cache entry rather than decoded whole (16 MiB: about 17 minutes of AAC at 128 kbit/s).
LONG_BYTES = 16 * 2**20


def iter_blocks(path, start_s=None, end_s=None, block_s: float = BLOCK_S, sample_rate=SAMPLE_RATE):
    """The mono ``sample_rate`` samples of a file (or of the span ``start_s``–``end_s``), in
    consecutive float32 blocks of at most ``block_s`` seconds: a recording of any length in
    bounded memory. Resampling runs as one stream over the blocks (soxr), so the blocks
    joined equal the whole file resampled at once up to the filter's rounding. A file that
    libsndfile cannot open (M4A/AAC) is read from its decoded cache entry when it is a span
    or larger than :data:`LONG_BYTES` (:mod:`fairdesk.core.decoded`), else decoded whole and
    cut into blocks.

    Raises
    ------
    AudioError
        When the file cannot be read, or the span lies outside it.
    """
    import soundfile as sf

    p = _check_file(path)
    try:
        f = None if p.suffix.lower() in AV_EXTENSIONS else sf.SoundFile(str(p))
    except Exception:  # noqa: BLE001 - not libsndfile's: FFmpeg decodes it whole
        f = None
    if f is None and start_s is None and p.stat().st_size > LONG_BYTES:
        entry = decoded_file(p, file_hash(p))  # a long recording: read from its decoded file
        try:
            f = None if entry is None else sf.SoundFile(str(entry))
        except Exception:  # noqa: BLE001 - an unreadable entry: decode the file itself
            f = None
    if f is None:
        whole = load(p, sample_rate, start_s, end_s).samples
        step = max(1, int(block_s * sample_rate))
        for i in range(0, whole.size, step):
            yield whole[i : i + step]
        return
    with f:
        sr, total = int(f.samplerate), int(f.frames)
        if start_s is None:
            first, stop = 0, total
        else:
            first, stop = _bounds(p, float(start_s), float(end_s), sr, total)
        if stop <= first:
            raise AudioError(p, "audio has zero length; re-record or remove this item")
        f.seek(first)
        step = max(1, int(block_s * sr))
        if stop - first <= step:  # one block: exactly what load() gives
            data = f.read(stop - first, dtype="float32", always_2d=True)
            if data.shape[0] == 0:
                raise AudioError(p, "audio has zero length; re-record or remove this item")
            if not np.all(np.isfinite(data)):
                raise AudioError(p, "audio contains NaN or infinite samples; re-export the file")
            yield audio_io.resample(audio_io.to_mono(data), sr, sample_rate)
            return
        stream = None
        if sr != sample_rate:
            import soxr

            stream = soxr.ResampleStream(sr, sample_rate, 1, dtype="float32", quality="HQ")
        pos = first
        while pos < stop:
            n = min(step, stop - pos)
            data = f.read(n, dtype="float32", always_2d=True)
            if data.shape[0] == 0:
                break
            pos += data.shape[0]
            if not np.all(np.isfinite(data)):
                raise AudioError(p, "audio contains NaN or infinite samples; re-export the file")
            mono = audio_io.to_mono(data)
            if stream is not None:
                mono = stream.resample_chunk(mono, last=pos >= stop)
            if mono.size:
                yield np.ascontiguousarray(mono, dtype=np.float32)
