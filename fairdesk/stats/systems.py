"""Compare several systems on the same items (docs/METHODS.md,
"Comparing systems"): which recogniser is more accurate in each group, and is the newer one fairer?

:func:`compare_systems` is the public entry point. It takes one item-level frame per
system, keeps the items every system has a hypothesis for, and computes, for every system B
against the baseline A (the first system):

* the **system difference** Δ = value(B) − value(A) per metric, corpus-wide and within each
  analysed group, on paired replicates: the group's own units (its speakers, and its
  contents where the group's own scheme draws them; utterances without speaker ids) drawn
  once per replicate and every system scored on that draw;
* the **gap difference** ΔGap = gap_B − gap_A per non-reference group × metric, both gaps
  against the same reference group on the same replicate draws of the group comparison's
  scheme (two-way, speaker, content, utterance; docs/METHODS.md, "Resampling schemes");
* CI (percentile), p (null-centred bootstrap), MDE, the estimability and descriptive rules,
  Holm over every system-difference and gap-difference test (B raised to ⌈5·m/α⌉ with this
  m), the small-cluster scaling √(k/(k−1))·t_{k−1}/z where the scheme is by speaker, and the verdicts
  of :mod:`fairdesk.stats.system_verdicts`;
* the sign test and the Wilcoxon signed-rank test on per-utterance values, corpus-wide,
  labelled as assuming independent utterances (:mod:`fairdesk.stats.system_classical`);
* optionally each system's own audit on the common items (``compare_groups``).

The resampling reuses :func:`fairdesk.stats.bootstrap.bootstrap_pair` and
:func:`fairdesk.stats.groupci.bootstrap_value` on the systems' statistics placed side by
side (:mod:`fairdesk.stats.system_items`): one count vector per replicate weights every
system's items alike, which is the pairing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from fairdesk.metrics.registry import BOUND_CLAMPED, MetricSpec, clamp_gap_interval
from fairdesk.stats.bootstrap import (
    MIN_SHARED_CONTENT,
    PairBootstrap,
    Side,
    bootstrap_pair,
    choose_scheme,
    comparison_rng,
    content_design,
    shared_contents,
)
from fairdesk.stats.compare import _single_blas_thread, compare_groups, derive_content_ids
from fairdesk.stats.comparison import denominator, item_values, metric_values
from fairdesk.stats.estimability import (
    MIN_BASIS,
    SCALED_SCHEMES,
    auto_scheme,
    basis_of,
    constant_value,
    has_basis,
    rule_of_three,
    scale_small_clusters,
    scheme_units,
    too_few,
    units_problem,
    zero_spread,
)
from fairdesk.stats.formulas import MDE_FACTOR, bootstrap_p, holm_adjust, planned_bootstrap
from fairdesk.stats.groupci import (
    ValueBootstrap,
    bootstrap_value,
    groups_sharing_content,
    shared_content_count,
    value_scheme,
)
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.parallel import parallel_map
from fairdesk.stats.pigeonhole import difference_factor
from fairdesk.stats.results import BlockCounts
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.slicing import choose_reference, minimums_from_counts, missing_groups
from fairdesk.stats.system_classical import classical_tests
from fairdesk.stats.system_items import SystemItems, common_items, sclite_percent
from fairdesk.stats.system_results import (
    REASON_FEW_MARKS,
    REASON_GAP_FEW_MARKS,
    REASON_GAP_NO_SPREAD,
    REASON_NO_SPREAD,
    GapDifference,
    SystemComparisonResult,
    SystemDifference,
    reason_notice,
    with_own_gaps,
)
from fairdesk.stats.system_verdicts import gap_verdict, system_threshold, system_verdict
from fairdesk.stats.verdicts import direction

__all__ = ["compare_systems"]


def compare_systems(
    frames: Mapping[str, pd.DataFrame],
    specs: Sequence[MetricSpec],
    settings: AuditSettings | None = None,
    reference: str | None = None,
    *,
    item_col: str = "item_id",
    group_col: str = "group",
    speaker_col: str = "speaker_id",
    content_col: str = "content_id",
    failed: Mapping[str, Iterable] | None = None,
    audits: bool = True,
    keep_draws: bool = False,
) -> SystemComparisonResult:
    """Compare every system with the baseline (the first) on the items they all have.

    Parameters
    ----------
    frames : system name → item-level frame, in order, the baseline A first. Each frame has
        ``item_col`` (unique ids: the same item has the same id in every frame) and the
        per-item statistic columns of ``specs`` (``n_sub``, ``n_del``, ``n_ins``,
        ``n_words`` for WER, ...: what :mod:`fairdesk.metrics.items` gives). The item's
        ``group_col`` (from ``slice_frame``), ``speaker_col`` and ``content_col`` (or a
        ``reference`` text column, from which content ids are derived) are read from the
        baseline's frame.
    specs : the metrics compared (``MetricSpec``; metrics computed on a sample, such as
        grounding lift, are not compared and are left out).
    settings : run settings (defaults when None): ``n_bootstrap``, ``seed``, ``alpha``,
        ``absolute_error_gap``, ``grounding_gap``, ``resampling``, ``small_cluster_scaling``,
        the minimums and ``include_missing`` apply as in an audit.
    reference : the reference group of the gaps; None = the largest analysed group.
    item_col, group_col, speaker_col, content_col : column names.
    failed : system name → item ids that system failed on (besides items missing from its
        frame or with undefined statistics): removed from the common set, and listed.
    audits : also run each system's own audit on the common items (``compare_groups``).
    keep_draws : keep the resample counts in ``result.draws`` (for checks):
        ``draws["corpus"]`` is the corpus-wide difference's :class:`ValueBootstrap` counts
        (``content``: B × C content counts, ``content_of_row``: each common item's column,
        ``strata``: per stratum B × S speaker counts, ``row_of_item``: per stratum each
        item's speaker column), with ``draws["corpus_strata"]`` the strata's rows
        (positions in the common items, ``result.draws["item_ids"]``) and
        ``draws["corpus_scheme"]``; ``draws["groups"][g]`` the same for group g's
        differences; ``draws["gaps"][g]`` the :class:`PairBootstrap` counts of group g's
        gap differences (``keep_counts``).

    Returns
    -------
    SystemComparisonResult
        Typed results (:mod:`fairdesk.stats.system_results`): the common items, the system
        differences (corpus-wide ``group`` None, then per group), the gap differences, the
        classical tests and the per-system audits.

    Raises
    ------
    ValueError
        Fewer than two systems, missing columns, repeated item ids, no common item, an
        unknown or excluded reference, or a ``resampling`` override the data can't support.
    """
    settings = settings or AuditSettings()
    specs = [s for s in specs if not s.sample]
    if not specs:
        raise ValueError("No metric to compare systems on: pass at least one MetricSpec.")
    items = common_items(frames, specs, item_col=item_col, failed=failed)
    if group_col not in items.meta.columns:
        raise ValueError(
            f"The baseline's frame has no group column {group_col!r}; call slice_frame first."
        )
    with _single_blas_thread():
        result = _compare(
            items, settings, reference, group_col, speaker_col, content_col, keep_draws
        )
    draws = result.pop("draws")
    if keep_draws:
        draws["item_ids"] = items.item_ids
    per_system = None
    if audits:
        per_system = {}
        for name in items.systems:
            frame = pd.concat(
                [
                    items.meta.drop(columns=list(items.raw[name].columns), errors="ignore"),
                    items.raw[name],
                ],
                axis=1,
            )
            per_system[name] = compare_groups(
                frame,
                specs,
                settings,
                result["reference"],
                group_col=group_col,
                speaker_col=speaker_col,
                content_col=content_col,
            )
        result["gap_differences"] = tuple(
            with_own_gaps(g, per_system) for g in result["gap_differences"]
        )
    return SystemComparisonResult(
        systems=items.systems,
        baseline=items.systems[0],
        common=items.common,
        audits=per_system,
        settings=settings,
        draws=draws if keep_draws else None,
        **result,
    )


def _codes(meta, speaker_col, content_col):
    speakers = contents = None
    if speaker_col in meta.columns and meta[speaker_col].notna().any():
        speakers = pd.factorize(meta[speaker_col].to_numpy(dtype=object))[0]
    if content_col in meta.columns and meta[content_col].notna().any():
        contents = pd.factorize(meta[content_col].to_numpy(dtype=object))[0]
    elif "reference" in meta.columns:
        contents = pd.factorize(derive_content_ids(meta["reference"]).to_numpy(dtype=object))[0]
    return speakers, contents


def _n_speakers(spk, rows) -> int:
    s = spk[rows]
    return len(np.unique(s[s >= 0])) + int((s < 0).sum())


def _compare(
    items: SystemItems, settings, reference, group_col, speaker_col, content_col, keep=False
):
    meta, X = items.meta, items.stacked
    spk, cont = _codes(meta, speaker_col, content_col)
    groups = meta[group_col].astype(object).map(str).to_numpy(dtype=object)
    codes, labels = pd.factorize(groups)
    labels = [str(g) for g in labels]
    pos = {g: i for i, g in enumerate(labels)}
    rows = {g: np.flatnonzero(codes == pos[g]) for g in labels}
    missing = missing_groups(meta, group_col) & set(labels)
    descriptive_rows = set() if settings.include_missing else missing
    sizes = {g: len(rows[g]) for g in labels if g not in descriptive_rows}
    n_spk = None if spk is None else {g: _n_speakers(spk, rows[g]) for g in sizes}
    kept, _excluded = minimums_from_counts(sizes, n_spk, settings.min_items, settings.min_speakers)
    ref = None
    if any(g not in missing for g in kept) or reference is not None:
        ref = choose_reference(sizes, reference, eligible=kept, not_default=missing)
    analysed = list(kept) if ref is not None else []
    others = [g for g in analysed if g != ref]
    pooled = analysed + sorted(descriptive_rows) if analysed else labels
    systems, specs = items.systems, items.specs
    Xa = X[:, : items.n_cols]  # the baseline's block (bases E are the reference's, shared)

    def few_marks(spec, *gs) -> bool:
        c = items.cols[spec.id]
        return has_basis(spec) and min(basis_of(spec, Xa, c, rows[g]) for g in gs) < MIN_BASIS

    m = 0
    for spec in specs:
        m += int(not (has_basis(spec) and basis_of(spec, Xa, items.cols[spec.id]) < MIN_BASIS))
        m += sum(not few_marks(spec, g) for g in analysed)
        m += sum(not few_marks(spec, g, ref) for g in others)
    m *= len(systems) - 1
    boot = planned_bootstrap(settings.n_bootstrap, m, settings.alpha)
    B = int(boot.used or 0)
    scale = settings.small_cluster_scaling
    sharing = (
        np.zeros(len(labels), dtype=bool)
        if cont is None
        else groups_sharing_content(cont, codes, len(labels))
    )
    draws: dict = {"groups": {}, "gaps": {}}

    def value_draws(strata, k_units, n_min, shared, tag) -> ValueBootstrap:
        has = spk is not None
        scheme, problem = value_scheme(has, k_units, n_min, shared, settings.resampling)
        idx = np.concatenate(strata)
        if scheme is None:
            return ValueBootstrap(None, X[idx].sum(axis=0), None, None, None, len(idx), problem)
        return bootstrap_value(
            X,
            strata,
            spk,
            cont,
            scheme,
            B,
            comparison_rng(settings.seed, "systems", *tag),
            scale=scale,
            keep_counts=keep,
        )

    # corpus-wide: the corpus value's scheme (strata = groups)
    strata = [rows[g] for g in pooled]
    all_rows = np.concatenate(strata)
    k_min = min(_n_speakers(spk, s) for s in strata) if spk is not None else 0
    shared_n = 0 if cont is None else shared_content_count(cont, codes, all_rows)
    corpus_vb = value_draws(
        strata, k_min, min(len(s) for s in strata), shared_n >= MIN_SHARED_CONTENT, ("corpus",)
    )
    draws["corpus"] = corpus_vb.counts
    draws["corpus_strata"] = strata
    draws["corpus_scheme"] = corpus_vb.scheme

    def group_draws(g):
        k = _n_speakers(spk, rows[g]) if spk is not None else 0
        return value_draws([rows[g]], k, len(rows[g]), bool(sharing[pos[g]]), ("group", g))

    pending = []  # (kind, record dict, replicate Δ or None)
    for g, vb in [(None, corpus_vb), *zip(analysed, parallel_map(group_draws, analysed))]:
        if g is not None:
            draws["groups"][g] = vb.counts
        r = all_rows if g is None else rows[g]
        for j in range(1, len(systems)):
            for spec in specs:
                units = (strata if g is None else [rows[g]], spk, cont)
                pending.append(("system", *_difference(items, spec, j, g, r, vb, settings, units)))

    def gap_draws(g):
        assert ref is not None  # gaps are drawn only against a reference
        gs = Side(
            X[rows[g]],
            None if spk is None else spk[rows[g]],
            None if cont is None else cont[rows[g]],
        )
        rs = Side(
            X[rows[ref]],
            None if spk is None else spk[rows[ref]],
            None if cont is None else cont[rows[ref]],
        )
        design, n_shared, _ = content_design(gs, rs)
        if settings.resampling == "auto":
            scheme, units, failed_ = auto_scheme(gs, rs, spk is not None, n_shared)
            problem = None if failed_ is None else units_problem(units, failed_, g, ref)
        else:
            where = " (group " + repr(g) + " vs reference " + repr(ref) + ")"
            scheme = choose_scheme(spk is not None, n_shared, settings.resampling, where)
            units = scheme_units(gs, rs, scheme)
            problem = units_problem(units, scheme, g, ref) if too_few(units) else None
            scheme = None if problem else scheme
        pb = None
        if scheme is not None:
            rng = comparison_rng(settings.seed, "systems", "gap", g, ref)
            pb = bootstrap_pair(gs, rs, scheme, B, rng, keep_counts=keep)
        return gs, rs, design, scheme, problem, pb

    for g, (gs, rs, design, scheme, problem, pb) in zip(
        others, parallel_map(gap_draws, others), strict=True
    ):
        draws["gaps"][g] = None if pb is None else pb.counts
        for j in range(1, len(systems)):
            for spec in specs:
                rec, reps = _gap_difference(
                    items, spec, j, g, ref, gs, rs, design, scheme, problem, pb, settings
                )
                pending.append(("gap", rec, reps))

    p_raw = np.array([rec["p_value"] for _, rec, _ in pending], dtype=float)
    p_adj = holm_adjust(p_raw)
    n_family = int(np.isfinite(p_raw).sum())
    diffs: list[SystemDifference] = []
    gaps: list[GapDifference] = []
    for (kind, rec, _), pa in zip(pending, p_adj, strict=True):
        rec["p_adjusted"] = float(pa)
        if rec["verdict"] is None:
            if kind == "system":
                rec["verdict"] = system_verdict(
                    rec["difference"],
                    pa,
                    rec["mde"],
                    rec["threshold"],
                    settings.alpha,
                    rec.pop("_hib"),
                )
            else:
                rec["verdict"] = gap_verdict(
                    rec["baseline_gap"],
                    rec["gap"],
                    pa,
                    rec["mde"],
                    rec["threshold"],
                    settings.alpha,
                )
            ci = (rec["ci_low"], rec["ci_high"])
            if not pa < settings.alpha and (ci[0] > 0 or ci[1] < 0):
                rec["flags"] = (*rec["flags"], "significant_before_multiplicity_adjustment")
        rec.pop("_hib", None)
        if kind == "system":
            diffs.append(SystemDifference(**rec))
        else:
            gaps.append(GapDifference(**rec))
    boot = replace(boot, family=n_family)
    classical = tuple(
        classical_tests(
            item_values(spec, X, items.columns(spec.id, 0)),
            item_values(spec, X, items.columns(spec.id, j)),
            metric=spec.id,
            system=systems[j],
            baseline=systems[0],
            scale=spec.scale,
            baseline_percent=sclite_percent(items, spec, 0),
            system_percent=sclite_percent(items, spec, j),
        )
        for j in range(1, len(systems))
        for spec in specs
    )
    return {
        "reference": ref,
        "groups": tuple(analysed),
        "differences": tuple(diffs),
        "gap_differences": tuple(gaps),
        "classical": classical,
        "bootstrap": boot,
        "draws": draws,
    }


def _untested(rec: dict, status: str, reason: Notice | str | None, no_variation=None) -> dict:
    rec.update(verdict=status, reason=reason_notice(reason), no_variation=no_variation)
    return rec


def _interval(reps: np.ndarray, point: float, rec: dict, spec, span: int) -> None:
    """CI (cut at the largest difference the metric's range allows: ``span`` 1 for a
    difference of values, 2 for one of gaps), MDE and p of the replicate differences."""
    finite = reps[np.isfinite(reps)]
    if finite.size >= 2:
        lo, hi = np.percentile(finite, [2.5, 97.5])
        lo, hi, clamped = clamp_gap_interval(spec, float(lo), float(hi), span)
        rec.update(ci_low=lo, ci_high=hi, mde=MDE_FACTOR * float(np.std(finite, ddof=1)))
        if clamped:
            rec["flags"] = (*rec["flags"], BOUND_CLAMPED)
    rec["p_value"] = bootstrap_p(point, reps)
    if finite.size < reps.size:
        rec["flags"] = (*rec["flags"], "undefined_replicates_dropped")


def _difference(items, spec, j, g, r, vb: ValueBootstrap, settings, units):
    """One system difference before Holm: (record, replicate Δ); ``units`` the strata's
    rows and the speaker and content codes, for the two-way correction."""
    X = items.stacked
    ca, cb = items.columns(spec.id, 0), items.columns(spec.id, j)
    va = float(metric_values(spec, X[r].sum(axis=0), ca))
    vb_ = float(metric_values(spec, X[r].sum(axis=0), cb))
    delta = vb_ - va
    rec = dict(
        metric=spec.id,
        system=items.systems[j],
        baseline=items.systems[0],
        group=g,
        value=vb_,
        baseline_value=va,
        difference=delta,
        ci_low=math.nan,
        ci_high=math.nan,
        p_value=math.nan,
        p_adjusted=math.nan,
        mde=math.nan,
        threshold=system_threshold(spec, settings),
        estimator=vb.scheme or "none",
        n_items=len(r),
        n_speakers=vb.n_speakers,
        n_contents=vb.n_contents,
        direction=direction(delta, spec.higher_is_better),
        verdict=None,
        flags=(),
        reason=None,
        no_variation=None,
        _hib=spec.higher_is_better,
    )
    if vb.scaled:
        rec["flags"] = ("small_cluster_scaled",)
    if has_basis(spec):
        e = basis_of(spec, X, ca, r)
        if e < MIN_BASIS:
            why = notice(
                REASON_FEW_MARKS, group=g, expected=float(e), min_basis=MIN_BASIS, metric=spec.id
            )
            return _untested(rec, "descriptive", why), None
    const_a = constant_value(item_values(spec, X[r], ca))
    const_b = constant_value(item_values(spec, X[r], cb))
    both = const_a is not None and const_b is not None
    if (
        const_a is not None
        and const_b is not None
        and abs(const_a - const_b) <= 1e-12 * max(1.0, abs(const_a))
    ):
        n, unit = denominator(spec, X[r], ca)
        return _untested(rec, "no_variation", None, rule_of_three(const_a, n, n, unit)), None
    if vb.reps is None:
        return _untested(rec, "not_estimable", vb.problem), None
    reps = metric_values(spec, vb.reps, cb) - metric_values(spec, vb.reps, ca)
    if not math.isfinite(delta):
        return rec, None
    if not both and zero_spread(reps, delta):
        return _untested(rec, "not_estimable", notice(REASON_NO_SPREAD, group=g)), None
    if vb.scheme == "two_way":
        strata, spk, cont = units
        totals = X[r].sum(axis=0)
        parts = [(X[s], spk[s], cont[s], 1, totals) for s in strata]
        reps = _corrected(reps, delta, difference_factor(spec, cb, ca, parts), rec)
    _interval(reps, delta, rec, spec, 1)
    return rec, reps


def _corrected(reps: np.ndarray, point: float, factor: float, rec: dict) -> np.ndarray:
    """Two-way replicate deviations times ``factor`` (docs/METHODS.md, "Comparing systems")."""
    if factor < 1.0:
        rec["flags"] = (*rec["flags"], "two_way_corrected")
    return point + (reps - point) * factor


def _gap_difference(
    items, spec, j, g, ref, gs, rs, design, scheme, problem, pb: PairBootstrap | None, settings
):
    """One gap difference before Holm: (record, replicate ΔGap)."""
    ca, cb = items.columns(spec.id, 0), items.columns(spec.id, j)
    if pb is not None:
        gp, rp = pb.group_point, pb.reference_point
        g_rows = r_rows = None
    else:
        gp, rp = gs.stats.sum(axis=0), rs.stats.sum(axis=0)
    shared = shared_contents(gs, rs)
    if scheme in ("two_way", "content"):
        g_rows = np.flatnonzero(np.isin(gs.contents, shared))
        r_rows = np.flatnonzero(np.isin(rs.contents, shared))
    else:
        g_rows, r_rows = np.arange(len(gs.stats)), np.arange(len(rs.stats))

    def val(sums, c):
        return float(metric_values(spec, sums, c))

    gap_a = val(gp, ca) - val(rp, ca)
    gap_b = val(gp, cb) - val(rp, cb)
    diff = gap_b - gap_a
    flags = []
    if design == "unmatched":
        flags.append("content_confounded")
    if scheme in ("two_way", "content") and (
        len(g_rows) < len(gs.stats) or len(r_rows) < len(rs.stats)
    ):
        flags.append("shared_content_subset")
    scaled = settings.small_cluster_scaling and scheme in SCALED_SCHEMES
    if scaled:
        flags.append("small_cluster_scaled")
    blocks = None
    if pb is not None:
        blocks = BlockCounts(
            group_speakers=pb.n_group_speakers,
            reference_speakers=pb.n_reference_speakers,
            contents=pb.n_contents,
            group_items=pb.n_group_items,
            reference_items=pb.n_reference_items,
        )
    rec = dict(
        metric=spec.id,
        system=items.systems[j],
        baseline=items.systems[0],
        group=g,
        reference=ref,
        gap=gap_b,
        baseline_gap=gap_a,
        difference=diff,
        ci_low=math.nan,
        ci_high=math.nan,
        p_value=math.nan,
        p_adjusted=math.nan,
        mde=math.nan,
        threshold=system_threshold(spec, settings),
        estimator=scheme or "none",
        n_blocks=blocks,
        design=design,
        verdict=None,
        flags=tuple(flags),
        reason=None,
        no_variation=None,
    )
    Xg, Xr = gs.stats[g_rows], rs.stats[r_rows]
    if has_basis(spec):
        eg, er = basis_of(spec, Xg, ca), basis_of(spec, Xr, ca)
        if min(eg, er) < MIN_BASIS:
            why = notice(
                REASON_GAP_FEW_MARKS,
                group=g,
                expected_group=float(eg),
                expected_reference=float(er),
                min_basis=MIN_BASIS,
                metric=spec.id,
            )
            return _untested(rec, "descriptive", why), None
    maybe = [constant_value(item_values(spec, Xs, c)) for Xs in (Xg, Xr) for c in (ca, cb)]
    consts = [v for v in maybe if v is not None]
    if len(consts) == len(maybe) and np.ptp(consts) <= 1e-12 * max(1.0, abs(consts[0])):
        n, unit = denominator(spec, Xg, ca)
        nr, _ = denominator(spec, Xr, ca)
        return _untested(rec, "no_variation", None, rule_of_three(consts[0], n, nr, unit)), None
    if pb is None:
        return _untested(rec, "not_estimable", problem), None
    if not math.isfinite(diff):
        return rec, None

    def side_reps(reps, c, point, k):
        v = metric_values(spec, reps, c)
        return scale_small_clusters(v, val(point, c), k) if scaled else v

    d_reps = (
        side_reps(pb.group_reps, cb, gp, pb.n_group_speakers)
        - side_reps(pb.reference_reps, cb, rp, pb.n_reference_speakers)
    ) - (
        side_reps(pb.group_reps, ca, gp, pb.n_group_speakers)
        - side_reps(pb.reference_reps, ca, rp, pb.n_reference_speakers)
    )
    if zero_spread(d_reps, diff):
        return _untested(rec, "not_estimable", notice(REASON_GAP_NO_SPREAD)), None
    if scheme == "two_way":
        parts = [
            (Xs, side.speakers[ix], side.contents[ix], sign, Xs.sum(axis=0))
            for Xs, side, ix, sign in ((Xg, gs, g_rows, 1), (Xr, rs, r_rows, -1))
        ]
        d_reps = _corrected(d_reps, diff, difference_factor(spec, cb, ca, parts), rec)
    _interval(d_reps, diff, rec, spec, 2)
    return rec, d_reps
