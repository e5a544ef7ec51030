"""Grounding: does the saliency land where it should? (docs/METHODS.md, "Saliency grounding"). Pure numpy/sklearn.

Definitions
-----------
frames in a region
    Frame ``f`` (``[f·frame_s, (f+1)·frame_s)``) belongs to a region ``(start, end)`` (seconds)
    when its centre ``(f + 0.5)·frame_s`` lies in ``[start, end)``. A zero-length region holds
    no frame. The target regions of an item are the union of its regions.
grounding lift
    ``mean(s[frames in the target]) / mean(s[all frames])`` with ``s = max(saliency, 0)``:
    negative saliency (a window whose masking *raised* the transcript's probability) is
    clipped at 0, since it is evidence against the text, not focus on it. 1 means no focus
    (the target gets its share); ``n_frames / n_target_frames`` is the maximum (all positive
    saliency inside the target). Undefined (NaN) when the clipped saliency sums to 0 or no
    frame lies in the target.
target regions
    The reference words' spans (forced alignment, :mod:`.alignment`) or, where the item has
    annotated error windows (annotations of a kind in :data:`ERROR_KINDS` with a start and an
    end), those windows.
phone-error grounding
    For frame-level flags (frames inside annotated mispronunciations): AUROC
    (``sklearn.metrics.roc_auc_score``) and average precision
    (``sklearn.metrics.average_precision_score``) of the *raw* saliency (ranking only, no
    clipping) as a score for the flagged frames; the same restricted to speech frames
    (:func:`energy_vad`), which shows the model attends to the error rather than merely to
    speech over silence. NaN where one class is absent.
energy VAD
    Frame RMS in dBFS (``20·log10(rms)``, rms floored at 1e-10); a frame is speech when it is
    at most ``threshold_db`` (default 35 dB) below the loudest frame *and* above ``floor_db``
    (default −60 dBFS); gaps of at most ``hangover_s`` (default 0.1 s) between speech frames are
    filled (stop closures, short pauses). Crude but dependency-free; made for clean read
    speech, not for noisy recordings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .saliency import DEFAULT_FRAME_S, frame_samples, n_frames

#: Annotation kinds whose time windows are error windows (target regions for grounding).
ERROR_KINDS = ("error", "mispronunciation", "phone_error")


def frames_in_regions(n: int, frame_s: float, regions: Iterable[tuple[float, float]]) -> np.ndarray:
    """Boolean mask of the ``n`` frames whose centre lies in one of ``regions``."""
    centres = (np.arange(int(n)) + 0.5) * float(frame_s)
    mask = np.zeros(int(n), dtype=bool)
    for start, end in regions:
        if start is None or end is None:
            continue
        mask |= (centres >= float(start)) & (centres < float(end))
    return mask


def grounding_lift(curve, frame_s: float, regions: Iterable[tuple[float, float]]) -> float:
    """Grounding lift of one saliency curve for the target regions (see the module docstring).

    Returns
    -------
    float
        NaN when undefined (no positive saliency, or no frame in the target).
    """
    s = np.clip(np.asarray(curve, dtype=np.float64), 0.0, None)
    if s.size == 0:
        return math.nan
    inside = frames_in_regions(s.size, frame_s, regions)
    total = float(s.sum())
    if total <= 0.0 or not inside.any():
        return math.nan
    return float(s[inside].mean() / s.mean())


def _auc_ap(scores: np.ndarray, flags: np.ndarray) -> tuple[float, float]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    if flags.size == 0 or flags.all() or not flags.any():
        return math.nan, math.nan
    return (float(roc_auc_score(flags, scores)), float(average_precision_score(flags, scores)))


def phone_error_grounding(curve, flags, speech=None) -> dict:
    """AUROC and AP of saliency for flagged frames, overall and within speech frames.

    Parameters
    ----------
    curve : saliency per frame.
    flags : bool per frame (True = inside an annotated error).
    speech : bool per frame (e.g. :func:`energy_vad`), or None to skip the speech-only numbers.

    Returns
    -------
    dict with ``auroc``, ``ap``, ``n_frames``, ``n_flagged`` and, with ``speech``,
    ``auroc_speech``, ``ap_speech``, ``n_speech``, ``n_flagged_speech`` (NaN where undefined).
    """
    s = np.asarray(curve, dtype=np.float64)
    f = np.asarray(flags, dtype=bool)
    if s.shape != f.shape:
        raise ValueError(f"saliency has {s.size} frames but flags {f.size}")
    auroc, ap = _auc_ap(s, f)
    out = {"auroc": auroc, "ap": ap, "n_frames": int(s.size), "n_flagged": int(f.sum())}
    if speech is not None:
        sp = np.asarray(speech, dtype=bool)
        if sp.shape != s.shape:
            raise ValueError(f"saliency has {s.size} frames but the speech mask {sp.size}")
        a2, p2 = _auc_ap(s[sp], f[sp])
        out.update(
            auroc_speech=a2,
            ap_speech=p2,
            n_speech=int(sp.sum()),
            n_flagged_speech=int((f & sp).sum()),
        )
    return out


def energy_vad(
    audio,
    frame_s: float = DEFAULT_FRAME_S,
    *,
    threshold_db: float = 35.0,
    floor_db: float = -60.0,
    hangover_s: float = 0.1,
) -> np.ndarray:
    """Speech frames of a clip by frame energy (see the module docstring); bool per frame."""
    a = np.asarray(audio, dtype=np.float64)
    fs = frame_samples(frame_s)
    nf = n_frames(a.size, frame_s)
    if nf == 0:
        return np.zeros(0, dtype=bool)
    padded = np.zeros(nf * fs)
    padded[: a.size] = a
    frames = padded.reshape(nf, fs)
    lengths = np.full(nf, fs, dtype=float)
    lengths[-1] = a.size - (nf - 1) * fs
    rms = np.sqrt((frames**2).sum(axis=1) / lengths)
    db = 20.0 * np.log10(np.maximum(rms, 1e-10))
    speech = (db >= db.max() - float(threshold_db)) & (db > float(floor_db))
    gap = int(round(float(hangover_s) / float(frame_s)))
    idx = np.flatnonzero(speech)
    if gap > 0 and idx.size > 1:
        for a0, b0 in zip(idx[:-1], idx[1:], strict=True):
            if 1 < b0 - a0 <= gap + 1:
                speech[a0:b0] = True
    return speech


def explain_sample(frame, n_per_group: int = 12, seed: int = 0, group_col: str = "group"):
    """The speaker-balanced explain sample: ``n_per_group`` items per group, spread over
    speakers and aligned on content (:func:`fairdesk.stats.slicing.stratified_sample`)."""
    from ..stats.slicing import stratified_sample

    return stratified_sample(frame, group_col, int(n_per_group), seed=seed)
