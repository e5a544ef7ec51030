"""The two-way (speakers × contents) bootstrap's variance in closed form, and how it falls
with more speakers (docs/METHODS.md, "Recording plan": the shared-content plan).

The audit's two-way scheme draws speakers (counts ``u``, multinomial over a side's k
speakers) and contents (counts ``w``, multinomial over the C shared contents, the same draw
on both sides) and sums each speaker × content block ``T[s, c]`` with weight ``u_s w_c``
(:func:`fairdesk.stats.bootstrap.bootstrap_pair`). Linearised at the side's totals S
(``y[s, c] = ∇f(S) · T[s, c]``), a replicate's value moves by ``Σ (u_s w_c − 1) y[s, c]``
and, since ``E[u_s u_t] = 1 − 1/k + [s = t]`` and ``E[w_c w_d] = 1 − 1/C + [c = d]``, its
variance over infinitely many replicates is

    (1 − 1/C) Σ_s R_s² + (1 − 1/k) Σ_c K_c² + Σ y² − (1/k + 1/C − 1/(kC)) (Σ y)²

with R and K the row (speaker) and column (content) sums of y; the gap's two sides share
``w``, so their covariance is ``Σ_c K_c K'_c − (Σ y)(Σ y') / C``
(:func:`two_way_variance`).

Drawing k > k_p speakers from a pilot's k_p repeats each drawn speaker's speaker × content
noise, so the content term keeps the pilot's share of it while a future audit of k new
speakers averages it over k. :func:`fit_speaker_terms` therefore measures the variance
on subsets of k ≤ k_p distinct pilot speakers per side and fits
``V(k_g, k_r) = a_g (k_g − 1)/k_g² + a_r (k_r − 1)/k_r² + b`` (non-negative least squares;
the ``(k − 1)/k²`` is the audit's own finite-k factor of a speaker term), whose b is the
content floor: what no number of speakers removes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.comparison import metric_values

#: Speaker subsets a curve is fitted on.
N_SUBSETS = 400
#: The fewest speakers per side (shared contents) that a subset fit needs.
MIN_UNITS = 4


def gradient(spec: MetricSpec, cols: Sequence[int], totals: np.ndarray) -> np.ndarray:
    """∇f at ``totals`` (central differences, a relative step; zero outside ``cols``)."""
    S = np.asarray(totals, dtype=float)
    g = np.zeros_like(S)
    cols = list(cols)
    h = 1e-6 * np.maximum(np.abs(S[cols]), 1.0)
    probe = np.repeat(S[None, :], 2 * len(cols), axis=0)
    for n, j in enumerate(cols):
        probe[2 * n, j] += h[n]
        probe[2 * n + 1, j] -= h[n]
    v = metric_values(spec, probe, cols)
    g[cols] = (v[0::2] - v[1::2]) / (2 * h)
    return np.where(np.isfinite(g), g, 0.0)


def linearised(spec: MetricSpec, cols: Sequence[int], T: np.ndarray) -> np.ndarray:
    """``y[s, c] = ∇f(S) · T[s, c]`` of a side's blocks ``T[s, c, k]`` (S = their total)."""
    return T @ gradient(spec, cols, T.sum(axis=(0, 1)))


def _tables_variance(tables: Sequence[np.ndarray]) -> float:
    """The two-way bootstrap's variance of Σ_h Σ y_h (B → ∞) for strata h whose speakers
    are drawn within each and whose C contents share one draw (``tables[h][s, c]``)."""
    C = tables[0].shape[1]
    var = 0.0
    Ks: list[np.ndarray] = []
    ts: list[float] = []
    for y in tables:
        k = y.shape[0]
        t = float(y.sum())
        K = y.sum(axis=0)
        var += (
            (1 - 1 / C) * float(np.sum(y.sum(axis=1) ** 2))
            + (1 - 1 / k) * float(K @ K)
            + float(np.sum(y**2))
            - (1 / k + 1 / C - 1 / (k * C)) * t**2
        )
        for K2, t2 in zip(Ks, ts, strict=True):
            var += 2 * (float(K @ K2) - t * t2 / C)
        Ks.append(K)
        ts.append(t)
    return var


