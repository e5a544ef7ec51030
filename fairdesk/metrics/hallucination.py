"""Hallucination flags per item (docs/METHODS.md, "Hallucination flags", after Koenecke et al., FAccT 2024).

Flags, each with its evidence:

* ``loop`` -- an n-gram (n <= 4) repeated >= 4 times in a row in the normalised hypothesis and
  not in the reference. "Not in the reference" means: the reference does not itself contain the
  same n-gram that many times in a row (a speaker who says "no no no no" is not looping; one
  who says "I do not know" once and gets "do not know" fifty times is). The reported loop is
  the run covering the most words (smallest n first on ties, so "a a a a" is the 1-gram "a"
  four times, not the 2-gram "a a" twice).
* ``runaway`` -- hypothesis words > 2 x reference words + 5 (normalised words).
* ``over_nonspeech`` -- for backends with word times: a word whose whole span
  ``[start, end]`` lies inside one non-speech stretch of the clip (the complement of the VAD's
  speech regions; :mod:`fairdesk.core.acoustics`). Words whose times collapsed to a point
  (``end <= start``, as Whisper's alignment gives when it cannot place a word) have no span
  and are skipped: on speechocean762 they were the only words "over non-speech" in ordinary
  transcripts (4 of 120 utterances).
* ``unstable`` (optional) -- two sampled decodes whose word edit rate exceeds a threshold; the
  rate is the word edit distance (jiwer) between the two normalised decodes divided by the
  word count of the longer one (symmetric, in [0, 1]).

An item is *flagged* when any flag is set; the hallucination rate of a group is the share of
its flagged items (metric ``hallucination_rate``), and "WER without flagged items" is the
pooled WER over the rest (metric ``wer_unflagged``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from ..core.pvalues import finite_number as finite
from .normalize import as_text, get_normalizer, memoised

__all__ = [
    "FLAG_COLUMNS",
    "FLAGS",
    "HallucinationSettings",
    "find_loop",
    "hallucination_columns",
    "item_pitfalls",
    "ItemPitfalls",
    "parse_evidence",
    "runaway",
    "unflagged_columns",
    "unstable",
    "words_over_nonspeech",
]

#: Flag names, in reporting order.
FLAGS = ("loop", "runaway", "over_nonspeech", "unstable")
#: Per-item 0/1 columns: one per flag, and ``hallucinated`` (any flag).
FLAG_COLUMNS = ("hall_loop", "hall_runaway", "hall_over_nonspeech", "hall_unstable", "hallucinated")


@dataclass(frozen=True)
class HallucinationSettings:
    """Thresholds of the flags (docs/METHODS.md, "Hallucination flags" defaults), recorded with every run.

    Parameters
    ----------
    max_ngram : longest n-gram checked for a loop.
    min_repeats : consecutive repeats that make a loop.
    runaway_factor, runaway_slack : runaway when hyp words > factor x ref words + slack.
    unstable_rate : word edit rate between two sampled decodes above which an item is unstable.
    """

    max_ngram: int = 4
    min_repeats: int = 4
    runaway_factor: float = 2.0
    runaway_slack: int = 5
    unstable_rate: float = 0.2

    def __post_init__(self) -> None:
        if int(self.max_ngram) < 1 or int(self.min_repeats) < 2:
            raise ValueError(
                "max_ngram must be >= 1 and min_repeats >= 2, got "
                f"{self.max_ngram} and {self.min_repeats}"
            )
        if not 0 <= float(self.unstable_rate) <= 1:
            raise ValueError(f"unstable_rate must be in [0, 1], got {self.unstable_rate}")

    def to_dict(self) -> dict:
        """JSON-ready settings."""
        return asdict(self)


def _runs(tokens: Sequence[str], n: int) -> list[tuple[int, int]]:
    """(start, repeats) of every maximal run of one n-gram repeated back to back."""
    out = []
    i, L = 0, len(tokens)
    while i + n <= L:
        gram = tokens[i : i + n]
        k = 1
        while i + (k + 1) * n <= L and tokens[i + k * n : i + (k + 1) * n] == gram:
            k += 1
        if k > 1:
            out.append((i, k))
            i += (k - 1) * n + 1
        else:
            i += 1
    return out


def _max_repeats(tokens: Sequence[str], gram: Sequence[str]) -> int:
    n, best = len(gram), 0
    for i in range(len(tokens) - n + 1):
        k = 0
        while tokens[i + k * n : i + (k + 1) * n] == list(gram):
            k += 1
        best = max(best, k)
    return best


def find_loop(
    hyp_tokens: Sequence[str], ref_tokens: Sequence[str], max_n: int = 4, min_repeats: int = 4
) -> dict | None:
    """The longest repetition loop of the hypothesis, or None.

    Parameters
    ----------
    hyp_tokens, ref_tokens : normalised words.
    max_n : longest n-gram (default 4).
    min_repeats : consecutive repeats needed (default 4).

    Returns
    -------
    dict or None
        ``{"flag": "loop", "ngram": str, "n": int, "repeats": int, "start_word": int,
        "words": n * repeats, "repeats_in_reference": int}`` for the run covering most words.
    """
    hyp, ref = list(hyp_tokens), list(ref_tokens)
    best: dict | None = None
    for n in range(1, int(max_n) + 1):
        for start, k in _runs(hyp, n):
            if k < min_repeats:
                continue
            gram = hyp[start : start + n]
            if n > 1 and len(set(gram)) == 1:
                continue  # "a a" repeated is the 1-gram "a", found with n = 1
            in_ref = _max_repeats(ref, gram)
            if in_ref >= min_repeats:
                continue
            if best is None or n * k > best["words"]:
                best = {
                    "flag": "loop",
                    "ngram": " ".join(gram),
                    "n": n,
                    "repeats": k,
                    "start_word": start,
                    "words": n * k,
                    "repeats_in_reference": in_ref,
                }
    return best


def runaway(n_hyp: int, n_ref: int, factor: float = 2.0, slack: int = 5) -> dict | None:
    """Runaway evidence when ``n_hyp > factor * n_ref + slack``, else None."""
    limit = factor * n_ref + slack
    if n_hyp > limit:
        return {
            "flag": "runaway",
            "hyp_words": int(n_hyp),
            "ref_words": int(n_ref),
            "limit": float(limit),
        }
    return None


def words_over_nonspeech(words, speech, duration: float) -> list[dict]:
    """Words whose whole span lies in one non-speech stretch.

    Parameters
    ----------
    words : word dicts (or objects) with ``text``/``word``, ``start``, ``end`` in seconds from
        the clip start; words without times or with ``end <= start`` are skipped.
    speech : the clip's speech regions ``[(start_s, end_s), ...]``.
    duration : clip length in seconds.

    Returns
    -------
    list of dict
        ``{"flag": "over_nonspeech", "word", "start", "end", "nonspeech": [a, b]}`` per word.
    """
    from ..core.acoustics import nonspeech_stretches

    gaps = nonspeech_stretches(speech, duration)
    out = []
    for w in words or ():
        get = w.get if isinstance(w, dict) else (lambda k, _w=w: getattr(_w, k, None))
        s, e = get("start"), get("end")
        if s is None or e is None:
            continue
        s, e = float(s), float(e)
        if e <= s:
            continue
        for a, b in gaps:
            if a <= s and e <= b:
                out.append(
                    {
                        "flag": "over_nonspeech",
                        "word": get("text") or get("word"),
                        "start": s,
                        "end": e,
                        "nonspeech": [round(a, 3), round(b, 3)],
                    }
                )
                break
    return out


def unstable(
    text_a, text_b, threshold: float = 0.2, normalizer: Callable[[object], str] | None = None
) -> dict | None:
    """Instability evidence when two sampled decodes differ by more than ``threshold``."""
    import jiwer

    norm = normalizer or get_normalizer(None, "en")
    a, b = norm(text_a).split(), norm(text_b).split()
    longest = max(len(a), len(b))
    if longest == 0:
        return None
    if not a or not b:
        dist = longest
    else:
        out = jiwer.process_words(" ".join(a), " ".join(b))
        dist = out.substitutions + out.deletions + out.insertions
    rate = dist / longest
    if rate > threshold:
        return {
            "flag": "unstable",
            "edit_rate": round(rate, 4),
            "decode_a": as_text(text_a),
            "decode_b": as_text(text_b),
        }
    return None


def parse_evidence(value) -> list[dict]:
    """The evidence list of an item from its ``hallucination_evidence`` cell (JSON or list)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    if isinstance(value, str):
        return json.loads(value) if value.strip() else []
    return list(value)


