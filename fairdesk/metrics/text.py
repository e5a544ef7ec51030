"""Per-item transcription statistics: words, characters, diacritics and tones (docs/METHODS.md, "Word and character error rates" and "Diacritic and tone metrics").

Each function returns a named tuple whose field names are the stat columns of
:func:`fairdesk.metrics.compute_item_stats`, so group metrics are ratios of their sums.

Alignments come from rapidfuzz's Levenshtein opcodes: words and characters exactly as jiwer
aligns them (jiwer's default transforms, then the same rapidfuzz call jiwer makes; a test
checks the counts against jiwer), base letters for tones; nothing here is a hand-written
edit distance.

Conventions
-----------
* Missing text (``None``, NaN, ``""``) is the empty string. An empty reference has
  ``n_words == 0`` and every hypothesis word is an insertion; an empty hypothesis makes every
  reference word a deletion; both empty gives zeros.
* Characters are Unicode code points of the *normalised* string, spaces included, exactly as
  ``jiwer.cer`` counts them (``cer_default`` only strips the ends; the normalisers already
  collapse inner whitespace to single spaces). A letter with a combining mark that has no
  precomposed form (e.g. ``ọ́`` = ``ọ`` + U+0301) is two code points.
* A *diacritic-bearing character* is a letter (Unicode category ``L*``) followed, in NFD, by
  one or more combining marks (category ``M*``). Marks after a non-letter (a digit, a space) or
  at the very start of the text are ignored.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import NamedTuple

from rapidfuzz.distance import Levenshtein

from .normalize import as_text, normalizer_for, tone_preserving

__all__ = [
    "CharCounts",
    "DiacriticCounts",
    "ToneCounts",
    "WordCounts",
    "char_counts",
    "char_counts_many",
    "diacritic_counts",
    "exact_match",
    "intent_match",
    "marked_letters",
    "slot_diff",
    "tone_counts",
    "word_counts",
    "word_counts_many",
]


class WordCounts(NamedTuple):
    """Word-level edit counts of one item: reference words N, substitutions, deletions,
    insertions."""

    n_words: int
    n_sub: int
    n_del: int
    n_ins: int


class CharCounts(NamedTuple):
    """Character-level edit counts of one item (spaces count, as in ``jiwer.cer``)."""

    n_chars: int
    c_sub: int
    c_del: int
    c_ins: int


class DiacriticCounts(NamedTuple):
    """Diacritic counts of one item: E expected, P produced, D = max(0, E-P),
    H = max(0, P-E)."""

    dia_expected: int
    dia_produced: int
    dia_dropped: int
    dia_added: int


class ToneCounts(NamedTuple):
    """Tone (mark-set) errors of one item over aligned base letters; ``tone_expected`` is E
    of the reference (letters mode)."""

    tone_expected: int
    tone_dropped: int
    tone_hallucinated: int
    tone_wrong: int


def _resolve(normalizer, language) -> Callable[[object], str]:
    return normalizer if normalizer is not None else normalizer_for(language)


# --------------------------------------------------------------------------- words / chars


# jiwer's default transforms (wer_default, cer_default), applied as jiwer applies them
_MULTI_SPACE = re.compile(r"\s\s+")


def _jiwer_words(text: str) -> list[str]:
    """The words ``jiwer.process_words`` aligns (RemoveMultipleSpaces, Strip, split on " ")."""
    return [w for w in _MULTI_SPACE.sub(" ", text).strip().split(" ") if w]


def _jiwer_chars(text: str) -> str:
    """The characters ``jiwer.process_characters`` aligns (Strip; spaces inside count)."""
    return text.strip()


def _edit_counts(ref, hyp) -> tuple[int, int, int, int]:
    """(n_ref, S, D, I) of the alignment jiwer makes: rapidfuzz Levenshtein opcodes of the
    token sequences (jiwer maps tokens to integers and calls the same function)."""
    s = d = i = 0
    for op in Levenshtein.opcodes(ref, hyp):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag == "replace":
            s += i2 - i1
        elif tag == "delete":
            d += i2 - i1
        elif tag == "insert":
            i += j2 - j1
    return len(ref), s, d, i


def _counts_many(name, tokens, counts_type, references, hypotheses):
    """Per-pair counts of many pairs, each aligned as jiwer aligns it (see :func:`_edit_counts`;
    a test checks the counts against ``jiwer.process_words`` / ``process_characters``)."""
    refs = [as_text(r) for r in references]
    hyps = [as_text(h) for h in hypotheses]
    if len(refs) != len(hyps):
        raise ValueError(
            f"{name}: {len(refs)} references but {len(hyps)} hypotheses; "
            "pass one hypothesis per reference."
        )
    return [counts_type(*_edit_counts(tokens(r), tokens(h))) for r, h in zip(refs, hyps)]


def word_counts_many(references: Sequence[str], hypotheses: Sequence[str]) -> list[WordCounts]:
    """Word counts for many *already normalised* pairs, aligned as ``jiwer.process_words``
    aligns them.

    Parameters
    ----------
    references, hypotheses : equal-length sequences of normalised strings.

    Returns
    -------
    list of WordCounts
        Summing them gives exactly ``jiwer.wer(references, hypotheses)`` as
        (S+D+I)/N.
    """
    return _counts_many("word_counts_many", _jiwer_words, WordCounts, references, hypotheses)


def char_counts_many(references: Sequence[str], hypotheses: Sequence[str]) -> list[CharCounts]:
    """Character counts for many *already normalised* pairs, aligned as
    ``jiwer.process_characters`` aligns them.

    Parameters
    ----------
    references, hypotheses : equal-length sequences of normalised strings.

    Returns
    -------
    list of CharCounts
        Summing them gives exactly ``jiwer.cer(references, hypotheses)``.
    """
    return _counts_many("char_counts_many", _jiwer_chars, CharCounts, references, hypotheses)


def word_counts(reference, hypothesis, language="en", normalizer=None) -> WordCounts:
    """Word substitutions, deletions and insertions of one item.

    Parameters
    ----------
    reference, hypothesis : str or None/NaN (empty).
    language : picks the normaliser (Whisper English for ``en``/``en-*``, basic otherwise).
    normalizer : callable ``str -> str`` overriding ``language``.

    Returns
    -------
    WordCounts
        ``(n_words, n_sub, n_del, n_ins)``; WER of the item = (S+D+I)/N.
    """
    norm = _resolve(normalizer, language)
    return word_counts_many([norm(reference)], [norm(hypothesis)])[0]


def char_counts(reference, hypothesis, language="en", normalizer=None) -> CharCounts:
    """Character substitutions, deletions and insertions of one item (spaces count).

    Parameters
    ----------
    reference, hypothesis : str or None/NaN (empty).
    language : picks the normaliser, as in :func:`word_counts`.
    normalizer : callable ``str -> str`` overriding ``language``.

    Returns
    -------
    CharCounts
        ``(n_chars, c_sub, c_del, c_ins)``; equals ``jiwer.cer`` on the normalised strings.
    """
    norm = _resolve(normalizer, language)
    return char_counts_many([norm(reference)], [norm(hypothesis)])[0]


# --------------------------------------------------------------------------- diacritics


class _Units(NamedTuple):
    """Tone-preserving text split into base characters and the marks on each (NFD)."""

    base: str  # the base characters, marks removed
    marks: tuple[tuple[str, ...], ...]  # per base character; () unless a letter with marks
    n_marked: int  # letters with at least one mark (E or P, letters mode)
    n_marks: int  # marks on letters (E or P, marks mode)


def _units(text: str) -> _Units:
    """Split (already tone-preserving) text into base characters and their marks."""
    nfd = unicodedata.normalize("NFD", text)
    if nfd.isascii():  # fast path: no marks at all
        return _Units(nfd, ((),) * len(nfd), 0, 0)
    bases: list[str] = []
    marks: list[list[str]] = []
    for c in nfd:
        if unicodedata.category(c).startswith("M"):
            if bases:  # a mark with no base before it is ignored
                marks[-1].append(c)
        else:
            bases.append(c)
            marks.append([])
    # marks after a non-letter (digit, space, symbol) never count
    kept = tuple(
        tuple(m) if m and unicodedata.category(b).startswith("L") else ()
        for b, m in zip(bases, marks, strict=True)
    )
    return _Units("".join(bases), kept, sum(1 for m in kept if m), sum(len(m) for m in kept))


def count_marked(units: _Units, count: str = "letters") -> int:
    """E (or P) from pre-split units: letters with marks, or their marks."""
    return units.n_marked if count == "letters" else units.n_marks


def marked_letters(text, count: str = "letters") -> int:
    """Number of diacritic-bearing characters (or marks) in ``text`` (tone-preserving form).

    Parameters
    ----------
    text : str or None/NaN.
    count : ``"letters"`` (default): a letter followed by one or more combining marks counts
        once (``ọ́`` is 1); ``"marks"``: every combining mark on a letter counts (``ọ́`` is 2).

    Returns
    -------
    int
    """
    if count not in ("letters", "marks"):
        raise ValueError(f"count must be 'letters' or 'marks', got {count!r}.")
    return count_marked(_units(tone_preserving(text)), count)


def diacritic_counts(reference, hypothesis, count: str = "letters") -> DiacriticCounts:
    """Expected/produced diacritics of one item (docs/METHODS.md, "Diacritic and tone metrics").

    Both texts go through :func:`~fairdesk.metrics.normalize.tone_preserving`; E and P are
    counted with :func:`marked_letters`.

    Parameters
    ----------
    reference, hypothesis : str or None/NaN.
    count : ``"letters"`` (default) or ``"marks"``.

    Returns
    -------
    DiacriticCounts
        ``(E, P, D = max(0, E-P), H = max(0, P-E))``.
    """
    e = marked_letters(reference, count)
    p = marked_letters(hypothesis, count)
    return DiacriticCounts(e, p, max(0, e - p), max(0, p - e))


def tone_counts(reference, hypothesis) -> ToneCounts:
    """Tone errors of one item: compare the mark sets of aligned base letters.

    Both texts go through the tone-preserving normaliser, are decomposed (NFD) into base
    characters with their marks, and the base strings (marks removed) are aligned at character
    level with ``rapidfuzz.distance.Levenshtein.opcodes``. For each aligned pair (``equal`` or
    ``replace``): reference marked and hypothesis bare -> *dropped*; reference bare and
    hypothesis marked -> *hallucinated*; both marked with different mark sets -> *wrong*.
    A deleted reference letter with marks is *dropped*; an inserted hypothesis letter with marks
    is *hallucinated*.

    Parameters
    ----------
    reference, hypothesis : str or None/NaN.

    Returns
    -------
    ToneCounts
        ``tone_expected`` = E of the reference (letters mode); dropped + wrong <= E.
    """
    return tone_counts_units(
        _units(tone_preserving(reference)), _units(tone_preserving(hypothesis))
    )


def tone_counts_units(ref: _Units, hyp: _Units) -> ToneCounts:
    """:func:`tone_counts` on pre-split units (``_units`` of tone-preserving text)."""
    expected = ref.n_marked
    if not expected and not hyp.n_marked:
        return ToneCounts(0, 0, 0, 0)
    rmarks, hmarks = ref.marks, hyp.marks
    dropped = halluc = wrong = 0
    for op in Levenshtein.opcodes(ref.base, hyp.base):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag in ("equal", "replace"):
            n = min(i2 - i1, j2 - j1)
            for k in range(n):
                rm, hm = rmarks[i1 + k], hmarks[j1 + k]
                if rm and not hm:
                    dropped += 1
                elif hm and not rm:
                    halluc += 1
                elif rm and hm and frozenset(rm) != frozenset(hm):
                    wrong += 1
            # defensive: unequal replace blocks leave unaligned tails
            dropped += sum(1 for m in rmarks[i1 + n : i2] if m)
            halluc += sum(1 for m in hmarks[j1 + n : j2] if m)
        elif tag == "delete":
            dropped += sum(1 for m in rmarks[i1:i2] if m)
        elif tag == "insert":
            halluc += sum(1 for m in hmarks[j1:j2] if m)
    return ToneCounts(expected, dropped, halluc, wrong)


# SLU functions live in slots.py; re-exported here so every per-item function is in one place.
from .slots import exact_match, intent_match, slot_diff  # noqa: E402
