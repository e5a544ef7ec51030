"""Univariate models: ``outcome ~ C(var)``, odds ratios, LR test and pseudo-R²."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..notices import Notice
from .data import _Data
from .fits import _design, _effects, _safe_fit, _separation, _wald
from .logp import chi2_log10
from .results import UnivariateResult


def _univariate(data: _Data, var: str, method: str, alpha: float) -> UnivariateResult:
    mask = np.array([v is not None for v in data.values[var]])
    n, ref = int(mask.sum()), data.levels[var][0]
    n_dropped = int((~mask).sum())
    test = "lr" if method == "plain" else "wald"

    def failed(problem: Notice | None) -> UnivariateResult:
        return UnivariateResult(
            variable=var, reference=ref, n=n, n_dropped=n_dropped, llr_p_value=math.nan,
            pseudo_r2=math.nan, levels=(), test=test, problem=problem,
        )  # fmt: skip

    problem = _separation(data, mask, [var], cells=False)
    if problem:
        return failed(problem)
    design = _design(data, mask, [var])
    fit, problem = _safe_fit(data, mask, design, method, alpha)
    if fit is None:
        return failed(problem)
    if method == "plain":
        stat = 2.0 * (fit.llf - fit.llnull)
        df = len(design.terms[var])
        p, lg = float(stats.chi2.sf(stat, df)), chi2_log10(stat, df)
    else:
        stat, df, p, lg = _wald(fit, design.terms[var])
    r2 = 1.0 - fit.llf / fit.llnull if method != "gee" else math.nan
    return UnivariateResult(
        variable=var,
        reference=ref,
        n=n,
        n_dropped=n_dropped,
        llr_p_value=p,
        llr_p_log10=lg,
        pseudo_r2=float(r2),
        levels=_effects(fit, design, var),
        llr_stat=float(stat),
        df=int(df),
        test=test,
    )
