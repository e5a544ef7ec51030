"""95% CIs of each group's own value and of the corpus-wide value (docs/METHODS.md, "Group values and their intervals").

A group's CI resamples within the group: its speakers, and its sentences too when the group
shares content with other groups (crossed design: the sentences are a sample of their own);
without speaker ids, contents (shared) or utterances. The corpus-wide value pools every
analysed group; a replicate redraws speakers within each group (stratified) and, where
content is shared between groups, one draw of the content ids for all groups.

As in ``bootstrap``, a replicate's sums are ``Σ_s Σ_c u[s] w[c] T[s, c, k]`` per stratum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairdesk.metrics.registry import BOUND_CLAMPED, clamp_value_interval
from fairdesk.stats.bootstrap import (
    MIN_SHARED_CONTENT,
    VersionDeltas,
    _chunk,
    _content_major,
    _draw_dtype,
    _weighted_sums,
    draw_counts,
    version_term,
)
from fairdesk.stats.estimability import (
    MIN_BASIS,
    MIN_UNITS,
    SCALED_SCHEMES,
    basis_unit,
    constant_value,
    has_basis,
    scale_small_clusters,
)
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.parallel import parallel_map


@dataclass(frozen=True)
class ValueBootstrap:
    """Replicate sums of a group's (or the corpus's) statistics.

    Attributes
    ----------
    scheme : ``two_way``, ``speaker``, ``content``, ``utterance``, or None (not estimable).
    point : observed sums ``(n_stats,)``.
    reps : ``(B, n_stats)`` replicate sums (None when not estimable).
    n_speakers, n_contents, n_items : block counts (None where the scheme has none).
    problem : why no CI, a coded note (None when estimable).
    scaled : whether the small-cluster scaling (``estimability.small_cluster_factor``) was applied.
    """

    scheme: str | None
    point: np.ndarray
    reps: np.ndarray | None
    n_speakers: int | None
    n_contents: int | None
    n_items: int
    problem: Notice | None = None
    scaled: bool = False
    #: the draws (``bootstrap_value(..., keep_counts=True)``): ``content`` (B × C counts of
    #: the content codes in ``contents``), ``strata`` (per stratum B × S counts of the
    #: speaker codes, or item positions for ``utterance``, in ``rows``)
    counts: dict | None = None


#: Note codes of a value's CI (worded by fairdesk.presentation.interval_words).
FEW_SPEAKERS = "interval.few_speakers"
ONE_UTTERANCE = "interval.one_utterance"
DESCRIPTIVE_BASIS = "interval.descriptive_basis"
RULE_OF_THREE = "interval.rule_of_three"
CONSTANT = "interval.constant"
NO_SPREAD = "interval.no_spread"
#: the corpus value has no CI: a group of it has too few units (``reason``: that note)
CORPUS_GROUP = "interval.corpus_group"


def value_scheme(
    has_speakers: bool, n_speakers: int, n_items: int, content_shared: bool, requested: str
) -> tuple[str | None, Notice | None]:
    """The scheme for one group's own CI and, when there is none, why (a note:
    ``interval.few_speakers`` with ``k``, or ``interval.one_utterance``).

    ``auto``: two_way (speaker ids, content shared with other groups), speaker (speaker
    ids), content (shared content, no speaker ids), utterance. A forced scheme is followed
    where the group supports it (two_way without shared content becomes speaker; content
    without it becomes speaker or utterance).
    """
    if requested == "utterance" or (not has_speakers and not content_shared):
        scheme = "utterance"
    elif requested == "content":
        # without speaker ids this branch has shared content (the case above took the rest)
        scheme = "content" if content_shared else "speaker"
    elif has_speakers:
        scheme = "two_way" if content_shared and requested in ("auto", "two_way") else "speaker"
    else:
        scheme = "content"
    if scheme in ("two_way", "speaker") and n_speakers < MIN_UNITS:
        return None, notice(FEW_SPEAKERS, k=n_speakers)
    if scheme == "utterance" and n_items < MIN_UNITS:
        return None, notice(ONE_UTTERANCE)
    return scheme, None


def _local(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense codes 0..n-1 of integer codes, a negative (missing) code its own block."""
    codes = np.asarray(codes, dtype=np.int64).copy()
    miss = codes < 0
    if miss.any():
        codes[miss] = codes.max(initial=-1) + 1 + np.arange(int(miss.sum()))
    uniq, dense = np.unique(codes, return_inverse=True)
    return dense.astype(np.int64), len(uniq)


