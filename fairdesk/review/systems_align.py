"""Several systems' hypotheses of one item aligned against its reference (the GUI's item
view of a comparison of systems): each hypothesis is aligned with
:func:`fairdesk.review.report.word_alignment`, the alignment its run's WER counted, and the
alignments are laid side by side on the reference words, so one reads where one system
fails and another does not."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SystemsColumn:
    """One column of the side-by-side alignment.

    Attributes
    ----------
    ref : the reference word ("" for a column of insertions).
    words : system → its word in this column ("" where it has none: a deletion, or no
        insertion here).
    ops : system → ``=`` (correct), ``S``, ``D``, ``I`` or ``""`` (nothing here).
    """

    ref: str
    words: dict
    ops: dict


def systems_alignment(
    reference, hypotheses: dict, language: str = "en", normaliser: str | None = None
) -> tuple[list[SystemsColumn], dict]:
    """Align each system's hypothesis against ``reference`` and merge the alignments on the
    reference words; a system's insertions before a reference word get their own columns.

    Parameters
    ----------
    reference : the item's reference text.
    hypotheses : system name → its hypothesis (baseline first).
    language, normaliser : as :func:`~fairdesk.review.report.word_alignment` (the run's).

    Returns
    -------
    (columns, counts)
        The :class:`SystemsColumn` list in reading order, and per system its
        ``{"S", "D", "I"}`` counts.
    """
    from .report import word_alignment

    names = list(hypotheses)
    at, ins, counts = {}, {}, {}
    ref: tuple[str, ...] = ()
    for n in names:
        al = word_alignment(reference, hypotheses[n], language, normaliser)
        ref = al.ref
        counts[n] = al.counts()
        here: dict[int, tuple[str, str]] = {}
        before: dict[int, list[str]] = {}  # words inserted before reference word k
        nxt = 0
        for o in al.ops:
            word = al.hyp[o.hyp_index] if o.hyp_index is not None else ""
            if o.ref_index is None:
                before.setdefault(nxt, []).append(word)
            else:
                here[o.ref_index] = (o.op, word)
                nxt = o.ref_index + 1
        at[n], ins[n] = here, before
    columns = []
    for k in range(len(ref) + 1):
        width = max((len(ins[n].get(k, ())) for n in names), default=0)
        for j in range(width):
            words = {
                n: (ins[n].get(k) or [])[j] if j < len(ins[n].get(k) or []) else "" for n in names
            }
            columns.append(SystemsColumn("", words, {n: "I" if words[n] else "" for n in names}))
        if k < len(ref):
            columns.append(
                SystemsColumn(
                    ref[k],
                    {n: at[n].get(k, ("D", ""))[1] for n in names},
                    {n: at[n].get(k, ("D", ""))[0] for n in names},
                )
            )
    return columns, counts
