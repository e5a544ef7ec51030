"""A run's recording plan (docs/METHODS.md, "Recording plan"): the resampling plan that
every audit stores for its underpowered comparisons and ``fairdesk plan`` prints
(:func:`resampling_plan`), and the closed form (:func:`closed_form_plan`), its cross-check
and the estimate of runs stored before. The numbers come from :mod:`fairdesk.stats.planning`; the
results are :mod:`fairdesk.stats.planning_types`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.bootstrap import Side, comparison_rng
from fairdesk.stats.formulas import MDE_FACTOR
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.planning import (
    PLAN_REPLICATES,
    SEARCH_FACTOR,
    check_replicates,
    closed_form_k,
    closed_form_se,
    content_floor,
    curve_points,
    dense_ks,
    first_k,
    merge_needs,
    plan_contents,
    side_need,
    speaker_curve,
    t_share,
    two_way_curve,
    z_factor,
)
from fairdesk.stats.planning_types import (
    NOTE_TWO_WAY,
    NOTE_UTTERANCES,
    ComparisonPlan,
    MdePoint,
    Plan,
)
from fairdesk.stats.results import AuditResult, Comparison
from fairdesk.stats.verdicts import practical_threshold

#: The verdict a plan is made for by default.
PLANNED_VERDICT = "inconclusive_underpowered"


def tested_m(result: AuditResult) -> int:
    """The run's tested comparisons (the Holm family: those with an adjusted p)."""
    return sum(1 for c in result.comparisons if _finite(c.p_adjusted))


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def group_sizes(frame: pd.DataFrame, group_col: str = "group") -> dict[str, tuple[float, float]]:
    """Group -> (mean utterances per speaker, mean utterance duration in seconds or NaN)
    of a per-item frame (speaker ids and a ``duration`` column where it has them)."""
    out = {}
    has_dur = "duration" in frame.columns
    for g, sub in frame.groupby(frame[group_col].astype(str), sort=False):
        n_spk = sub["speaker_id"].nunique() if "speaker_id" in sub.columns else 0
        utt = len(sub) / n_spk if n_spk else float(len(sub))
        dur = pd.to_numeric(sub["duration"], errors="coerce") if has_dur else None
        mean = float(dur.mean()) if dur is not None and dur.notna().any() else math.nan
        out[str(g)] = (utt, mean)
    return out


def _plan_shell(method, settings, power, gap, future_m, comps, **kw) -> Plan:
    sides = merge_needs([n for c in comps for n in (c.group_need, c.reference_need) if n])
    return Plan(
        method=method,
        power=float(power),
        alpha=float(settings.alpha),
        future_m=int(future_m),
        alpha_adjusted=float(settings.alpha) / int(future_m),
        gap=gap,
        comparisons=tuple(comps),
        sides=sides,
        **kw,
    )


def _target(c: Comparison, spec: MetricSpec, settings, gap: float | None) -> float:
    return float(gap) if gap is not None else practical_threshold(c.reference_value, spec, settings)


def _utt(sizes, g: str, utterances: float | None) -> tuple[float, float | None]:
    u, d = sizes.get(g, (math.nan, math.nan))
    u = float(utterances) if utterances is not None else u
    return u, (None if not math.isfinite(d) else d)


def _notes(c: Comparison, utterances, sizes) -> tuple[Notice, ...]:
    """What the plan assumes, coded: the two-way scheme's content part, and new speakers
    recording a different number of utterances than the pilot's (by more than 10%)."""
    notes = []
    if c.estimator == "two_way":
        notes.append(notice(NOTE_TWO_WAY))
    if utterances is not None:
        pilot = sizes.get(c.group, (math.nan,))[0]
        if math.isfinite(pilot) and abs(utterances - pilot) > 0.1 * pilot:
            notes.append(notice(NOTE_UTTERANCES, pilot=float(pilot), utterances=float(utterances)))
    return tuple(notes)


def _selected(result: AuditResult, which: Sequence[tuple[str, str]] | None):
    if which is not None:
        keys = set(which)
        return [c for c in result.comparisons if (c.metric, c.group) in keys]
    return [c for c in result.comparisons if c.verdict == PLANNED_VERDICT]


def pilot_se(c: Comparison) -> float:
    """SE_pilot of the closed form: the comparison's bootstrap SD of the gap (its MDE /
    (z.975 + z.80)) with the √(k/(k−1)) correction but without the t part of the
    small-cluster factor (docs/METHODS.md, "Recording plan": SE(k) is a standard error;
    t_{k−1}/z belongs to an interval from k_p speakers, not to the run of k speakers the
    plan is for). Each side was scaled with its own k; the two are combined as the closed
    form combines them (equal variance per speaker, SE² ∝ 1/k_g + 1/k_r)."""
    if not _finite(c.mde):
        return math.nan
    se = float(c.mde) / MDE_FACTOR
    kg, kr = c.n_blocks.group_speakers, c.n_blocks.reference_speakers
    if "small_cluster_scaled" in c.flags and kg and kr and kg >= 2 and kr >= 2:
        se /= t_share(kg, kr)
    return se