def bootstrap_value(
    X: np.ndarray,
    strata: list[np.ndarray],
    speakers: np.ndarray | None,
    contents: np.ndarray | None,
    scheme: str,
    n_rep: int,
    rng: np.random.Generator,
    *,
    scale: bool = False,
    keep_counts: bool = False,
    versions: VersionDeltas | None = None,
) -> ValueBootstrap:
    """Replicate sums of the items in ``strata`` (each a set of row indices of ``X``).

    Parameters
    ----------
    X : ``(n_items, n_stats)`` per-item statistics of the whole frame.
    strata : row indices of each stratum (one for a group; one per group for the corpus).
        Speakers (or utterances) are drawn within each stratum.
    speakers, contents : integer codes per row of ``X`` (negative = missing, its own
        block), or None.
    scheme : ``two_way`` (speakers within strata × one content draw shared by all strata),
        ``speaker``, ``content`` (one content draw), ``utterance`` (items within strata).
    n_rep : replicates.
    rng : generator.
    scale : apply the small-cluster scaling per stratum (k = its speakers) for the speaker
        scheme (``SCALED_SCHEMES``; the two-way scheme is left as drawn).
    keep_counts : keep the count matrices (``ValueBootstrap.counts``) so that a check can
        recompute the replicates; the draws are the same either way.
    versions : items with several reference versions (rows of ``X``; ``resample``): each
        replicate draws one version per item, from a stream of its own (the speaker and
        content draws are those without versions).
    """
    X = np.asarray(X, dtype=float)
    K_all = X.shape[1]
    rows_all = np.concatenate(strata) if strata else np.array([], dtype=np.int64)
    # a statistic that is 0 on every item replicates to 0: left out of the products (an
    # English run's diacritic and tone columns, say)
    live = [j for j in range(K_all) if np.any(X[rows_all, j])]
    vds: list[VersionDeltas | None] = [None] * len(strata)
    if versions is not None:
        live = sorted(set(live) | {j for j in range(K_all) if np.any(versions.deltas[:, :, j])})
        vds = [versions.subset(idx) for idx in strata]
        vds = [None if v is None else v.columns(live) for v in vds]
    vrngs = [None if v is None else rng.spawn(1)[0] for v in vds]
    K = len(live)
    draw_cols = scheme in ("two_way", "content")
    draw_rows = scheme in ("two_way", "speaker", "utterance")
    if draw_cols:
        assert contents is not None, "the " + scheme + " scheme draws content ids"
        gcode, C = _local(contents[rows_all])
        col_of = np.full(len(X), -1, dtype=np.int64)
        col_of[rows_all] = gcode
    else:
        C = 1
    blocks = []
    row_codes = []
    n_spk = 0
    for idx in strata:
        if scheme == "utterance":
            r, S = np.arange(len(idx)), len(idx)
        elif scheme in ("two_way", "speaker"):
            assert speakers is not None, "the " + scheme + " scheme draws speaker ids"
            r, S = _local(speakers[idx])
            n_spk += S
        else:
            r, S = np.zeros(len(idx), dtype=np.int64), 1
        row_codes.append(r)
        if draw_cols:
            gc = col_of[idx]
            present, c_local = np.unique(gc, return_inverse=True)
        else:
            present, c_local = np.zeros(1, dtype=np.int64), np.zeros(len(idx), dtype=np.int64)
        Cl = len(present)
        T: np.ndarray = np.zeros((S * Cl, K))
        flat = r * Cl + c_local
        for k, j in enumerate(live):
            T[:, k] = np.bincount(flat, weights=X[idx, j], minlength=S * Cl)
        T = T.reshape(S, Cl, K)
        M = _content_major(T) if draw_cols and draw_rows else None  # once, not per chunk
        blocks.append((T, present, S, M))
    point = np.zeros(K_all)
    point[live] = sum(b[0].sum(axis=(0, 1)) for b in blocks)
    reps = np.zeros((n_rep, K_all))
    width = C + max(b[2] for b in blocks) * (K + 1)
    step = _chunk(n_rep, width)
    wdt = _draw_dtype(*(b[3] for b in blocks))
    # the draws per chunk: the content draws, and per stratum its row draws
    kept: dict[str, list] | None = (
        {"content": [], "strata": [[] for _ in blocks]} if keep_counts else None
    )
    for b0 in range(0, n_rep, step):
        m = min(n_rep, b0 + step) - b0
        w = draw_counts(rng, C, m, dtype=wdt) if draw_cols else None
        # the draws in a fixed order, the strata's products side by side, the parts added
        # in stratum order: the same numbers as one loop
        us = [draw_counts(rng, b[2], m) if draw_rows else None for b in blocks]
        if kept is not None:
            kept["content"].append(w)
            for k, u in enumerate(us):
                kept["strata"][k].append(u)

        def part(k: int, w=w, us=us) -> np.ndarray:
            T, present, S, M = blocks[k]
            # present is sorted: all C columns means w as it is
            wl = None if w is None else (w if len(present) == C else w[:, present])
            out = _weighted_sums(T, us[k], wl, M)
            vd, vrng = vds[k], vrngs[k]
            if vd is not None and vrng is not None:
                n_draw = len(us[k]) if us[k] is not None else len(w)
                weight = np.ones((n_draw, len(vd.rows)))
                if draw_rows:
                    weight *= us[k][:, row_codes[k][vd.rows]]
                if draw_cols:
                    weight *= np.asarray(w, dtype=float)[:, col_of[strata[k][vd.rows]]]
                out = out + version_term(vd, weight, vrng)
            if scale and scheme in SCALED_SCHEMES:
                out = scale_small_clusters(out, T.sum(axis=(0, 1)), S)
            return out

        for p in parallel_map(part, range(len(blocks))):
            reps[b0 : b0 + m, live] += p
    counts = None
    if kept is not None:
        counts = {
            "content": np.vstack(kept["content"]).astype(float) if draw_cols else None,
            "content_of_row": (col_of if draw_cols else None),
            "strata": [np.vstack(u).astype(float) if draw_rows else None for u in kept["strata"]],
            "row_of_item": row_codes,
        }
    return ValueBootstrap(
        scheme=scheme,
        point=point,
        reps=reps,
        n_speakers=n_spk if scheme in ("two_way", "speaker") else None,
        n_contents=C if draw_cols else None,
        n_items=len(rows_all),
        scaled=bool(scale and scheme in SCALED_SCHEMES),
        counts=counts,
    )