def _text_flags(r: list[str], h: list[str], st: HallucinationSettings) -> list[dict]:
    """The loop and runaway evidence of one (reference, hypothesis) pair of word lists."""
    ev = []
    loop = find_loop(h, r, st.max_ngram, st.min_repeats)
    if loop:
        ev.append(loop)
    ra = runaway(len(h), len(r), st.runaway_factor, st.runaway_slack)
    if ra:
        ev.append(ra)
    return ev


def _plain(value):
    """JSON for what json cannot write: numpy numbers as numbers, anything else as text
    (word-time evidence handed over as objects may hold either)."""
    return value.item() if isinstance(value, np.generic) else str(value)


def hallucination_columns(
    frame: pd.DataFrame,
    normalizer=None,
    language: str = "en",
    settings: HallucinationSettings | None = None,
) -> pd.DataFrame:
    """Per-item flags and their evidence.

    Parameters
    ----------
    frame : audit frame with ``reference`` and ``hypothesis``; optional ``nonspeech_words``
        (JSON list of :func:`words_over_nonspeech` evidence, written by the audit job for
        backends with word times; None/NaN where not checked) and ``hypothesis_sampled_a`` /
        ``hypothesis_sampled_b`` (two sampled decodes, for ``unstable``).
    normalizer : the run's WER normaliser (name or callable; None: by language).
    language : used when ``normalizer`` is None.
    settings : thresholds.

    Returns
    -------
    pandas.DataFrame
        Same index; int columns :data:`FLAG_COLUMNS`, ``unflagged_errors`` and
        ``unflagged_words`` are added by the caller from the word counts
        (:func:`unflagged_columns`); ``hallucination_evidence`` (JSON string, ``""`` when
        unflagged).
    """
    st = settings or HallucinationSettings()
    norm = memoised(get_normalizer(normalizer, language))  # the scoring's texts
    n = len(frame)

    def column(name):
        return frame[name].to_numpy(dtype=object) if name in frame.columns else [None] * n

    has_sampled = {"hypothesis_sampled_a", "hypothesis_sampled_b"} <= set(frame.columns)
    inputs = [
        column(c)
        for c in (
            "reference",
            "hypothesis",
            "nonspeech_words",
            "hypothesis_sampled_a",
            "hypothesis_sampled_b",
        )
    ]
    # a row's flags depend on its five inputs alone: each distinct combination (in a table
    # without word times or sampled decodes, each distinct pair of texts) is checked once
    index: dict = {}
    first: list[int] = []
    codes = np.empty(n, dtype=np.int64)
    for k, key in enumerate(zip(*inputs, strict=True)):
        try:
            j = index.get(key)
        except TypeError:  # a list or dict cell (evidence given as objects)
            key = tuple(
                json.dumps(v, sort_keys=True, default=_plain) if isinstance(v, (list, dict)) else v
                for v in key
            )
            j = index.get(key)
        if j is None:
            j = index[key] = len(first)
            first.append(k)
        codes[k] = j
    flags = np.zeros((len(first), len(FLAG_COLUMNS)), dtype=np.int64)
    evidence = np.empty(len(first), dtype=object)
    at = {c: i for i, c in enumerate(FLAG_COLUMNS)}
    for j, k in enumerate(first):
        ref, hyp, ns, sa, sb = (col[k] for col in inputs)
        ev = _text_flags(norm(ref).split(), norm(hyp).split(), st) + parse_evidence(ns)
        if has_sampled:
            un = unstable(sa, sb, st.unstable_rate, norm)
            if un:
                ev.append(un)
        for e in ev:
            flags[j, at[f"hall_{e['flag']}"]] = 1
        flags[j, at["hallucinated"]] = int(bool(ev))
        evidence[j] = json.dumps(ev, ensure_ascii=False, default=_plain) if ev else ""
    out = pd.DataFrame(flags[codes], columns=list(FLAG_COLUMNS), index=frame.index)
    out["hallucination_evidence"] = evidence[codes]
    return out


