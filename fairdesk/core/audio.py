"""Audio I/O: decode with soundfile, downmix to mono, resample with soxr, hash the content.

Pure numpy; importing this module does not touch any audio device.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..constants import SAMPLE_RATE
from .errors import AudioError

#: Extensions fairdesk tries to read (libsndfile decides what it really supports).
AUDIO_EXTENSIONS = (".wav", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aiff", ".aif")


@dataclass(frozen=True)
class AudioInfo:
    """What an import records about a file."""

    sample_rate: int
    channels: int
    frames: int
    duration: float
    content_hash: str


@dataclass(frozen=True)
class Audio:
    """Decoded audio at the working rate (mono float32, :data:`SAMPLE_RATE` Hz)."""

    samples: np.ndarray
    info: AudioInfo


def _decode(path) -> tuple[np.ndarray, int]:
    import soundfile as sf

    p = Path(path)
    if not p.exists():
        raise AudioError(p, "file not found; check the path in the manifest or restore the file")
    if p.is_dir():
        raise AudioError(p, "is a folder, not an audio file")
    try:
        data, sr = sf.read(str(p), dtype="float32", always_2d=True)
    except Exception as exc:  # soundfile raises LibsndfileError / RuntimeError / TypeError
        msg = str(exc).strip() or type(exc).__name__
        raise AudioError(
            p, f"cannot decode audio ({msg}); the file is corrupt or in an unsupported format "
            "(use WAV, FLAC, OGG or MP3)"
        ) from None
    if data.shape[0] == 0:
        raise AudioError(p, "audio has zero length; re-record or remove this item")
    if not np.all(np.isfinite(data)):
        raise AudioError(p, "audio contains NaN or infinite samples; re-export the file")
    return data, int(sr)


def content_hash(samples: np.ndarray, sample_rate: int) -> str:
    """Hash of decoded audio: the same sound gives the same hash whatever the container."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(int(sample_rate)).encode())
    h.update(np.ascontiguousarray(samples, dtype=np.float32).tobytes())
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


def probe(path) -> AudioInfo:
    """Decode a file fully (to validate it) and return its facts and content hash.

    Raises
    ------
    AudioError
        When the file is missing, corrupt, empty or not audio; the message names the file.
    """
    data, sr = _decode(path)
    mono = to_mono(data)
    return AudioInfo(
        sample_rate=sr,
        channels=int(data.shape[1]),
        frames=int(data.shape[0]),
        duration=data.shape[0] / float(sr),
        content_hash=content_hash(mono, sr),
    )


def load(path, sample_rate: int = SAMPLE_RATE) -> Audio:
    """Decode, downmix to mono and resample to ``sample_rate``.

    Raises
    ------
    AudioError
        When the file cannot be used; the message names the file and what to do.
    """
    data, sr = _decode(path)
    mono = to_mono(data)
    info = AudioInfo(sr, int(data.shape[1]), int(data.shape[0]), data.shape[0] / float(sr),
                     content_hash(mono, sr))
    return Audio(resample(mono, sr, sample_rate), info)