def two_way_variance(y_group: np.ndarray, y_reference: np.ndarray) -> float:
    """The two-way bootstrap's variance of the gap (B → ∞, linearised), from both sides'
    ``y[s, c]`` over the same C shared contents."""
    return _tables_variance([y_group, -y_reference])


def moment_variance(tables: Sequence[np.ndarray]) -> float:
    """The variance of Σ_h Σ y_h under crossed random speaker and content effects, estimated
    without the bootstrap's over-count of the speaker × content noise (the two-way
    cluster-robust variance: speakers + contents − cells; Cameron, Gelbach & Miller 2011),
    each part corrected for centring so that it is unbiased in a complete table whose y sum
    to zero in every stratum:
    Σ_h (Σ R² + Σ K_h² − Σ y²) / ((1 − 1/k_h)(1 − 1/C)) + Σ_{h≠h'} K_h·K_h' / (1 − 1/C).
    NaN where a stratum has one speaker or there is one content."""
    C = tables[0].shape[1]
    if C < 2 or any(y.shape[0] < 2 for y in tables):
        return math.nan
    out = 0.0
    Ks: list[np.ndarray] = []
    for y in tables:
        k = y.shape[0]
        K = y.sum(axis=0)
        own = float(np.sum(y.sum(axis=1) ** 2)) + float(K @ K) - float(np.sum(y**2))
        out += own / ((1 - 1 / k) * (1 - 1 / C))
        for K2 in Ks:
            out += 2 * float(K @ K2) / (1 - 1 / C)
        Ks.append(K)
    return out


def _table(y: np.ndarray, speakers: np.ndarray | None, contents: np.ndarray, C: int):
    import pandas as pd

    spk = np.asarray(speakers, dtype=object) if speakers is not None else None
    if spk is None:
        rows = np.arange(len(y))
    else:
        rows = pd.factorize(spk)[0]
        missing = rows < 0  # a missing id is its own block, as in the bootstrap
        rows[missing] = rows.max(initial=-1) + 1 + np.arange(int(missing.sum()))
    k = int(rows.max(initial=-1)) + 1
    T = np.zeros(k * C)
    np.add.at(T, rows * C + contents, y)
    return T.reshape(k, C)


def crossed_factor(
    ys: Sequence[np.ndarray],
    speakers: Sequence[np.ndarray | None],
    contents: Sequence[np.ndarray],
) -> float:
    """√(V_moment / V_bootstrap) ≤ 1 for a statistic linearised to per-item values ``ys[h]``
    in strata h (speakers drawn within each, contents sharing one draw): the factor that
    takes the two-way bootstrap's replicate deviations to the variance without its
    over-count. 1 where the moment estimate is unavailable or not positive."""
    import pandas as pd

    codes = pd.factorize(np.concatenate([np.asarray(c, dtype=object) for c in contents]))[0]
    C = int(codes.max(initial=-1)) + 1
    if C < 2:
        return 1.0
    raw, centred, start = [], [], 0
    for y, spk in zip(ys, speakers, strict=True):
        y = np.asarray(y, dtype=float)
        cc = codes[start : start + len(y)]
        start += len(y)
        raw.append(_table(y, spk, cc, C))
        centred.append(_table(y - y.mean(), spk, cc, C) if len(y) else raw[-1])
    boot = _tables_variance(raw)
    mom = moment_variance(centred)
    if not (math.isfinite(mom) and mom > 0 and math.isfinite(boot) and boot > 0):
        return 1.0
    from scipy.stats import norm, t

    G = min(C, *(y.shape[0] for y in raw))  # the fewer clusters: t with G - 1 df
    return min(1.0, math.sqrt(mom / boot) * float(t.ppf(0.975, G - 1) / norm.ppf(0.975)))


def difference_factor(spec: MetricSpec, plus, minus, parts) -> float:
    """:func:`crossed_factor` of a paired difference f(S; plus) − f(S; minus) (system B's
    statistic columns against A's on the same items), summed over ``parts``: tuples
    ``(X, speakers, contents, sign, totals)`` of a stratum's item statistics, its codes, ±1
    (a gap's reference side is −1) and the sums its value is computed on (a corpus value's
    are all strata's)."""
    ys, spks, conts = [], [], []
    for X, spk, cont, sign, totals in parts:
        w = gradient(spec, plus, totals) - gradient(spec, minus, totals)
        ys.append(sign * (np.asarray(X, dtype=float) @ w))
        spks.append(spk)
        conts.append(cont)
    return crossed_factor(ys, spks, conts)