def unflagged_columns(stats: pd.DataFrame) -> pd.DataFrame:
    """``unflagged_errors`` (S+D+I) and ``unflagged_words`` (N) of unflagged items, 0 else."""
    keep = 1 - stats["hallucinated"].to_numpy(np.int64)
    err = stats[["n_sub", "n_del", "n_ins"]].to_numpy(np.int64).sum(axis=1)
    return pd.DataFrame(
        {
            "unflagged_errors": err * keep,
            "unflagged_words": stats["n_words"].to_numpy(np.int64) * keep,
        },
        index=stats.index,
    )


#: Per-item acoustic columns shown with an item (fairdesk.core.acoustics).
_ITEM_ACOUSTICS = (
    "duration_s",
    "speech_s",
    "nonspeech_share",
    "snr_db",
    "speech_rate",
    "asr_confidence",
)


@dataclass(frozen=True)
class ItemPitfalls:
    """The hallucination evidence and acoustic covariates of one stored item
    (:func:`item_pitfalls`); :mod:`fairdesk.presentation.pitfalls` words the evidence.

    Attributes
    ----------
    evidence : the evidence records (``flag`` and its numbers, as stored).
    acoustics : column -> value (None where undefined), only the columns the run has.
    speech_regions : the VAD's ``[start, end]`` speech regions in seconds (None without).
    """

    evidence: tuple[dict, ...] = ()
    acoustics: Mapping[str, float | None] = field(default_factory=dict)
    speech_regions: list | None = None


def item_pitfalls(row: dict) -> ItemPitfalls:
    """The hallucination evidence and acoustic covariates of one stored item row.

    Parameters
    ----------
    row : one record of the run's per-item frame (``run_items_frame``).

    Returns
    -------
    ItemPitfalls
        The evidence records, the acoustics (only the columns the run has) and the speech
        regions.
    """
    ev = parse_evidence(row.get("hallucination_evidence"))
    regions = row.get("speech_regions")
    if isinstance(regions, str):
        regions = json.loads(regions) if regions.strip() else None
    elif not isinstance(regions, list):
        regions = None
    return ItemPitfalls(
        evidence=tuple(ev),
        acoustics={c: finite(row.get(c)) for c in _ITEM_ACOUSTICS if c in row},
        speech_regions=regions,
    )