def shared_content_count(content_codes: np.ndarray, group_codes: np.ndarray, rows=None) -> int:
    """Content ids that occur in at least two groups (among ``rows`` when given)."""
    c = np.asarray(content_codes)
    g = np.asarray(group_codes)
    if rows is not None:
        c, g = c[rows], g[rows]
    ok = c >= 0
    if not ok.any():
        return 0
    pairs = np.unique(np.stack([c[ok], g[ok]]), axis=1)
    _, per_content = np.unique(pairs[0], return_counts=True)
    return int((per_content >= 2).sum())


def shares_content(content_codes, group_codes, g_code: int, rows=None) -> bool:
    """Whether group ``g_code`` shares ≥ 5 content ids with the other groups (among ``rows``
    when given)."""
    c = np.asarray(content_codes, dtype=np.int64)
    g = np.asarray(group_codes, dtype=np.int64)
    if rows is not None:
        c, g = c[rows], g[rows]
    lo = min(int(g.min(initial=g_code)), g_code)  # codes from 0 for the one-pass count
    return bool(groups_sharing_content(c, g - lo, g_code - lo + 1)[g_code - lo])


def groups_sharing_content(content_codes, group_codes, n_groups: int) -> np.ndarray:
    """For each group code ``0..n_groups-1``, whether it shares >= 5 content ids with the
    other groups (any other group code counts), from one pass over the rows."""
    c = np.asarray(content_codes, dtype=np.int64)
    g = np.asarray(group_codes, dtype=np.int64)
    ok = c >= 0
    out = np.zeros(n_groups, dtype=bool)
    if not ok.any():
        return out
    groups, dense = np.unique(g[ok], return_inverse=True)
    n_c = int(c[ok].max()) + 1
    pairs = np.unique(dense * n_c + c[ok])  # distinct (group, content)
    pg, pc = pairs // n_c, pairs % n_c
    in_groups = np.bincount(pc, minlength=n_c)  # groups each content occurs in
    shared = np.bincount(pg, weights=in_groups[pc] >= 2, minlength=len(groups))
    sel = (groups >= 0) & (groups < n_groups)
    out[groups[sel]] = shared[sel] >= MIN_SHARED_CONTENT
    return out