def closed_form_plan(
    result: AuditResult,
    specs: Mapping[str, MetricSpec],
    sizes: Mapping[str, tuple[float, float]],
    *,
    power: float = 0.8,
    gap: float | None = None,
    future_m: int | None = None,
    utterances: float | None = None,
) -> Plan | None:
    """The closed-form plan of every ``inconclusive_underpowered`` comparison.

    SE_pilot is the comparison's bootstrap SD of the gap (its MDE / (z.975 + z.80));
    SE(k) = SE_pilot * sqrt(k_p / k) (:func:`~fairdesk.stats.planning.closed_form_se`).
    Returns None when the run has no such comparison.
    """
    comps = _selected(result, None)
    if not comps:
        return None
    settings = result.settings
    m = int(future_m or max(1, tested_m(result)))
    zf = z_factor(settings.alpha, m, power)
    out = []
    for c in comps:
        spec = specs.get(c.metric)
        if spec is None:
            continue
        target = _target(c, spec, settings, gap)
        kg, kr = c.n_blocks.group_speakers, c.n_blocks.reference_speakers
        se_p = pilot_se(c)
        limit, k_star, k_max = None, None, 0
        curve: tuple[MdePoint, ...] = ()
        dense: tuple[MdePoint, ...] = ()
        if not kg or not kr:
            limit = "no_speakers"
        elif not (math.isfinite(se_p) and se_p > 0):
            limit = "no_estimate"
        else:
            k_max = SEARCH_FACTOR * max(kg, kr)
            k_star = closed_form_k(se_p, kg, kr, zf, target, k_max)
            limit = None if k_star is not None else "search"
            pts = curve_points(k_star, min(kg, kr), k_max)
            curve = _closed_points(pts, se_p, kg, kr, zf)
            dense = _closed_points(dense_ks(k_max, pts, min(kg, kr)), se_p, kg, kr, zf)
        ug, dg = _utt(sizes, c.group, utterances)
        ur, dr = _utt(sizes, c.reference, utterances)
        out.append(
            ComparisonPlan(
                metric=c.metric,
                group=c.group,
                reference=c.reference,
                method="closed_form",
                scheme=c.estimator,
                design=c.design,
                target_gap=target,
                z_factor=zf,
                pilot_mde=c.mde if _finite(c.mde) else None,
                speakers_needed=k_star,
                reachable=k_star is not None,
                limit=limit,
                floor_mde=None,
                closed_form_k=k_star,
                curve=curve,
                group_need=side_need(c.group, kg or 0, k_star, ug, dg) if kg else None,
                reference_need=side_need(c.reference, kr or 0, k_star, ur, dr) if kr else None,
                notes=_notes(c, utterances, sizes),
                dense=dense,
                search_limit=k_max,
            )
        )
    if not out:
        return None
    return _plan_shell("closed_form", settings, power, gap, m, out)


def _closed_points(ks, se_p: float, kg: int, kr: int, zf: float) -> tuple[MdePoint, ...]:
    """MDE(k) of the closed form at each k of ``ks``."""
    return tuple(
        MdePoint(k, closed_form_se(se_p, kg, kr, k), zf * closed_form_se(se_p, kg, kr, k))
        for k in ks
    )


def _sides(frame: pd.DataFrame, spec: MetricSpec):
    """Per group the Side of ``spec``'s resampled columns (as ``compare_groups`` builds
    them: integer speaker and content codes, missing = -1), the spec and its columns."""
    from fairdesk.stats.compare import derive_content_ids
    from fairdesk.stats.resampled import resampled_columns

    X = frame[list(spec.stats)].to_numpy(dtype=float)
    Xt, specs_r, cols_r = resampled_columns(X, [spec], {spec.id: list(range(X.shape[1]))})
    spk = None
    if "speaker_id" in frame.columns and frame["speaker_id"].notna().any():
        spk = pd.factorize(frame["speaker_id"].to_numpy(dtype=object))[0]
    if "content_id" in frame.columns and frame["content_id"].notna().any():
        cont = pd.factorize(frame["content_id"].to_numpy(dtype=object))[0]
    elif "reference" in frame.columns:
        cont = pd.factorize(derive_content_ids(frame["reference"]).to_numpy(dtype=object))[0]
    else:
        cont = None
    groups = frame["group"].astype(object).map(str).to_numpy(dtype=object)

    def side(g: str) -> Side:
        ix = np.flatnonzero(groups == g)
        return Side(
            stats=Xt[ix],
            speakers=None if spk is None else spk[ix],
            contents=None if cont is None else cont[ix],
        )

    return side, specs_r[0], cols_r[spec.id]


