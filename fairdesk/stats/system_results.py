"""The typed results of a comparison of systems on the same items (docs/METHODS.md,
"Comparing systems"): immutable data built by
:func:`fairdesk.stats.systems.compare_systems`; views only format them."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdesk.stats.bootstrap_plan import BootstrapPlan
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.results import AuditResult, BlockCounts, NoVariation
from fairdesk.stats.settings import AuditSettings

#: Verdicts of a system difference (B − A on one metric, corpus-wide or in one group).
SYSTEM_VERDICTS = (
    "descriptive",
    "not_estimable",
    "no_variation",
    "better",
    "worse",
    "difference_small",
    "inconclusive_underpowered",
    "no_difference_detected",
    "not_computable",
)
#: Verdicts of a gap difference (gap_B − gap_A of one group × metric).
GAP_VERDICTS = (
    "descriptive",
    "not_estimable",
    "no_variation",
    "fairer",
    "reversed",
    "less_fair",
    "difference_small",
    "inconclusive_underpowered",
    "no_difference_detected",
    "not_computable",
)
#: The ``group`` of a corpus-wide system difference.
CORPUS = None

#: Why a system difference is descriptive: too few expected marks (args ``group``: None for
#: the corpus, ``expected``: E, ``min_basis``, ``metric``).
REASON_FEW_MARKS = "systems.few_marks"
#: Why a gap difference is descriptive: a side with too few expected marks (args ``group``,
#: ``expected_group``, ``expected_reference``, ``min_basis``, ``metric``).
REASON_GAP_FEW_MARKS = "systems.gap_few_marks"
#: Why a system difference is not estimable: its replicates do not vary (arg ``group``).
REASON_NO_SPREAD = "systems.no_spread"
#: Why a gap difference is not estimable: its replicates do not vary.
REASON_GAP_NO_SPREAD = "systems.gap_no_spread"
#: Why a difference is not estimable: the resampling's own problem (arg ``text``, the
#: resampling module's message, until it gives a code of its own).
REASON_RESAMPLING = "systems.resampling_problem"

_N = r"[-+0-9.eE]+|nan|inf"
#: The reasons as versions before the coded reasons stored them (read back as codes).
_STORED_REASONS = (
    (
        REASON_FEW_MARKS,
        re.compile(
            r"(?P<group>.+) has E = (?P<expected>" + _N + r") expected marks \(fewer than "
            r"(?P<min_basis>\d+)\), so the .+ difference is descriptive: shown, with no "
            r"interval and no test"
        ),
    ),
    (
        REASON_GAP_FEW_MARKS,
        re.compile(
            r"(?P<group>.+) has E = (?P<expected_group>" + _N + r") and the reference E = "
            r"(?P<expected_reference>" + _N + r") expected marks \(a side with fewer than "
            r"(?P<min_basis>\d+)\), so the .+ gap difference is descriptive: shown, with no "
            r"interval and no test"
        ),
    ),
    (
        REASON_NO_SPREAD,
        re.compile(
            r"the resampled differences do not vary in (?P<group>.+) \(the two systems score "
            r"alike on every unit drawn\), so the data cannot show how uncertain the "
            r"difference is"
        ),
    ),
    (
        REASON_GAP_NO_SPREAD,
        re.compile(
            r"the resampled gap differences do not vary \(the two systems' gaps move "
            r"together on every draw\), so the data cannot show how uncertain it is"
        ),
    ),
)


def reason_notice(reason: Notice | str | None) -> Notice | None:
    """A difference's reason as a coded note: a note stays as it is; a message of the
    resampling (text) is :data:`REASON_RESAMPLING`; None stays None."""
    if reason is None or isinstance(reason, Notice):
        return reason
    return notice(REASON_RESAMPLING, text=str(reason))


def stored_reason(data: Any, metric: str | None = None) -> Any:
    """A stored difference's ``reason`` as :func:`fairdesk.jobs.result_codec.decode` reads a
    note: a coded note (``{"code", "args"}``) as it is; a sentence stored by a version
    before the coded reasons as its code with its numbers (one this module does not know:
    kept as a stored sentence)."""
    if not isinstance(data, str):
        return data
    for code, pattern in _STORED_REASONS:
        m = pattern.fullmatch(data)
        if m is None:
            continue
        args: dict[str, Any] = {}
        for k, v in m.groupdict().items():
            if k == "group":
                corpus = code in (REASON_FEW_MARKS, REASON_NO_SPREAD) and v == "the corpus"
                args[k] = None if corpus else v
            elif k == "min_basis":
                args[k] = int(v)
            else:
                args[k] = float(v)
        if code in (REASON_FEW_MARKS, REASON_GAP_FEW_MARKS):
            args["metric"] = metric
        return notice(code, **args).to_json()
    return notice("stored.sentence", text=data).to_json()


@dataclass(frozen=True)
class CommonItems:
    """The items every system has a hypothesis for (docs/METHODS.md, "Common items and paired replicates").

    Attributes
    ----------
    n_items : items in the common set (what every statistic uses).
    per_system : items each system has a usable hypothesis for (before intersecting).
    failed : per system, the item ids it failed on (missing, undefined statistics, or
        reported failed), removed from the common set.
    """

    n_items: int
    per_system: dict[str, int]
    failed: dict[str, tuple]


@dataclass(frozen=True)
class SystemDifference:
    """Δ = value(system) − value(baseline) on one metric, corpus-wide or in one group.

    ``group`` None is the corpus-wide difference. ``difference`` is in the metric's own units
    (a rate as a fraction: 0.061 is 6.1 points). ``direction`` is ``better`` / ``worse`` /
    ``equal`` for the system against the baseline (by the metric's direction), whatever the
    verdict. ``verdict`` is one of :data:`SYSTEM_VERDICTS`; untested entries
    (``descriptive``, ``not_estimable``, ``no_variation``) have NaN CI and p and a ``reason``.
    ``flags``: ``small_cluster_scaled``; ``two_way_corrected`` where the two-way replicates
    were scaled to the cluster-robust variance (see docs/METHODS.md,
    "Common items and paired replicates"); ``bound_clamped`` where the CI was cut at the
    largest difference the metric's range allows.
    """

    metric: str
    system: str
    baseline: str
    group: str | None
    value: float
    baseline_value: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    mde: float
    threshold: float
    estimator: str
    n_items: int
    n_speakers: int | None
    n_contents: int | None
    direction: str
    verdict: str
    flags: tuple[str, ...] = ()
    reason: Notice | None = None
    no_variation: NoVariation | None = None


@dataclass(frozen=True)
class GapDifference:
    """ΔGap = gap(system) − gap(baseline) of one group against the reference on one metric.

    Both gaps are ``value(group) − value(reference)`` on the analysed items (the shared
    content for the two-way scheme) and on the same replicate draws. ``verdict`` is one of
    :data:`GAP_VERDICTS`: ``fairer`` (the system's gap is smaller), ``reversed`` (the sign
    flips and the system's gap is still practical), ``less_fair``, ``difference_small``,
    ``inconclusive_underpowered``, ``no_difference_detected``, or an untested status with a
    ``reason``. ``reversed`` reads as "the disadvantage moved to the other side" only where
    both gaps are themselves significant (docs/METHODS.md, "Gap difference").

    ``baseline_gap_ci``, ``gap_ci`` and ``baseline_gap_verdict``, ``gap_verdict``: each gap's
    own 95% CI and verdict, from the baseline's and the system's own audits on the common
    items (``SystemComparisonResult.audits``); None where those audits were not run (or in
    runs stored before they were recorded).
    """

    metric: str
    system: str
    baseline: str
    group: str
    reference: str
    gap: float
    baseline_gap: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    mde: float
    threshold: float
    estimator: str
    n_blocks: BlockCounts | None
    design: str
    verdict: str
    flags: tuple[str, ...] = ()
    reason: Notice | None = None
    no_variation: NoVariation | None = None
    baseline_gap_ci: tuple[float, ...] | None = None
    gap_ci: tuple[float, ...] | None = None
    baseline_gap_verdict: str | None = None
    gap_verdict: str | None = None


def with_own_gaps(g: GapDifference, audits: Mapping[str, AuditResult]) -> GapDifference:
    """The gap difference with each gap's own CI and verdict from the baseline's and the
    system's own audits (docs/METHODS.md, "Gap difference": its reading names both)."""
    own: dict = {}
    for key, name in (("baseline_gap", g.baseline), ("gap", g.system)):
        try:
            c = audits[name].comparison(g.metric, g.group)
        except KeyError:
            continue
        own[key + "_ci"] = (c.ci_low, c.ci_high)
        own[key + "_verdict"] = c.verdict
    return dataclasses.replace(g, **own) if own else g


@dataclass(frozen=True)
class ClassicalTests:
    """The sign test and the Wilcoxon signed-rank test of one system against the baseline on
    per-utterance values of one metric (WER% for WER), corpus-wide, **assuming independent
    utterances** (docs/METHODS.md, "Classical cross-checks").

    Attributes
    ----------
    n_items : utterances with a defined value for both systems.
    n_positive, n_negative, n_ties : utterances where the baseline's value is higher, lower,
        equal (within ``0.005`` of a percentage point, as NIST's sc_stats counts them).
    mean_difference : mean per-utterance (system − baseline), in the metric's units.
    sign_p : exact two-sided binomial sign test on the untied utterances (scipy
        ``binomtest``).
    wilcoxon_p : Wilcoxon signed-rank test, zero differences dropped (scipy ``wilcoxon``,
        ``zero_method="wilcox"``).
    sign_p_sctk, wilcoxon_z_sctk, wilcoxon_p_sctk : the same tests with NIST sc_stats'
        conventions, to compare with its output: ties split between the two signs (the odd
        one to the negative side) in the sign test; in the Wilcoxon test zero differences
        ranked with the rest and split between the signs, the normal approximation without
        tie or continuity correction, z truncated to two decimals (NaN below 8 utterances,
        where sc_stats uses no normal approximation); see
        :mod:`fairdesk.stats.system_classical`.
    The label every view shows with these numbers ("assumes independent utterances") is
    :mod:`fairdesk.presentation.systems`' ``CLASSICAL_ASSUMPTION``.
    """

    metric: str
    system: str
    baseline: str
    n_items: int
    n_positive: int
    n_negative: int
    n_ties: int
    mean_difference: float
    sign_p: float
    wilcoxon_p: float
    sign_p_sctk: float
    wilcoxon_z_sctk: float
    wilcoxon_p_sctk: float


@dataclass(frozen=True)
class SystemComparisonResult:
    """A comparison of systems on the same items.

    Attributes
    ----------
    systems : the system names, baseline first.
    baseline : the baseline A (every other system is compared with it).
    reference : the reference group of the gaps (None when no group is analysed).
    groups : the analysed groups (minimums met), reference included.
    common : the common item set and each system's failures.
    differences : system differences, corpus-wide (``group`` None) and per group.
    gap_differences : gap differences per non-reference group × metric × system.
    classical : the sign and Wilcoxon tests per system × metric (corpus-wide).
    audits : each system's own audit on the common items (``compare_groups``), or None
        when not asked for.
    bootstrap : B used (raised to ⌈5·m/α⌉ for the m tests of this family) and the rule.
    settings : the run settings.
    draws : the resample counts (only with ``keep_draws=True``; see
        :func:`fairdesk.stats.systems.compare_systems`).
    """

    systems: tuple[str, ...]
    baseline: str
    reference: str | None
    groups: tuple[str, ...]
    common: CommonItems
    differences: tuple[SystemDifference, ...]
    gap_differences: tuple[GapDifference, ...]
    classical: tuple[ClassicalTests, ...]
    audits: dict[str, AuditResult] | None
    bootstrap: BootstrapPlan
    settings: AuditSettings
    draws: dict | None = field(default=None, compare=False, repr=False)

    def difference(self, system: str, metric: str, group: str | None = None) -> SystemDifference:
        """The system difference of ``system`` on ``metric`` (corpus-wide when group None)."""
        for d in self.differences:
            if d.system == system and d.metric == metric and d.group == group:
                return d
        raise KeyError(f"No system difference for {system!r}, {metric!r}, group {group!r}.")

    def gap_difference(self, system: str, metric: str, group: str) -> GapDifference:
        """The gap difference of ``system`` on ``metric`` for ``group``."""
        for d in self.gap_differences:
            if d.system == system and d.metric == metric and d.group == group:
                return d
        raise KeyError(f"No gap difference for {system!r}, {metric!r}, group {group!r}.")
