"""Compare every group with the reference on every metric (docs/METHODS.md, "Comparisons with the reference").

``compare_groups`` is the whole aggregate stage of an audit: minimums, reference, design,
resampling scheme, bootstrap CI / p / MDE, Holm adjustment, the speaker jackknife, verdicts,
readings and the corpus summary. Each group × metric entry is built and finished by
:mod:`fairdesk.stats.comparison`.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.bootstrap import (
    PairBootstrap,
    Side,
    VersionDeltas,
    bootstrap_pair,
    choose_scheme,
    comparison_rng,
    content_design,
    jackknife_group_speakers,
    shared_contents,
)
from fairdesk.stats.comparison import Pending, finish, metric_values, pending_one
from fairdesk.stats.estimability import (
    MIN_BASIS,
    ON_SAMPLE,
    auto_scheme,
    has_basis,
    scheme_units,
    too_few,
    units_problem,
)
from fairdesk.stats.formulas import (
    holm_adjust,
    holm_multipliers,
    planned_bootstrap,
)
from fairdesk.stats.groupci import group_intervals
from fairdesk.stats.jackknife import jackknife_tests
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.parallel import parallel_map
from fairdesk.stats.resampled import resampled_columns
from fairdesk.stats.results import (
    AuditResult,
    BlockCounts,
    ComparisonSample,
    Exclusion,
    GroupInfo,
)
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.slicing import (
    MISSING_LABEL,
    check_run_cap,
    choose_reference,
    minimums_from_counts,
    missing_groups,
)
from fairdesk.stats.summary import summarise_metric
from fairdesk.stats.verdicts import (
    MIN_SPEAKERS_FOR_TRUST,
)


def derive_content_ids(references: pd.Series) -> pd.Series:
    """Content ids from reference texts: lower case, punctuation removed, spaces collapsed.

    docs/METHODS.md, "Items, groups and the reference" derives content_id from the normalised reference text when it is absent;
    this light normalisation keeps the stats layer independent of the metrics normaliser.
    """

    def norm_text(t) -> str | None:
        if t is None or (isinstance(t, float) and math.isnan(t)):
            return None
        return " ".join(re.sub(r"[^\w\s']", " ", str(t).lower()).split())

    return references.map(norm_text)


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
    versions: Mapping[int, pd.DataFrame] | None = None,
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
    versions : ``resample`` (docs/METHODS.md, "References from several annotators"): per
        row position of an item with several reference versions, its statistics against
        each version (one row per version); the frame's row holds their mean. Every
        replicate draws one version per such item.

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
            versions=versions,
        )


def _version_deltas(
    X: np.ndarray, stat_cols: list[str], versions: Mapping[int, pd.DataFrame] | None
) -> VersionDeltas | None:
    """The items' version statistics minus their mean row of ``X`` (None: no item has
    several versions)."""
    rows = sorted(int(r) for r, v in (versions or {}).items() if len(v) > 1)
    if not rows:
        return None
    n = np.array([len(versions[r]) for r in rows], dtype=np.int64)  # type: ignore[index]
    deltas = np.zeros((len(rows), int(n.max()), len(stat_cols)))
    for k, r in enumerate(rows):
        # a statistic the versions do not change (a flag added later) keeps the item's value
        v = versions[r].reindex(columns=stat_cols).to_numpy(dtype=float)  # type: ignore[index]
        v = np.where(np.isfinite(v), v, X[r][None, :])
        deltas[k, : len(v)] = v - X[r]
    return VersionDeltas(np.array(rows, dtype=np.int64), n, deltas)


def _resampled_versions(X, vd: VersionDeltas | None, specs, cols):
    """:func:`resampled_columns` of ``X`` and of the version statistics together (the same
    column sums for both; without versions exactly ``resampled_columns(X, ...)``)."""
    if vd is None:
        return (*resampled_columns(X, specs, cols), None)
    m, V, K = vd.deltas.shape
    full = X[vd.rows][:, None, :] + vd.deltas
    Xs, tspecs, tcols = resampled_columns(np.vstack([X, full.reshape(m * V, K)]), specs, cols)
    Xt = Xs[: len(X)]
    Vt = Xs[len(X) :].reshape(m, V, Xs.shape[1]) - Xt[vd.rows][:, None, :]
    for k, nk in enumerate(vd.n):  # rows past an item's versions stay zero
        Vt[k, nk:] = 0.0
    return Xt, tspecs, tcols, VersionDeltas(vd.rows, vd.n, Vt)


def _analysed_rows(side: Side, scheme: str | None, shared: np.ndarray) -> np.ndarray:
    """Rows of a side that a scheme analyses (paired schemes: the shared content)."""
    n = len(side.stats)
    if scheme not in ("two_way", "content") or side.contents is None:
        return np.arange(n)
    return np.flatnonzero(np.isin(np.asarray(side.contents), shared))


def _compare_groups(
    frame, specs, settings, reference, *, group_col, speaker_col, content_col, describe, versions
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
    lacking = [c for c in stat_cols if c not in frame.columns]
    if lacking:
        raise ValueError(
            f"The frame lacks the per-item statistic column(s) {lacking} needed by metrics "
            f"{[s.id for s in every if set(s.stats) & set(lacking)]}; compute item stats first."
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
    vd = _version_deltas(X, stat_cols, versions)
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
    # items with no grouping value: a descriptive row, or with include_missing a group
    # that is never the default reference (docs/METHODS.md, "Missing values")
    missing = missing_groups(frame, group_col) & set(labels)
    descriptive = set() if settings.include_missing else missing
    sizes = {g: int(n_items[i]) for g, i in label_pos.items() if g not in descriptive}
    kept, excluded = minimums_from_counts(
        sizes,
        None if n_spk is None else {g: int(n_spk[label_pos[g]]) for g in sizes},
        settings.min_items,
        settings.min_speakers,
    )
    ref = None
    if (
        reference is not None
        and not settings.include_missing
        and (reference in descriptive or reference == MISSING_LABEL)
    ):
        raise ValueError(
            f"Reference group {reference!r}: the items with no value for the grouping "
            "column are not a group; compare them as the group '(missing)' with "
            "include_missing (--include-missing)."
        )
    if any(g not in missing for g in kept) or reference is not None:
        ref = choose_reference(sizes, reference, eligible=kept, not_default=missing)
    others = [g for g in kept if g != ref] if ref is not None else []
    # full-data group values
    sums = np.zeros((len(labels), len(stat_cols)))
    np.add.at(sums, codes, X)
    values = {s.id: metric_values(s, sums, cols[s.id]) for s in every}
    # a diacritic metric's basis E per group; a comparison with E < 10 on a side is
    # descriptive and not counted in m (docs/METHODS.md, "When the diacritic metrics apply")
    bases = {s.id: sums[:, _den_cols(s, cols[s.id])].sum(axis=1) for s in every if has_basis(s)}
    m_planned = sum(
        1
        for g in others
        for s in specs
        if not (
            s.id in bases
            and min(bases[s.id][label_pos[g]], bases[s.id][label_pos[ref]]) < MIN_BASIS
        )
    )
    boot = planned_bootstrap(settings.n_bootstrap, m_planned, settings.alpha)
    B = int(boot.used or 0)
    # B is raised for the p-values' resolution under Holm (docs/METHODS.md, "Multiple comparisons (Holm)"); a group's own CI
    # (and the corpus CI) is a percentile interval over n_bootstrap resamples
    n_ci = min(B, settings.n_bootstrap)
    boot = replace(boot, group_ci_replicates=n_ci)

    def rng_for(*parts):
        return comparison_rng(settings.seed, *parts)

    analysed = list(kept) if ref is not None else []
    # the corpus value pools the analysed groups and the items with no grouping value
    rows_only = sorted(descriptive, key=lambda g: (-int(n_items[label_pos[g]]), g))
    pooled = analysed + rows_only if analysed else labels
    n_missing = sum(int(n_items[label_pos[g]]) for g in rows_only)  # items in no group
    ci_groups, overall = group_intervals(
        X,
        [(s, cols[s.id]) for s in every],
        codes,
        labels,
        pooled,
        spk_codes,
        cont_codes,
        requested=settings.resampling,
        scale=settings.small_cluster_scaling,
        n_rep=n_ci,
        rng_for=rng_for,
        unchecked=tuple(rows_only),
        versions=vd,
    )
    index_of = {g: np.flatnonzero(codes == label_pos[g]) for g in kept}
    excl_reason = dict(excluded)
    group_infos = []
    order = sorted((g for g in label_pos if g not in descriptive), key=lambda g: (-sizes[g], g))
    for g in order + rows_only:
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
                ci_flags=ci_groups[g]["ci_flags"],
                missing=g in descriptive,
                basis={m: float(b[i]) for m, b in bases.items()} or None,
            )
        )

    # the comparisons resample the tested metrics' numerator and denominator sums
    Xt, tspecs, tcols, vdt = _resampled_versions(X, vd, specs, cols)
    plain = [s for s in tspecs if not s.sample]
    sampled = [s for s in tspecs if s.sample]

    def side(g: str, ix=None) -> Side:
        ix = index_of[g] if ix is None else ix
        return Side(
            stats=Xt[ix],
            speakers=None if spk_codes is None else spk_codes[ix],
            contents=None if cont_codes is None else cont_codes[ix],
            versions=None if vdt is None else vdt.subset(ix),
        )

    def sample_rows(g: str, spec) -> np.ndarray:
        """The rows of a sampled metric's sample in group ``g`` (denominator > 0)."""
        return index_of[g][_denominator(Xt, spec, tcols[spec.id])[index_of[g]] > 0]

    pending: list[Pending] = []
    ref_side = side(ref) if ref is not None else None

    def compare_sides(g, gs, rs, specs_, tag=(), sample=None, below=None) -> list[Pending]:
        """The pending comparisons of ``specs_`` between sides ``gs`` and ``rs`` (the whole
        groups, or a sampled metric's samples: ``sample`` its sizes, ``below`` the note
        saying it is below the minimums)."""
        assert ref is not None  # groups are compared only against a reference
        design, n_shared, _ = content_design(gs, rs)
        where = " (group " + repr(g) + " vs reference " + repr(ref) + ")"
        if below is not None:
            scheme, problem = None, below
        elif settings.resampling == "auto":
            scheme, units, failed = auto_scheme(gs, rs, spk_codes is not None, n_shared)
            problem = None if failed is None else units_problem(units, failed, g, ref)
        else:
            scheme = choose_scheme(spk_codes is not None, n_shared, settings.resampling, where)
            units = scheme_units(gs, rs, scheme)
            problem = units_problem(units, scheme, g, ref) if too_few(units) else None
            if problem:
                scheme = None
        if sample is not None and problem is not None and below is None:
            problem = notice(
                ON_SAMPLE,
                group=sample.group,
                reference=sample.reference,
                items=sample.items,
                reason=problem.to_json(),
            )
        g_spk, r_spk = _n_speakers(gs), _n_speakers(rs)
        single = (
            scheme in ("utterance", "content")
            and g_spk is not None
            and r_spk is not None
            and min(g_spk, r_spk) < 2
        )
        pb = None
        if scheme is not None:
            pb = bootstrap_pair(
                gs, rs, scheme, B, rng_for("compare", g, ref, *tag), keep_totals=True
            )
        shared = shared_contents(gs, rs)
        g_rows = _analysed_rows(gs, scheme, shared)
        r_rows = _analysed_rows(rs, scheme, shared)
        new = [
            pending_one(
                spec,
                tcols[spec.id],
                g,
                gs,
                rs,
                g_rows,
                r_rows,
                pb,
                scheme,
                design,
                problem,
                single,
                settings,
            )
            for spec in specs_
        ]
        for pc in new:
            if sample is not None:
                pc.sample = sample
                pc.blocks = _sample_blocks(gs, rs)
            if below is not None:  # a sample under the minimums: no verdict of any kind
                pc.status, pc.reason, pc.no_variation = "not_estimable", below, None
                pc.gap = pc.value - pc.reference_value
        if pb is not None:
            _leave_speakers_out(new, pb, tcols, g, ref, settings)
            slim = pb.slim()
            for pc in new:
                pc.pb = slim
        return new

    def compare_one(g: str) -> list[Pending]:
        assert ref is not None  # others is empty without a reference
        new = compare_sides(g, side(g), ref_side, plain) if plain else []
        for spec in sampled:  # each on its own sample (docs/METHODS.md, "Saliency grounding")
            gi, ri = sample_rows(g, spec), sample_rows(ref, spec)
            gs, rs = side(g, gi), side(ref, ri)
            sample = ComparisonSample(len(gi), len(ri), spec.sample)
            below = _below_minimums(spec, gs, rs, g, ref, settings)
            new += compare_sides(g, gs, rs, [spec], ("sample", spec.id), sample, below)
        order = {s.id: k for k, s in enumerate(tspecs)}
        return sorted(new, key=lambda pc: order[pc.spec.id])

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
        finish(pc, float(p_adj[k]), float(mult[k]), unresolvable, ref, settings)
        for k, pc in enumerate(pending)
    ]

    summary = {}
    for spec in every:
        idx = [label_pos[g] for g in analysed]
        s = summarise_metric(
            list(analysed),
            values[spec.id][idx],
            n_items[idx],
            [
                c.gap
                for c in comparisons
                if c.metric == spec.id and c.verdict not in ("not_estimable", "descriptive")
            ],
            spec.higher_is_better,
        )
        summary[spec.id] = replace(s, overall={**overall[spec.id], "n_missing": n_missing})
    # the run's design is that of the whole groups (a sampled metric's sample is its own)
    designs = {pc.design for pc in pending if not pc.spec.sample} or {pc.design for pc in pending}
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


