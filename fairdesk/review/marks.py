"""Errors inside a word: which letters and which combining marks (tone marks, dot below)
differ between a reference word and the hypothesis word aligned to it.

A word is split into letters, each a base character with the combining marks on it
(Unicode NFD). The base letters are aligned with a Levenshtein alignment (rapidfuzz); on
each pair of aligned letters the marks are compared:

- ``dropped``: a mark of the reference letter is missing from the hypothesis letter;
- ``added``: the hypothesis letter carries a mark the reference letter has not;
- ``changed``: one tone mark (grave, acute, macron, caron, circumflex) replaced by another.

Letters themselves are ``substituted``, ``deleted`` or ``inserted``. Pure code: the
difference view and ``fairdesk show`` render the same edits.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

__all__ = ["MarkEdit", "letters", "word_edits", "word_pairs", "mark_name", "describe"]

#: Combining marks that carry a tone; one replaced by another is a ``changed`` tone.
TONE_MARKS = frozenset({"\u0300", "\u0301", "\u0304", "\u030c", "\u0302", "\u030b", "\u030f"})


@dataclass(frozen=True)
class MarkEdit:
    """One difference inside a word.

    Attributes
    ----------
    kind : ``dropped``, ``added``, ``changed`` (marks) or ``substituted``, ``deleted``,
        ``inserted`` (letters).
    index : position of the letter in the reference word (for ``inserted``: the reference
        position before which the letter was inserted).
    letter : the reference letter (NFC, with its marks); ``""`` for an insertion.
    hyp_letter : the hypothesis letter (NFC, with its marks); ``""`` for a deletion.
    mark : the combining mark concerned (``dropped``/``added``: that mark; ``changed``: the
        reference's tone mark); ``""`` for letter edits.
    new_mark : for ``changed``, the hypothesis's tone mark.
    """

    kind: str
    index: int
    letter: str
    hyp_letter: str
    mark: str = ""
    new_mark: str = ""

    @property
    def is_mark(self) -> bool:
        return self.kind in ("dropped", "added", "changed")


def letters(word: str) -> list[tuple[str, tuple[str, ...]]]:
    """``word`` as (base character, combining marks in order) pairs (NFD)."""
    out: list[tuple[str, list[str]]] = []
    for ch in unicodedata.normalize("NFD", word):
        if unicodedata.combining(ch) and out:
            out[-1][1].append(ch)
        else:
            out.append((ch, []))
    return [(b, tuple(m)) for b, m in out]


def _nfc(base: str, marks) -> str:
    return unicodedata.normalize("NFC", base + "".join(marks))


def mark_name(mark: str) -> str:
    """A readable name of a combining mark (``grave``, ``dot below``, ...)."""
    name = unicodedata.name(mark, "").lower()
    name = name.replace("combining ", "").replace(" accent", "")
    return name or f"U+{ord(mark):04X}"


def word_edits(ref: str, hyp: str, casefold: bool = True) -> list[MarkEdit]:
    """The letter and mark differences between a reference and a hypothesis word.

    Parameters
    ----------
    ref, hyp : one word each (any normalisation form).
    casefold : compare base letters ignoring case.

    Returns
    -------
    list of MarkEdit
        In reference order; empty when the words are equal (after NFC).

    Examples
    --------
    >>> [(e.kind, e.letter, mark_name(e.mark)) for e in word_edits("àkwà", "akwà")]
    [('dropped', 'à', 'grave')]
    """
    from rapidfuzz.distance import Levenshtein

    r, h = letters(ref), letters(hyp)
    key = (lambda b: b.casefold()) if casefold else (lambda b: b)
    rb = [key(b) for b, _ in r]
    hb = [key(b) for b, _ in h]
    out: list[MarkEdit] = []
    for op in Levenshtein.opcodes(rb, hb):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                out += _mark_edits(i, r[i], h[j])
        elif tag == "replace":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                out.append(MarkEdit("substituted", i, _nfc(*r[i]), _nfc(*h[j])))
        elif tag == "delete":
            for i in range(i1, i2):
                out.append(MarkEdit("deleted", i, _nfc(*r[i]), ""))
        elif tag == "insert":
            for j in range(j1, j2):
                out.append(MarkEdit("inserted", i1, "", _nfc(*h[j])))
    return out


def _mark_edits(i: int, rl, hl) -> list[MarkEdit]:
    (rbase, rm), (hbase, hm) = rl, hl
    if list(rm) == list(hm):
        return []
    letter, hyp_letter = _nfc(rbase, rm), _nfc(hbase, hm)
    gone = [m for m in rm if m not in hm]
    new = [m for m in hm if m not in rm]
    out = []
    r_tones = [m for m in gone if m in TONE_MARKS]
    h_tones = [m for m in new if m in TONE_MARKS]
    for a, b in zip(r_tones, h_tones):  # a tone replaced by another tone: changed
        out.append(MarkEdit("changed", i, letter, hyp_letter, a, b))
        gone.remove(a)
        new.remove(b)
    out += [MarkEdit("dropped", i, letter, hyp_letter, m) for m in gone]
    out += [MarkEdit("added", i, letter, hyp_letter, m) for m in new]
    return out


def describe(edit: MarkEdit) -> str:
    """One short phrase: ``dropped grave on à``, ``acute → grave on á``, ``a → e``."""
    if edit.kind == "changed":
        return f"{mark_name(edit.mark)} → {mark_name(edit.new_mark)} on {edit.letter}"
    if edit.kind == "dropped":
        return f"dropped {mark_name(edit.mark)} on {edit.letter}"
    if edit.kind == "added":
        return f"added {mark_name(edit.mark)} on {edit.hyp_letter}"
    if edit.kind == "substituted":
        return f"{edit.letter} → {edit.hyp_letter}"
    if edit.kind == "deleted":
        return f"missing {edit.letter}"
    return f"extra {edit.hyp_letter}"


def word_pairs(reference: str, hypothesis: str) -> list[tuple[str, str, list[MarkEdit]]]:
    """Substituted word pairs of two transcripts with their letter and mark edits.

    The texts are normalised with the tone-preserving normaliser (NFC, lower case,
    punctuation removed, every combining mark kept; docs/METHODS.md, "Text normalisation") and aligned word by word
    (jiwer), so a tone-only error shows here even when the WER normaliser hid it.

    Returns
    -------
    list of (reference word, hypothesis word, edits)
        One entry per substitution, in order.
    """
    import jiwer

    from ..metrics.normalize import tone_preserving

    ref, hyp = tone_preserving(reference), tone_preserving(hypothesis)
    if not ref or not hyp:
        return []
    out = jiwer.process_words(ref, hyp)
    rw, hw = out.references[0], out.hypotheses[0]
    pairs = []
    for chunk in out.alignments[0]:
        if chunk.type != "substitute":
            continue
        for i, j in zip(
            range(chunk.ref_start_idx, chunk.ref_end_idx),
            range(chunk.hyp_start_idx, chunk.hyp_end_idx),
        ):
            pairs.append((rw[i], hw[j], word_edits(rw[i], hw[j])))
    return pairs
