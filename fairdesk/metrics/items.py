"""Per-item sufficient statistics of an audit frame (one row per utterance).

Every group metric in :data:`fairdesk.metrics.METRICS` is a ratio (or a simple function) of the
sums of these columns over the group's items, which is what the bootstrap in ``fairdesk.stats``
resamples.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import numpy as np
import pandas as pd

from .normalize import as_text, get_normalizer, label_text, remember, tone_preserving
from .pairs import score_pairs
from .slots import exact_match, intent_match
from .text import _units, char_counts_many, count_marked, tone_counts_units, word_counts_many

__all__ = [
    "CHAR_COLUMNS",
    "CLASSIFICATION_COLUMNS",
    "CONFIDENCE_COLUMNS",
    "DIACRITIC_COLUMNS",
    "NODIA_COLUMNS",
    "SLU_COLUMNS",
    "TONE_COLUMNS",
    "WORD_COLUMNS",
    "class_column",
    "compute_item_stats",
]

WORD_COLUMNS = ("n_words", "n_sub", "n_del", "n_ins")
CHAR_COLUMNS = ("n_chars", "c_sub", "c_del", "c_ins")
DIACRITIC_COLUMNS = ("dia_expected", "dia_produced", "dia_dropped", "dia_added")
TONE_COLUMNS = ("tone_expected", "tone_dropped", "tone_hallucinated", "tone_wrong")
#: The Igbo tone-mark study's first category: items whose reference carries no diacritic (E = 0), where DER
#: is undefined. ``nodia_items`` is 1 for such an item (with at least one reference letter),
#: ``nodia_added`` its P (every diacritic the model produced there was added),
#: ``nodia_letters`` its reference letters; ``ref_letters`` counts the letters of every item.
NODIA_COLUMNS = ("ref_letters", "nodia_items", "nodia_added", "nodia_letters")
SLU_COLUMNS = ("n_nlu", "em", "intent_correct")
CLASSIFICATION_COLUMNS = ("n_cls", "correct")
CONFIDENCE_COLUMNS = ("n_conf", "confidence")


def class_column(label, what: str) -> str:
    """Name of a per-class column: ``cls_<label>_n`` or ``cls_<label>_correct``."""
    if what not in ("n", "correct"):
        raise ValueError(f"what must be 'n' or 'correct', got {what!r}.")
    return f"cls_{label}_{what}"


def _cached(fn: Callable, values) -> list:
    cache: dict = {}
    out = []
    for v in values:
        key = as_text(v)
        if key not in cache:
            cache[key] = fn(key)
        out.append(cache[key])
    return out


def _missing(series: pd.Series) -> np.ndarray:
    s = series.astype(object)
    return (s.isna() | s.map(lambda v: isinstance(v, str) and not v.strip())).to_numpy(bool)


def _transcription(frame, language, diacritic_count, normalizer) -> dict[str, np.ndarray]:
    """Transcription columns of every row, each distinct (reference, hypothesis) pair scored
    once (a correct hypothesis of a prompt read by many speakers is one pair)."""
    index: dict[tuple[str, str], int] = {}
    codes = np.fromiter(
        (
            index.setdefault((as_text(r), as_text(h)), len(index))
            for r, h in zip(frame["reference"], frame["hypothesis"], strict=True)
        ),
        dtype=np.int64,
        count=len(frame),
    )
    pairs = pd.DataFrame(list(index), columns=["reference", "hypothesis"])
    cols = score_pairs(pairs, _transcription_pairs, language, diacritic_count, normalizer)
    # the normalised texts (worked out in the workers too) serve the run's later passes
    norm = get_normalizer(normalizer, language)
    remember(norm, pairs["reference"], cols.pop("_ref_norm"))
    remember(norm, pairs["hypothesis"], cols.pop("_hyp_norm"))
    return {name: v[codes] for name, v in cols.items()}


def _transcription_pairs(frame, language, diacritic_count, normalizer) -> dict[str, np.ndarray]:
    norm = get_normalizer(normalizer, language)
    refs = _cached(norm, frame["reference"])
    hyps = _cached(norm, frame["hypothesis"])
    cols: dict[str, np.ndarray] = {
        "_ref_norm": np.array(refs, dtype=object),
        "_hyp_norm": np.array(hyps, dtype=object),
    }
    wc = np.array(word_counts_many(refs, hyps), dtype=np.int64).reshape(-1, 4)
    cc = np.array(char_counts_many(refs, hyps), dtype=np.int64).reshape(-1, 4)
    for k, name in enumerate(WORD_COLUMNS):
        cols[name] = wc[:, k]
    for k, name in enumerate(CHAR_COLUMNS):
        cols[name] = cc[:, k]

    def split(text):
        return _units(tone_preserving(text))

    ref_u = _cached(split, frame["reference"])
    hyp_u = _cached(split, frame["hypothesis"])
    e = np.array([count_marked(u, diacritic_count) for u in ref_u], dtype=np.int64)
    p = np.array([count_marked(u, diacritic_count) for u in hyp_u], dtype=np.int64)
    cols["dia_expected"] = e
    cols["dia_produced"] = p
    cols["dia_dropped"] = np.maximum(0, e - p)
    cols["dia_added"] = np.maximum(0, p - e)
    tone = np.array(
        [tone_counts_units(r, h) for r, h in zip(ref_u, hyp_u, strict=True)], dtype=np.int64
    ).reshape(-1, 4)
    for k, name in enumerate(TONE_COLUMNS):
        cols[name] = tone[:, k]
    letters = np.array([_letter_count(u.base) for u in ref_u], dtype=np.int64)
    nodia = (e == 0) & (letters > 0)
    cols["ref_letters"] = letters
    cols["nodia_items"] = nodia.astype(np.int64)
    cols["nodia_added"] = np.where(nodia, p, 0)
    cols["nodia_letters"] = np.where(nodia, letters, 0)
    return cols


def _letter_count(base: str) -> int:
    """Letters (Unicode category L*) among base characters (marks already split off)."""
    if base.isascii():
        return sum(1 for c in base if c.isalpha())
    return sum(1 for c in base if unicodedata.category(c).startswith("L"))


def _slu(frame, language) -> dict[str, np.ndarray]:
    has_slots = "ref_slots" in frame.columns or "hyp_slots" in frame.columns
    n = len(frame)
    ref_slots = frame["ref_slots"] if "ref_slots" in frame.columns else [None] * n
    hyp_slots = frame["hyp_slots"] if "hyp_slots" in frame.columns else [None] * n
    labelled = ~_missing(frame["ref_intent"])
    em = np.zeros(n, dtype=np.int64)
    ic = np.zeros(n, dtype=np.int64)
    for k, (ri, hi, rs, hs) in enumerate(
        zip(frame["ref_intent"], frame["hyp_intent"], ref_slots, hyp_slots, strict=True)
    ):
        if not labelled[k]:
            continue
        ic[k] = intent_match(ri, hi)
        if ic[k]:
            try:
                em[k] = exact_match(ri, hi, rs, hs, language) if has_slots else 1
            except ValueError as exc:
                raise ValueError(
                    f"row {frame.index[k]!r} (item {_item_id(frame, k)}): {exc}"
                ) from None
    return {"n_nlu": labelled.astype(np.int64), "em": em, "intent_correct": ic}


def _item_id(frame, k) -> str:
    if "item_id" in frame.columns:
        return repr(frame["item_id"].iloc[k])
    return "?"


def _classification(frame) -> dict[str, np.ndarray]:
    present = ~_missing(frame["label"])
    true = np.array([label_text(v) for v in frame["label"]], dtype=object)
    pred = np.array([label_text(v) for v in frame["predicted_label"]], dtype=object)
    correct = present & (true == pred)
    cols = {
        "n_cls": present.astype(np.int64),
        "correct": correct.astype(np.int64),
    }
    for label in sorted(set(true[present])):
        is_label = present & (true == label)
        cols[class_column(label, "n")] = is_label.astype(np.int64)
        cols[class_column(label, "correct")] = (is_label & correct).astype(np.int64)
    return cols


def _confidence(frame) -> dict[str, np.ndarray]:
    raw = frame["confidence"]
    values = pd.to_numeric(raw, errors="coerce")
    bad = values.isna() & ~raw.isna()
    if bad.any():
        k = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(
            f"column 'confidence', row {frame.index[k]!r} (item {_item_id(frame, k)}): "
            f"{raw.iloc[k]!r} is not a number; give a probability in [0, 1] or leave it empty."
        )
    ok = ~values.isna().to_numpy()
    return {
        "n_conf": ok.astype(np.int64),
        "confidence": np.where(ok, values.to_numpy(dtype=float, na_value=np.nan), 0.0),
    }


def compute_item_stats(
    frame: pd.DataFrame,
    language: str = "en",
    diacritic_count: str = "letters",
    normalizer=None,
) -> pd.DataFrame:
    """Per-item sufficient statistics for every metric the frame's columns allow.

    Parameters
    ----------
    frame : the audit frame, one row per utterance. Inputs used (when present):
        ``reference`` + ``hypothesis`` (transcription, diacritics, tones);
        ``ref_intent`` + ``hyp_intent`` (+ ``ref_slots`` / ``hyp_slots``) (SLU);
        ``label`` + ``predicted_label`` (classification); ``confidence``.
    language : picks the WER/CER normaliser (Whisper English for ``en``/``en-*``, Whisper
        basic with diacritics otherwise) and the slot-value normaliser.
    diacritic_count : ``"letters"`` (a letter with one or more marks counts once; default) or
        ``"marks"`` (every mark counts); affects the ``dia_*`` columns only.
    normalizer : None (by language), a name (``"whisper-english"``, ``"whisper-basic"``,
        ``"tone-preserving"``, ``"auto"``) or a callable, for WER/CER only. Diacritic and tone
        columns always use the tone-preserving normaliser.

    Returns
    -------
    pandas.DataFrame
        Same index as ``frame``. Always ``n_items`` (=1). Then, by input:

        * transcription: ``n_words, n_sub, n_del, n_ins`` (words), ``n_chars, c_sub, c_del,
          c_ins`` (characters, spaces included), ``dia_expected, dia_produced, dia_dropped,
          dia_added`` (E, P, D, H), ``tone_expected, tone_dropped, tone_hallucinated,
          tone_wrong``, ``ref_letters, nodia_items, nodia_added, nodia_letters``
          (:data:`NODIA_COLUMNS`);
        * SLU: ``n_nlu`` (1 when the reference intent is given), ``em``, ``intent_correct``;
        * classification: ``n_cls`` (1 when the true label is given), ``correct``, and per
          true label L ``cls_L_n``, ``cls_L_correct``;
        * ``n_conf`` (1 when a confidence is given), ``confidence`` (0 when missing).

        Rows without a reference intent / true label / confidence contribute 0 to the
        matching denominators. A missing hypothesis, predicted intent or label counts as wrong.

    Raises
    ------
    ValueError
        For an unknown ``diacritic_count`` or normaliser, unreadable slots, or a confidence
        that is not a number (the message names the row).
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"compute_item_stats needs a pandas DataFrame, got {type(frame).__name__}.")
    if diacritic_count not in ("letters", "marks"):
        raise ValueError(f"diacritic_count must be 'letters' or 'marks', got {diacritic_count!r}.")
    cols: dict[str, np.ndarray] = {"n_items": np.ones(len(frame), dtype=np.int64)}
    if {"reference", "hypothesis"} <= set(frame.columns):
        cols.update(_transcription(frame, language, diacritic_count, normalizer))
    if {"ref_intent", "hyp_intent"} <= set(frame.columns):
        cols.update(_slu(frame, language))
    if {"label", "predicted_label"} <= set(frame.columns):
        cols.update(_classification(frame))
    if "confidence" in frame.columns:
        cols.update(_confidence(frame))
    return pd.DataFrame(cols, index=frame.index)