def _den_cols(spec: MetricSpec, c: list[int]) -> list[int]:
    """The columns (indices into the frame's statistics) of a metric's denominator."""
    return [c[spec.stats.index(d)] for d in spec.denominator if d in spec.stats]


def _denominator(X: np.ndarray, spec: MetricSpec, c: list[int]) -> np.ndarray:
    """Each row's denominator of a metric (its items with 0 are outside a sampled metric's
    sample)."""
    return X[:, _den_cols(spec, c)].sum(axis=1)


def _n_speakers(s: Side) -> int | None:
    """Distinct speaker ids of a side (None without speaker ids), as the minimums count them."""
    if s.speakers is None:
        return None
    spk = np.asarray(s.speakers)
    return len(np.unique(spk[spk >= 0]))


def _n_contents(s: Side) -> int | None:
    if s.contents is None:
        return None
    c = np.asarray(s.contents)
    return len(np.unique(c[c >= 0]))


def _sample_blocks(gs: Side, rs: Side) -> BlockCounts:
    """The blocks of a sampled metric's samples: their speakers, shared contents, items."""
    shared = shared_contents(gs, rs)
    return BlockCounts(
        group_speakers=_n_speakers(gs),
        reference_speakers=_n_speakers(rs),
        contents=None if gs.contents is None else int(len(shared)),
        group_items=len(gs.stats),
        reference_items=len(rs.stats),
    )


