"""How many speakers would settle an underpowered comparison (docs/METHODS.md, "Recording plan").

SE(k) at k speakers on each side. Speaker scheme (content nested in speakers): resampling
k of the pilot's k_p speakers with replacement within each side (:func:`speaker_curve`), the
same draws extended one speaker at a time for every k (common random numbers, so the curve
is smooth and the search for k* is not noisy), times sqrt(k_p / (k_p - 1)); the metric is
recomputed from summed item statistics on every replicate (pooled, not a mean of per-item
values), as in :mod:`fairdesk.stats.bootstrap`. A side keeps its own speakers where it
already has more than k (the reference needs max(k*, its current k)). Two-way scheme (shared
content): the two-way bootstrap's variance on subsets of the pilot's distinct speakers,
fitted as a speaker part over k plus a content floor (:func:`two_way_curve`,
:mod:`fairdesk.stats.pigeonhole`); drawing k > k_p speakers with replacement would repeat
their speaker × content noise and over-state SE(k). The plan by contents
(:func:`plan_contents`) fits subsets of the shared contents the same way. With fewer than
four speakers on a side (or four shared contents), the resampling of :func:`speaker_curve`,
:func:`content_floor` and :func:`content_curve` is used instead.

MDE(k) = (z_{1-alpha'/2} + z_power) * SE(k), alpha' = alpha / m (Bonferroni, the worst case
of Holm), m the future run's tested comparisons (default the pilot's). k* is the smallest k
with MDE(k) <= the target gap (default the smallest practical gap), searched up to 20 k_p.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.stats import norm

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.bootstrap import Side, draw_counts, shared_contents
from fairdesk.stats.comparison import metric_values
from fairdesk.stats.pigeonhole import (
    MIN_UNITS,
    content_curve_from_terms,
    curve_from_terms,
    fit_content_terms,
    fit_speaker_terms,
)
from fairdesk.stats.planning_types import ContentPlan, MdePoint, SideNeed

#: k* is searched up to this many times the pilot's speakers (contents) per side.
SEARCH_FACTOR = 20
#: Replicates of a resampling plan by default.
PLAN_REPLICATES = 1000
#: The fewest replicates a resampling plan accepts: the SE of an SD from fewer is too noisy
#: for a plan (docs/METHODS.md, "Recording plan").
MIN_PLAN_REPLICATES = 200
#: About this many k of a plan's dense curve (what a chart draws as its line).
DENSE_POINTS = 60


def z_factor(alpha: float, m: int, power: float) -> float:
    """z_{1 - alpha'/2} + z_power with alpha' = alpha / m."""
    if not 0 < power < 1:
        raise ValueError(f"power must be between 0 and 1 (exclusive), not {power}")
    if m < 1:
        raise ValueError(f"the future run's number of comparisons must be at least 1, not {m}")
    return float(norm.ppf(1 - alpha / m / 2) + norm.ppf(power))


def _n_units(labels: np.ndarray | None) -> int:
    if labels is None:
        return 0
    lab = np.asarray(labels)
    return len(np.unique(lab[lab >= 0])) if lab.dtype.kind in "iu" else len(set(lab.tolist()))


def _codes(labels: np.ndarray) -> tuple[np.ndarray, int]:
    import pandas as pd

    codes, uniq = pd.factorize(np.asarray(labels, dtype=object))
    return codes, len(uniq)


def _blocks(side: Side, shared: np.ndarray | None) -> np.ndarray:
    """``T[s, c, k]``: the side's statistic sums per speaker (× shared content, where
    ``shared`` is given; items outside it dropped)."""
    X = np.asarray(side.stats, dtype=float)
    spk = np.asarray(side.speakers)
    keep = spk >= 0 if spk.dtype.kind in "iu" else np.array([s is not None for s in spk])
    if shared is not None:
        cont = np.asarray(side.contents)
        keep &= np.isin(cont, shared)
    X, spk = X[keep], spk[keep]
    s_codes, S = _codes(spk)
    if shared is None:
        T = np.zeros((S, 1, X.shape[1]))
        np.add.at(T[:, 0, :], s_codes, X)
        return T
    c_codes = np.searchsorted(np.asarray(shared), np.asarray(side.contents)[keep])
    T = np.zeros((S, len(shared), X.shape[1]))
    np.add.at(T, (s_codes, c_codes), X)
    return T


def _values(spec: MetricSpec, sums: np.ndarray, cols: Sequence[int]) -> np.ndarray:
    return metric_values(spec, sums, list(cols))


def _scaled(v: np.ndarray, k: int) -> np.ndarray:
    """Replicate deviations from their mean times sqrt(k / (k - 1))."""
    if k < 2:
        return v
    mean = np.nanmean(v)
    return mean + (v - mean) * math.sqrt(k / (k - 1))


def _sd(x: np.ndarray) -> float:
    x = x[np.isfinite(x)]
    return float(np.std(x, ddof=1)) if x.size >= 2 else math.nan


def speaker_curve(
    group: Side,
    reference: Side,
    spec: MetricSpec,
    cols: Sequence[int],
    scheme: str,
    k_values: Sequence[int],
    *,
    n_rep: int = PLAN_REPLICATES,
    rng: np.random.Generator,
) -> np.ndarray:
    """SE(k) of the gap for each k of ``k_values`` (speakers per side).

    Each side draws k of its k_p pilot speakers with replacement (the first k of one row
    of draws per replicate, common to every k), a side with more than k speakers keeps its
    own k_p; the replicate deviations of each side are scaled by sqrt(k_p / (k_p - 1)).
    ``two_way``: both sides restricted to the shared content, one content draw per
    replicate (the pilot's number of contents) shared by both sides.

    Returns
    -------
    ndarray
        SE(k), in the order of ``k_values``.
    """
    shared = shared_contents(group, reference) if scheme == "two_way" else None
    Tg, Tr = _blocks(group, shared), _blocks(reference, shared)
    kg, kr = Tg.shape[0], Tr.shape[0]
    ks = np.asarray(list(k_values), dtype=int)
    k_top = int(max(ks.max(initial=2), kg, kr))
    if shared is not None:
        w = draw_counts(rng, len(shared), n_rep)  # shared by both sides
        Yg = np.einsum("bc,sck->bsk", w, Tg)
        Yr = np.einsum("bc,sck->bsk", w, Tr)
    else:
        Yg = np.broadcast_to(Tg[:, 0, :], (n_rep, *Tg[:, 0, :].shape))
        Yr = np.broadcast_to(Tr[:, 0, :], (n_rep, *Tr[:, 0, :].shape))
    ig = rng.integers(0, kg, size=(n_rep, k_top))
    ir = rng.integers(0, kr, size=(n_rep, k_top))
    rows = np.arange(n_rep)
    want = {int(k) for k in ks}
    at_g = {max(k, kg) for k in want}
    at_r = {max(k, kr) for k in want}
    sums_g, sums_r = {}, {}
    run_g = np.zeros((n_rep, Tg.shape[2]))
    run_r = np.zeros((n_rep, Tr.shape[2]))
    for j in range(k_top):  # one more speaker per side and step (common random numbers)
        run_g += Yg[rows, ig[:, j]]
        run_r += Yr[rows, ir[:, j]]
        if j + 1 in at_g:
            sums_g[j + 1] = run_g.copy()
        if j + 1 in at_r:
            sums_r[j + 1] = run_r.copy()
    out = np.empty(len(ks))
    for n, k in enumerate(ks):
        g = _scaled(_values(spec, sums_g[max(k, kg)], cols), kg)
        r = _scaled(_values(spec, sums_r[max(k, kr)], cols), kr)
        out[n] = _sd(g - r)
    return out


def two_way_curve(
    group: Side,
    reference: Side,
    spec: MetricSpec,
    cols: Sequence[int],
    k_values: Sequence[int],
    *,
    rng: np.random.Generator,
) -> tuple[np.ndarray, float] | None:
    """SE(k) of a shared-content gap for each k of ``k_values`` and its content floor (the
    SE with unlimited speakers), from the two-way bootstrap's variance on subsets of the
    pilot's speakers (:mod:`fairdesk.stats.pigeonhole`); None when a side has fewer than
    :data:`~fairdesk.stats.pigeonhole.MIN_UNITS` speakers or the fit fails."""
    shared = shared_contents(group, reference)
    Tg, Tr = _blocks(group, shared), _blocks(reference, shared)
    kg, kr = Tg.shape[0], Tr.shape[0]
    if min(kg, kr) < MIN_UNITS:
        return None
    terms = fit_speaker_terms(Tg, Tr, spec, cols, rng=rng)
    if not all(math.isfinite(t) for t in terms):
        return None
    return curve_from_terms(terms, kg, kr, k_values), math.sqrt(terms[2])


def content_floor(
    group: Side,
    reference: Side,
    spec: MetricSpec,
    cols: Sequence[int],
    *,
    n_rep: int = PLAN_REPLICATES,
    rng: np.random.Generator,
) -> float:
    """The SE of the gap with unlimited speakers in the two-way scheme: the pilot's speakers
    held fixed, the shared contents redrawn (the same draw on both sides)."""
    shared = shared_contents(group, reference)
    Tg, Tr = _blocks(group, shared), _blocks(reference, shared)
    w = draw_counts(rng, len(shared), n_rep)
    g = _values(spec, w @ Tg.sum(axis=0), cols)
    r = _values(spec, w @ Tr.sum(axis=0), cols)
    return _sd(g - r)


def content_curve(
    group: Side,
    reference: Side,
    spec: MetricSpec,
    cols: Sequence[int],
    c_values: Sequence[int],
    *,
    n_rep: int = PLAN_REPLICATES,
    rng: np.random.Generator,
) -> np.ndarray:
    """SE at c shared contents per speaker (each c of ``c_values``), the pilot's speakers
    redrawn within each side, c of the pilot's contents drawn with replacement (the same
    draw on both sides, common to every c), times sqrt(C_p / (C_p - 1))."""
    shared = shared_contents(group, reference)
    Tg, Tr = _blocks(group, shared), _blocks(reference, shared)
    C = len(shared)
    kg, kr = Tg.shape[0], Tr.shape[0]
    ug = draw_counts(rng, kg, n_rep)
    ur = draw_counts(rng, kr, n_rep)
    Zg = np.einsum("bs,sck->bck", ug, Tg)
    Zr = np.einsum("bs,sck->bck", ur, Tr)
    cs = np.asarray(list(c_values), dtype=int)
    top = int(cs.max(initial=2))
    ic = rng.integers(0, C, size=(n_rep, top))
    rows = np.arange(n_rep)
    run_g = np.zeros((n_rep, Tg.shape[2]))
    run_r = np.zeros((n_rep, Tr.shape[2]))
    se_at = {}
    want = {int(c) for c in cs}
    for j in range(top):
        run_g += Zg[rows, ic[:, j]]
        run_r += Zr[rows, ic[:, j]]
        if j + 1 in want:
            gap = _values(spec, run_g, cols) - _values(spec, run_r, cols)
            se_at[j + 1] = _sd(gap) * math.sqrt(C / (C - 1)) if C > 1 else math.nan
    return np.array([se_at[int(c)] for c in cs])


def closed_form_se(se_pilot: float, kg: int, kr: int, k: int) -> float:
    """SE_pilot * sqrt(k_p / k), a side keeping its own speakers where it has more than k
    (with k_p on both sides, exactly the closed form of docs/METHODS.md)."""
    return se_pilot * math.sqrt((1 / max(k, kg) + 1 / max(k, kr)) / (1 / kg + 1 / kr))


def t_share(kg: int, kr: int) -> float:
    """How much the t part of the small-cluster factor
    (:func:`~fairdesk.stats.estimability.t_ratio`, each side its own k) widened a gap's SD,
    with the sides' variances in the closed form's proportion (1/k_g : 1/k_r)."""
    from fairdesk.stats.estimability import t_ratio

    return math.sqrt((t_ratio(kg) ** 2 / kg + t_ratio(kr) ** 2 / kr) / (1 / kg + 1 / kr))


def first_k(ks: Iterable[int], mdes: Iterable[float], target: float) -> int | None:
    """The smallest k whose MDE is at most ``target`` (None when none is)."""
    for k, m in zip(ks, mdes, strict=True):
        if math.isfinite(m) and m <= target:
            return int(k)
    return None


def closed_form_k(
    se_pilot: float, kg: int, kr: int, zf: float, target: float, k_max: int
) -> int | None:
    """The closed form's k*: smallest k in 2..k_max with zf * closed_form_se <= target."""
    if not (math.isfinite(se_pilot) and se_pilot > 0 and kg >= 1 and kr >= 1):
        return None
    ks = range(2, k_max + 1)
    return first_k(ks, [zf * closed_form_se(se_pilot, kg, kr, k) for k in ks], target)


