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
    "agreement_blocks",
    "agreement_head",
    "agreement_json",
    "agreement_line",
    "agreement_method",
    "comparison_agreement",
    "is_diacritic",
    "resampled_run",
    "agreement_lines",
    "disagreement_lines",
    "group_of",
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


def agreement_blocks(result: AgreementResult) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Overall, then per group: ``(name, basis, [(heading, statistic), ...])``, the rows the
    console and the report show alike."""
    blocks = [("overall", result.overall)] + [
        (f"{result.by} = {g.group}", g) for g in result.groups
    ]
    return [
        (
            name,
            _basis(g),
            [
                (heading, stat_text(getattr(g, field), share))
                for field, heading, share in STATISTICS
            ],
        )
        for name, g in blocks
    ]


def disagreement_lines(result: AgreementResult) -> list[str]:
    """The items where the annotators disagree most, ranked, each with its versions."""
    out = []
    for k, d in enumerate(result.disagreements, 1):
        out.append(
            f"{k:>2}. {d.item}: {d.marks_differing} of {count(d.n_marks, 'mark')} "
            f"differ, {fmt_number(d.word_edits, 1)} word edits"
            + (f" ({result.by} = {d.group})" if result.by and d.group is not None else "")
        )
        for who, text in d.versions:
            out.append(f"      {who}: {text}")
    return out


def agreement_lines(result: AgreementResult, dataset: str | None = None) -> list[str]:
    """The console view: the annotators, per group and overall each statistic with its
    interval and basis, then the items where they disagree most."""
    out = [agreement_head(result, dataset), agreement_method(result)]
    for name, basis, stats in agreement_blocks(result):
        out.append("")
        out.append(f"{name}: {basis}")
        for heading, text in stats:
            out.append(f"  {heading:<18} {text}")
    out.append("")
    if result.disagreements:
        out.append("items where the annotators disagree most:")
        out += [f"  {line}" for line in disagreement_lines(result)]
    else:
        out.append("the annotators' versions agree on every shared item")
    return out


def agreement_method(result: AgreementResult) -> str:
    """``normaliser none; 95% intervals by speaker bootstrap (2,000 resamples, seed 0)``."""
    return (
        f"normaliser {result.normaliser}; 95% intervals by speaker bootstrap "
        f"({count(result.n_bootstrap, 'resample')}, seed {result.seed})"
    )


def agreement_head(result: AgreementResult, dataset: str | None = None) -> str:
    """``agreement of Ada, Obi on d``."""
    head = f"agreement of {', '.join(result.annotators)}"
    return head + (f" on {dataset}" if dataset else "")


def group_of(result: AgreementResult, group: str | None) -> AgreementGroup:
    """The block of ``group`` (a value of ``result.by``), else the overall one."""
    return next((g for g in result.groups if group is not None and g.group == group), None) or (
        result.overall
    )


def agreement_line(g: AgreementGroup, where: str | None = None) -> str:
    """One line beside a diacritic comparison: ``annotators agree on 70.0% [50.0, 100.0] of
    10 marks in accent = north (κ 0.423 [0.000, 0.500]; α …)``; without a number, the
    reason."""
    place = f" in {where}" if where else ""
    raw = g.raw
    if raw.value is None:
        return f"annotators' agreement on tone marks{place}: {stat_text(raw, True)}"
    text = f"annotators agree on {stat_text(raw, True)} of {count(g.n_marks, 'mark')}{place}"
    extra = [
        f"{sym} {stat_text(getattr(g, field), False)}"
        for field, sym in (("kappa", "κ"), ("alpha", "α"))
        if getattr(g, field).value is not None
    ]
    return text + (f" ({'; '.join(extra)})" if extra else "")


def agreement_json(result: AgreementResult) -> dict:
    """The result as JSON-ready data (every field of the typed result)."""
    return dataclasses.asdict(result)


def is_diacritic(metric: str | None) -> bool:
    """Whether a metric scores tone and diacritic marks (DER, TER, ...): the comparisons the
    annotators' agreement is shown beside."""
    from ..metrics.registry import METRICS

    spec = METRICS.get(metric or "")
    return spec is not None and spec.family == "diacritic"


def resampled_run(run) -> bool:
    """Whether a run drew one annotator's version per item in every replicate
    (``--reference-text resample``)."""
    rs = getattr(run, "run_settings", None)
    return rs is not None and (rs.reference_text == "resample" or rs.annotators_resampled > 0)


def comparison_agreement(result: AgreementResult, group: str | None, resampled: bool) -> str:
    """The agreement beside a diacritic comparison of ``group``: its group's line (the overall
    one when the agreement has no such group); a ``resample`` run's adds that the interval
    includes the annotators' disagreement: ``annotators agree on 66.7% [50.0, 100.0] of 6
    marks in accent = south (κ 0.400 [...]; α 0.389 [...]), so the interval includes their
    disagreement``."""
    g = group_of(result, group)
    line = agreement_line(g, None if g is result.overall else f"{result.by} = {g.group}")
    if resampled:  # docs/METHODS.md, "References from several annotators"
        if g.raw.value is None:
            line += "; each replicate drew one annotator's version per item"
        line += ", so the interval includes their disagreement"
    return line
