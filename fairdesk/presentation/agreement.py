"""The words of annotators' agreement (:class:`fairdesk.stats.agreement.AgreementResult`):
the console table of ``fairdesk agreement``, the reason a statistic has no number, the ranked
disagreements, and the JSON every other view reads (pure)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .numbers import MISSING, count, fmt_number, fmt_percent

if TYPE_CHECKING:
    from ..stats.agreement import AgreementGroup, AgreementResult, AgreementStat

__all__ = [
    "STATISTICS",
    "agreement_json",
    "agreement_lines",
    "reason_text",
    "stat_text",
]

#: The statistics in the order every view shows them: (field, heading, a share?).
STATISTICS = (
    ("raw", "mark agreement", True),
    ("kappa", "Cohen's κ", False),
    ("alpha", "Krippendorff's α", False),
    ("wer", "WER", True),
    ("der", "DER", True),
    ("ter", "TER", True),
)

_REASONS = {
    "too_few_items": "fewer than 2 shared items",
    "no_marks": "no tone marks on the shared items",
    "not_two_annotators": "κ needs exactly two annotators",
    "one_category": "every mark the same: not defined",
    "no_expected_marks": "no marks to score",
    "no_words": "no words",
}


def reason_text(reason: str | None) -> str:
    """Why a statistic has no number, in words."""
    return _REASONS.get(reason or "", reason or MISSING)


def stat_text(stat: AgreementStat, share: bool) -> str:
    """``84.0% [71.2, 93.1]`` / ``0.712 [0.50, 0.86]``, or the reason in words."""
    if stat.value is None:
        return f"— ({reason_text(stat.reason)})"

    def f(x):
        return fmt_percent(x) if share else fmt_number(x, 3)

    if stat.low is None or stat.high is None:
        return f"{f(stat.value)} [no interval]"
    lo, hi = (f(stat.low), f(stat.high))
    if share:
        lo, hi = lo.rstrip("%"), hi.rstrip("%")
    return f"{f(stat.value)} [{lo}, {hi}]"


def _basis(g: AgreementGroup) -> str:
    return (
        f"{count(g.n_items, 'shared item')}, {count(g.n_marks, 'mark')}, "
        f"{count(g.n_speakers, 'speaker')}"
    )


def agreement_lines(result: AgreementResult, dataset: str | None = None) -> list[str]:
    """The console view: the annotators, per group and overall each statistic with its
    interval and basis, then the items where they disagree most."""
    head = f"agreement of {', '.join(result.annotators)}"
    if dataset:
        head += f" on {dataset}"
    out = [
        head,
        f"normaliser {result.normaliser}; 95% intervals by speaker bootstrap "
        f"({count(result.n_bootstrap, 'resample')}, seed {result.seed})",
    ]
    blocks = [("overall", result.overall)] + [
        (f"{result.by} = {g.group}", g) for g in result.groups
    ]
    for name, g in blocks:
        out.append("")
        out.append(f"{name}: {_basis(g)}")
        for field, heading, share in STATISTICS:
            out.append(f"  {heading:<18} {stat_text(getattr(g, field), share)}")
    if result.disagreements:
        out.append("")
        out.append("items where the annotators disagree most:")
        for k, d in enumerate(result.disagreements, 1):
            out.append(
                f"  {k:>2}. {d.item}: {d.marks_differing} of {count(d.n_marks, 'mark')} "
                f"differ, {fmt_number(d.word_edits, 1)} word edits"
                + (f" ({result.by} = {d.group})" if result.by and d.group is not None else "")
            )
            for who, text in d.versions:
                out.append(f"        {who}: {text}")
    else:
        out.append("")
        out.append("the annotators' versions agree on every shared item")
    return out


def agreement_json(result: AgreementResult) -> dict:
    """The result as JSON-ready data (every field of the typed result)."""
    return dataclasses.asdict(result)
