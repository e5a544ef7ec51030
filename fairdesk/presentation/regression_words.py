"""The regression results in words, written at output time from their numbers.

:func:`regression_conclusions` is the one function every view calls for a regression's
conclusions (``fairdesk regress`` and its ``--json``, the GUI's Regression tab, the HTML
report): the sentences the fit stored, then the sentences written here from the stored
numbers: the logistic family's model sentences
(:mod:`.regression_logit_words`) and χ² and one-way ANOVA tests (:func:`descriptive_sentences`,
Sekkat et al.'s appendix C), the OLS family's (:func:`linear_sentences`), and the mixed Poisson
family's (:func:`~.regression_poisson_words.poisson_conclusions`, from the decoded
:class:`~fairdesk.stats.regression.poisson_mixed_result.MixedPoissonResult`); a result stored
before they were written here (its ``conclusions`` hold them) is read with today's words.
:func:`regression_summary` is the result as ``fairdesk regress --json`` writes it (the notes
in words), :func:`regression_problems` the models that could not be fitted, in words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..jobs.regression_result import RegressionRequest, RegressionRun, outcome_label
from ..jobs.result_parts import TableRows
from ..stats.regression.descriptive_results import Descriptive
from ..stats.regression.linear_results import LinearResult
from ..stats.regression.poisson_mixed_result import MixedPoissonResult
from ..stats.regression.results import RegressionResult
from .notices import notice_text, notice_texts
from .numbers import fmt_number, fmt_p_coarse
from .pvalues import p_clause
from .regression_logit_words import logistic_sentences
from .regression_poisson_words import poisson_conclusions, poisson_json
from .units import finite

__all__ = [
    "descriptive_sentences",
    "linear_sentences",
    "regression_conclusions",
    "regression_problems",
    "regression_summary",
    "result_conclusions",
]


def _signed(x: float, decimals: int) -> str:
    """``+0.0123``: a coefficient, its bounds, a correlation (the sign always shown)."""
    return f"{x:+.{decimals}f}"


def linear_sentences(res: LinearResult) -> list[str]:
    """The OLS family's conclusions from its numbers: per covariate its coefficient with CI
    and p (holding the others fixed), its Spearman correlation (descriptive), R², then the
    fit's notes."""
    what = "WER" if res.outcome == "wer" else res.outcome
    alpha = res.alpha
    covariates = [s.covariate for s in res.spearman]
    by = {c.term: c for c in res.coefficients}
    unit = res.level
    lines = []
    for c in covariates:
        e = by.get(c)
        if e is None or math.isnan(e.estimate):
            continue
        ci = (
            f"{fmt_fixed(100 * (1 - alpha), 0)}% CI "
            f"[{_signed(e.ci_low, 4)}, {_signed(e.ci_high, 4)}]"
        )
        p = e.p_value
        ptxt = "p < 0.001" if p < 0.001 else f"p = {fmt_fixed(p, 3)}"
        others = [x for x in covariates if x != c]
        held = f", holding {', '.join(others)} fixed" if others else ""
        if p < alpha:
            lines.append(
                f"{what} per {unit} changes by {_signed(e.estimate, 4)} per unit of {c}"
                f"{held} ({ci}, {ptxt}; OLS, n = {res.n} {unit}s)."
            )
        else:
            lines.append(
                f"No evidence that {c} predicts {what} per {unit}{held} "
                f"(β = {_signed(e.estimate, 4)}, {ci}, {ptxt}; n = {res.n})."
            )
    for s in res.spearman:
        if math.isnan(s.rho):
            continue
        lines.append(
            f"Spearman correlation of {what} with {s.covariate}: ρ = "
            f"{_signed(s.rho, 2)} ({p_clause('p', finite(s.p_value), finite(s.p_log10), sig=3)}, "
            f"n = {s.n} {unit}s; "
            "descriptive)."
        )
    lines.append(f"R² = {fmt_fixed(res.r2, 3)} (adjusted {fmt_fixed(res.adj_r2, 3)}).")
    return lines + notice_texts(res.notes)


def fmt_fixed(x: float, decimals: int) -> str:
    """A statistic to ``decimals`` places as Python writes it (``nan`` included)."""
    return f"{x:.{decimals}f}"


