"""Log-mel features of long clips in bounded memory for faster-whisper's ``FeatureExtractor``
(:func:`bound_features`), used by :mod:`fairdesk.models.whisper_ct2`."""

from __future__ import annotations

import numpy as np

__all__ = ["FEATURE_BLOCK_FRAMES", "bound_features"]

#: Log-mel frames computed at a time for a clip longer than this many frames (60 s).
FEATURE_BLOCK_FRAMES = 6000


def bound_features(extractor) -> None:
    """Make a faster-whisper ``FeatureExtractor`` compute the log-mel features of a long clip
    in blocks of :data:`FEATURE_BLOCK_FRAMES` frames (in place; clips up to that length go
    through its own code unchanged).

    faster-whisper computes the features of a whole clip at once: a 30-minute clip builds
    the windowed frames (180,000 × 400 float32, 288 MB) and their spectrum (complex64, 289 MB,
    then a copy) side by side, about 1 GB above the model (bench/segment_memory.py
    ``--whisper-minutes 30`` peaked at 1.9 GB). The frames of an STFT are independent, so
    the blocks give the same per-frame spectra; the clip-wide maximum that Whisper clamps
    the log-mel to (max − 8) is taken over the whole clip after the blocks, as before.
    """
    from faster_whisper.feature_extractor import FeatureExtractor

    if not isinstance(extractor, FeatureExtractor) or isinstance(extractor, _BlockFeatures):
        return
    extractor.__class__ = _block_features_class(FeatureExtractor)


_BlockFeatures: type = type(None)


def _block_features_class(base: type) -> type:
    global _BlockFeatures
    if _BlockFeatures is not type(None):
        return _BlockFeatures

    class BlockFeatures(base):
        def __call__(self, waveform, padding=160, chunk_length=None):
            waveform = np.asarray(waveform)
            n_fft, hop = self.n_fft, self.hop_length
            if waveform.ndim != 1 or waveform.size + padding <= FEATURE_BLOCK_FRAMES * hop:
                return super().__call__(waveform, padding=padding, chunk_length=chunk_length)
            if chunk_length is not None:  # as faster-whisper's own __call__ does
                self.n_samples = chunk_length * self.sampling_rate
                self.nb_max_frames = self.n_samples // hop
            # one copy: zero padding at the end, then the STFT's centring (reflection)
            half, n = n_fft // 2, waveform.size
            x = np.zeros(half + n + padding + half, dtype=np.float32)
            x[half : half + n] = waveform
            body = x[half : half + n + padding]
            x[:half] = body[1 : half + 1][::-1]
            x[half + n + padding :] = body[-half - 1 : -1][::-1]
            frames = 1 + (x.size - n_fft) // hop - 1  # the last frame is dropped, as there
            window = np.hanning(n_fft + 1)[:-1].astype("float32")
            mel = np.empty((self.mel_filters.shape[0], frames), dtype=np.float32)
            for f0 in range(0, frames, FEATURE_BLOCK_FRAMES):
                f1 = min(frames, f0 + FEATURE_BLOCK_FRAMES)
                seg = x[f0 * hop : (f1 - 1) * hop + n_fft]
                spec = self.stft(
                    seg, n_fft, hop, window=window, center=False, return_complex=True
                ).astype("complex64")
                mel[:, f0:f1] = self.mel_filters @ (np.abs(spec) ** 2)
            np.log10(np.maximum(mel, 1e-10, out=mel), out=mel)
            np.maximum(mel, mel.max() - 8.0, out=mel)
            mel += 4.0
            mel /= 4.0
            return mel

    _BlockFeatures = BlockFeatures
    return BlockFeatures
