"""Audio I/O: decode with soundfile (PyAV for M4A/AAC/MP4 and whatever libsndfile cannot
read), downmix to mono, resample with soxr, hash the content.

Pure numpy; importing this module does not touch any audio device.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..constants import SAMPLE_RATE
from .errors import AudioError

#: Extensions fairdesk tries to read (libsndfile decides what it really supports).
AUDIO_EXTENSIONS = (
    ".wav",
    ".flac",
    ".ogg",
    ".oga",
    ".opus",
    ".mp3",
    ".aiff",
    ".aif",
    ".m4a",
    ".aac",
    ".mp4",
)
#: Containers libsndfile does not read (phone voice memos: AAC in MPEG-4); PyAV decodes them.
AV_EXTENSIONS = (".m4a", ".aac", ".mp4")

#: Quality warnings of :func:`audio_warnings` (the audio is kept; the warning is stored).
MIN_DURATION_S = 0.1
CLIP_LEVEL = 0.999
CLIP_FRACTION = 0.01
#: Lowest sample rate that carries speech (telephone speech is 8 kHz: up to 4 kHz).
MIN_SPEECH_RATE = 8000
#: A mix-down to mono this far below its channels (RMS ratio; -20 dB) has cancelled them.
CANCEL_RATIO = 0.1


@dataclass(frozen=True)
class AudioInfo:
    """What an import records about a file."""

    sample_rate: int
    channels: int
    frames: int
    duration: float
    content_hash: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Audio:
    """Decoded audio at the working rate (mono float32, :data:`SAMPLE_RATE` Hz)."""

    samples: np.ndarray
    info: AudioInfo


def _check_file(path) -> Path:
    """``path`` as a Path when it is a regular file this process may read, else AudioError."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise AudioError(
            p, "file not found; check the path in the manifest or restore the file"
        ) from None
    except OSError as exc:  # a name too long, a loop of links, no permission ...
        raise AudioError(
            p, f"cannot be opened ({exc.strerror or exc}); check the path in the manifest"
        ) from None
    if stat.S_ISDIR(st.st_mode):
        raise AudioError(p, "is a folder, not an audio file")
    if not stat.S_ISREG(st.st_mode):
        # A FIFO would block the reader forever; a device or socket is no recording either.
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        raise AudioError(
            p,
            f"is {kind}, not a regular file; copy the audio into a regular file or remove the row",
        )
    try:  # a file one may not read would be reported by the decoders as corrupt
        with open(p, "rb"):
            pass
    except PermissionError:
        raise AudioError(
            p,
            "permission denied: fairdesk may not read this file; give your user read "
            "permission (chmod u+r, or ask the file's owner) or copy the audio somewhere "
            "you can read",
        ) from None
    except OSError as exc:
        raise AudioError(
            p, f"cannot be opened ({exc.strerror or exc}); check the path in the manifest"
        ) from None
    return p


def _decode(path) -> tuple[np.ndarray, int]:
    import soundfile as sf

    p = _check_file(path)
    if p.suffix.lower() in AV_EXTENSIONS:
        data, sr = _decode_av(p, None)
    else:
        try:
            data, sr = sf.read(str(p), dtype="float32", always_2d=True)
        except Exception as exc:  # soundfile raises LibsndfileError / RuntimeError / TypeError
            # libsndfile does not know the format: FFmpeg's decoders (PyAV) may
            data, sr = _decode_av(p, str(exc).strip() or type(exc).__name__)
    if data.shape[0] == 0:
        raise AudioError(p, "audio has zero length; re-record or remove this item")
    if not np.all(np.isfinite(data)):
        raise AudioError(p, "audio contains NaN or infinite samples; re-export the file")
    return data, int(sr)


