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
speakers averages it over k. :func:`two_way_speaker_curve` therefore measures the variance
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

#: Speaker subsets a curve is fitted on.
N_SUBSETS = 400
#: The fewest speakers per side (shared contents) that a subset fit needs.
MIN_UNITS = 4


def _values(spec: MetricSpec, sums: np.ndarray, cols: Sequence[int]) -> np.ndarray:
    return np.asarray(spec.compute(sums[..., list(cols)]), dtype=float)


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
    v = _values(spec, probe, cols)
    g[cols] = (v[0::2] - v[1::2]) / (2 * h)
    return np.where(np.isfinite(g), g, 0.0)


def linearised(spec: MetricSpec, cols: Sequence[int], T: np.ndarray) -> np.ndarray:
    """``y[s, c] = ∇f(S) · T[s, c]`` of a side's blocks ``T[s, c, k]`` (S = their total)."""
    return T @ gradient(spec, cols, T.sum(axis=(0, 1)))


def _side_terms(y: np.ndarray) -> tuple[float, np.ndarray, float]:
    k, C = y.shape
    tot = float(y.sum())
    var = (
        (1 - 1 / C) * float(np.sum(y.sum(axis=1) ** 2))
        + (1 - 1 / k) * float(np.sum(y.sum(axis=0) ** 2))
        + float(np.sum(y**2))
        - (1 / k + 1 / C - 1 / (k * C)) * tot**2
    )
    return var, y.sum(axis=0), tot


def two_way_variance(y_group: np.ndarray, y_reference: np.ndarray) -> float:
    """The two-way bootstrap's variance of the gap (B → ∞, linearised), from both sides'
    ``y[s, c]`` over the same C shared contents."""
    vg, Kg, tg = _side_terms(y_group)
    vr, Kr, tr = _side_terms(y_reference)
    C = y_group.shape[1]
    return vg + vr - 2 * (float(Kg @ Kr) - tg * tr / C)


def _subset_sizes(k_p: int) -> np.ndarray:
    return np.arange(max(2, math.ceil(k_p / 3)), k_p + 1)


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
    from scipy.optimize import nnls

    kg, kr = Tg.shape[0], Tr.shape[0]
    sg, sr = _subset_sizes(kg), _subset_sizes(kr)
    rows, vals = [], []
    for n in range(n_subsets + 1):
        if n == 0:
            ig, ir = np.arange(kg), np.arange(kr)
        else:
            ig = rng.choice(kg, size=int(rng.choice(sg)), replace=False)
            ir = rng.choice(kr, size=int(rng.choice(sr)), replace=False)
        v = two_way_variance(linearised(spec, cols, Tg[ig]), linearised(spec, cols, Tr[ir]))
        if not math.isfinite(v):
            continue
        a, b = len(ig), len(ir)
        rows.append(((a - 1) / a**2, (b - 1) / b**2, 1.0))
        vals.append(v)
    if len(vals) < 3:
        return math.nan, math.nan, math.nan
    coef, _ = nnls(np.asarray(rows), np.asarray(vals))
    return float(coef[0]), float(coef[1]), float(coef[2])


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
    from scipy.optimize import nnls

    C = Tg.shape[1]
    sizes = _subset_sizes(C)
    rows, vals = [], []
    for n in range(n_subsets + 1):
        ic = np.arange(C) if n == 0 else rng.choice(C, size=int(rng.choice(sizes)), replace=False)
        v = two_way_variance(linearised(spec, cols, Tg[:, ic]), linearised(spec, cols, Tr[:, ic]))
        if math.isfinite(v):
            rows.append(((len(ic) - 1) / len(ic) ** 2, 1.0))
            vals.append(v)
    if len(vals) < 3:
        return math.nan, math.nan
    coef, _ = nnls(np.asarray(rows), np.asarray(vals))
    return float(coef[0]), float(coef[1])


def curve_from_terms(terms: tuple[float, float, float], kg: int, kr: int, ks) -> np.ndarray:
    """SE(k) at k speakers per side (a side keeps its own where it has more)."""
    a_g, a_r, b = terms
    out = []
    for k in ks:
        g, r = max(int(k), kg), max(int(k), kr)
        out.append(math.sqrt(max(0.0, a_g * (g - 1) / g**2 + a_r * (r - 1) / r**2 + b)))
    return np.asarray(out)


def content_curve_from_terms(terms: tuple[float, float], cs) -> np.ndarray:
    """SE(c) at c shared contents, every speaker reading each."""
    a, b = terms
    return np.asarray([math.sqrt(max(0.0, a * (c - 1) / c**2 + b)) for c in cs])


__all__ = [
    "MIN_UNITS",
    "N_SUBSETS",
    "content_curve_from_terms",
    "curve_from_terms",
    "fit_content_terms",
    "fit_speaker_terms",
    "gradient",
    "linearised",
    "two_way_variance",
]
