"""Console rendering of the audit pitfalls (docs/METHODS.md, "Audit pitfalls"): hallucination flags per group, WER
carried by one utterance, verdicts that change without flagged items, and the normaliser
sensitivity table. Used by ``fairdesk audit``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..presentation import MISSING, fmt_gap, fmt_percent, fmt_value
from ..presentation.notices import notice_text
from ..presentation.pitfalls import note_text
from ..stats.sensitivity import normaliser_sensitivity
from . import blocks

if TYPE_CHECKING:
    from ..jobs.result import AuditRun

__all__ = ["normaliser_sensitivity", "print_pitfalls", "print_sensitivity"]


def print_pitfalls(run: AuditRun, file=None) -> None:
    """Hallucination flags per group and the WER pitfalls of a result (nothing if absent).

    Parameters
    ----------
    run : the audit.
    file : where to print (default: stdout at call time).
    """
    file = file if file is not None else sys.stdout
    block = run.pitfalls
    if block is None:
        return
    checked = ", ".join(block.flags_checked)
    by_group = blocks.pitfalls_by_group(block)
    if not block.n_flagged:
        print(f"\nHallucination flags: none (checked: {checked})", file=file)
    else:
        print(f"\nHallucination flags (checked: {checked}):", file=file)
        print(
            f"  {'group':<30}{'items':>6}{'flagged':>8}{'rate':>7}{'loop':>6}{'runaway':>8}"
            f"{'nonspeech':>10}{'WER':>8}{'WER unflagged':>15}",
            file=file,
        )
        values = {str(g.group): g.values or {} for g in run.groups}
        for g, r in by_group.items():
            gv = values.get(g, {})
            print(
                f"  {g[:29]:<30}{r.n_items:>6}{r.hallucinated:>8}{fmt_percent(r.rate):>7}"
                f"{r.loop:>6}{r.runaway:>8}{r.over_nonspeech:>10}"
                f"{fmt_percent(gv.get('wer')):>8}{fmt_percent(gv.get('wer_unflagged')):>15}",
                file=file,
            )
    if block.not_checked:
        print(f"  not checked: {note_text(block.not_checked)}", file=file)
    for d in blocks.wer_dominated(block):
        print(
            f"  WER of {d.group} is carried by one utterance: item {d.item} holds "
            f"{d.errors} of {d.group_errors} word errors ({fmt_percent(d.share, 0)}); "
            f"WER {fmt_percent(d.wer)}, {fmt_percent(d.wer_without_item)} without it",
            file=file,
        )
    for c in blocks.verdicts_without_flagged(block):
        if c.metric is None:
            print(f"  verdicts without flagged items: {note_text(c.reason)}", file=file)
            continue
        after = c.verdict_without_flagged or f"not compared ({note_text(c.reason)})"
        print(
            f"  {c.metric} {c.group}: {c.verdict} -> {after} without the flagged "
            f"items ({c.n_flagged_group} in the group, {c.n_flagged_reference} in the "
            "reference)",
            file=file,
        )
    share = block.nonspeech_share_by_group
    if share:
        print(
            "  mean non-speech share (VAD): "
            + ", ".join(f"{g} {fmt_percent(v)}" for g, v in share.items()),
            file=file,
        )


def print_sensitivity(block, file=None) -> None:
    """The sensitivity table for the console.

    Parameters
    ----------
    block : the ``normaliser_sensitivity`` block (``blocks.normaliser_sensitivity``).
    file : where to print (default: stdout at call time).
    """
    file = file if file is not None else sys.stdout
    if block is None or not block.rows:
        note = "no comparison" if block is None or block.note is None else notice_text(block.note)
        print(f"\nNormaliser sensitivity: {note}", file=file)
        return
    names = block.normalisers
    print(
        f"\nNormaliser sensitivity (run normaliser: {block.run_normaliser}; re-scored, "
        "not re-decoded):",
        file=file,
    )
    for r in block.rows:
        print(
            f"  {r.metric} {r.group} vs {r.reference}: "
            f"{'holds under all' if r.holds else 'VERDICT CHANGES'}",
            file=file,
        )
        for n in names:
            print(
                f"      {n:<18} value {fmt_value(r.metric, r.value.get(n)):>7}  gap "
                f"{fmt_gap(r.metric, r.gap.get(n)):>8}  {r.verdict.get(n, MISSING)}",
                file=file,
            )
    print(
        f"  {block.n_flipped} of {block.n_comparisons} verdicts change with the normaliser",
        file=file,
    )
