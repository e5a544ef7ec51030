"""An item's report: reference and hypothesis aligned word by word, error counts, intent and
slots (what ``fairdesk show`` prints and the GUI's Items view displays).

:func:`word_alignment` is the one alignment of an item's words: the run's normaliser over the
whole texts, then jiwer, as the run's WER counted them. The report's alignment and the
TextGrid/EAF ``errors`` tiers (:mod:`fairdesk.reports.tiers`) both come from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jiwer import WordOutput

    from ..jobs.result import AuditRun


def _num(v) -> float:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(v) else v


@dataclass(frozen=True)
class AlignedWord:
    """One position of an item's word alignment.

    Attributes
    ----------
    op : ``=`` (equal), ``S``, ``D`` or ``I``.
    ref_index, hyp_index : the positions in :attr:`WordAlignment.ref` and ``.hyp`` (None
        for the missing side).
    """

    op: str
    ref_index: int | None
    hyp_index: int | None


@dataclass(frozen=True)
class WordAlignment:
    """An item's words as the run scored them.

    Attributes
    ----------
    ref, hyp : the normalised tokens of the whole reference and hypothesis.
    ops : the aligned positions in order (equal words included).
    output : jiwer's ``WordOutput`` (None when both texts normalise to nothing, or the
        reference does).
    """

    ref: tuple[str, ...]
    hyp: tuple[str, ...]
    ops: tuple[AlignedWord, ...]
    output: WordOutput | None = None

    def counts(self) -> dict[str, int]:
        """``{"S": n, "D": n, "I": n}`` of the alignment."""
        out = {"S": 0, "D": 0, "I": 0}
        for o in self.ops:
            if o.op in out:
                out[o.op] += 1
        return out


def word_alignment(
    reference, hypothesis, language: str = "en", normaliser: str | None = None
) -> WordAlignment:
    """Align an item's words as its WER was counted: ``normaliser`` (the run's, see
    :func:`run_normaliser`; None chooses by ``language``) over each whole text, then
    ``jiwer.process_words``. A reference that normalises to nothing makes every
    hypothesis token an insertion."""
    import jiwer

    from ..metrics.normalize import get_normalizer

    norm = get_normalizer(normaliser, language)
    ref, hyp = norm(reference or ""), norm(hypothesis or "")
    rt, ht = tuple(ref.split()), tuple(hyp.split())
    if not rt:
        return WordAlignment(rt, ht, tuple(AlignedWord("I", None, j) for j in range(len(ht))))
    out = jiwer.process_words(ref, hyp or "")
    ops: list[AlignedWord] = []
    for ch in out.alignments[0]:
        rs, re_, hs, he = ch.ref_start_idx, ch.ref_end_idx, ch.hyp_start_idx, ch.hyp_end_idx
        if ch.type in ("equal", "substitute"):
            kind = "=" if ch.type == "equal" else "S"
            ops += [AlignedWord(kind, rs + k, hs + k) for k in range(re_ - rs)]
        elif ch.type == "delete":
            ops += [AlignedWord("D", k, None) for k in range(rs, re_)]
        elif ch.type == "insert":
            ops += [AlignedWord("I", None, k) for k in range(hs, he)]
    return WordAlignment(rt, ht, tuple(ops), out)


def item_report(row: dict, language: str = "en", normaliser: str | None = None) -> dict:
    """Everything the difference view shows for one item (JSON-ready).

    ``normaliser``: the run's recorded normaliser (``run_normaliser``), so the alignment
    shown is the one its WER counted; None chooses by ``language``."""
    import jiwer

    from ..metrics.hallucination import item_pitfalls
    from ..metrics.slots import slot_diff
    from .diacritics import diacritic_detail

    out = word_alignment(row.get("reference"), row.get("hypothesis"), language, normaliser).output
    # skip_correct=False: jiwer otherwise returns "" for an item without errors (the
    # IndexError of a correctly recognised item); the header line is dropped, not indexed.
    text = (
        jiwer.visualize_alignment(out, show_measures=False, skip_correct=False)
        if out is not None
        else ""
    )
    alignment = (
        "\n".join(ln for ln in text.split("\n") if not ln.startswith("=== SENTENCE"))
        .strip("\n")
        .rstrip()
    )
    rep = {
        "id": row.get("id") or row.get("item_id"),
        "group": row.get("group"),
        "speaker_id": row.get("speaker_id"),
        "path": row.get("path"),
        "reference": row.get("reference"),
        "hypothesis": row.get("hypothesis"),
        "errors": int(_num(row.get("n_sub")) + _num(row.get("n_del")) + _num(row.get("n_ins"))),
        "n_words": int(_num(row.get("n_words"))),
        "substitutions": int(_num(row.get("n_sub"))),
        "deletions": int(_num(row.get("n_del"))),
        "insertions": int(_num(row.get("n_ins"))),
        "alignment": alignment,
        "audio_warnings": _audio_warnings(row.get("warnings")),
    }
    rep.update(item_pitfalls(row))
    # tone marks and dots: counts and which marks were dropped, added or changed (docs/METHODS.md, "Diacritic and tone metrics")
    rep["diacritics"] = diacritic_detail(row.get("reference"), row.get("hypothesis"))
    if row.get("ref_intent") is not None:
        rep["intent"] = {"reference": row.get("ref_intent"), "hypothesis": row.get("hyp_intent")}
        rep["em"] = row.get("em")
        rep["slots"] = [
            d.to_dict() for d in slot_diff(row.get("ref_slots"), row.get("hyp_slots"), language)
        ]
    return rep


def run_normaliser(run: AuditRun) -> str | None:
    """The text normaliser a stored run used for WER (resolved from ``auto``), or None for
    runs stored before it was recorded.

    Parameters
    ----------
    run : the audit.
    """
    name = (run.normaliser.name if run.normaliser is not None else None) or (
        run.settings.normaliser if run.settings is not None else None
    )
    return None if name in (None, "", "auto") else str(name)


def run_language(run: AuditRun, default: str = "en") -> str:
    """The language a stored run's texts were scored in (``default`` when not recorded).

    Parameters
    ----------
    run : the audit.
    default : the language of a run that did not record one.
    """
    rs = run.run_settings
    return (rs.language if rs is not None else None) or default


def _audio_warnings(value) -> list[str]:
    """The import's warnings about an item's audio (silence, clipping, cancelling channels,
    a low sample rate ...) as stored with the run's items: a list, or nothing."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, (list, tuple)):
        return [str(w) for w in value if w]
    return []
