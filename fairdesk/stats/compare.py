"""Compare every group with the reference on every metric (METHODS.md §3).

``compare_groups`` is the whole aggregate stage of an audit: minimums, reference, design,
resampling scheme, bootstrap CI / p / MDE, Holm adjustment, the speaker jackknife, verdicts,
readings and the corpus summary.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.bootstrap import (
    PairBootstrap,
    Side,
    bootstrap_pair,
    choose_scheme,
    comparison_rng,
    content_design,
    jackknife_group_speakers,
    shared_contents,
)
from fairdesk.stats.estimability import (
    auto_scheme,
    constant_value,
    rule_of_three,
    scale_small_clusters,
    scheme_units,
    too_few,
    units_problem,
    zero_spread,
)
from fairdesk.stats.formulas import (
    MDE_FACTOR,
    bootstrap_p,
    cohens_h,
    holm_adjust,
    holm_multipliers,
    planned_bootstrap,
    pooled_sd,
)
from fairdesk.stats.formulas import gap_ratio as _ratio
from fairdesk.stats.groupci import group_intervals
from fairdesk.stats.jackknife import jackknife_flips, jackknife_tests
from fairdesk.stats.parallel import parallel_map
from fairdesk.stats.resampled import resampled_columns
from fairdesk.stats.results import AuditResult, Comparison, Exclusion, GroupInfo
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.slicing import check_run_cap, choose_reference, minimums_from_counts
from fairdesk.stats.summary import summarise_metric
from fairdesk.stats.verdicts import (
    MIN_SPEAKERS_FOR_TRUST,
    decide_verdict,
    direction,
    is_practical,
    practical_threshold,
    reading,
    reading_no_variation,
    reading_not_estimable,
)

#: A pooled block SD at or below this leaves the effect size undefined (no 2e15 effects).
_MIN_SD = 1e-9


def derive_content_ids(references: pd.Series) -> pd.Series:
    """Content ids from reference texts: lower case, punctuation removed, spaces collapsed.

    METHODS.md §1 derives content_id from the normalised reference text when it is absent;
    this light normalisation keeps the stats layer independent of the metrics normaliser.
    """

    def norm_text(t) -> str | None:
        if t is None or (isinstance(t, float) and math.isnan(t)):
            return None
        return " ".join(re.sub(r"[^\w\s']", " ", str(t).lower()).split())

    return references.map(norm_text)


@dataclass
class _Pending:
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
    p_value: float = math.nan
    mde: float = math.nan
    n_items_total: int = 0
    n_ref_total: int = 0
    n_invalid: int = 0
    status: str = "test"  # test, not_estimable, no_variation
    reason: str | None = None
    no_variation: dict | None = None
    single_speaker: bool = False
    #: leave-one-speaker-out (p, gap, value) per group speaker, computed where p < alpha
    jack: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def _metric_values(spec: MetricSpec, sums: np.ndarray, cols: list[int]) -> np.ndarray:
    return np.asarray(spec.compute(sums[..., cols]), dtype=float)


_BLAS_CONTROLLER = None


def _single_blas_thread():
    """Context limiting BLAS to one thread: the bootstrap's many small matrix products run
    several times slower with OpenBLAS threads on a busy machine."""
    global _BLAS_CONTROLLER
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return contextlib.nullcontext()
    if _BLAS_CONTROLLER is None:
        _BLAS_CONTROLLER = ThreadpoolController()
    return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")


def compare_groups(
    frame: pd.DataFrame,
    specs: Sequence[MetricSpec],
    settings: AuditSettings | None = None,
    reference: str | None = None,
    *,
    group_col: str = "group",
    speaker_col: str = "speaker_id",
    content_col: str = "content_id",
    describe: Sequence[MetricSpec] = (),
) -> AuditResult:
    """Compare every eligible group with the reference on every metric.

    Parameters
    ----------
    frame : per-item frame with the group column and the per-item statistic columns every
        spec needs (``spec.stats``), plus optional speaker and content id columns. Without a
        content column, content ids are derived from a ``reference`` text column if present.
    specs : the metrics (``MetricSpec``; a group value = ``spec.compute`` of summed stats).
    settings : run settings (defaults when None).
    reference : reference group label (for one key the value); None = largest group.
    group_col, speaker_col, content_col : column names.
    describe : further metrics reported per group (value and CI) and corpus-wide but not
        tested (no comparison, not in the Holm family).

    Returns
    -------
    AuditResult
        Comparisons that are ``not_estimable`` (too few resampling units, or replicate gaps
        without spread) or ``no_variation`` (both groups constant at the same value) have no
        p-value and stay out of the Holm family. B is raised to ⌈5·m/α⌉ (m = comparisons
        before the estimability check; ``AuditResult.bootstrap`` records it).

    Raises
    ------
    ValueError
        Missing columns, undefined statistics, a run over the cap, an unknown or excluded
        reference, or a ``resampling`` override the data can't support.
    """
    with _single_blas_thread():
        return _compare_groups(
            frame,
            specs,
            settings,
            reference,
            group_col=group_col,
            speaker_col=speaker_col,
            content_col=content_col,
            describe=describe,
        )


def _item_values(spec: MetricSpec, X: np.ndarray, c: list[int]) -> np.ndarray:
    return np.asarray(spec.compute(X[:, c]), dtype=float)


def _denominator(spec: MetricSpec, X: np.ndarray, c: list[int]) -> tuple[float, str]:
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


def _analysed_rows(side: Side, scheme: str | None, shared: np.ndarray) -> np.ndarray:
    """Rows of a side that a scheme analyses (paired schemes: the shared content)."""
    n = len(side.stats)
    if scheme not in ("two_way", "content") or side.contents is None:
        return np.arange(n)
    return np.flatnonzero(np.isin(np.asarray(side.contents), shared))


def _compare_groups(
    frame, specs, settings, reference, *, group_col, speaker_col, content_col, describe
) -> AuditResult:
    settings = settings or AuditSettings()
    specs = list(specs)
    describe = [d for d in (describe or ()) if d.id not in {s.id for s in specs}]
    if not specs:
        raise ValueError("No metric to compare: pass at least one MetricSpec.")
    ids = [s.id for s in specs]
    if len(set(ids)) != len(ids):
        raise ValueError(f"Metric ids repeat: {ids}.")
    if group_col not in frame.columns:
        raise ValueError(
            f"The frame has no group column {group_col!r}; call slice_frame first. Columns: "
            f"{', '.join(map(str, frame.columns))}."
        )
    every = specs + describe
    stat_cols = list(dict.fromkeys(c for s in every for c in s.stats))
    missing = [c for c in stat_cols if c not in frame.columns]
    if missing:
        raise ValueError(
            f"The frame lacks the per-item statistic column(s) {missing} needed by metrics "
            f"{[s.id for s in every if set(s.stats) & set(missing)]}; compute item stats first."
        )
    check_run_cap(frame, settings.max_items, group_col=group_col)
    X = frame[stat_cols].to_numpy(dtype=float)
    bad = ~np.isfinite(X)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(
            f"Statistic column {stat_cols[c]!r} is undefined in {int(bad.any(axis=1).sum())} "
            f"row(s) (first: row {frame.index[r]!r}); drop failed items before comparing."
        )
    cols = {s.id: [stat_cols.index(c) for c in s.stats] for s in every}
    groups = frame[group_col].astype(object).map(str).to_numpy(dtype=object)

    speakers = None
    if speaker_col in frame.columns and frame[speaker_col].notna().any():
        speakers = frame[speaker_col].to_numpy(dtype=object)
    if content_col in frame.columns and frame[content_col].notna().any():
        contents = frame[content_col].to_numpy(dtype=object)
    elif "reference" in frame.columns:
        contents = derive_content_ids(frame["reference"]).to_numpy(dtype=object)
    else:
        contents = None
    # integer codes (missing → -1) make the per-comparison work cheap
    spk_codes = None if speakers is None else pd.factorize(speakers)[0]
    cont_codes = None if contents is None else pd.factorize(contents)[0]

    codes, labels = pd.factorize(groups)
    labels = [str(g) for g in labels]
    label_pos = {g: i for i, g in enumerate(labels)}
    n_items = np.bincount(codes, minlength=len(labels))
    n_spk = None
    if spk_codes is not None:
        pairs = np.unique(np.stack([codes[spk_codes >= 0], spk_codes[spk_codes >= 0]]), axis=1)
        n_spk = np.bincount(pairs[0], minlength=len(labels))
    sizes = {g: int(n_items[i]) for g, i in label_pos.items()}
    kept, excluded = minimums_from_counts(
        sizes,
        None if n_spk is None else {g: int(n_spk[i]) for g, i in label_pos.items()},
        settings.min_items,
        settings.min_speakers,
    )
    ref = None
    if kept or reference is not None:
        ref = choose_reference(sizes, reference, eligible=kept)
    others = [g for g in kept if g != ref] if ref is not None else []
    boot = planned_bootstrap(settings.n_bootstrap, len(others) * len(specs), settings.alpha)
    B = boot["used"]
    # B is raised for the p-values' resolution under Holm (METHODS.md §3); a group's own CI
    # (and the corpus CI) is a percentile interval over n_bootstrap resamples
    boot["group_ci_replicates"] = n_ci = min(B, settings.n_bootstrap)

    # full-data group values
    sums = np.zeros((len(labels), len(stat_cols)))
    np.add.at(sums, codes, X)
    values = {s.id: _metric_values(s, sums, cols[s.id]) for s in every}

    def rng_for(*parts):
        return comparison_rng(settings.seed, *parts)

    analysed = list(kept) if ref is not None else []
    ci_groups, overall = group_intervals(
        X,
        [(s, cols[s.id]) for s in every],
        codes,
        labels,
        analysed,
        spk_codes,
        cont_codes,
        requested=settings.resampling,
        scale=settings.small_cluster_scaling,
        n_rep=n_ci,
        rng_for=rng_for,
    )
    index_of = {g: np.flatnonzero(codes == label_pos[g]) for g in kept}
    excl_reason = dict(excluded)
    group_infos = []
    for g in sorted(label_pos, key=lambda g: (-int(n_items[label_pos[g]]), g)):
        i = label_pos[g]
        group_infos.append(
            GroupInfo(
                group=g,
                n_items=int(n_items[i]),
                n_speakers=None if n_spk is None else int(n_spk[i]),
                excluded=g in excl_reason,
                reason=excl_reason.get(g),
                values={s.id: float(values[s.id][i]) for s in every},
                ci=ci_groups[g]["ci"],
                ci_scheme=ci_groups[g]["ci_scheme"],
                ci_note=ci_groups[g]["ci_note"],
            )
        )

    # the comparisons resample the tested metrics' numerator and denominator sums
    Xt, tspecs, tcols = resampled_columns(X, specs, cols)

    def side(g: str) -> Side:
        ix = index_of[g]
        return Side(
            stats=Xt[ix],
            speakers=None if spk_codes is None else spk_codes[ix],
            contents=None if cont_codes is None else cont_codes[ix],
        )

    pending: list[_Pending] = []
    ref_side = side(ref) if ref is not None else None

    def compare_one(g: str) -> list[_Pending]:
        gs = side(g)
        design, n_shared, _ = content_design(gs, ref_side)
        where = f" (group {g!r} vs reference {ref!r})"
        if settings.resampling == "auto":
            scheme, units, failed = auto_scheme(gs, ref_side, spk_codes is not None, n_shared)
            problem = None if scheme else units_problem(units, failed, g, ref)
        else:
            scheme = choose_scheme(spk_codes is not None, n_shared, settings.resampling, where)
            units = scheme_units(gs, ref_side, scheme)
            problem = units_problem(units, scheme, g, ref) if too_few(units) else None
            if problem:
                scheme = None
        single = (
            scheme in ("utterance", "content")
            and n_spk is not None
            and min(int(n_spk[label_pos[g]]), int(n_spk[label_pos[ref]])) < 2
        )
        pb = None
        if scheme is not None:
            pb = bootstrap_pair(
                gs, ref_side, scheme, B, rng_for("compare", g, ref), keep_totals=True
            )
        shared = shared_contents(gs, ref_side)
        g_rows = _analysed_rows(gs, scheme, shared)
        r_rows = _analysed_rows(ref_side, scheme, shared)
        new = [
            _pending_one(
                spec,
                tcols[spec.id],
                g,
                gs,
                ref_side,
                g_rows,
                r_rows,
                pb,
                scheme,
                design,
                problem,
                single,
                settings,
            )
            for spec in tspecs
        ]
        if pb is not None:
            _leave_speakers_out(new, pb, tcols, g, ref, settings)
            slim = pb.slim()
            for pc in new:
                pc.pb = slim
        return new

    # groups run side by side on the available cores (each has its own generator, so
    # the numbers do not depend on the number of threads)
    for new in parallel_map(compare_one, others):
        pending += new

    family = [
        k for k, pc in enumerate(pending) if pc.status == "test" and math.isfinite(pc.p_value)
    ]
    p_raw = np.full(len(pending), np.nan)
    p_raw[family] = [pending[k].p_value for k in family]
    p_adj = holm_adjust(p_raw)
    # the smallest bootstrap p is 1/(B+1); Holm multiplies it by the size of the family
    unresolvable = len(family) / (B + 1) >= settings.alpha
    mult = holm_multipliers(p_raw)
    comparisons = [
        _finish(pc, float(p_adj[k]), float(mult[k]), unresolvable, len(family), ref, settings)
        for k, pc in enumerate(pending)
    ]

    summary = {}
    for spec in every:
        idx = [label_pos[g] for g in analysed]
        s = summarise_metric(
            list(analysed),
            values[spec.id][idx],
            n_items[idx],
            [c.gap for c in comparisons if c.metric == spec.id and c.verdict != "not_estimable"],
            spec.higher_is_better,
        )
        summary[spec.id] = replace(s, overall=overall[spec.id])
    designs = {pc.design for pc in pending}
    if not designs:
        run_design = None
    elif designs == {"matched"}:
        run_design = "matched"
    elif designs == {"unmatched"}:
        run_design = "unmatched"
    else:
        run_design = "partially_matched"
    return AuditResult(
        comparisons=tuple(comparisons),
        summary=summary,
        groups=tuple(group_infos),
        excluded=tuple(Exclusion(g, r) for g, r in excluded),
        reference=ref,
        design=run_design,
        settings=settings,
        bootstrap=boot,
    )


def _pending_one(
    spec, c, g, gs, rs, g_rows, r_rows, pb, scheme, design, problem, single, settings
) -> _Pending:
    """One group × metric before the Holm step: values, estimability, CI, p, MDE."""
    Xg, Xr = gs.stats[g_rows], rs.stats[r_rows]
    v = float(_metric_values(spec, Xg.sum(axis=0), c))
    rv = float(_metric_values(spec, Xr.sum(axis=0), c))
    gap = v - rv
    pc = _Pending(
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
    cg = constant_value(_item_values(spec, Xg, c))
    cr = constant_value(_item_values(spec, Xr, c))
    both_constant = cg is not None and cr is not None
    if both_constant and abs(cg - cr) <= 1e-12 * max(1.0, abs(cg)):
        ng, unit = _denominator(spec, Xg, c)
        nr, _ = _denominator(spec, Xr, c)
        pc.status = "no_variation"
        pc.no_variation = rule_of_three(cg, ng, nr, unit)
        pc.gap = 0.0
        return pc
    if pb is None:
        pc.status, pc.reason = "not_estimable", problem
        return pc
    g_reps = _metric_values(spec, pb.group_reps, c)
    r_reps = _metric_values(spec, pb.reference_reps, c)
    if settings.small_cluster_scaling and scheme in ("two_way", "speaker"):
        g_reps = scale_small_clusters(g_reps, v, pb.n_group_speakers)
        r_reps = scale_small_clusters(r_reps, rv, pb.n_reference_speakers)
    gap_reps = g_reps - r_reps
    finite = gap_reps[np.isfinite(gap_reps)]
    pc.n_invalid = int(gap_reps.size - finite.size)
    if not math.isfinite(gap):  # undefined on a side (zero denominator): not_computable
        return pc
    if not both_constant and zero_spread(gap_reps, gap):
        pc.status = "not_estimable"
        pc.reason = (
            "the resampled gaps do not vary although the items do, so the data cannot show "
            "how uncertain the gap is; record more speakers and sentences"
        )
        return pc
    if finite.size >= 2:
        pc.ci_low, pc.ci_high = (float(x) for x in np.percentile(finite, [2.5, 97.5]))
        pc.mde = MDE_FACTOR * float(np.std(finite, ddof=1))
    if spec.kind == "proportion":
        pc.effect_size = cohens_h(v, rv)
    else:
        sd = pooled_sd(
            _metric_values(spec, pb.group_blocks, c),
            _metric_values(spec, pb.reference_blocks, c),
        )
        # a pooled block SD of ~0 (constant blocks) leaves the effect size undefined
        pc.effect_size = gap / sd if math.isfinite(sd) and sd > _MIN_SD else math.nan
    pc.p_value = bootstrap_p(gap, gap_reps)
    return pc


def _finish(
    pc: _Pending, p_adj: float, mult: float, unresolvable: bool, family: int, ref, settings
) -> Comparison:
    """The Comparison of one pending entry: flags, verdict and reading."""
    pb, spec = pc.pb, pc.spec
    practical = is_practical(pc.gap, pc.ratio, spec, settings)
    threshold = practical_threshold(pc.reference_value, spec, settings)
    flags = []
    if pc.design == "unmatched":
        flags.append("content_confounded")
    if pc.single_speaker:
        flags.append("single_speaker_recordings")
    n_blocks = {
        "group_speakers": None if pb is None else pb.n_group_speakers,
        "reference_speakers": None if pb is None else pb.n_reference_speakers,
        "contents": None if pb is None else pb.n_contents,
        "group_items": pc.n_items_total if pb is None else pb.n_group_items,
        "reference_items": pc.n_ref_total if pb is None else pb.n_reference_items,
    }
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
        n_items=n_blocks["group_items"],
        n_speakers=None if pb is None else pb.n_group_speakers,
    )
    if pc.status != "test":
        if pc.status == "no_variation":
            text = reading_no_variation(spec.label, pc.group, ref, pc.no_variation)
        else:
            text = reading_not_estimable(
                spec.label, pc.group, ref, pc.value, pc.reference_value, pc.reason
            )
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
            reading=text,
            reason=pc.reason,
            no_variation=pc.no_variation,
        )
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
    if settings.small_cluster_scaling and pc.scheme in ("two_way", "speaker"):
        flags.append("small_cluster_scaled")
    confounded = False
    significant = math.isfinite(p_adj) and p_adj < settings.alpha
    if pb.n_group_speakers is not None and pb.n_group_speakers < MIN_SPEAKERS_FOR_TRUST:
        flags.append("fewer_than_10_speakers")
        confounded = significant
    elif significant and pb.n_group_speakers is not None:
        # p_adj >= p, so a significant comparison had p < alpha: its jackknife was computed
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
        reading=reading(
            label=spec.label,
            group=pc.group,
            reference=ref,
            value=pc.value,
            reference_value=pc.reference_value,
            gap=pc.gap,
            ci_low=pc.ci_low,
            ci_high=pc.ci_high,
            p_adjusted=p_adj,
            mde=pc.mde,
            threshold=threshold,
            estimator=pb.scheme,
            conditional=conditional,
            n_blocks=n_blocks,
            verdict=verdict,
            direction_=dirn,
            design=pc.design,
            multiplicity=family if multiplicity else 0,
            single_speaker=pc.single_speaker,
        ),
    )


def _leave_speakers_out(
    new: list[_Pending],
    pb: PairBootstrap,
    cols: dict,
    group: str,
    ref: str,
    settings: AuditSettings,
) -> None:
    """The speaker jackknife of a group's comparisons that may turn out significant.

    Only a comparison with p < alpha can be significant after Holm (the adjusted p is never
    smaller), and only one with enough speakers is checked (fewer are flagged as such). It
    runs here, while the pair bootstrap still holds its per-speaker totals, and keeps only
    each leave-one-out's p, gap and value; :func:`jackknife_flips` applies the Holm
    multiplier once the family is known. One jackknife per group serves all its metrics.
    """
    if pb.n_group_speakers is None or pb.n_group_speakers < MIN_SPEAKERS_FOR_TRUST:
        return
    todo = [
        pc
        for pc in new
        if pc.status == "test" and math.isfinite(pc.p_value) and pc.p_value < settings.alpha
    ]
    if not todo:
        return
    jk = jackknife_group_speakers(pb, comparison_rng(settings.seed, "jackknife", group, ref))
    for pc in todo:
        c = cols[pc.spec.id]
        pc.jack = jackknife_tests(
            jk, pc.spec, c, _metric_values(pc.spec, pb.reference_reps, c), pc.reference_value
        )
