"""The logistic (and binomial) regression's conclusions in words, from its numbers.

:func:`logistic_sentences` writes them from the typed results of
:mod:`fairdesk.stats.regression` (:func:`logistic_results` reads those back from a stored
result dict, null numbers as NaN, as the fit had them). Column names are written as given
(``dialectal_region``, never ``Dialectal_region``), and p-values through
:mod:`fairdesk.presentation.pvalues` (one that underflowed to 0.0 reads
``p < 1e-300 (log10 p = -412.3)``). A variable's headline names the level that differs most
(:func:`~fairdesk.stats.regression.conclusions.largest_effect`; docs/METHODS.md,
"Conclusions and p-values").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..stats.regression.conclusions import largest_effect
from ..stats.regression.results import (
    AdjustmentResult,
    ClusteredResult,
    IndependenceResult,
    UnivariateResult,
)
from .notices import notice_text
from .pvalues import p_clause

__all__ = ["logistic_sentences"]


def _f2(x: float) -> str:
    """An odds ratio or a bound in a sentence, two decimals as Python writes them."""
    return f"{x:.2f}"


def _headline(u: UnivariateResult, label: str, alpha: float, binomial: bool) -> str:
    """``accent is associated with exact match (LR p = …), odds ratio for b vs a: …`` with one
    level; with more, the range of the odds ratios and the level that differs most."""
    odds = "odds ratio of a word error" if binomial else "odds ratio"
    lr = p_clause("LR p", u.llr_p_value, u.llr_p_log10)
    head = f"{u.variable} is associated with {label} ({lr})"
    best = largest_effect(u.levels, alpha)
    if best is None:
        return f"{head}."
    est = f"{_f2(best.odds_ratio)} [{_f2(best.ci_low)}, {_f2(best.ci_high)}]"
    if len(u.levels) == 1:
        return f"{head}, {odds} for {best.level} vs {u.reference}: {est}."
    ors = [lev.odds_ratio for lev in u.levels if math.isfinite(lev.odds_ratio)]
    odds_pl = odds.replace("odds ratio", "odds ratios", 1)
    return (
        f"{head}: {odds_pl} vs {u.reference} range {_f2(min(ors))}–{_f2(max(ors))} over "
        f"{len(u.levels)} levels; largest difference: {best.level} {est}, "
        f"{p_clause('p', best.p_value, best.p_log10)}."
    )


def logistic_sentences(
    univariate: Sequence[UnivariateResult],
    adjustments: Sequence[AdjustmentResult],
    clustered: ClusteredResult | None,
    independence: Sequence[IndependenceResult],
    label: str,
    alpha: float,
    binomial: bool,
    notes: Sequence[str],
) -> list[str]:
    """Per variable its association with the outcome, per adjustment a confounding or an
    interaction, what speaker clustering changes, the dependent pairs of variables; then
    ``notes``."""
    out: list[str] = []
    for u in univariate:
        lr = p_clause("LR p", u.llr_p_value, u.llr_p_log10)
        if u.problem:
            out.append(f"{u.variable} could not be modelled: {notice_text(u.problem)}.")
        elif u.llr_p_value < alpha:
            out.append(_headline(u, label, alpha, binomial))
        else:
            out.append(f"No evidence that {u.variable} is associated with {label} ({lr}).")
    seen_inter: set[frozenset[str]] = set()
    for adj in adjustments:
        a, b = adj.variable, adj.adjusted_on
        lr = p_clause("LR p", adj.p_value, adj.p_log10)
        if adj.problem:
            out.append(f"{a} could not be adjusted on {b}: {notice_text(adj.problem)}.")
            continue
        if adj.confounder:
            adj_sig = [lev for lev in adj.levels if lev.p_value < alpha]
            was_sig = [lev for lev in adj.unadjusted_levels if lev.p_value < alpha]
            if not adj_sig and was_sig:
                out.append(
                    f"The effect of {a} is explained by {b}: adjusted on {b}, no level of {a} "
                    f"differs significantly ({lr})."
                )
            else:
                by_level = {lev.level: lev for lev in adj.levels}
                parts = [
                    f"{lev} {'becomes' if by_level[lev].p_value < alpha else 'is no longer'} "
                    f"significant ({p_clause('p', by_level[lev].p_value, by_level[lev].p_log10)})"
                    for lev in adj.changed_levels
                ]
                out.append(
                    f"{b} confounds the effect of {a} ({lr}): adjusted on {b}, {'; '.join(parts)}."
                )
        pair = frozenset((a, b))
        if (
            adj.with_interaction
            and pair not in seen_inter
            and math.isfinite(adj.interaction_p_value)
            and adj.interaction_p_value < alpha
        ):
            seen_inter.add(pair)
            inter = p_clause("LR p", adj.interaction_p_value, adj.interaction_p_log10)
            out.append(f"The effect of {a} depends on {b} (interaction {inter}).")
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
                wald = p_clause("Wald p", clus.llr_p_value, clus.llr_p_log10)
                lr = p_clause("LR p", plain.llr_p_value, plain.llr_p_log10)
                out.append(
                    f"Allowing for {clustered.cluster} clustering ({how}), the association of "
                    f"{plain.variable} with {label} is no longer significant ({wald}, against "
                    f"{lr} when utterances are treated as independent)."
                )
        for plain_adj, clus_adj in zip(adjustments, clustered.adjustments, strict=True):
            if plain_adj.confounder and not clus_adj.confounder and not clus_adj.problem:
                out.append(
                    f"Allowing for {clustered.cluster} clustering, the evidence that "
                    f"{plain_adj.adjusted_on} confounds {plain_adj.variable} does not hold "
                    f"({p_clause('Wald p', clus_adj.p_value, clus_adj.p_log10)})."
                )
    for ind in independence:
        if ind.valid and ind.p_value < alpha:
            out.append(
                f"{ind.variable_a} and {ind.variable_b} are not independent in this corpus "
                f"({p_clause('χ² p', ind.p_value, ind.p_log10)}): read univariate results with "
                "the adjusted ones."
            )
    out.extend(notes)
    return out
