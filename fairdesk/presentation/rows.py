"""The per-group rows that the GUI, the report and the console show, and which metrics get a
value chart (:func:`value_metrics`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..metrics.registry import BOUND_CLAMPED, metric_range
from .basis import group_basis, with_basis
from .labels import metric_short, short_group
from .numbers import finite, fmt_value, fmt_value_ci, scale

if TYPE_CHECKING:
    from ..jobs.result import AuditRun

#: Descriptive metrics drawn beside the tested ones in the value charts (hallucinations per
#: group: docs/METHODS.md, "Audit pitfalls").
PITFALL_METRICS = ("hallucination_rate", "wer_unflagged")


def n_flagged(run: AuditRun) -> int:
    """Items of the run flagged as hallucinations (0 without a pitfalls stage)."""
    return (run.pitfalls.n_flagged or 0) if run.pitfalls is not None else 0


def value_metrics(run: AuditRun) -> list[str]:
    """The metrics with a value chart (the Results pane's and its exports): the tested ones,
    then the hallucination rate (when the run has it) and the WER without flagged items (when
    an item was flagged)."""
    out = list(run.tested_metrics)
    flagged = n_flagged(run) > 0
    for m in PITFALL_METRICS:
        if m in out or m not in run.descriptive_metrics:
            continue
        if m == "wer_unflagged" and not flagged:
            continue  # equal to the WER: nothing to add
        out.append(m)
    return out


@dataclass(frozen=True)
class GroupRow:
    """One analysed group's value of one metric, in display units.

    Attributes
    ----------
    group : the group label; ``label`` its short form.
    value, low, high : the value and its own 95% CI × the metric's scale (percent for
        rates); None where missing.
    verdict : ``"reference"`` for the reference, else its verdict against it ('' if none).
    text : the value as shown (``12.3%``); ``text_ci`` with its CI (``12.3% [10.1, 14.6]``);
        both end with the basis E of a diacritic metric (``12.3% (E = 40)``).
    n_items, n_speakers : the group's counts.
    basis : the basis E of a diacritic metric, None for any other
        (docs/METHODS.md, "When the diacritic metrics apply").
    clamped : whether a bound of the CI was clamped to the metric's range (the flag
        ``bound_clamped``; :func:`clamped_note` says it in words).
    """

    group: str
    label: str
    value: float | None
    low: float | None
    high: float | None
    verdict: str
    text: str
    text_ci: str
    n_items: int | None = None
    n_speakers: int | None = None
    basis: float | None = None
    clamped: bool = False


def group_rows(
    groups: Iterable,
    metric: str,
    reference: str | None,
    verdicts: Mapping[str, str] | None = None,
) -> list[GroupRow]:
    """One :class:`GroupRow` per analysed group (neither excluded nor the descriptive row
    of the items with no grouping value, ``GroupInfo.missing``).

    Parameters
    ----------
    groups : :class:`fairdesk.stats.results.GroupInfo` objects (or objects with its
        ``group``, ``excluded``, ``values``, ``ci``, ``n_items``, ``n_speakers``).
    metric : the metric id.
    reference : the reference group.
    verdicts : group -> verdict of ``metric`` against the reference.

    Returns
    -------
    list of GroupRow
    """
    k = scale(metric)
    verdicts = verdicts or {}

    def shown(x):
        x = finite(x)
        return None if x is None else x * k

    rows = []
    for g in groups:
        if g.excluded or getattr(g, "missing", False):
            continue
        v = (g.values or {}).get(metric)
        ci: Sequence = (g.ci or {}).get(metric) or ()
        lo, hi = (shown(ci[0]), shown(ci[1])) if len(ci) == 2 else (None, None)
        e = group_basis(g, metric)
        rows.append(
            GroupRow(
                group=g.group,
                label=short_group(g.group),
                value=shown(v),
                low=lo,
                high=hi,
                verdict="reference" if g.group == reference else verdicts.get(g.group, ""),
                text=with_basis(fmt_value(metric, v), e),
                text_ci=with_basis(fmt_value_ci(metric, v, ci), e),
                n_items=g.n_items,
                n_speakers=g.n_speakers,
                basis=e,
                clamped=BOUND_CLAMPED in group_ci_flags(g, metric),
            )
        )
    return rows


def group_ci_flags(group, metric: str) -> tuple[str, ...]:
    """The flags of a group's own CI of ``metric`` (``GroupInfo.ci_flags``; none in runs
    stored before they were recorded)."""
    return tuple((getattr(group, "ci_flags", None) or {}).get(metric) or ())


def _range_text(metric: str) -> str:
    lo, hi = metric_range(metric)
    if hi == float("inf"):
        return f"≥ {fmt_value(metric, lo)}"
    if lo == float("-inf"):
        return f"≤ {fmt_value(metric, hi)}"
    return f"{fmt_value(metric, lo)} to {fmt_value(metric, hi)}"


def clamped_note(metric: str, where: Iterable[str]) -> str:
    """The note of the intervals of ``metric`` whose bound was clamped to its range
    (docs/METHODS.md, "Bounds stay inside the metric's range"), '' when none:
    ``bound_clamped: the hallucination rate CI of female, (corpus) reached past what the
    metric can take (0.0% to 100.0%) and was cut at its end``."""
    names = list(dict.fromkeys(where))
    if not names:
        return ""
    return (
        f"bound_clamped: the {metric_short(metric)} CI of {', '.join(names)} reached past what "
        f"the metric can take ({_range_text(metric)}) and was cut at its end"
    )


def clamped_notes(groups: Iterable, summary: Mapping, metrics: Iterable[str]) -> list[str]:
    """:func:`clamped_note` per metric for the groups' own CIs (``GroupInfo.ci_flags``) and
    the corpus CI (``MetricSummary.overall["flags"]``, named ``(corpus)``)."""
    groups = list(groups)
    out = []
    for m in metrics:
        where = [short_group(g.group) for g in groups if BOUND_CLAMPED in group_ci_flags(g, m)]
        s = summary.get(m) if summary else None
        overall = (getattr(s, "overall", None) if s is not None else None) or {}
        if BOUND_CLAMPED in (overall.get("flags") or ()):
            where.append("(corpus)")
        note = clamped_note(m, where)
        if note:
            out.append(note)
    return out
