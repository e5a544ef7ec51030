"""The regression results in words, written at output time from their numbers.

:func:`regression_conclusions` is the one function every view calls for a regression's
conclusions (``fairdesk regress`` and its ``--json``, the GUI's Regression tab, the HTML
report): the sentences the fit stored, then the sentences written here from the stored
numbers. So far the logistic family's χ² and one-way ANOVA tests
(:func:`descriptive_sentences`, Sekkat et al.'s appendix C) are written here; a result
stored before they were (its ``conclusions`` end with them) is read with today's words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..jobs.regression_result import RegressionRun, outcome_label
from .numbers import fmt_number, fmt_p_coarse

__all__ = ["descriptive_sentences", "regression_conclusions"]


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
            f"df = {c['df']}, p = {fmt_p_coarse(c['p_value'])}, on {c['unit']})."
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
            f"{a['df_within']}) = {fmt_number(a['f'], 2)}, p = {fmt_p_coarse(a['p_value'])}."
        )
    return lines


def regression_conclusions(run: RegressionRun) -> list[str]:
    """The conclusions of ``run`` in words, as every view shows them.

    The logistic family's stored ``conclusions`` are followed by its χ² and ANOVA sentences,
    written from the stored numbers at the run's ``alpha``; its outcome is named by the
    stored ``outcome_label``. A logistic result stored before the label was (its
    ``conclusions`` already end with those sentences, as many as the numbers give) has them
    replaced by today's words, the outcome named from the request
    (:func:`~fairdesk.jobs.regression_result.outcome_label`).
    """
    res = run.result
    lines = [str(s) for s in res.get("conclusions") or []]
    if run.family != "logit":
        return lines
    alpha = float(res.get("alpha", run.alpha))
    label = res.get("outcome_label")
    if label is None:  # stored with the sentences written in: replace them
        label = outcome_label(run.outcome)
        lines = _without_last(lines, len(descriptive_sentences(res, str(label), alpha)))
    return lines + descriptive_sentences(res, str(label), alpha)


def _without_last(lines: Sequence[str], k: int) -> list[str]:
    return list(lines[: len(lines) - k]) if k else list(lines)