def resampling_plan(
    frame: pd.DataFrame,
    result: AuditResult,
    specs: Mapping[str, MetricSpec],
    *,
    power: float = 0.8,
    gap: float | None = None,
    future_m: int | None = None,
    utterances: float | None = None,
    which: Sequence[tuple[str, str]] | None = None,
    n_rep: int = PLAN_REPLICATES,
    seed: int = 0,
) -> Plan:
    """The resampling plan of a run's comparisons (default: the underpowered ones).

    Parameters
    ----------
    frame : the run's per-item frame (``group``, ``speaker_id``, ``content_id`` and the
        metrics' statistic columns; ``duration`` for the recording hours).
    result : the run's statistics.
    specs : metric id -> MetricSpec.
    power, gap, future_m, utterances : the target power, the gap to detect (None: the
        smallest practical gap), the future run's tested comparisons (None: the pilot's)
        and utterances per new speaker (None: each group's pilot mean).
    which : ``(metric, group)`` pairs to plan (None: every inconclusive_underpowered one).
    n_rep, seed : replicates and seed (the same request gives the same plan).
    """
    check_replicates(n_rep)
    settings = result.settings
    m = int(future_m or max(1, tested_m(result)))
    zf = z_factor(settings.alpha, m, power)
    sizes = group_sizes(frame)
    out = []
    for c in _selected(result, which):
        spec = specs.get(c.metric)
        if spec is None:
            continue
        out.append(_one(frame, c, spec, settings, zf, gap, utterances, sizes, n_rep, seed))
    return _plan_shell(
        "resampling", settings, power, gap, m, out, n_bootstrap=int(n_rep), seed=int(seed)
    )


def _one(frame, c, spec, settings, zf, gap, utterances, sizes, n_rep, seed) -> ComparisonPlan:
    target = _target(c, spec, settings, gap)
    side, rspec, cols = _sides(frame, spec)
    gs, rs = side(c.group), side(c.reference)
    kg, kr = c.n_blocks.group_speakers, c.n_blocks.reference_speakers
    se_p = pilot_se(c)
    scheme = c.estimator
    base = dict(
        metric=c.metric,
        group=c.group,
        reference=c.reference,
        method="resampling",
        scheme=scheme,
        design=c.design,
        target_gap=target,
        z_factor=zf,
        pilot_mde=c.mde if _finite(c.mde) else None,
        notes=_notes(c, utterances, sizes),
    )
    if scheme not in ("speaker", "two_way") or not kg or not kr or gs.speakers is None:
        return ComparisonPlan(
            **base, speakers_needed=None, reachable=False, limit="no_speakers", floor_mde=None,
            closed_form_k=None, curve=(), group_need=None, reference_need=None,
        )  # fmt: skip
    k_max = SEARCH_FACTOR * max(kg, kr)
    ks = list(range(2, k_max + 1))
    rng = comparison_rng(seed, "plan", c.group, c.reference, c.metric)
    fitted = two_way_curve(gs, rs, rspec, cols, ks, rng=rng) if scheme == "two_way" else None
    if fitted is not None:
        se, f = fitted
    else:
        se = speaker_curve(gs, rs, rspec, cols, scheme, ks, n_rep=n_rep, rng=rng)
        # the content floor only exists in the two-way scheme (read below only there)
        f = (
            content_floor(gs, rs, rspec, cols, n_rep=n_rep, rng=rng)
            if scheme == "two_way"
            else math.nan
        )
    mdes = zf * se
    k_star = first_k(ks, mdes, target)
    floor = None
    limit = None if k_star is not None else "search"
    if scheme == "two_way":
        floor = zf * f if math.isfinite(f) else None
        if k_star is None and floor is not None and floor >= target:
            limit = "content"
    pts = curve_points(k_star, min(kg, kr), k_max)
    curve = tuple(MdePoint(k, float(se[k - 2]), float(mdes[k - 2])) for k in pts)
    dense = tuple(
        MdePoint(k, float(se[k - 2]), float(mdes[k - 2])) for k in dense_ks(k_max, pts, min(kg, kr))
    )
    ug, dg = _utt(sizes, c.group, utterances)
    ur, dr = _utt(sizes, c.reference, utterances)
    gneed = side_need(c.group, kg, k_star, ug, dg)
    rneed = side_need(c.reference, kr, k_star, ur, dr)
    contents = None
    if scheme == "two_way":
        spk_utt = None
        if k_star is not None:
            spk_utt = (gneed.new_utterances or 0) + (rneed.new_utterances or 0)
        contents = plan_contents(gs, rs, rspec, cols, zf, target, spk_utt, n_rep=n_rep, rng=rng)
    cf = None
    if math.isfinite(se_p) and se_p > 0:
        cf = closed_form_k(se_p, kg, kr, zf, target, k_max)
    return ComparisonPlan(
        **base,
        speakers_needed=k_star,
        reachable=k_star is not None,
        limit=limit,
        floor_mde=floor,
        closed_form_k=cf,
        curve=curve,
        group_need=gneed,
        reference_need=rneed,
        contents=contents,
        dense=dense,
        search_limit=k_max,
    )


__all__ = ["PLANNED_VERDICT", "closed_form_plan", "group_sizes", "resampling_plan", "tested_m"]
