"""The audit job's acoustic step: per-item covariates and words over non-speech.

Runs after inference on every analysed item of a project audit (the audio is in the project):
VAD speech regions, duration, non-speech share and SNR (:mod:`fairdesk.core.acoustics`), the
model's confidence, and -- for backends with word times -- the words that lie wholly in a
non-speech stretch (the ``over_nonspeech`` hallucination flag, docs/METHODS.md, "Hallucination flags"). The columns go
into the per-item frame, so they are stored with the run (``run_items_frame``) for regressions
and the item table.
"""

from __future__ import annotations

import json
import math
import time

__all__ = ["ACOUSTIC_STAGE_COLUMNS", "add_acoustics"]

#: Columns this step adds to the per-item frame.
ACOUSTIC_STAGE_COLUMNS = (
    "duration_s",
    "speech_s",
    "nonspeech_share",
    "snr_db",
    "asr_confidence",
    "nonspeech_words",
    "speech_regions",
)


def _has_times(words) -> bool:
    return any(
        isinstance(w, dict) and w.get("start") is not None and w.get("end") is not None
        for w in words or ()
    )


def add_acoustics(f, preds: dict, root, prog=None):
    """Add the acoustic columns to the analysis frame.

    Parameters
    ----------
    f : the analysis frame (:func:`fairdesk.jobs.audit.analysis_frame`): one row per key of
        ``preds`` in sorted order, with ``path``.
    preds : row index -> prediction dict (``text``, ``words``, ``confidence``).
    root : the dataset folder.
    prog : a :class:`~fairdesk.core.progress.Progress` (cancel checks, progress), or None.

    Returns
    -------
    (frame, info)
        ``info``: ``{"vad": settings, "n_measured", "failures": [{"item", "reason"}],
        "word_times": bool}``. An unreadable file gets NaN covariates and a failure entry.
    """
    from ..core.acoustics import VAD_SETTINGS, asr_confidence, covariates_blocks
    from ..core.audio_paths import audio_file
    from ..core.errors import AudioError
    from ..core.spans import item_spans, iter_blocks
    from ..metrics.hallucination import words_over_nonspeech

    try:
        import faster_whisper.vad  # noqa: F401 - the VAD (and onnxruntime) must be importable
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        from ..core.extras import missing_extra_message

        why = missing_extra_message(
            "acoustic covariates (duration, non-speech share, SNR: the Silero VAD)",
            "asr",
            getattr(exc, "name", None),
            verb="need",
        )
        return f, {
            "vad": None,
            "n_measured": 0,
            "failures": [],
            "word_times": False,
            "unavailable": f"{why}; the rest of the audit is complete",
        }

    rows = sorted(preds)
    if len(rows) != len(f):
        raise ValueError(f"add_acoustics: {len(f)} frame rows but {len(rows)} predictions")
    cols: dict[str, list] = {c: [] for c in ACOUSTIC_STAGE_COLUMNS}
    failures = []
    any_times = False
    started = time.monotonic()
    spans = item_spans(f)
    for k, (i, rel) in enumerate(zip(rows, f["path"], strict=True)):
        pred = preds[i]
        words = pred.get("words") or []
        cols["asr_confidence"].append(asr_confidence(pred.get("confidence"), words))
        try:
            start, end = spans[k] or (None, None)
            # block by block: a recording of hours in the memory of one block
            cov = covariates_blocks(iter_blocks(audio_file(root, rel), start, end))
        except AudioError as exc:
            failures.append({"item": str(f["item_id"].iloc[k]), "reason": exc.reason})
            for c in ("duration_s", "speech_s", "nonspeech_share", "snr_db"):
                cols[c].append(math.nan)
            cols["nonspeech_words"].append(None)
            cols["speech_regions"].append(None)
            continue
        for c, v in cov.to_dict().items():
            cols[c].append(v)
        cols["speech_regions"].append(json.dumps([list(r) for r in cov.speech]))
        if _has_times(words):
            any_times = True
            ev = words_over_nonspeech(words, cov.speech, cov.duration_s)
            cols["nonspeech_words"].append(json.dumps(ev, ensure_ascii=False))
        else:
            cols["nonspeech_words"].append(None)
        if prog is not None and (k % 8 == 7 or k == len(rows) - 1):
            prog.check()
            prog.items(k + 1, len(rows), started, "acoustic covariates")
    f = f.copy()
    for c, v in cols.items():
        f[c] = v
    info = {
        "vad": dict(VAD_SETTINGS),
        "n_measured": len(rows) - len(failures),
        "failures": failures,
        "word_times": any_times,
    }
    return f, info