def _decode_av(p: Path, sf_error: str | None) -> tuple[np.ndarray, int]:
    """Decode with PyAV (FFmpeg): every audio frame of the first audio stream as float32
    ``(frames, channels)``. ``sf_error``: why soundfile refused it (None when PyAV was the
    first choice, by extension)."""
    chunks, rates = [], []
    for arr, rate in av_blocks(p, sf_error):
        chunks.append(arr)
        rates.append(rate)
    if not chunks:
        raise AudioError(p, "audio has zero length; re-record or remove this item")
    return np.concatenate(chunks, axis=0), int(rates[-1])


def av_blocks(p: Path, sf_error: str | None = None):
    """Decode with PyAV (FFmpeg) one frame at a time: ``(float32 (frames, channels), sample
    rate)`` per decoded frame of the first audio stream, in order (:func:`_decode_av` joins
    them; :mod:`fairdesk.core.decoded` writes them to a file in bounded memory).

    Raises
    ------
    AudioError
        When PyAV is missing or FFmpeg cannot decode the file (``sf_error``: why soundfile
        refused it, named in the message).
    """
    try:
        import av
    except ImportError:  # pragma: no cover - av is a dependency
        raise AudioError(
            p,
            "cannot decode M4A/AAC without PyAV; install the 'av' package "
            "or convert the file to WAV",
        ) from None
    try:
        with av.open(str(p)) as container:
            stream = next(iter(container.streams.audio), None)
            if stream is None:
                raise AudioError(p, "holds no audio stream; export the recording as audio")
            for frame in container.decode(stream):
                arr = frame.to_ndarray()
                if arr.dtype.kind in "iu":  # integer PCM: scale to [-1, 1)
                    arr = arr.astype(np.float32) / float(2 ** (8 * arr.dtype.itemsize - 1))
                n_ch = len(frame.layout.channels)
                # planar: (channels, n); packed: (1, n * channels), interleaved
                arr = arr.T if frame.format.is_planar else arr.reshape(-1, n_ch)
                yield np.asarray(arr, dtype=np.float32), int(frame.sample_rate)
    except AudioError:
        raise
    except Exception as exc:  # av.error.FFmpegError and kin: corrupt or not audio
        msg = str(exc).strip() or type(exc).__name__
        why = f"soundfile: {sf_error}; FFmpeg: {msg}" if sf_error else msg
        raise AudioError(
            p,
            f"cannot decode audio ({why}); the file is corrupt or in an unsupported format "
            "(use WAV, FLAC, OGG, MP3 or M4A)",
        ) from None


#: Samples hashed at a time by :func:`content_hash` (4 MiB of float32).
HASH_BLOCK = 1 << 20


def content_hash(samples, sample_rate: int) -> str:
    """Hash of decoded audio: the same sound gives the same hash whatever the container.

    ``samples``: the mono float32 signal, as one array or as consecutive blocks of it (a
    file decoded block by block); the BLAKE2b of the sample rate then the samples' bytes,
    fed in blocks without copying them (the same value either way).
    """
    h = hashlib.blake2b(digest_size=16)
    h.update(str(int(sample_rate)).encode())
    blocks = [samples] if isinstance(samples, np.ndarray) else samples
    for block in blocks:
        flat = np.ascontiguousarray(block, dtype=np.float32).reshape(-1)
        for i in range(0, flat.size, HASH_BLOCK):
            h.update(flat[i : i + HASH_BLOCK].data)
    return h.hexdigest()


def to_mono(data: np.ndarray) -> np.ndarray:
    """Average the channels of a (frames, channels) or (frames,) array."""
    data = np.asarray(data, dtype=np.float32)
    if data.ndim == 1:
        return data
    return data.mean(axis=1, dtype=np.float32) if data.shape[1] > 1 else data[:, 0]


def resample(samples: np.ndarray, sr_in: int, sr_out: int = SAMPLE_RATE) -> np.ndarray:
    """Resample a mono signal with soxr (high quality); a no-op at the same rate."""
    samples = np.asarray(samples, dtype=np.float32)
    if int(sr_in) == int(sr_out):
        return samples
    import soxr

    return soxr.resample(samples, int(sr_in), int(sr_out), quality="HQ").astype(np.float32)


