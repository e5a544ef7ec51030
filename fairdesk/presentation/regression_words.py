"""The regression results in words, written at output time from their numbers.

:func:`regression_conclusions` is the one function every view calls for a regression's
conclusions (``fairdesk regress`` and its ``--json``, the GUI's Regression tab, the HTML
report): the sentences the fit stored, then the sentences written here from the stored
numbers: the logistic family's model sentences
(:mod:`.regression_logit_words`) and χ² and one-way ANOVA tests (:func:`descriptive_sentences`,
Sekkat et al.'s appendix C), and the OLS family's (:func:`linear_sentences`), and the mixed Poisson family's
(:func:`~.regression_poisson_words.poisson_conclusions`, from the decoded
:class:`~fairdesk.stats.regression.poisson_mixed_result.MixedPoissonResult`); a result stored
before they were written here (its ``conclusions`` hold them) is read with today's words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import takewhile
from typing import Any

from ..core.pvalues import p_clause
from ..jobs.regression_result import RegressionRun, outcome_label
from ..stats.regression.poisson_mixed_result import MixedPoissonResult
from ..stats.regression.results import RegressionResult
from .numbers import fmt_number, fmt_p_coarse
from .regression_logit_words import logistic_results, logistic_sentences
from .regression_poisson_words import poisson_conclusions

__all__ = [
    "descriptive_sentences",
    "linear_sentences",
    "regression_conclusions",
    "result_conclusions",
]


def _signed(x: float, decimals: int) -> str:
    """``+0.0123``: a coefficient, its bounds, a correlation (the sign always shown)."""
    return f"{x:+.{decimals}f}"


def linear_sentences(res: Mapping[str, Any]) -> list[str]:
    """The OLS family's conclusions from its stored numbers (``run_linear``'s dict): per
    covariate its coefficient with CI and p (holding the others fixed), its Spearman
    correlation (descriptive), R², then the fit's notes."""
    what = "WER" if res.get("outcome", "wer") == "wer" else str(res["outcome"])
    alpha = float(res.get("alpha", 0.05))
    covariates = [str(s["covariate"]) for s in res.get("spearman") or []]
    by = {c["term"]: c for c in res.get("coefficients") or []}
    unit = res["level"]
    lines = []
    for c in covariates:
        e = by.get(c)
        if e is None or e["estimate"] is None:
            continue
        ci = (
            f"{fmt_fixed(100 * (1 - alpha), 0)}% CI "
            f"[{_signed(e['ci_low'], 4)}, {_signed(e['ci_high'], 4)}]"
        )
        p = e["p_value"]
        ptxt = "p < 0.001" if p is not None and p < 0.001 else f"p = {fmt_fixed(p, 3)}"
        others = [x for x in covariates if x != c]
        held = f", holding {', '.join(others)} fixed" if others else ""
        if p is not None and p < alpha:
            lines.append(
                f"{what} per {unit} changes by {_signed(e['estimate'], 4)} per unit of {c}"
                f"{held} ({ci}, {ptxt}; OLS, n = {res['n']} {unit}s)."
            )
        else:
            lines.append(
                f"No evidence that {c} predicts {what} per {unit}{held} "
                f"(β = {_signed(e['estimate'], 4)}, {ci}, {ptxt}; n = {res['n']})."
            )
    for s in res.get("spearman") or []:
        if s["rho"] is None or math.isnan(float(s["rho"])):
            continue
        lines.append(
            f"Spearman correlation of {what} with {s['covariate']}: ρ = "
            f"{_signed(s['rho'], 2)} ({p_clause('p', s['p_value'], s.get('p_log10'), sig=3)}, "
            f"n = {s['n']} {unit}s; "
            "descriptive)."
        )
    lines.append(f"R² = {fmt_fixed(res['r2'], 3)} (adjusted {fmt_fixed(res['adj_r2'], 3)}).")
    return lines + [str(n) for n in res.get("notes") or []]


def fmt_fixed(x: float, decimals: int) -> str:
    """A statistic to ``decimals`` places as Python writes it (``nan`` included)."""
    return f"{x:.{decimals}f}"


