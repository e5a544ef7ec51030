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
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.bootstrap import (
    PairBootstrap,
    Side,
    SpeakerJackknife,
    bootstrap_pair,
    choose_scheme,
    comparison_rng,
    content_design,
    jackknife_group_speakers,
)
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
)

#: (z_0.975 + z_0.80), the MDE multiplier of §3.
MDE_FACTOR = float(norm.ppf(0.975) + norm.ppf(0.80))


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


def cohens_h(p1: float, p2: float) -> float:
    """Cohen's h = 2·asin(√p1) − 2·asin(√p2) (group minus reference)."""
    if not (math.isfinite(p1) and math.isfinite(p2)):
        return math.nan
    p1, p2 = min(max(p1, 0.0), 1.0), min(max(p2, 0.0), 1.0)
    return 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))


def pooled_sd(a, b) -> float:
    """Pooled standard deviation of two samples (NaNs dropped; NaN if undefined)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    dof = a.size + b.size - 2
    if a.size < 1 or b.size < 1 or dof < 1:
        return math.nan
    ss = ((a - a.mean()) ** 2).sum() + ((b - b.mean()) ** 2).sum()
    return math.sqrt(ss / dof)


def bootstrap_p(gap: float, gap_reps: np.ndarray) -> float:
    """Two-sided bootstrap p on the null-centred replicates (§3):
    ``(1 + #{|gap* − gap| ≥ |gap|}) / (B + 1)``; undefined replicates are dropped."""
    reps = np.asarray(gap_reps, dtype=float)
    reps = reps[np.isfinite(reps)]
    if not math.isfinite(gap) or reps.size == 0:
        return math.nan
    return float((1 + np.count_nonzero(np.abs(reps - gap) >= abs(gap))) / (reps.size + 1))


def holm_multipliers(p_values: Sequence[float]) -> np.ndarray:
    """Holm's multiplier m − rank + 1 of each p-value (rank 1 = smallest; NaN → NaN)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    out[order] = len(ok) - np.arange(len(ok))
    return out


def holm_adjust(p_values: Sequence[float]) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values; NaN stays NaN.

    The same numbers as statsmodels ``multipletests(p, method="holm")[1]`` (checked by the
    tests): sorted p times (m − rank + 1), running maximum, capped at 1. Written out because
    statsmodels' Holm branch calls ``gc.collect()`` on every call (~0.2 s), which dominates
    simulation studies of hundreds of audits.
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if ok.size:
        order = ok[np.argsort(p[ok], kind="mergesort")]
        adj = np.maximum.accumulate(p[order] * (ok.size - np.arange(ok.size)))
        out[order] = np.minimum(adj, 1.0)
    return out


@dataclass
class _Pending:
    spec: MetricSpec
    group: str
    pb: PairBootstrap
    design: str
    value: float
    reference_value: float
    gap: float
    ratio: float
    gap_reps: np.ndarray
    effect_size: float
    ci_low: float
    ci_high: float
    p_value: float
    mde: float
    n_items_total: int
    n_ref_total: int
    n_invalid: int


def _metric_values(spec: MetricSpec, sums: np.ndarray, cols: list[int]) -> np.ndarray:
    return np.asarray(spec.compute(sums[..., cols]), dtype=float)


def _ratio(a: float, b: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.nan
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return a / b


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

    Returns
    -------
    AuditResult

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
        )


def _compare_groups(
    frame, specs, settings, reference, *, group_col, speaker_col, content_col
) -> AuditResult:
    settings = settings or AuditSettings()
    specs = list(specs)
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
    stat_cols = list(dict.fromkeys(c for s in specs for c in s.stats))
    missing = [c for c in stat_cols if c not in frame.columns]
    if missing:
        raise ValueError(
            f"The frame lacks the per-item statistic column(s) {missing} needed by metrics "
            f"{[s.id for s in specs if set(s.stats) & set(missing)]}; compute item stats first."
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
    cols = {s.id: [stat_cols.index(c) for c in s.stats] for s in specs}
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

    # full-data group values
    sums = np.zeros((len(labels), len(stat_cols)))
    np.add.at(sums, codes, X)
    values = {s.id: _metric_values(s, sums, cols[s.id]) for s in specs}

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
                values={s.id: float(values[s.id][i]) for s in specs},
            )
        )

    def side(g: str) -> Side:
        ix = index_of[g]
        return Side(
            stats=X[ix],
            speakers=None if spk_codes is None else spk_codes[ix],
            contents=None if cont_codes is None else cont_codes[ix],
        )

    pending: list[_Pending] = []
    boots: dict[str, PairBootstrap] = {}
    others = [g for g in kept if g != ref] if ref is not None else []
    ref_side = side(ref) if ref is not None else None
    for g in others:
        gs = side(g)
        design, n_shared, _ = content_design(gs, ref_side)
        scheme = choose_scheme(
            spk_codes is not None,
            n_shared,
            settings.resampling,
            where=f" (group {g!r} vs reference {ref!r})",
        )
        rng = comparison_rng(settings.seed, "compare", g, ref)
        pb = bootstrap_pair(gs, ref_side, scheme, settings.n_bootstrap, rng)
        boots[g] = pb
        for spec in specs:
            c = cols[spec.id]
            v = float(_metric_values(spec, pb.group_point, c))
            rv = float(_metric_values(spec, pb.reference_point, c))
            gap = v - rv
            gap_reps = _metric_values(spec, pb.group_reps, c) - _metric_values(
                spec, pb.reference_reps, c
            )
            finite = gap_reps[np.isfinite(gap_reps)]
            if finite.size >= 2:
                ci_low, ci_high = (float(x) for x in np.percentile(finite, [2.5, 97.5]))
                mde = MDE_FACTOR * float(np.std(finite, ddof=1))
            else:
                ci_low = ci_high = mde = math.nan
            if spec.kind == "proportion":
                es = cohens_h(v, rv)
            else:
                sd = pooled_sd(
                    _metric_values(spec, pb.group_blocks, c),
                    _metric_values(spec, pb.reference_blocks, c),
                )
                es = gap / sd if sd and math.isfinite(sd) and sd > 0 else math.nan
            pending.append(
                _Pending(
                    spec=spec,
                    group=g,
                    pb=pb,
                    design=design,
                    value=v,
                    reference_value=rv,
                    gap=gap,
                    ratio=_ratio(v, rv),
                    gap_reps=gap_reps,
                    effect_size=es,
                    ci_low=ci_low,
                    ci_high=ci_high,
                    p_value=bootstrap_p(gap, gap_reps),
                    mde=mde,
                    n_items_total=len(index_of[g]),
                    n_ref_total=len(index_of[ref]),
                    n_invalid=int(gap_reps.size - finite.size),
                )
            )

    p_raw = np.array([p.p_value for p in pending])
    p_adj = holm_adjust(p_raw)
    # the smallest bootstrap p is 1/(B+1); Holm multiplies it by the number of comparisons
    unresolvable = len(pending) / (settings.n_bootstrap + 1) >= settings.alpha
    mult = holm_multipliers(p_raw)
    jack: dict[str, SpeakerJackknife] = {}
    comparisons = []
    for k, pc in enumerate(pending):
        pb, spec = pc.pb, pc.spec
        practical = is_practical(pc.gap, pc.ratio, spec, settings)
        threshold = practical_threshold(pc.reference_value, spec, settings)
        flags = []
        if pc.design == "unmatched":
            flags.append("content_confounded")
        if pb.scheme in ("two_way", "content") and (
            pb.n_group_items < pc.n_items_total or pb.n_reference_items < pc.n_ref_total
        ):
            flags.append("shared_content_subset")
        conditional = pb.scheme == "content" and pb.n_group_speakers is not None
        if conditional:
            flags.append("conditional_on_speakers")
        if pc.n_invalid:
            flags.append("undefined_replicates_dropped")
        if unresolvable:
            flags.append("p_unresolvable")
        confounded = False
        significant = math.isfinite(p_adj[k]) and p_adj[k] < settings.alpha
        if pb.n_group_speakers is not None and pb.n_group_speakers < MIN_SPEAKERS_FOR_TRUST:
            flags.append("fewer_than_10_speakers")
            confounded = significant
        elif significant and pb.n_group_speakers is not None:
            if pc.group not in jack:
                jack[pc.group] = jackknife_group_speakers(
                    pb, comparison_rng(settings.seed, "jackknife", pc.group, ref)
                )
            if _jackknife_flips(
                jack[pc.group], pc, cols[spec.id], float(mult[k]), practical, settings
            ):
                confounded = True
                flags.append("speaker_jackknife_flip")
        verdict = decide_verdict(
            float(p_adj[k]), practical, pc.mde, threshold, settings.alpha, confounded
        )
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
        n_blocks = {
            "group_speakers": pb.n_group_speakers,
            "reference_speakers": pb.n_reference_speakers,
            "contents": pb.n_contents,
            "group_items": pb.n_group_items,
            "reference_items": pb.n_reference_items,
        }
        dirn = direction(pc.gap, spec.higher_is_better)
        comparisons.append(
            Comparison(
                metric=spec.id,
                group=pc.group,
                reference=ref,
                value=pc.value,
                reference_value=pc.reference_value,
                gap=pc.gap,
                ratio=pc.ratio,
                effect_size=pc.effect_size,
                ci_low=pc.ci_low,
                ci_high=pc.ci_high,
                p_value=pc.p_value,
                p_adjusted=float(p_adj[k]),
                mde=pc.mde,
                estimator=pb.scheme,
                n_blocks=n_blocks,
                design=pc.design,
                verdict=verdict,
                direction=dirn,
                flags=tuple(flags),
                n_items=pb.n_group_items,
                n_speakers=pb.n_group_speakers,
                reading=reading(
                    label=spec.label,
                    group=pc.group,
                    reference=ref,
                    value=pc.value,
                    reference_value=pc.reference_value,
                    gap=pc.gap,
                    ci_low=pc.ci_low,
                    ci_high=pc.ci_high,
                    p_adjusted=float(p_adj[k]),
                    mde=pc.mde,
                    threshold=threshold,
                    estimator=pb.scheme,
                    conditional=conditional,
                    n_blocks=n_blocks,
                    verdict=verdict,
                    direction_=dirn,
                    design=pc.design,
                    multiplicity=len(pending) if multiplicity else 0,
                ),
            )
        )

    summary = {}
    analysed = kept if ref is not None else []
    for spec in specs:
        idx = [label_pos[g] for g in analysed]
        summary[spec.id] = summarise_metric(
            list(analysed),
            values[spec.id][idx],
            n_items[idx],
            [c.gap for c in comparisons if c.metric == spec.id],
            spec.higher_is_better,
        )
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
    )


def _jackknife_flips(
    jk: SpeakerJackknife,
    pc: _Pending,
    c: list[int],
    multiplier: float,
    practical: bool,
    settings: AuditSettings,
) -> bool:
    """Whether leaving out some single group speaker changes the conclusion.

    Each leave-one-out recomputes the gap and its bootstrap p (same machinery, the
    comparison's reference replicates and content draws reused) and applies this
    comparison's own Holm multiplier. A practical result flips when some leave-one-out is
    non-significant or not practical; a significant-but-small one when some leave-one-out is
    non-significant.
    """
    spec = pc.spec
    rv = pc.reference_value
    ref_reps = _metric_values(spec, pc.pb.reference_reps, c)  # B
    v_j = _metric_values(spec, jk.point, c)  # J
    gap_j = v_j - rv
    reps_j = _metric_values(spec, jk.reps, c) - ref_reps[None, :]  # J × B
    finite = np.isfinite(reps_j)
    exceed = (np.abs(reps_j - gap_j[:, None]) >= np.abs(gap_j)[:, None]) & finite
    p_j = (1 + exceed.sum(axis=1)) / (finite.sum(axis=1) + 1)
    p_j_adj = np.minimum(1.0, multiplier * p_j)
    nonsig = ~np.isfinite(gap_j) | (p_j_adj >= settings.alpha)
    if nonsig.any():
        return True
    if practical:
        for gj, vj in zip(gap_j, v_j, strict=True):
            if not is_practical(float(gj), _ratio(float(vj), rv), spec, settings):
                return True
    return False
