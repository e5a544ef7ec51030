"""Adjustment of each variable on each other one (confounding), and the interaction test."""

from __future__ import annotations

import math
from typing import Any, TypedDict

import numpy as np
from scipy import stats

from ..notices import Notice, notice
from .codes import (
    COLLINEAR,
    INTERACTION_MODEL,
    NO_INTERACTION_TERM,
    REFERENCE_ABSENT,
    SINGLE_LEVEL,
)
from .data import _Data
from .fits import _design, _effects, _Fit, _present_levels, _rank, _safe_fit, _separation, _wald
from .logp import chi2_log10
from .results import AdjustmentResult


class _Interaction(TypedDict, total=False):
    """The interaction fields of an :class:`AdjustmentResult`."""

    interaction_lr_stat: float
    interaction_df: int
    interaction_p_value: float
    interaction_p_log10: float
    interaction_problem: Notice | None


def _adjustment(
    data: _Data,
    a: str,
    b: str,
    method: str,
    alpha: float,
    interactions: bool,
    cache: dict[tuple, Any],
) -> AdjustmentResult:
    mask = np.array(
        [
            va is not None and vb is not None
            for va, vb in zip(data.values[a], data.values[b], strict=True)
        ]
    )
    test = "lr" if method == "plain" else "wald"
    n = int(mask.sum())

    def failed(problem: Notice | None) -> AdjustmentResult:
        return AdjustmentResult(
            variable=a, adjusted_on=b, n=n, test=test, with_interaction=interactions,
            lr_stat=math.nan, df=0, p_value=math.nan, confounder=False, or_change_pct={},
            problem=problem,
        )  # fmt: skip

    for var in (a, b):
        present = _present_levels(data, var, mask)
        if len(present) < 2 or present[0] != data.levels[var][0]:
            other = b if var == a else a
            why = (
                notice(SINGLE_LEVEL, variable=var, other=other)
                if len(present) < 2
                else notice(
                    REFERENCE_ABSENT, variable=var, reference=data.levels[var][0], other=other
                )
            )
            return failed(why)
    problem = _separation(data, mask, [a, b], cells=False)
    if problem:
        return failed(problem)
    d1 = _design(data, mask, [a])
    key = (frozenset((a, b)), method)
    if key not in cache:
        d2 = _design(data, mask, [a, b])
        if _rank(d2.X) < d2.X.shape[1]:
            cache[key] = (
                d2,
                None,
                notice(COLLINEAR, variable=a, other=b),
            )
        else:
            cache[key] = (d2, *_safe_fit(data, mask, d2, method, alpha))
    d2, fit2, problem = cache[key]
    fit1, problem1 = _safe_fit(data, mask, d1, method, alpha)
    if fit2 is None or fit1 is None:
        return failed(problem or problem1)

    if method == "plain":
        stat = 2.0 * (fit2.llf - fit1.llf)
        df = len(d2.terms[b])
        p, lg = float(stats.chi2.sf(stat, df)), chi2_log10(stat, df)
    else:
        stat, df, p, lg = _wald(fit2, d2.terms[b])
    # d1 and d2 list A's levels in the same order, so indices line up level by level
    i1, i2 = d1.terms[a], d2.terms[a]
    changed = tuple(
        lev
        for lev, j1, j2 in zip(d1.term_levels[a], i1, i2, strict=True)
        if (fit1.pvalues[j1] < alpha) != (fit2.pvalues[j2] < alpha)
    )
    change = {
        lev: float(100.0 * (np.exp(fit2.params[j2] - fit1.params[j1]) - 1.0))
        for lev, j1, j2 in zip(d1.term_levels[a], i1, i2, strict=True)
    }
    inter: _Interaction = {}
    if interactions:
        ikey = (frozenset((a, b)), method, "interaction")
        if ikey not in cache:
            cache[ikey] = _interaction(data, mask, a, b, fit2, method, alpha)
        inter = cache[ikey]
    return AdjustmentResult(
        variable=a,
        adjusted_on=b,
        n=n,
        test=test,
        with_interaction=interactions,
        lr_stat=float(stat),
        df=int(df),
        p_value=p,
        p_log10=lg,
        confounder=bool(p < alpha and changed),
        or_change_pct=change,
        levels=_effects(fit2, d2, a),
        unadjusted_levels=_effects(fit1, d1, a),
        changed_levels=changed,
        **inter,
    )


def _json(note: Notice | None) -> dict[str, Any] | None:
    """A note nested in another's args: its JSON, so the args stay JSON-ready."""
    return None if note is None else note.to_json()


def _interaction(
    data: _Data, mask: np.ndarray, a: str, b: str, fit2: _Fit, method: str, alpha: float
) -> _Interaction:
    failed: _Interaction = {
        "interaction_lr_stat": math.nan,
        "interaction_df": 0,
        "interaction_p_value": math.nan,
    }
    problem = _separation(data, mask, [a, b], cells=True)
    if problem:
        return {**failed, "interaction_problem": notice(INTERACTION_MODEL, problem=_json(problem))}
    d3 = _design(data, mask, [a, b], interaction=True)
    inter = d3.terms[a + ":" + b]
    if not inter:
        return {
            **failed,
            "interaction_problem": notice(NO_INTERACTION_TERM),
        }
    fit3, problem = _safe_fit(data, mask, d3, method, alpha)
    if fit3 is None:
        return {**failed, "interaction_problem": notice(INTERACTION_MODEL, problem=_json(problem))}
    if method == "plain":
        stat = 2.0 * (fit3.llf - fit2.llf)
        df = len(inter)
        p, lg = float(stats.chi2.sf(stat, df)), chi2_log10(stat, df)
    else:
        stat, df, p, lg = _wald(fit3, inter)
    return {
        "interaction_lr_stat": float(stat),
        "interaction_df": int(df),
        "interaction_p_value": p,
        "interaction_p_log10": lg,
        "interaction_problem": None,
    }