def descriptive_sentences(block: Mapping[str, Any], outcome_label: str, alpha: float) -> list[str]:
    """One line per χ² test of the outcome by a variable and per one-way ANOVA of
    ``block`` (a regression result's ``outcome_chi2`` and ``anova`` entries); a test without
    a statistic (fewer than two levels, a constant outcome) says nothing."""
    lines = []
    for c in block.get("outcome_chi2") or []:
        if c.get("p_value") is None or c.get("chi2") is None:
            continue
        sig = "depends on" if c["p_value"] < alpha else "shows no evidence of depending on"
        lines.append(
            f"χ² test: {outcome_label} {sig} {c['variable']} (χ² = {fmt_number(c['chi2'], 2)}, "
            f"df = {c['df']}, {fmt_p_coarse(c['p_value'])}, on {c['unit']})."
        )
    for a in block.get("anova") or []:
        if a.get("p_value") is None:
            continue
        if a.get("f") is None:
            lines.append(
                f"One-way ANOVA by {a['variable']}: the outcome does not vary within "
                "any level, so F is infinite (the levels differ completely)."
            )
            continue
        lines.append(
            f"One-way ANOVA of the {a['per']} by {a['variable']}: F({a['df_between']}, "
            f"{a['df_within']}) = {fmt_number(a['f'], 2)}, {fmt_p_coarse(a['p_value'])}."
        )
    return lines


def regression_conclusions(run: RegressionRun) -> list[str]:
    """The conclusions of ``run`` in words, as every view shows them.

    The OLS family's are all written from its stored numbers (stored sentences are not read).
    The logistic family's: its cautions, the sentences of :func:`~.regression_logit_words.
    logistic_sentences` from the stored models, the data notes, then the χ² and ANOVA
    sentences, written at the run's ``alpha`` and naming the outcome by the stored
    ``outcome_label``. A logistic result stored before the sentences moved here (no
    ``notes`` key: its ``conclusions`` hold them all) is read with today's words: the notes
    are what follows the cautions and as many sentences as the models give, the outcome
    named from the request (:func:`~fairdesk.jobs.regression_result.outcome_label`) when the
    result does not name it. The mixed Poisson family's are all written from its decoded
    result (:func:`~.regression_poisson_words.poisson_conclusions`). Other families' stored
    sentences are shown as stored.
    """
    res = run.result
    if run.family == "linear":
        return linear_sentences(res)
    if run.family == "poisson-mixed":
        return poisson_conclusions(MixedPoissonResult.from_json(res))
    stored = [str(s) for s in res.get("conclusions") or []]
    if run.family != "logit":
        return stored
    alpha = float(res.get("alpha", run.alpha))
    binomial = res.get("model") == "binomial"
    uni, adj, clustered, ind = logistic_results(res)
    if "cautions" in res:
        cautions = [str(s) for s in res["cautions"]]
    else:
        cautions = list(takewhile(lambda s: s.startswith("Caution: "), stored))
    label = res.get("outcome_label")
    if label is None:  # stored with the test sentences written in: drop them
        label = outcome_label(run.outcome)
        stored = _without_last(stored, len(descriptive_sentences(res, str(label), alpha)))
    label = str(label)
    if "notes" in res:
        notes = [str(s) for s in res["notes"]]
    else:  # stored with the models' sentences written in, between cautions and notes
        said = logistic_sentences(uni, adj, clustered, ind, label, alpha, binomial, ())
        notes = stored[len(cautions) + len(said) :]
    return (
        cautions
        + logistic_sentences(uni, adj, clustered, ind, label, alpha, binomial, notes)
        + descriptive_sentences(res, label, alpha)
    )


def _without_last(lines: Sequence[str], k: int) -> list[str]:
    return list(lines[: len(lines) - k]) if k else list(lines)


def result_conclusions(result: RegressionResult) -> list[str]:
    """The conclusions of a logistic fit (:func:`fairdesk.stats.regression.run_regression`)
    in words, as :func:`regression_conclusions` writes them for a stored run of it."""
    request = {"family": "logit", "outcome": result.outcome, "alpha": result.alpha}
    return regression_conclusions(RegressionRun(request, result.to_dict(detail=True)))