#: Note code: a sampled metric's samples are under the minimums (``label``, ``items``, the
#: sample sizes ``group`` and ``reference``, and ``short``: ``(setting, side name, n,
#: minimum)`` per minimum missed; worded by fairdesk.presentation.minimums_words).
SAMPLE_BELOW_MINIMUMS = "minimums.sample_below"


def _below_minimums(
    spec: MetricSpec, gs: Side, rs: Side, group: str, ref: str, settings: AuditSettings
) -> Notice | None:
    """Why a sampled metric's samples are under the minimums (items, speakers per group;
    docs/METHODS.md, "Minimums"), a note naming the sample; None when both meet them."""
    short = []
    for name, s in ((group, gs), (ref, rs)):
        n, k = len(s.stats), _n_speakers(s)
        if n < settings.min_items:
            short.append(("min_items", name, n, settings.min_items))
        if k is not None and k < settings.min_speakers:
            short.append(("min_speakers", name, k, settings.min_speakers))
    if not short:
        return None
    return notice(
        SAMPLE_BELOW_MINIMUMS,
        label=spec.label,
        items=spec.sample,
        group=len(gs.stats),
        reference=len(rs.stats),
        short=tuple(short),
    )


def _leave_speakers_out(
    new: list[Pending],
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
            jk, pc.spec, c, metric_values(pc.spec, pb.reference_reps, c), pc.reference_value
        )
