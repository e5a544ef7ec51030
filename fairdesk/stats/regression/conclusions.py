"""Plain-English conclusions drawn from the regression results."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .results import AdjustmentResult, ClusteredResult, IndependenceResult, UnivariateResult


def _fmt_p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _conclusions(
    univariate: Sequence[UnivariateResult],
    adjustments: Sequence[AdjustmentResult],
    clustered: ClusteredResult | None,
    independence: Sequence[IndependenceResult],
    label: str,
    alpha: float,
    binomial: bool,
    notes: Sequence[str],
) -> list[str]:
    out: list[str] = []
    odds = "odds ratio of a word error" if binomial else "odds ratio"
    for u in univariate:
        if u.problem:
            out.append(f"{_cap(u.variable)} could not be modelled: {u.problem}.")
        elif u.llr_p_value < alpha:
            best = min(u.levels, key=lambda lev: lev.p_value)
            out.append(
                f"{_cap(u.variable)} is associated with {label} (LR p = {_fmt_p(u.llr_p_value)}), "
                f"{odds} for {best.level} vs {u.reference}: {best.odds_ratio:.2f} "
                f"[{best.ci_low:.2f}, {best.ci_high:.2f}]."
            )
        else:
            out.append(
                f"No evidence that {u.variable} is associated with {label} "
                f"(LR p = {_fmt_p(u.llr_p_value)})."
            )
    seen_inter: set[frozenset[str]] = set()
    for adj in adjustments:
        a, b = adj.variable, adj.adjusted_on
        if adj.problem:
            out.append(f"{_cap(a)} could not be adjusted on {b}: {adj.problem}.")
            continue
        if adj.confounder:
            adj_sig = [lev for lev in adj.levels if lev.p_value < alpha]
            was_sig = [lev for lev in adj.unadjusted_levels if lev.p_value < alpha]
            if not adj_sig and was_sig:
                out.append(
                    f"The effect of {a} is explained by {b}: adjusted on {b}, no level of {a} "
                    f"differs significantly (LR p = {_fmt_p(adj.p_value)})."
                )
            else:
                by_level = {lev.level: lev for lev in adj.levels}
                parts = [
                    f"{lev} {'becomes' if by_level[lev].p_value < alpha else 'is no longer'} "
                    f"significant (p = {_fmt_p(by_level[lev].p_value)})"
                    for lev in adj.changed_levels
                ]
                out.append(
                    f"{_cap(b)} confounds the effect of {a} (LR p = {_fmt_p(adj.p_value)}): "
                    f"adjusted on {b}, {'; '.join(parts)}."
                )
        pair = frozenset((a, b))
        if (
            adj.with_interaction
            and pair not in seen_inter
            and math.isfinite(adj.interaction_p_value)
            and adj.interaction_p_value < alpha
        ):
            seen_inter.add(pair)
            out.append(
                f"The effect of {a} depends on {b} (interaction LR p = "
                f"{_fmt_p(adj.interaction_p_value)})."
            )
    if clustered is not None:
        how = (
            "cluster-robust standard errors"
            if clustered.method == "robust"
            else "a GEE with exchangeable correlation"
        )
        for plain, clus in zip(univariate, clustered.univariate, strict=True):
            if plain.problem or clus.problem:
                continue
            if plain.llr_p_value < alpha <= clus.llr_p_value:
                out.append(
                    f"Allowing for {clustered.cluster} clustering ({how}), the association of "
                    f"{plain.variable} with {label} is no longer significant (Wald p = "
                    f"{_fmt_p(clus.llr_p_value)}, against LR p = {_fmt_p(plain.llr_p_value)} "
                    "when utterances are treated as independent)."
                )
        for plain, clus in zip(adjustments, clustered.adjustments, strict=True):
            if plain.confounder and not clus.confounder and not clus.problem:
                out.append(
                    f"Allowing for {clustered.cluster} clustering, the evidence that "
                    f"{plain.adjusted_on} confounds {plain.variable} does not hold (Wald p = "
                    f"{_fmt_p(clus.p_value)})."
                )
    for ind in independence:
        if ind.valid and ind.p_value < alpha:
            out.append(
                f"{_cap(ind.variable_a)} and {ind.variable_b} are not independent in this corpus "
                f"(χ² p = {_fmt_p(ind.p_value)}): read univariate results with the adjusted ones."
            )
    out.extend(notes)
    return out
