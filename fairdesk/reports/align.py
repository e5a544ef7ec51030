"""Word alignment of a reference and a hypothesis for display (jiwer's alignment).

The same normaliser as the run's WER (``AuditRun.settings.normaliser``), so the operations
shown add up to the run's S/D/I counts. A substitution whose words differ only in their
combining marks is shown as a tone-mark error (``T``) with the counts of
:func:`fairdesk.metrics.text.tone_counts`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Op:
    """One aligned position.

    Attributes
    ----------
    op : ``=`` (equal), ``S``, ``D``, ``I`` or ``T`` (a substitution that only changes marks).
    ref, hyp : the normalised words ('' for the missing side).
    ref_index, hyp_index : token positions (None for the missing side).
    detail : for ``T`` (and ``S`` with mark differences): ``dropped 1, wrong 1`` etc.
    """

    op: str
    ref: str
    hyp: str
    ref_index: int | None
    hyp_index: int | None
    detail: str = ""

    def label(self) -> str:
        """A short label: ``S pay→play``, ``D the``, ``I uh``, ``T ọja→ọjà (dropped 1)``."""
        if self.op == "D":
            return f"D {self.ref}"
        if self.op == "I":
            return f"I {self.hyp}"
        if self.op in ("S", "T"):
            extra = f" ({self.detail})" if self.detail else ""
            return f"{self.op} {self.ref}→{self.hyp}{extra}"
        return ""


def base_letters(word: str) -> str:
    """The word without its combining marks (NFD, marks dropped, NFC)."""
    d = unicodedata.normalize("NFD", word)
    return unicodedata.normalize("NFC", "".join(c for c in d if not unicodedata.combining(c)))


def _mark_detail(ref: str, hyp: str) -> str:
    from ..metrics.text import tone_counts

    t = tone_counts(ref, hyp)
    bits = [
        f"{name} {n}"
        for name, n in (
            ("dropped", t.tone_dropped),
            ("hallucinated", t.tone_hallucinated),
            ("wrong", t.tone_wrong),
        )
        if n
    ]
    return ", ".join(bits)


def align_tokens(ref_tokens: list[str], hyp_tokens: list[str]) -> list[Op]:
    """Aligned operations of two token lists (jiwer), equal words included."""
    import jiwer

    if not ref_tokens and not hyp_tokens:
        return []
    if not ref_tokens:
        return [Op("I", "", h, None, j) for j, h in enumerate(hyp_tokens)]
    out = jiwer.process_words(" ".join(ref_tokens), " ".join(hyp_tokens) or "")
    ops: list[Op] = []
    for ch in out.alignments[0]:
        rs, re_, hs, he = ch.ref_start_idx, ch.ref_end_idx, ch.hyp_start_idx, ch.hyp_end_idx
        if ch.type == "equal":
            ops += [
                Op("=", ref_tokens[rs + k], hyp_tokens[hs + k], rs + k, hs + k)
                for k in range(re_ - rs)
            ]
        elif ch.type == "substitute":
            for k in range(re_ - rs):
                r, h = ref_tokens[rs + k], hyp_tokens[hs + k]
                detail = _mark_detail(r, h)
                kind = "T" if detail and base_letters(r) == base_letters(h) else "S"
                ops.append(Op(kind, r, h, rs + k, hs + k, detail))
        elif ch.type == "delete":
            ops += [Op("D", ref_tokens[k], "", k, None) for k in range(rs, re_)]
        elif ch.type == "insert":
            ops += [Op("I", "", hyp_tokens[k], None, k) for k in range(hs, he)]
    return ops


def normaliser(name: str | None, language: str):
    """The run's WER normaliser (its ``settings.normaliser`` name; by language when absent
    or unknown)."""
    from ..metrics.normalize import get_normalizer

    try:
        return get_normalizer(name if name else None, language)
    except ValueError:
        return get_normalizer(None, language)


def align_texts(reference, hypothesis, norm) -> list[Op]:
    """Aligned operations of two texts after ``norm`` (whole-text normalisation, as WER)."""
    return align_tokens(norm(reference or "").split(), norm(hypothesis or "").split())


def owned_tokens(words: list[str], norm) -> tuple[list[str], list[int]]:
    """Each written word normalised on its own: (tokens, index of the word each came from).

    Used to carry word times over to the normalised tokens the alignment works on.
    """
    tokens, owner = [], []
    for i, w in enumerate(words):
        for t in norm(w).split():
            tokens.append(t)
            owner.append(i)
    return tokens, owner