def percentile_ci(values: np.ndarray) -> tuple[float, float]:
    """Percentile 95% interval of the finite values (NaNs when fewer than 2)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return math.nan, math.nan
    lo, hi = np.percentile(v, [2.5, 97.5])
    return float(lo), float(hi)


def _const_interval(item_values: np.ndarray, n: float, proportion: bool):
    """Rule-of-three interval of a constant group at 0 (or at 1 for a proportion)."""
    v = constant_value(item_values)
    if v is None or not n or n <= 0:
        return None
    if v == 0.0:
        return (0.0, min(1.0, 3.0 / n)) if proportion else (0.0, 3.0 / n)
    if v == 1.0 and proportion:
        return (max(0.0, 1.0 - 3.0 / n), 1.0)
    return None


def group_intervals(
    X: np.ndarray,
    specs_cols: list,
    group_codes: np.ndarray,
    labels: list[str],
    analysed: list[str],
    speakers: np.ndarray | None,
    contents: np.ndarray | None,
    *,
    requested: str,
    scale: bool,
    n_rep: int,
    rng_for,
    unchecked: tuple[str, ...] = (),
    versions: VersionDeltas | None = None,
) -> tuple[dict, dict]:
    """Each group's own 95% CI and the corpus-wide value with its CI, for every metric.

    Parameters
    ----------
    X : per-item statistics of the frame.
    specs_cols : ``[(spec, column indices of spec.stats in X)]``.
    group_codes : group code per row (index into ``labels``).
    labels : group labels.
    analysed : groups pooled into the corpus-wide value (every group when empty).
    speakers, contents : integer codes per row (negative = missing), or None.
    requested : the run's ``resampling`` setting.
    scale : small-cluster scaling √(k/(k−1)) · t_{k−1}/z (of the groups and strata drawn by speakers).
    n_rep : replicates.
    rng_for : ``rng_for(*parts)`` → generator (deterministic per group).
    unchecked : pooled groups left out of the corpus scheme's unit check (the descriptive
        row of missing values: a stratum of one speaker is then drawn as it is).
    versions : items with several reference versions (``resample``; rows of ``X``).

    Returns
    -------
    (per_group, overall)
        ``per_group[label] = {"ci": {metric: [lo, hi] | None}, "ci_scheme": {metric: str},
        "ci_note": {metric: Notice}, "ci_flags": {metric: ["bound_clamped"]}}``;
        ``overall[metric] = {"value", "ci", "scheme", "n_groups", "n_speakers",
        "n_contents", "scaled", "note" (a coded note's JSON, ``Notice.to_json``), "flags"}``. Every percentile CI's bounds are
        clamped to the metric's range (``metrics.registry.clamp_value_interval``); a
        clamped one carries the flag ``bound_clamped``.
    """
    has_spk = speakers is not None
    pos = {g: i for i, g in enumerate(labels)}

    def _den(spec, c):
        return [c[spec.stats.index(d)] for d in spec.denominator if d in spec.stats]

    def metric_ci(vb, spec, c, item_idx) -> tuple:
        """``(ci, scheme, note)`` or, for a percentile interval, ``(ci, scheme, None,
        clamped)``: its bounds clamped to the metric's range."""
        den = [c[spec.stats.index(d)] for d in spec.denominator if d in spec.stats]
        n = float(X[np.ix_(item_idx, den)].sum()) if den else float(len(item_idx))
        if has_basis(spec) and n < MIN_BASIS:  # docs/METHODS.md, "When the diacritic metrics apply"
            return (
                None,
                "descriptive",
                notice(DESCRIPTIVE_BASIS, e=n, unit=basis_unit(spec), minimum=MIN_BASIS),
            )
        if vb.reps is None:
            return None, "not_estimable", vb.problem
        v = float(np.asarray(spec.compute(vb.point[c]), dtype=float))
        reps = np.asarray(spec.compute(vb.reps[:, c]), dtype=float)
        finite = reps[np.isfinite(reps)]
        item_values = np.asarray(spec.compute(X[np.ix_(item_idx, c)]), dtype=float)
        const = _const_interval(item_values, n, spec.kind == "proportion")
        if const is not None:
            return (
                list(const),
                "rule_of_three",
                notice(RULE_OF_THREE, metric=spec.id, value=v, n=n),
            )
        if finite.size < 2 or float(np.ptp(finite)) <= 1e-12 * max(1.0, abs(v)):
            if constant_value(item_values) is not None:  # a constant with no 3/n bound
                return (
                    None,
                    "not_estimable",
                    notice(CONSTANT, metric=spec.id, value=v),
                )
            return (
                None,
                "not_estimable",
                notice(NO_SPREAD),
            )
        lo, hi, clamped = clamp_value_interval(spec, *percentile_ci(finite))
        return [lo, hi], vb.scheme, None, clamped

    sharing = (
        np.zeros(len(labels), dtype=bool)
        if contents is None
        else groups_sharing_content(contents, group_codes, len(labels))
    )

    def one_group(g: str) -> dict:
        gi = pos[g]
        idx = np.flatnonzero(group_codes == gi)
        n_spk = 0
        if speakers is not None:
            n_spk = len(np.unique(speakers[idx][speakers[idx] >= 0])) + int(
                (speakers[idx] < 0).sum()
            )
        shared = bool(sharing[gi])
        scheme, problem = value_scheme(has_spk, n_spk, len(idx), shared, requested)
        if scheme is None:
            vb = ValueBootstrap(None, X[idx].sum(axis=0), None, n_spk, None, len(idx), problem)
        else:
            vb = bootstrap_value(
                X,
                [idx],
                speakers,
                contents,
                scheme,
                n_rep,
                rng_for("group_ci", g),
                scale=scale,
                versions=versions,
            )
        cis, schemes, notes, flags = {}, {}, {}, {}
        for spec, c in specs_cols:
            ci, sch, note, *clamped = metric_ci(vb, spec, c, idx)
            cis[spec.id] = ci
            schemes[spec.id] = sch
            if note:
                notes[spec.id] = note
            if any(clamped):
                flags[spec.id] = [BOUND_CLAMPED]
        return {
            "ci": cis,
            "ci_scheme": schemes,
            "ci_note": notes,
            "ci_flags": flags,
            "ci_scaled": vb.scaled,
        }

    # groups side by side on the cores (one generator per group: same numbers)
    per_group = dict(zip(labels, parallel_map(one_group, labels), strict=True))

    pooled = analysed or labels
    strata = [np.flatnonzero(group_codes == pos[g]) for g in pooled]
    rows = np.concatenate(strata)
    shared_n = 0 if contents is None else shared_content_count(contents, group_codes, rows)
    checked = [s for g, s in zip(pooled, strata, strict=True) if g not in unchecked] or strata
    k_min = None
    if speakers is not None:
        k_min = min(
            len(np.unique(speakers[s][speakers[s] >= 0])) + int((speakers[s] < 0).sum())
            for s in checked
        )
    shared = shared_n >= MIN_SHARED_CONTENT
    scheme, problem = value_scheme(
        has_spk,
        k_min if k_min is not None else 0,
        min(len(s) for s in checked),
        shared,
        requested,
    )
    if scheme is None:
        assert problem is not None  # value_scheme says why there is no scheme
        vb = ValueBootstrap(
            None,
            X[rows].sum(axis=0),
            None,
            None,
            None,
            len(rows),
            notice(CORPUS_GROUP, reason=problem.to_json()),
        )
    else:
        vb = bootstrap_value(
            X,
            strata,
            speakers,
            contents,
            scheme,
            n_rep,
            rng_for("corpus_ci"),
            scale=scale,
            versions=versions,
        )
    overall = {}
    for spec, c in specs_cols:
        ci, sch, note, *clamped = metric_ci(vb, spec, c, rows)
        overall[spec.id] = {
            "value": float(np.asarray(spec.compute(vb.point[c]), dtype=float)),
            "ci": ci,
            "scheme": sch,
            "n_groups": len(pooled),
            "n_items": int(len(rows)),
            "n_speakers": vb.n_speakers,
            "n_contents": vb.n_contents,
            "scaled": vb.scaled,
            "note": None if note is None else note.to_json(),
            "flags": [BOUND_CLAMPED] if any(clamped) else [],
        }
        if has_basis(spec):  # the corpus value's basis E
            overall[spec.id]["basis"] = float(X[np.ix_(rows, _den(spec, c))].sum())
    return per_group, overall