def declared_frames(path) -> int | None:
    """Frames a WAV file's header says its ``data`` chunk holds (None: not a WAV, or a
    header that leaves the size open, as streaming writers do)."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
            if len(head) < 12 or head[:4] not in (b"RIFF", b"RF64") or head[8:12] != b"WAVE":
                return None
            align = None
            for _ in range(64):
                ch = f.read(8)
                if len(ch) < 8:
                    return None
                cid, size = ch[:4], struct.unpack("<I", ch[4:])[0]
                if cid == b"fmt ":
                    fmt = f.read(size)
                    if len(fmt) < 14:
                        return None
                    align = struct.unpack("<H", fmt[12:14])[0]
                    f.seek(size % 2, os.SEEK_CUR)
                elif cid == b"data":
                    if not align or size in (0, 0xFFFFFFFF) or head[:4] == b"RF64":
                        return None
                    return size // align
                else:
                    f.seek(size + size % 2, os.SEEK_CUR)
    except (OSError, struct.error):
        return None
    return None


@dataclass
class _Levels:
    """What :func:`audio_warnings` reads of decoded audio, summed block by block."""

    frames: int = 0
    channels: int = 1
    peak: float = 0.0
    clipped: int = 0  # samples (of every channel) at full scale
    squares: float = 0.0  # Σ x² over every channel's samples (float64)
    mixed_squares: float = 0.0  # Σ m² over the mono mix-down

    def add(self, data: np.ndarray) -> np.ndarray:
        """Count one ``(frames, channels)`` block; returns its mono mix-down."""
        data = np.asarray(data, dtype=np.float32)
        if data.ndim == 1:
            data = data[:, None]
        self.channels = int(data.shape[1])
        self.frames += int(data.shape[0])
        mono = to_mono(data)
        if data.size:
            mag = np.abs(data)
            self.peak = max(self.peak, float(np.max(mag)))
            self.clipped += int(np.count_nonzero(mag >= CLIP_LEVEL))
            if self.channels > 1:
                self.squares += float(np.sum(np.square(data, dtype=np.float64)))
                self.mixed_squares += float(np.sum(np.square(mono, dtype=np.float64)))
        return mono


def audio_warnings(data: np.ndarray, sr: int, path=None) -> tuple[str, ...]:
    """What is suspicious about decoded audio (kept, but said): digital silence, heavy
    clipping, channels that cancel in the mix-down to mono, a sample rate under 8 kHz, a
    fraction of a second, fewer frames than the header claims."""
    levels = _Levels()
    levels.add(data)
    return _warnings(levels, sr, path)


def _warnings(lv: _Levels, sr: int, path=None) -> tuple[str, ...]:
    out = []
    samples = lv.frames * lv.channels
    if lv.peak == 0.0:
        out.append("digital silence (every sample is 0); check the recording")
    else:
        clipped = lv.clipped / samples if samples else 0.0
        if clipped >= CLIP_FRACTION:
            out.append(
                f"heavily clipped ({100 * clipped:.1f}% of samples at full scale); "
                "re-record at a lower input level"
            )
    if lv.channels > 1 and lv.peak > 0.0 and samples:
        loud = float(np.sqrt(lv.squares / samples))
        mixed = float(np.sqrt(lv.mixed_squares / lv.frames))
        if loud > 0.0 and mixed < CANCEL_RATIO * loud:
            db = 20 * np.log10(max(mixed, 1e-12) / loud)
            out.append(
                f"the {lv.channels} channels cancel when mixed down to mono (the mix is "
                f"{abs(db):.0f} dB below the channels: one channel is most likely the other "
                "inverted, R = -L), so the recogniser hears near silence; re-export the file "
                "with one channel, or fix the inverted channel"
            )
    if sr < MIN_SPEECH_RATE:
        out.append(
            f"sample rate {sr} Hz is too low to carry speech (under {MIN_SPEECH_RATE} Hz: "
            f"nothing above {sr / 2000:g} kHz is kept); re-record or export the original "
            "at 16 kHz or more"
        )
    dur = lv.frames / float(sr)
    if dur < MIN_DURATION_S:
        out.append(
            f"very short ({1000 * dur:.0f} ms, under {1000 * MIN_DURATION_S:.0f} ms); "
            "check that the file holds the whole utterance"
        )
    if path is not None:
        claimed = declared_frames(path)
        if claimed is not None and claimed > lv.frames:
            have, short = lv.frames, claimed - lv.frames
            out.append(
                f"shorter than its header claims ({have:,} samples on disk, the header says "
                f"{claimed:,}: {short:,} missing, {1000 * short / sr:.1f} ms); the file is "
                "truncated: copy it again from the source"
            )
    return tuple(out)


#: Frames read at a time when a long file is probed block by block (4 Mi frames: 16 MiB of
#: float32 per channel); files of more frames than this are never decoded whole at import.
PROBE_BLOCK = 1 << 22


def _probe_blocks(p: Path) -> AudioInfo | None:
    """:func:`probe` of a file libsndfile reads, one block at a time (None: libsndfile
    cannot open it, or it fits one block: the caller decodes it whole)."""
    import soundfile as sf

    try:
        f = sf.SoundFile(str(p))
    except Exception:  # noqa: BLE001 - not libsndfile's: decoded whole by the caller
        return None
    with f:
        sr = int(f.samplerate)
        if int(f.frames) <= PROBE_BLOCK:
            return None
        levels = _Levels()

        def monos():
            while True:
                data = f.read(PROBE_BLOCK, dtype="float32", always_2d=True)
                if data.shape[0] == 0:
                    return
                if not np.all(np.isfinite(data)):
                    raise AudioError(
                        p, "audio contains NaN or infinite samples; re-export the file"
                    )
                yield levels.add(data)

        digest = content_hash(monos(), sr)
    if levels.frames == 0:
        raise AudioError(p, "audio has zero length; re-record or remove this item")
    return AudioInfo(
        sample_rate=sr,
        channels=levels.channels,
        frames=levels.frames,
        duration=levels.frames / float(sr),
        content_hash=digest,
        warnings=_warnings(levels, sr, p),
    )


def probe(path) -> AudioInfo:
    """Decode a file fully (to validate it) and return its facts and content hash; a file
    of more than :data:`PROBE_BLOCK` frames is decoded block by block (the same hash and
    warnings, in bounded memory).

    Raises
    ------
    AudioError
        When the file is missing, corrupt, empty or not audio; the message names the file.
    """
    p = _check_file(path)
    if p.suffix.lower() not in AV_EXTENSIONS:
        long = _probe_blocks(p)  # a long recording: in bounded memory
        if long is not None:
            return long
    data, sr = _decode(path)
    mono = to_mono(data)
    return AudioInfo(
        sample_rate=sr,
        channels=int(data.shape[1]),
        frames=int(data.shape[0]),
        duration=data.shape[0] / float(sr),
        content_hash=content_hash(mono, sr),
        warnings=audio_warnings(data, sr, path),
    )


def load(path, sample_rate: int = SAMPLE_RATE) -> Audio:
    """Decode, downmix to mono and resample to ``sample_rate`` (an item that is a span of
    its file: :func:`fairdesk.core.spans.load`).

    Raises
    ------
    AudioError
        When the file cannot be used; the message names the file and what to do.
    """
    data, sr = _decode(path)
    mono = to_mono(data)
    info = AudioInfo(
        sr,
        int(data.shape[1]),
        int(data.shape[0]),
        data.shape[0] / float(sr),
        content_hash(mono, sr),
    )
    return Audio(resample(mono, sr, sample_rate), info)
