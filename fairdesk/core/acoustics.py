"""Acoustic covariates of one utterance: duration, non-speech share, speech rate, SNR, confidence.

One module shared by every analysis that needs per-item acoustic covariates (the hallucination
flags (docs/METHODS.md, "Hallucination flags"), regressions of WER on the recording conditions, incremental
evaluation). Pure numpy; the voice-activity detector is faster-whisper's bundled Silero VAD
(ONNX, run with onnxruntime), imported lazily.

Definitions
-----------
speech regions
    Silero VAD (``faster_whisper.vad.get_speech_timestamps``) with :data:`VAD_SETTINGS`:
    Silero's own settings for short utterances (speech chunks of at least 250 ms, a silence
    ends a chunk after 100 ms, 30 ms padding each side), not faster-whisper's long-form
    chunking defaults (2 s silences, 400 ms padding), which would swallow every pause of a
    short utterance; the speech threshold is 0.35 rather than Silero's 0.5, because on soft
    L2 read speech (speechocean762) 0.5 missed whole spoken words and so marked them as
    non-speech (1 false ``over_nonspeech`` flag in 120 utterances at 0.5, none at 0.35).
non-speech
    Everything in ``[0, duration]`` outside the speech regions.
``nonspeech_share``
    Non-speech seconds / duration (1.0 for a clip with no detected speech).
``speech_rate``
    Reference words (after the run's normaliser) per second of detected speech; NaN when no
    speech was detected. Computed where the word count is known (:func:`speech_rate`).
``snr_db``
    An energy SNR from the VAD split: frames of 25 ms (10 ms hop); P_s = mean power of frames
    whose centre lies in a speech region (signal + noise), P_n = mean power of the other frames
    (noise); SNR = 10 log10((P_s - P_n) / max(P_n, 1e-10)). NaN when either side has
    fewer than :data:`MIN_SNR_FRAMES` frames (a clip that is all speech or all silence has no
    estimate) or when the speech frames are not louder than the rest (P_s <= P_n: the VAD
    split does not separate speech from noise). Digital silence is floored at 1e-10 (-100 dB full scale), so it gives a large
    finite SNR. It describes the recording, not a calibrated measure: it assumes the noise is
    stationary across speech and pauses.
``asr_confidence``
    The backend's utterance confidence (whisper: exp of the mean token log-probability), or
    the mean of its word probabilities when it gives no utterance confidence; NaN otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..constants import SAMPLE_RATE

__all__ = [
    "ACOUSTIC_COLUMNS",
    "MIN_SNR_FRAMES",
    "covariates_blocks",
    "frame_powers",
    "VAD_SETTINGS",
    "Covariates",
    "asr_confidence",
    "covariates",
    "nonspeech_stretches",
    "snr_db",
    "speech_rate",
    "speech_regions",
]

#: Silero VAD settings (faster-whisper ``VadOptions`` field names), recorded with every run.
VAD_SETTINGS = {
    "threshold": 0.35,
    "min_speech_duration_ms": 250,
    "min_silence_duration_ms": 100,
    "speech_pad_ms": 30,
}
#: Frames needed on each side (speech, non-speech) for an SNR estimate (10 ms hop: 0.1 s).
MIN_SNR_FRAMES = 10
_FRAME = int(0.025 * SAMPLE_RATE)
_HOP = int(0.010 * SAMPLE_RATE)
_FLOOR = 1e-10

#: Per-item columns the audit job writes (plus ``speech_rate`` and ``asr_confidence``).
ACOUSTIC_COLUMNS = ("duration_s", "speech_s", "nonspeech_share", "snr_db")


@dataclass(frozen=True)
class Covariates:
    """Audio-only covariates of one clip (see the module docstring).

    Attributes
    ----------
    duration_s : clip length in seconds.
    speech : speech regions ``((start_s, end_s), ...)``, sorted, not overlapping.
    speech_s : total speech seconds.
    nonspeech_share : non-speech seconds / duration.
    snr_db : energy SNR in dB (NaN when not estimable).
    """

    duration_s: float
    speech: tuple[tuple[float, float], ...]
    speech_s: float
    nonspeech_share: float
    snr_db: float

    def to_dict(self) -> dict:
        """The scalar covariates (no regions) as a plain dict."""
        return {
            "duration_s": self.duration_s,
            "speech_s": self.speech_s,
            "nonspeech_share": self.nonspeech_share,
            "snr_db": self.snr_db,
        }


def speech_regions(
    audio: np.ndarray, sample_rate: int = SAMPLE_RATE, settings: dict | None = None
) -> tuple[tuple[float, float], ...]:
    """Speech regions of a clip by Silero VAD, in seconds.

    Parameters
    ----------
    audio : float32 mono samples at ``sample_rate`` (16 kHz: Silero's rate).
    sample_rate : must be 16000.
    settings : ``VadOptions`` fields (default :data:`VAD_SETTINGS`).

    Returns
    -------
    tuple of (start_s, end_s)
    """
    if sample_rate != SAMPLE_RATE:
        raise ValueError(
            f"speech_regions needs {SAMPLE_RATE} Hz audio, got {sample_rate} Hz; "
            "resample first (fairdesk.core.audio.load does)"
        )
    audio = np.ascontiguousarray(audio, dtype=np.float32)
    if audio.size == 0:
        return ()
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    opts = VadOptions(**(settings or VAD_SETTINGS))
    stamps = get_speech_timestamps(audio, opts, sampling_rate=sample_rate)
    dur = audio.size / sample_rate
    out = []
    for s in stamps:
        a, b = max(0.0, s["start"] / sample_rate), min(dur, s["end"] / sample_rate)
        if b > a:
            out.append((round(a, 4), round(b, 4)))
    return tuple(out)


def nonspeech_stretches(speech, duration: float) -> tuple[tuple[float, float], ...]:
    """The complement of ``speech`` in ``[0, duration]``: the non-speech stretches."""
    out, pos = [], 0.0
    for a, b in sorted(speech):
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
    if duration > pos:
        out.append((pos, duration))
    return tuple(out)


#: Frames whose power is computed at a time (a bounded temporary: 4,096 × 400 float64).
_POWER_CHUNK = 4096


def frame_powers(audio: np.ndarray) -> np.ndarray:
    """Mean power of every full ``_FRAME``-sample frame every ``_HOP`` samples (float64),
    computed a chunk of frames at a time (no frames × samples index array)."""
    x = np.asarray(audio, dtype=np.float64)
    if x.size < _FRAME:
        return np.empty(0)
    n = 1 + (x.size - _FRAME) // _HOP
    windows = np.lib.stride_tricks.sliding_window_view(x, _FRAME)[::_HOP][:n]
    out = np.empty(n)
    for i in range(0, n, _POWER_CHUNK):
        out[i : i + _POWER_CHUNK] = np.mean(windows[i : i + _POWER_CHUNK] ** 2, axis=1)
    return out


def _snr_from(power: np.ndarray, speech, sample_rate: int) -> float:
    n = power.size
    if n == 0:
        return math.nan
    centre = (_HOP * np.arange(n) + _FRAME / 2) / sample_rate
    is_speech = np.zeros(n, dtype=bool)
    for a, b in speech:
        is_speech |= (centre >= a) & (centre < b)
    if is_speech.sum() < MIN_SNR_FRAMES or (~is_speech).sum() < MIN_SNR_FRAMES:
        return math.nan
    p_s, p_n = float(power[is_speech].mean()), float(power[~is_speech].mean())
    if p_s <= p_n:
        return math.nan
    return 10.0 * math.log10((p_s - p_n) / max(p_n, _FLOOR))


def snr_db(audio: np.ndarray, speech, sample_rate: int = SAMPLE_RATE) -> float:
    """Energy SNR in dB from a speech / non-speech split (module docstring)."""
    return _snr_from(frame_powers(audio), speech, sample_rate)


def covariates(
    audio: np.ndarray, sample_rate: int = SAMPLE_RATE, settings: dict | None = None
) -> Covariates:
    """Duration, speech regions, non-speech share and SNR of one clip.

    Parameters
    ----------
    audio : float32 mono samples at 16 kHz.
    sample_rate : 16000.
    settings : VAD settings (default :data:`VAD_SETTINGS`).

    Returns
    -------
    Covariates
    """
    audio = np.asarray(audio, dtype=np.float32)
    dur = audio.size / sample_rate
    speech = speech_regions(audio, sample_rate, settings)
    speech_s = float(sum(b - a for a, b in speech))
    share = 1.0 - speech_s / dur if dur > 0 else math.nan
    return Covariates(
        round(dur, 4),
        speech,
        round(speech_s, 4),
        max(0.0, share) if math.isfinite(share) else share,
        snr_db(audio, speech, sample_rate),
    )


#: Seconds of the audio before a block that the VAD hears again at the block's start, so
#: that its state is warm there as in one pass over the whole recording.
VAD_CONTEXT_S = 30.0


def covariates_blocks(
    blocks,
    sample_rate: int = SAMPLE_RATE,
    settings: dict | None = None,
    context_s: float = VAD_CONTEXT_S,
) -> Covariates:
    """:func:`covariates` of a recording given as consecutive blocks
    (:func:`fairdesk.core.spans.iter_blocks`), in memory bounded by a block.

    The frame powers of the SNR are those of the whole signal (a frame that straddles two
    blocks is completed from the next one), so the SNR equals the whole-signal value for the
    same speech regions. The VAD runs on each block preceded by up to ``context_s`` seconds
    of the audio before it (heard again, so that the VAD's state is warm at the block's
    start; regions that end there belong to the earlier block and are left out, one that runs
    over the block's start keeps its start), and a region is joined with the one before it
    when they overlap or the silence between them is shorter than the VAD's
    ``min_silence_duration_ms``. A recording of one block is
    :func:`covariates`.
    """
    opts = settings or VAD_SETTINGS
    join_gap = float(opts.get("min_silence_duration_ms", 100)) / 1000.0
    speech: list[list[float]] = []
    powers: list[np.ndarray] = []
    carry = np.empty(0, dtype=np.float32)
    tail = np.empty(0, dtype=np.float32)  # the context heard again before the next block
    keep = int(max(0.0, context_s) * sample_rate)
    start = 0  # samples before this block
    for block in blocks:
        block = np.ascontiguousarray(block, dtype=np.float32)
        t0 = start / sample_rate
        heard = np.concatenate([tail, block]) if tail.size else block
        lead = tail.size / sample_rate
        for a, b in speech_regions(heard, sample_rate, settings):
            a, b = a - lead + t0, b - lead + t0
            if b <= t0:
                continue  # in the context: the earlier block's
            # a region that began in the context keeps its start (the earlier block, cut
            # at its end, may have found it too short to be speech)
            if speech and a - speech[-1][1] < join_gap:
                speech[-1][1] = max(speech[-1][1], b)
            else:
                speech.append([a, b])
        tail = heard[-keep:].copy() if keep else tail
        x = np.concatenate([carry, block]) if carry.size else block
        n = 0 if x.size < _FRAME else 1 + (x.size - _FRAME) // _HOP
        if n:
            powers.append(frame_powers(x[: (n - 1) * _HOP + _FRAME]))
        carry = x[n * _HOP :].copy()
        start += block.size
    dur = start / sample_rate
    regions = tuple((round(a, 4), round(b, 4)) for a, b in speech)
    speech_s = float(sum(b - a for a, b in regions))
    share = 1.0 - speech_s / dur if dur > 0 else math.nan
    power = np.concatenate(powers) if powers else np.empty(0)
    return Covariates(
        round(dur, 4),
        regions,
        round(speech_s, 4),
        max(0.0, share) if math.isfinite(share) else share,
        _snr_from(power, regions, sample_rate),
    )


def speech_rate(n_words, speech_s) -> np.ndarray:
    """Reference words per second of speech (NaN where no speech was detected)."""
    w = np.asarray(n_words, dtype=float)
    s = np.asarray(speech_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, w / np.where(s > 0, s, 1.0), np.nan)


def asr_confidence(confidence, words=()) -> float:
    """The backend's utterance confidence, else the mean word probability, else NaN."""
    try:
        c = float(confidence)
        if math.isfinite(c):
            return c
    except (TypeError, ValueError):
        pass
    probs = [
        float(p)
        for w in words or ()
        if isinstance(w, dict) and (p := w.get("probability")) is not None
    ]
    return float(np.mean(probs)) if probs else math.nan