def descriptive_sentences(block: Descriptive, outcome_label: str, alpha: float) -> list[str]:
    """One line per χ² test of the outcome by a variable and per one-way ANOVA of
    ``block`` (a regression result's ``descriptive``); a test without a statistic (fewer
    than two levels, a constant outcome) says nothing."""
    lines = []
    for c in block.outcome_chi2:
        p, chi2 = finite(c.p_value), finite(c.chi2)
        if p is None or chi2 is None:
            continue
        sig = "depends on" if p < alpha else "shows no evidence of depending on"
        lines.append(
            f"χ² test: {outcome_label} {sig} {c.variable} (χ² = {fmt_number(chi2, 2)}, "
            f"df = {c.df}, {fmt_p_coarse(p)}, on {c.unit})."
        )
    for a in block.anova:
        p = finite(a.p_value)
        if p is None:
            continue
        f = finite(a.f)
        if f is None:
            lines.append(
                f"One-way ANOVA by {a.variable}: the outcome does not vary within "
                "any level, so F is infinite (the levels differ completely)."
            )
            continue
        lines.append(
            f"One-way ANOVA of the {a.per} by {a.variable}: F({a.df_between}, "
            f"{a.df_within}) = {fmt_number(f, 2)}, {fmt_p_coarse(p)}."
        )
    return lines


def regression_conclusions(run: RegressionRun) -> list[str]:
    """The conclusions of ``run`` in words, as every view shows them.

    The OLS family's are all written from its numbers. The logistic family's: its cautions,
    the sentences of :func:`~.regression_logit_words.logistic_sentences` from the models,
    the data notes, then the χ² and ANOVA sentences, written at the result's ``alpha`` and
    naming the outcome by its ``outcome_label``. A logistic result stored before the
    sentences moved here (its ``stored_conclusions`` hold them all) is read with today's
    words: the notes are what follows the cautions and as many sentences as the models
    give, the outcome named from the request
    (:func:`~fairdesk.jobs.regression_result.outcome_label`) when the result does not name
    it. The mixed Poisson family's are all written from its decoded result
    (:func:`~.regression_poisson_words.poisson_conclusions`).
    """
    res = run.result
    if isinstance(res, LinearResult):
        return linear_sentences(res)
    if isinstance(res, MixedPoissonResult):
        return poisson_conclusions(res)
    alpha = res.alpha
    binomial = res.model == "binomial"
    uni, adj, clustered, ind = res.univariate, res.adjustments, res.clustered, res.independence
    cautions = notice_texts(res.cautions)
    stored = notice_texts(res.stored_conclusions)
    label = res.outcome_label
    if not label:  # stored with the test sentences written in: drop them
        label = outcome_label(run.outcome)
        stored = _without_last(stored, len(descriptive_sentences(res.descriptive, label, alpha)))
    if res.stored_conclusions:  # the models' sentences written in, between cautions and notes
        said = logistic_sentences(uni, adj, clustered, ind, label, alpha, binomial, ())
        notes = stored[len(cautions) + len(said) :]
    else:
        notes = notice_texts(res.notes)
    return (
        cautions
        + logistic_sentences(uni, adj, clustered, ind, label, alpha, binomial, notes)
        + descriptive_sentences(res.descriptive, label, alpha)
    )


def _without_last(lines: Sequence[str], k: int) -> list[str]:
    return list(lines[: len(lines) - k]) if k else list(lines)


def regression_problems(run: RegressionRun) -> list[str]:
    """The models of ``run`` that could not be fitted, in words (``age: perfect
    separation: ...``)."""
    res = run.result
    if isinstance(res, RegressionResult):
        return notice_texts(res.problems)
    return []  # the other families report no model left unfitted


def regression_summary(run: RegressionRun) -> dict[str, Any]:
    """The result of ``run`` as ``fairdesk regress --json`` writes it: the logistic
    family's models without their details, the OLS family's result, the mixed Poisson
    family's as fitted, each note in words; a table's rows used and refused beside it
    (``table_rows``, ``table_problems``)."""
    res = run.result
    out: dict[str, Any]
    if isinstance(res, RegressionResult):
        out = res.to_json(words=notice_text)
    elif isinstance(res, LinearResult):
        out = res.to_json(words=notice_text)
    else:
        out = poisson_json(res)
    if isinstance(run.table_rows, TableRows):
        from dataclasses import asdict

        rows = asdict(run.table_rows)
        out["table_rows"] = {k: v for k, v in rows.items() if k != "extra"}
        out["table_problems"] = list(run.table_problems)
    return out


def result_conclusions(result: RegressionResult) -> list[str]:
    """The conclusions of a logistic fit (:func:`fairdesk.stats.regression.run_regression`)
    in words, as :func:`regression_conclusions` writes them for a stored run of it."""
    request = RegressionRequest(family="logit", outcome=result.outcome, alpha=result.alpha)
    return regression_conclusions(RegressionRun(request, result))
