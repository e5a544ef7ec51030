"""Signal processing for the audio views: waveform envelope and log-magnitude spectrogram.

Pure numpy (no Qt, no device library), so the player's drawing code stays thin and the whole
computation can run in a background job with progress and cancellation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..constants import SAMPLE_RATE


@dataclass(frozen=True)
class Envelope:
    """Min/max envelope of a signal: one (min, max) pair per time bin."""

    times: np.ndarray  # bin centres, seconds
    lo: np.ndarray
    hi: np.ndarray


@dataclass(frozen=True)
class Spectrogram:
    """Log-magnitude STFT: ``db[frame, bin]`` with frame times and bin frequencies."""

    db: np.ndarray
    times: np.ndarray
    freqs: np.ndarray
    duration: float
    sample_rate: int


def envelope(samples: np.ndarray, n_bins: int = 2000, sample_rate: int = SAMPLE_RATE) -> Envelope:
    """Min and max of ``samples`` in ``n_bins`` equal time bins (fewer for short signals).

    Parameters
    ----------
    samples : mono signal.
    n_bins : number of bins; a signal shorter than that gives one bin per sample.
    sample_rate : Hz, for the bin times.

    Returns
    -------
    Envelope
    """
    x = np.asarray(samples, dtype=np.float32).ravel()
    n = x.size
    if n == 0:
        z = np.zeros(0, dtype=np.float32)
        return Envelope(z.astype(np.float64), z, z)
    n_bins = max(1, min(int(n_bins), n))
    per = int(np.ceil(n / n_bins))
    n_bins = int(np.ceil(n / per))
    pad = n_bins * per - n
    # Pad with the last sample so the final partial bin's min/max are those of real samples.
    xp = np.concatenate([x, np.full(pad, x[-1], dtype=np.float32)]) if pad else x
    blocks = xp.reshape(n_bins, per)
    times = (np.arange(n_bins) * per + per / 2.0) / float(sample_rate)
    return Envelope(
        np.minimum(times, n / float(sample_rate)), blocks.min(axis=1), blocks.max(axis=1)
    )


def spectrogram(
    samples: np.ndarray,
    sample_rate: int = SAMPLE_RATE,
    n_fft: int = 512,
    hop: int = 160,
    floor_db: float = 80.0,
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    chunk_frames: int = 4096,
) -> Spectrogram:
    """Log-magnitude short-time Fourier transform with a Hann window.

    Parameters
    ----------
    samples : mono signal.
    sample_rate : Hz.
    n_fft : window and FFT length in samples (512 at 16 kHz: 32 ms, 31 Hz bins).
    hop : samples between frames (160 at 16 kHz: 10 ms).
    floor_db : dynamic range kept below the loudest bin (dB).
    progress, cancelled : job callbacks; the frames are processed in chunks of
        ``chunk_frames`` and cancellation is checked between chunks.

    Returns
    -------
    Spectrogram
        ``db`` has shape (frames, n_fft // 2 + 1) in dB relative to full scale, clipped to
        ``max - floor_db``.

    Raises
    ------
    fairdesk.core.errors.Cancelled
        When ``cancelled()`` turns true between chunks.
    """
    x = np.asarray(samples, dtype=np.float32).ravel()
    if x.size < n_fft:
        x = np.concatenate([x, np.zeros(n_fft - x.size, dtype=np.float32)])
    n_frames = 1 + (x.size - n_fft) // hop
    window = np.hanning(n_fft).astype(np.float32)
    scale = 2.0 / window.sum()
    frames = np.lib.stride_tricks.sliding_window_view(x, n_fft)[::hop][:n_frames]
    out = np.empty((n_frames, n_fft // 2 + 1), dtype=np.float32)
    for start in range(0, n_frames, chunk_frames):
        if cancelled is not None and cancelled():
            from ..core.errors import Cancelled

            raise Cancelled("spectrogram cancelled")
        stop = min(n_frames, start + chunk_frames)
        mag = np.abs(np.fft.rfft(frames[start:stop] * window, axis=1)) * scale
        out[start:stop] = 20.0 * np.log10(np.maximum(mag, 1e-10))
        if progress is not None:
            progress(stop / n_frames, f"spectrogram {stop}/{n_frames} frames")
    top = float(out.max()) if out.size else 0.0
    np.maximum(out, top - floor_db, out=out)
    times = (np.arange(n_frames) * hop + n_fft / 2.0) / float(sample_rate)
    freqs = np.fft.rfftfreq(n_fft, 1.0 / sample_rate)
    return Spectrogram(
        out, times, freqs, np.asarray(samples).size / float(sample_rate), int(sample_rate)
    )