def _subset_sizes(k_p: int) -> np.ndarray:
    return np.arange(max(2, math.ceil(k_p / 3)), k_p + 1)


def _fit(samples, n_coef: int) -> tuple[float, ...]:
    """Non-negative least squares of the variances over their design rows: ``samples``
    yields ``(row, variance)`` per subset; NaN coefficients with fewer than 3 finite ones."""
    from scipy.optimize import nnls

    kept = [(row, v) for row, v in samples if math.isfinite(v)]
    if len(kept) < 3:
        return (math.nan,) * n_coef
    coef, _ = nnls(np.asarray([r for r, _ in kept]), np.asarray([v for _, v in kept]))
    return tuple(float(c) for c in coef)


def _factor(n: int) -> float:
    """(n − 1)/n²: the bootstrap's finite-n factor of a term over n units."""
    return (n - 1) / n**2


def fit_speaker_terms(
    Tg: np.ndarray,
    Tr: np.ndarray,
    spec: MetricSpec,
    cols: Sequence[int],
    *,
    rng: np.random.Generator,
    n_subsets: int = N_SUBSETS,
) -> tuple[float, float, float]:
    """``(a_g, a_r, b)`` of V(k_g, k_r) over subsets of each side's pilot speakers
    (``T[s, c, k]`` blocks over the shared contents; the whole pilot is one of the subsets)."""
    kg, kr = Tg.shape[0], Tr.shape[0]
    sg, sr = _subset_sizes(kg), _subset_sizes(kr)

    def samples():
        for n in range(n_subsets + 1):
            if n == 0:
                ig, ir = np.arange(kg), np.arange(kr)
            else:
                ig = rng.choice(kg, size=int(rng.choice(sg)), replace=False)
                ir = rng.choice(kr, size=int(rng.choice(sr)), replace=False)
            v = two_way_variance(linearised(spec, cols, Tg[ig]), linearised(spec, cols, Tr[ir]))
            yield (_factor(len(ig)), _factor(len(ir)), 1.0), v

    a_g, a_r, b = _fit(samples(), 3)
    return a_g, a_r, b


def fit_content_terms(
    Tg: np.ndarray,
    Tr: np.ndarray,
    spec: MetricSpec,
    cols: Sequence[int],
    *,
    rng: np.random.Generator,
    n_subsets: int = N_SUBSETS,
) -> tuple[float, float]:
    """``(a, b)`` of V(c) = a (c − 1)/c² + b over subsets of c ≤ C of the shared contents
    (the same subset on both sides, every pilot speaker kept): b is what no number of
    contents removes (the speakers' share)."""
    C = Tg.shape[1]
    sizes = _subset_sizes(C)

    def samples():
        for n in range(n_subsets + 1):
            ic = (
                np.arange(C)
                if n == 0
                else rng.choice(C, size=int(rng.choice(sizes)), replace=False)
            )
            v = two_way_variance(
                linearised(spec, cols, Tg[:, ic]), linearised(spec, cols, Tr[:, ic])
            )
            yield (_factor(len(ic)), 1.0), v

    a, b = _fit(samples(), 2)
    return a, b


def curve_from_terms(terms: tuple[float, float, float], kg: int, kr: int, ks) -> np.ndarray:
    """SE(k) at k speakers per side (a side keeps its own where it has more)."""
    a_g, a_r, b = terms
    out = []
    for k in ks:
        g, r = max(int(k), kg), max(int(k), kr)
        out.append(math.sqrt(max(0.0, a_g * _factor(g) + a_r * _factor(r) + b)))
    return np.asarray(out)


def content_curve_from_terms(terms: tuple[float, float], cs) -> np.ndarray:
    """SE(c) at c shared contents, every speaker reading each."""
    a, b = terms
    return np.asarray([math.sqrt(max(0.0, a * _factor(int(c)) + b)) for c in cs])


__all__ = [
    "MIN_UNITS",
    "N_SUBSETS",
    "content_curve_from_terms",
    "crossed_factor",
    "curve_from_terms",
    "difference_factor",
    "fit_content_terms",
    "fit_speaker_terms",
    "gradient",
    "linearised",
    "moment_variance",
    "two_way_variance",
]
