"""One accessor per free-form (``Json``) block of an :class:`~fairdesk.jobs.result.AuditRun`
that the console reads.

These blocks are still JSON mappings in the type (``jobs.result_parts.Json``); each is read
here and nowhere else in ``fairdesk.cli``, so the day a block is typed the switch to its
attributes is one edit in this module. Every accessor returns an empty mapping (or tuple)
where the run has no such block.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..stats.bootstrap_plan import BootstrapPlan
    from ..stats.sensitivity_types import NormaliserSensitivity

__all__ = [
    "bootstrap",
    "group_cis",
    "model_based",
    "no_diacritic_groups",
    "normaliser_sensitivity",
    "overall",
    "pitfalls_by_group",
    "verdicts_without_flagged",
    "wer_dominated",
]


def no_diacritic_groups(block) -> Mapping:
    """Per group, the items whose reference has no diacritic (``NoDiacriticItems.groups``:
    group → n_items, added, letters, per_100_letters; None for a group without such items)."""
    return block.groups or {}


def overall(summary) -> Mapping:
    """The corpus-wide value and CI of one metric (``MetricSummary.overall``: value, ci);
    ``summary`` may be None (a metric without a summary)."""
    return (summary.overall if summary is not None else None) or {}


def group_cis(group) -> Mapping:
    """A group's own 95% CI per metric (``GroupInfo.ci``: metric → (low, high))."""
    return group.ci or {}


def bootstrap(run) -> BootstrapPlan | None:
    """The B used and why (``AuditRun.bootstrap``: requested, used, comparisons, raised);
    None: no statistics."""
    return run.bootstrap


def pitfalls_by_group(pitfalls) -> Mapping:
    """Hallucination flag counts per group (``Pitfalls.by_group``: group → ``GroupFlags``)."""
    return pitfalls.by_group or {}


def wer_dominated(pitfalls) -> tuple:
    """Groups whose WER one utterance carries (``Pitfalls.wer_dominated``: ``WerDominated``
    rows)."""
    return tuple(pitfalls.wer_dominated or ())


def verdicts_without_flagged(pitfalls) -> tuple:
    """Verdicts recomputed without the flagged items (``Pitfalls.verdicts_without_flagged``:
    ``VerdictChange`` rows; a row without a metric carries only the reason)."""
    return tuple(pitfalls.verdicts_without_flagged or ())


def model_based(run) -> Mapping:
    """The mixed-effects model per grouping column (``AuditRun.model_based``: column →
    ``ModelBasedFit``)."""
    return run.model_based or {}


def normaliser_sensitivity(run) -> NormaliserSensitivity | None:
    """The re-scoring under each normaliser (``AuditRun.normaliser_sensitivity``:
    normalisers, run_normaliser, rows, n_flipped, n_comparisons or note); None: not run."""
    return run.normaliser_sensitivity
