"""An item's diacritic detail: E, P, D, H (docs/METHODS.md, "Diacritic and tone metrics") and which marks were dropped,
added or changed, word by word (``fairdesk show`` and the item report's data).

The mark-level edits are those of :mod:`fairdesk.review.marks` (the GUI's difference view):
words aligned with jiwer on the tone-preserving text; inside a substituted word the letters
are aligned and their marks compared. A deleted reference word loses all its marks
(``dropped``); an inserted hypothesis word brings all of its marks (``added``).
"""

from __future__ import annotations

from .marks import MarkEdit, describe, letters, mark_name, word_edits

__all__ = ["diacritic_detail"]


def _word_marks(word: str, kind: str) -> list[MarkEdit]:
    """Every mark of a whole deleted (``dropped``) or inserted (``added``) word."""
    from unicodedata import normalize

    out = []
    for i, (base, marks) in enumerate(letters(word)):
        if not base.isalpha():
            continue
        letter = normalize("NFC", base + "".join(marks))
        for m in marks:
            if kind == "dropped":
                out.append(MarkEdit("dropped", i, letter, "", m))
            else:
                out.append(MarkEdit("added", i, "", letter, m))
    return out


def _edit_dict(ref_word: str, hyp_word: str, op: str, e: MarkEdit) -> dict:
    return {
        "ref_word": ref_word,
        "hyp_word": hyp_word,
        "word_op": op,
        "kind": e.kind,
        "letter": e.letter,
        "hyp_letter": e.hyp_letter,
        "mark": e.mark,
        "mark_name": mark_name(e.mark) if e.mark else "",
        "new_mark": e.new_mark,
        "new_mark_name": mark_name(e.new_mark) if e.new_mark else "",
        "text": describe(e),
    }


def diacritic_detail(reference, hypothesis, count: str = "letters") -> dict | None:
    """Diacritic counts and mark edits of one item (None when neither text has a mark).

    Parameters
    ----------
    reference, hypothesis : the item's texts (None/NaN = empty).
    count : ``letters`` (diacritic-bearing letters, default) or ``marks`` for E and P.

    Returns
    -------
    dict or None
        ``count``, ``expected`` (E), ``produced`` (P), ``dropped`` (D = max(0, E-P)),
        ``added`` (H = max(0, P-E)), ``ref_letters``, ``der`` ((D+H)/E, None when E = 0),
        ``added_per_100_letters`` (100·P/letters, only when E = 0: the Igbo tone-mark study's first
        category, where DER is undefined), ``marks`` (how many marks were ``dropped``,
        ``added``, ``changed`` by the edits) and ``edits`` (one dict per mark edit:
        ``ref_word, hyp_word, word_op`` (substituted/deleted/inserted), ``kind``,
        ``letter``, ``hyp_letter``, ``mark``, ``mark_name``, ``new_mark``,
        ``new_mark_name``, ``text``).
    """
    import jiwer

    from ..metrics.normalize import tone_preserving
    from ..metrics.text import _units, diacritic_counts

    ref, hyp = tone_preserving(reference), tone_preserving(hypothesis)
    dc = diacritic_counts(ref, hyp, count)
    if not dc.dia_expected and not dc.dia_produced:
        return None
    n_letters = sum(1 for c in _units(ref).base if c.isalpha())
    edits: list[dict] = []
    if ref.strip() and hyp.strip():
        out = jiwer.process_words(ref, hyp)
        rw, hw = out.references[0], out.hypotheses[0]
        for ch in out.alignments[0]:
            if ch.type == "substitute":
                for i, j in zip(
                    range(ch.ref_start_idx, ch.ref_end_idx),
                    range(ch.hyp_start_idx, ch.hyp_end_idx),
                    strict=True,
                ):
                    edits += [
                        _edit_dict(rw[i], hw[j], "substituted", e)
                        for e in word_edits(rw[i], hw[j])
                        if e.is_mark
                    ]
            elif ch.type == "delete":
                for i in range(ch.ref_start_idx, ch.ref_end_idx):
                    edits += [
                        _edit_dict(rw[i], "", "deleted", e) for e in _word_marks(rw[i], "dropped")
                    ]
            elif ch.type == "insert":
                for j in range(ch.hyp_start_idx, ch.hyp_end_idx):
                    edits += [
                        _edit_dict("", hw[j], "inserted", e) for e in _word_marks(hw[j], "added")
                    ]
    else:
        for w in ref.split():
            edits += [_edit_dict(w, "", "deleted", e) for e in _word_marks(w, "dropped")]
        for w in hyp.split():
            edits += [_edit_dict("", w, "inserted", e) for e in _word_marks(w, "added")]
    e = dc.dia_expected
    return {
        "count": count,
        "expected": e,
        "produced": dc.dia_produced,
        "dropped": dc.dia_dropped,
        "added": dc.dia_added,
        "ref_letters": n_letters,
        "der": (dc.dia_dropped + dc.dia_added) / e if e else None,
        "added_per_100_letters": (
            100.0 * dc.dia_produced / n_letters if not e and n_letters else None
        ),
        "marks": {
            k: sum(1 for x in edits if x["kind"] == k) for k in ("dropped", "added", "changed")
        },
        "edits": edits,
    }