def curve_points(k_star: int | None, k_now: int, k_max: int) -> list[int]:
    """A few k around k* for the MDE table (or up to the search limit without k*)."""
    if k_star is None:
        raw = [k_now, 2 * k_now, 5 * k_now, 10 * k_now, k_max]
    else:
        raw = [k_now, k_star // 2, (3 * k_star) // 4, k_star - 1, k_star, (5 * k_star) // 4]
        raw += [(3 * k_star) // 2, 2 * k_star]
    return sorted({min(max(2, int(k)), k_max) for k in raw})


def dense_ks(k_max: int, extra: Sequence[int] = (), k_min: int = 2) -> list[int]:
    """About :data:`DENSE_POINTS` k from ``k_min`` (at least 2) to ``k_max``, evenly spread
    on a log scale (every k while they are close), with the k of ``extra`` (the table's
    points)."""
    k_min = max(2, int(k_min))
    if k_max < k_min:
        return []
    grid = np.unique(np.round(np.geomspace(k_min, k_max, DENSE_POINTS)).astype(int))
    ks = {int(k) for k in grid} | {int(k) for k in extra if 2 <= int(k) <= k_max}
    return sorted(ks)


def check_replicates(n_rep: int) -> None:
    """Refuse fewer than :data:`MIN_PLAN_REPLICATES` replicates (ValueError)."""
    if int(n_rep) < MIN_PLAN_REPLICATES:
        raise ValueError(
            f"a recording plan needs at least {MIN_PLAN_REPLICATES} replicates, not {n_rep}: "
            "the standard error of an SD from fewer is too noisy to plan from (default "
            f"{PLAN_REPLICATES:,})"
        )


def side_need(
    group: str,
    k_now: int,
    k_needed: int | None,
    utterances: float,
    mean_duration_s: float | None,
) -> SideNeed:
    """One side's need: new speakers, their utterances and the recording hours."""
    if k_needed is None:
        return SideNeed(group, int(k_now), None, None, float(utterances), None, None,
                        mean_duration_s)  # fmt: skip
    needed = max(int(k_needed), int(k_now))
    new = needed - int(k_now)
    utt = int(math.ceil(new * utterances - 1e-9))
    hours = None if mean_duration_s is None else utt * mean_duration_s / 3600.0
    return SideNeed(group, int(k_now), needed, new, float(utterances), utt, hours, mean_duration_s)


def merge_needs(needs: Sequence[SideNeed]) -> tuple[SideNeed, ...]:
    """Per group the largest need over its comparisons (a reference shared by several
    comparisons takes the largest), in order of first appearance."""
    out: dict[str, SideNeed] = {}
    for n in needs:
        old = out.get(n.group)
        if old is None or (n.speakers_needed or -1) > (old.speakers_needed or -1):
            out[n.group] = n
    return tuple(out.values())


def plan_contents(
    group: Side,
    reference: Side,
    spec: MetricSpec,
    cols: Sequence[int],
    zf: float,
    target: float,
    speakers_new_utterances: int | None,
    *,
    n_rep: int,
    rng: np.random.Generator,
) -> ContentPlan:
    """The plan by contents of a shared-content pair, and which is cheaper to add."""
    shared = shared_contents(group, reference)
    C = len(shared)
    c_max = SEARCH_FACTOR * C
    cs = list(range(2, c_max + 1))
    se = None
    if C >= MIN_UNITS:
        terms = fit_content_terms(
            _blocks(group, shared), _blocks(reference, shared), spec, cols, rng=rng
        )
        if all(math.isfinite(t) for t in terms):
            se = content_curve_from_terms(terms, cs)
    if se is None:
        se = content_curve(group, reference, spec, cols, cs, n_rep=n_rep, rng=rng)
    mdes = zf * se
    c_star = first_k(cs, mdes, target)
    new_utt = None
    if c_star is not None:
        n_spk = _n_units(group.speakers) + _n_units(reference.speakers)
        new_utt = max(0, c_star - C) * n_spk
    cheaper = None
    if new_utt is not None and speakers_new_utterances is not None:
        cheaper = "contents" if new_utt < speakers_new_utterances else "speakers"
    elif new_utt is not None:
        cheaper = "contents"
    elif speakers_new_utterances is not None:
        cheaper = "speakers"
    pts = curve_points(c_star, C, c_max)
    curve = tuple(MdePoint(c, float(se[c - 2]), float(mdes[c - 2])) for c in pts)
    return ContentPlan(C, c_star, new_utt, curve, cheaper)


__all__ = [
    "DENSE_POINTS",
    "MIN_PLAN_REPLICATES",
    "PLAN_REPLICATES",
    "SEARCH_FACTOR",
    "closed_form_k",
    "closed_form_se",
    "content_curve",
    "check_replicates",
    "content_floor",
    "curve_points",
    "dense_ks",
    "first_k",
    "merge_needs",
    "plan_contents",
    "side_need",
    "speaker_curve",
    "t_share",
    "two_way_curve",
    "z_factor",
]
