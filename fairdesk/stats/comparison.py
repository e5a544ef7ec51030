"""One group × metric comparison (docs/METHODS.md, "Comparisons with the reference"): its values, estimability, CI, p and MDE
before the Holm step (:func:`pending_one`), then its flags and verdict once the
family's adjusted p is known (:func:`finish`). :func:`fairdesk.stats.compare.compare_groups`
runs the whole aggregate stage around these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairdesk.metrics.registry import BOUND_CLAMPED, MetricSpec, clamp_gap_interval
from fairdesk.stats.bootstrap import PairBootstrap
from fairdesk.stats.estimability import (
    NO_SPREAD,
    SCALED_SCHEMES,
    basis_of,
    basis_unit,
    constant_value,
    descriptive_reason,
    has_basis,
    rule_of_three,
    scale_small_clusters,
    zero_spread,
)
from fairdesk.stats.formulas import MDE_FACTOR, bootstrap_p, cohens_h, pooled_sd
from fairdesk.stats.formulas import gap_ratio as _ratio
from fairdesk.stats.jackknife import jackknife_flips
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.results import Basis, BlockCounts, Comparison, ComparisonSample, NoVariation
from fairdesk.stats.verdicts import (
    MIN_SPEAKERS_FOR_TRUST,
    decide_verdict,
    direction,
    is_practical,
    practical_threshold,
)

__all__ = [
    "MIN_SD",
    "Pending",
    "denominator",
    "finish",
    "item_values",
    "metric_values",
    "pending_one",
]

#: A pooled block SD at or below this leaves the effect size undefined (no 2e15 effects).
MIN_SD = 1e-9


@dataclass
class Pending:
    spec: MetricSpec
    group: str
    pb: PairBootstrap | None
    design: str
    scheme: str | None
    value: float
    reference_value: float
    gap: float
    ratio: float
    effect_size: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    ratio_ci: tuple[float, float] | None = None
    p_value: float = math.nan
    mde: float = math.nan
    n_items_total: int = 0
    n_ref_total: int = 0
    n_invalid: int = 0
    status: str = "test"  # test, not_estimable, no_variation, descriptive
    reason: Notice | None = None
    no_variation: NoVariation | None = None
    basis: Basis | None = None
    #: the sample a sampled metric was compared on (its sizes)
    sample: ComparisonSample | None = None
    #: the sample's blocks (where no bootstrap ran, so ``pb`` cannot give them)
    blocks: BlockCounts | None = None
    single_speaker: bool = False
    #: whether the CI was cut at the largest gap the metric's range allows
    clamped: bool = False
    #: leave-one-speaker-out (p, gap, value) per group speaker, computed where p < alpha
    jack: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def ratio_interval(g_reps: np.ndarray, r_reps: np.ndarray) -> tuple[float, float] | None:
    """The 95% percentile interval of the replicate ratios group / reference (the
    replicates where both sides are defined, as the gap's CI); None when a replicate's
    reference value is 0 (the ratio is undefined or infinite there, so its percentiles are
    not an interval) or fewer than 2 replicates are defined."""
    ok = np.isfinite(g_reps) & np.isfinite(r_reps)
    g, r = g_reps[ok], r_reps[ok]
    if g.size < 2 or bool(np.any(r == 0)):
        return None
    low, high = np.percentile(g / r, [2.5, 97.5])
    return float(low), float(high)


def metric_values(spec: MetricSpec, sums: np.ndarray, cols: list[int]) -> np.ndarray:
    return np.asarray(spec.compute(sums[..., cols]), dtype=float)


def item_values(spec: MetricSpec, X: np.ndarray, c: list[int]) -> np.ndarray:
    return np.asarray(spec.compute(X[:, c]), dtype=float)


def denominator(spec: MetricSpec, X: np.ndarray, c: list[int]) -> tuple[float, str]:
    """n for the rule of three: items for proportions, the denominator's sum for rates."""
    den = [c[spec.stats.index(d)] for d in spec.denominator if d in spec.stats]
    n = float(X[:, den].sum()) if den else float(len(X))
    if spec.kind == "proportion":
        return n, "items"
    unit = {
        "n_words": "reference words",
        "n_chars": "reference characters",
        "dia_expected": "expected diacritics",
        "tone_expected": "expected tone marks",
    }
    return n, unit.get(spec.denominator[0], "units") if spec.denominator else "items"


def pending_one(
    spec, c, g, gs, rs, g_rows, r_rows, pb, scheme, design, problem: Notice | None, single, settings
) -> Pending:
    """One group × metric before the Holm step: values, estimability, CI, p, MDE."""
    Xg, Xr = gs.stats[g_rows], rs.stats[r_rows]
    v = float(metric_values(spec, Xg.sum(axis=0), c))
    rv = float(metric_values(spec, Xr.sum(axis=0), c))
    gap = v - rv
    pc = Pending(
        spec=spec,
        group=g,
        pb=pb,
        design=design,
        scheme=scheme,
        value=v,
        reference_value=rv,
        gap=gap,
        ratio=_ratio(v, rv),
        effect_size=math.nan,
        n_items_total=len(gs.stats),
        n_ref_total=len(rs.stats),
        single_speaker=single,
    )
    if has_basis(spec):
        # docs/METHODS.md, "When the diacritic metrics apply": E < 10 on a side: descriptive
        eg, er = basis_of(spec, Xg, c), basis_of(spec, Xr, c)
        unit = basis_unit(spec)
        why = descriptive_reason(spec.label, unit, {g: eg, "the reference": er})
        pc.basis = Basis(unit=unit, group=eg, reference=er, descriptive=why is not None)
        if why is not None:  # nothing resampled for it: no estimator
            pc.status, pc.reason, pc.scheme = "descriptive", why, None
            return pc
    cg = constant_value(item_values(spec, Xg, c))
    cr = constant_value(item_values(spec, Xr, c))
    both_constant = cg is not None and cr is not None
    if cg is not None and cr is not None and abs(cg - cr) <= 1e-12 * max(1.0, abs(cg)):
        ng, unit = denominator(spec, Xg, c)
        nr, _ = denominator(spec, Xr, c)
        pc.status = "no_variation"
        pc.no_variation = rule_of_three(cg, ng, nr, unit)
        pc.gap = 0.0
        return pc
    if pb is None:
        pc.status, pc.reason = "not_estimable", problem
        return pc
    g_reps = metric_values(spec, pb.group_reps, c)
    r_reps = metric_values(spec, pb.reference_reps, c)
    if settings.small_cluster_scaling and scheme in SCALED_SCHEMES:
        g_reps = scale_small_clusters(g_reps, v, pb.n_group_speakers)
        r_reps = scale_small_clusters(r_reps, rv, pb.n_reference_speakers)
    gap_reps = g_reps - r_reps
    finite = gap_reps[np.isfinite(gap_reps)]
    pc.n_invalid = int(gap_reps.size - finite.size)
    if not math.isfinite(gap):  # undefined on a side (zero denominator): not_computable
        return pc
    if not both_constant and zero_spread(gap_reps, gap):
        pc.status = "not_estimable"
        pc.reason = notice(NO_SPREAD)
        return pc
    if finite.size >= 2:
        lo, hi = (float(x) for x in np.percentile(finite, [2.5, 97.5]))
        pc.ci_low, pc.ci_high, pc.clamped = clamp_gap_interval(spec, lo, hi)
        pc.mde = MDE_FACTOR * float(np.std(finite, ddof=1))
        pc.ratio_ci = ratio_interval(g_reps, r_reps)
    if spec.kind == "proportion":
        pc.effect_size = cohens_h(v, rv)
    else:
        sd = pooled_sd(
            metric_values(spec, pb.group_blocks, c),
            metric_values(spec, pb.reference_blocks, c),
        )
        # a pooled block SD of ~0 (constant blocks) leaves the effect size undefined
        pc.effect_size = gap / sd if math.isfinite(sd) and sd > MIN_SD else math.nan
    pc.p_value = bootstrap_p(gap, gap_reps)
    return pc


def finish(pc: Pending, p_adj: float, mult: float, unresolvable: bool, ref, settings) -> Comparison:
    """The Comparison of one pending entry: flags and verdict (its reading in words is
    :func:`fairdesk.presentation.readings.reading`)."""
    pb, spec = pc.pb, pc.spec
    practical = is_practical(pc.gap, pc.ratio, spec, settings)
    threshold = practical_threshold(pc.reference_value, spec, settings)
    flags = []
    if pc.design == "unmatched":
        flags.append("content_confounded")
    if pc.single_speaker:
        flags.append("single_speaker_recordings")
    n_blocks = (
        pc.blocks
        if pb is None and pc.blocks is not None
        else BlockCounts(
            group_speakers=None if pb is None else pb.n_group_speakers,
            reference_speakers=None if pb is None else pb.n_reference_speakers,
            contents=None if pb is None else pb.n_contents,
            group_items=pc.n_items_total if pb is None else pb.n_group_items,
            reference_items=pc.n_ref_total if pb is None else pb.n_reference_items,
        )
    )
    conditional = pc.scheme == "content" and pb is not None and pb.n_group_speakers is not None
    dirn = direction(pc.gap, spec.higher_is_better)
    common = dict(
        metric=spec.id,
        group=pc.group,
        reference=ref,
        value=pc.value,
        reference_value=pc.reference_value,
        gap=pc.gap,
        ratio=pc.ratio,
        n_blocks=n_blocks,
        design=pc.design,
        direction=dirn,
        n_items=n_blocks.group_items,
        n_speakers=None if pb is None else pb.n_group_speakers,
    )
    if pc.status != "test":
        return Comparison(
            **common,
            effect_size=math.nan,
            ci_low=math.nan,
            ci_high=math.nan,
            p_value=math.nan,
            p_adjusted=math.nan,
            mde=math.nan,
            estimator=pc.scheme or "none",
            verdict=pc.status,
            flags=tuple(flags),
            reason=pc.reason,
            no_variation=pc.no_variation,
            basis=pc.basis,
            sample=pc.sample,
        )
    assert pb is not None  # a comparison that is tested was resampled
    if pc.scheme in ("two_way", "content") and (
        pb.n_group_items < pc.n_items_total or pb.n_reference_items < pc.n_ref_total
    ):
        flags.append("shared_content_subset")
    if conditional:
        flags.append("conditional_on_speakers")
    if pc.n_invalid:
        flags.append("undefined_replicates_dropped")
    if unresolvable:
        flags.append("p_unresolvable")
    if settings.small_cluster_scaling and pc.scheme in SCALED_SCHEMES:
        flags.append("small_cluster_scaled")
    if pc.clamped:
        flags.append(BOUND_CLAMPED)
    confounded = False
    significant = math.isfinite(p_adj) and p_adj < settings.alpha
    if pb.n_group_speakers is not None and pb.n_group_speakers < MIN_SPEAKERS_FOR_TRUST:
        flags.append("fewer_than_10_speakers")
        confounded = significant
    elif significant and pb.n_group_speakers is not None:
        # p_adj >= p, so a significant comparison had p < alpha: its jackknife was computed
        assert pc.jack is not None
        if jackknife_flips(pc.jack, spec, pc.reference_value, mult, practical, settings):
            confounded = True
            flags.append("speaker_jackknife_flip")
    verdict = decide_verdict(p_adj, practical, pc.mde, threshold, settings.alpha, confounded)
    # The CI is per comparison; the verdict is adjusted for the whole run (Holm). Say so
    # where they part: the CI excludes 0 but the adjusted test is not significant.
    multiplicity = (
        not significant
        and math.isfinite(pc.ci_low)
        and math.isfinite(pc.ci_high)
        and (pc.ci_low > 0 or pc.ci_high < 0)
    )
    if multiplicity:
        flags.append("significant_before_multiplicity_adjustment")
    return Comparison(
        **common,
        effect_size=pc.effect_size,
        ci_low=pc.ci_low,
        ci_high=pc.ci_high,
        p_value=pc.p_value,
        p_adjusted=p_adj,
        mde=pc.mde,
        estimator=pb.scheme,
        verdict=verdict,
        flags=tuple(flags),
        ratio_ci_low=None if pc.ratio_ci is None else pc.ratio_ci[0],
        ratio_ci_high=None if pc.ratio_ci is None else pc.ratio_ci[1],
        basis=pc.basis,
        sample=pc.sample,
    )
