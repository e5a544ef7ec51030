"""Design matrices and fits: plain maximum likelihood, speaker-clustered (cluster-robust
covariance or GEE), separation checks, Wald tests and per-level effects."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import stats
from statsmodels.tools.sm_exceptions import PerfectSeparationError

from ..notices import Notice, notice
from .codes import NOT_CONVERGED, NOT_ESTIMABLE, SEPARATION, SEPARATION_WORDS
from .data import _Data
from .logp import chi2_log10, normal_log10
from .results import LevelEffect

CLUSTER_METHODS = ("robust", "gee")
_MAX_ABS_COEF = 20.0  # |log-odds| beyond this means the fit ran off to infinity (separation)


@dataclass
class _Design:
    X: np.ndarray
    names: list[str]
    terms: dict[str, list[int]]  # variable (or "A:B") -> column indices
    term_levels: dict[str, list[str]]  # variable -> its non-reference levels, in column order


@dataclass
class _Fit:
    params: np.ndarray
    bse: np.ndarray
    pvalues: np.ndarray
    log10_pvalues: np.ndarray  # log10 of the Wald p from the z, kept where p underflows
    ci: np.ndarray  # (k, 2) on the log-odds scale
    cov: np.ndarray
    llf: float
    llnull: float


def _present_levels(data: _Data, var: str, mask: np.ndarray) -> list[str]:
    present = set(data.values[var][mask])
    return [lev for lev in data.levels[var] if lev in present]


def _rank(X: np.ndarray) -> int:
    """Column rank of a tall 0/1 design, from its small Gram matrix (fast for many rows)."""
    return int(np.linalg.matrix_rank(X.T @ X, hermitian=True))


def _design(
    data: _Data, mask: np.ndarray, variables: Sequence[str], interaction: bool = False
) -> _Design:
    n = int(mask.sum())
    cols = [np.ones(n)]
    names = ["Intercept"]
    terms: dict[str, list[int]] = {}
    term_levels: dict[str, list[str]] = {}
    dummies: dict[str, list[np.ndarray]] = {}
    for var in variables:
        vals = data.values[var][mask]
        levs = _present_levels(data, var, mask)[1:]
        term_levels[var] = levs
        terms[var] = []
        dummies[var] = []
        for lev in levs:
            col = (vals == lev).astype(float)
            terms[var].append(len(cols))
            cols.append(col)
            dummies[var].append(col)
            names.append(var + "[T." + lev + "]")
    X = np.column_stack(cols)
    if interaction:
        a, b = variables
        key = a + ":" + b
        terms[key] = []
        cells = [
            (a + "[T." + la + "]:" + b + "[T." + lb + "]", ca * cb)
            for la, ca in zip(term_levels[a], dummies[a], strict=True)
            for lb, cb in zip(term_levels[b], dummies[b], strict=True)
        ]
        cells = [(name, col) for name, col in cells if col.any()]  # empty cell: no parameter
        if cells:
            full = np.column_stack([X] + [col for _, col in cells])
            gram = full.T @ full  # one product; rank checks below work on its sub-blocks
            keep = list(range(X.shape[1]))
            for j, (name, _) in enumerate(cells, start=X.shape[1]):
                trial = keep + [j]
                if np.linalg.matrix_rank(gram[np.ix_(trial, trial)], hermitian=True) > len(keep):
                    keep.append(j)  # not aliased with earlier columns
                    terms[key].append(len(keep) - 1)
                    names.append(name)
            X = full[:, keep]
    return _Design(X=X, names=names, terms=terms, term_levels=term_levels)


def _separation(
    data: _Data, mask: np.ndarray, variables: Sequence[str], cells: bool
) -> Notice | None:
    """Why a level (or, with ``cells``, a cross cell) cannot be fitted: a degenerate
    outcome (``cell``: its [variable, level] pairs)."""
    y = data.y[mask]
    t = data.trials[mask] if data.trials is not None else np.ones_like(y)
    unit = "cell" if cells else "level"
    labelled: list[tuple[list[list[str]], np.ndarray]] = []
    if cells:
        table = pd.DataFrame({var: data.values[var][mask] for var in variables})
        for key, rows in table.groupby(list(variables), sort=False).indices.items():
            pairs = [[var, str(lev)] for var, lev in zip(variables, key, strict=True)]
            labelled.append((pairs, rows))
    else:
        for var in variables:
            vals = data.values[var][mask]
            for lev in _present_levels(data, var, mask):
                labelled.append(([[var, lev]], np.flatnonzero(vals == lev)))
    for cell, rows in labelled:
        succ, tot = y[rows].sum(), t[rows].sum()
        if succ == 0 or succ == tot:
            if data.binomial:
                return notice(
                    SEPARATION_WORDS, cell=cell, unit=unit, all_wrong=bool(succ > 0), words=int(tot)
                )
            return notice(SEPARATION, cell=cell, unit=unit, value=int(succ > 0), rows=len(rows))
    return None


def _fit(data: _Data, mask: np.ndarray, X: np.ndarray, method: str, alpha: float) -> _Fit:
    """Fit one model. ``method``: "plain", "robust" (cluster-robust cov) or "gee"."""
    y = data.y[mask]
    groups = data.groups[mask] if data.groups is not None else None
    cov_kw: dict[str, Any] = {}
    if method == "robust":
        cov_kw = {"cov_type": "cluster", "cov_kwds": {"groups": groups}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence is checked below, not warned about
        if method == "gee":
            assert groups is not None, "a GEE needs the speaker clusters"
            if data.trials is not None:  # one Bernoulli row per reference word, same cluster
                trials = data.trials[mask].astype(int)
                rows = np.repeat(np.arange(len(y)), trials)
                pos = np.arange(rows.size) - np.repeat(np.cumsum(trials) - trials, trials)
                y_fit, X_fit, g_fit = (pos < y[rows]).astype(float), X[rows], groups[rows]
            else:
                y_fit, X_fit, g_fit = y, X, groups
            model = sm.GEE(
                y_fit,
                X_fit,
                groups=g_fit,
                family=sm.families.Binomial(),
                cov_struct=sm.cov_struct.Exchangeable(),
            )
            res = model.fit(maxiter=100)
            converged = bool(getattr(res, "converged", True))
            llf = llnull = math.nan
        elif data.trials is not None:  # binomial
            endog = np.column_stack([y, data.trials[mask] - y])
            res = sm.GLM(endog, X, family=sm.families.Binomial()).fit(**cov_kw)
            converged = bool(res.converged)
            llf, llnull = float(res.llf), float(res.llnull)
        else:
            res = sm.Logit(y, X).fit(disp=0, maxiter=100, **cov_kw)
            converged = bool(res.mle_retvals.get("converged", True))
            # closed-form intercept-only log-likelihood (statsmodels refits it by Nelder-Mead)
            p0 = float(y.mean())
            llf, llnull = float(res.llf), len(y) * (p0 * math.log(p0) + (1 - p0) * math.log1p(-p0))
        params = np.asarray(res.params, dtype=float)
        bse = np.asarray(res.bse, dtype=float)
        # statsmodels' Wald p of these fits is the normal's (no use_t): 2·Φ(−|z|)
        z = np.asarray(res.tvalues, dtype=float)
        fit = _Fit(
            params=params,
            bse=bse,
            pvalues=np.asarray(res.pvalues, dtype=float),
            log10_pvalues=np.array([normal_log10(v) for v in z]),
            ci=np.asarray(res.conf_int(alpha), dtype=float),
            cov=np.asarray(res.cov_params(), dtype=float),
            llf=llf,
            llnull=llnull,
        )
    if not converged or not np.all(np.isfinite(bse)) or np.abs(params).max() > _MAX_ABS_COEF:
        raise _FitProblem(notice(NOT_CONVERGED))
    return fit


class _FitProblem(Exception):
    """A model that cannot be estimated; reported per variable, never raised to the caller
    (``args[0]``: its coded note)."""


def _wald(fit: _Fit, idx: list[int]) -> tuple[float, int, float, float]:
    """Wald χ² of H0: params[idx] = 0 with the fit's covariance; (stat, df, p, log10 p)."""
    b = fit.params[idx]
    V = fit.cov[np.ix_(idx, idx)]
    df = int(np.linalg.matrix_rank(V))
    stat = float(b @ np.linalg.pinv(V) @ b)
    p = float(stats.chi2.sf(stat, df)) if df else math.nan
    return stat, df, p, chi2_log10(stat, df)


def _effects(fit: _Fit, design: _Design, var: str) -> tuple[LevelEffect, ...]:
    return tuple(
        LevelEffect(
            level=lev,
            odds_ratio=float(np.exp(fit.params[i])),
            ci_low=float(np.exp(fit.ci[i, 0])),
            ci_high=float(np.exp(fit.ci[i, 1])),
            p_value=float(fit.pvalues[i]),
            p_log10=float(fit.log10_pvalues[i]),
        )
        for lev, i in zip(design.term_levels[var], design.terms[var], strict=True)
    )


def _safe_fit(
    data: _Data, mask: np.ndarray, design: _Design, method: str, alpha: float
) -> tuple[_Fit | None, Notice | None]:
    try:
        return _fit(data, mask, design.X, method, alpha), None
    except _FitProblem as exc:
        return None, exc.args[0]
    except (np.linalg.LinAlgError, PerfectSeparationError, ValueError) as exc:
        return None, notice(NOT_ESTIMABLE, error=type(exc).__name__, message=str(exc))
