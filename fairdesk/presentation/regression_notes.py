"""The coded notes of the logistic, binomial and OLS regressions in words (area
``regression``; the codes are fairdesk.stats.regression.codes). A fit problem that names
another note (``problem``) is worded with it; a note decoded from an older version's JSON
holds it as ``{"code", "args"}``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.plurals import count, verb
from ..stats.notices import Notice

__all__ = ["TEXTS"]


def _inner(problem: Notice | Mapping[str, Any]) -> str:
    from .notices import notice_text

    note = problem if isinstance(problem, Notice) else Notice.from_json(problem)
    return notice_text(note)


def _single_speaker(variable: str, level: str) -> str:
    return (
        f"Caution: {variable} = {level} has a single speaker: speaker and level cannot be "
        "told apart, and a speaker-clustered test cannot separate them; record more speakers "
        "of this level."
    )


def _binomial_unclustered() -> str:
    return (
        "Caution: the binomial model counts every reference word as an independent "
        "trial, but words of one utterance and utterances of one speaker are not "
        "independent, so its intervals are too narrow; add --cluster speaker_id."
    )


def _left_out(n: int, what: str, tail: str = "left out.") -> str:
    return f"{count(n, 'row')} {what} {verb(n, 'was', 'were')} {tail}"


def _capped(n: int) -> str:
    return (
        f"{count(n, 'row')} had more errors than reference words (insertions); their error "
        "count was capped at the word count for the binomial model."
    )


def _no_speaker(n: int, cluster: str) -> str:
    return (
        f"{count(n, 'utterance')} {verb(n, 'has', 'have')} no {cluster}; each was treated as "
        "its own cluster."
    )


def _few_clusters(n: int, cluster: str, minimum: int) -> str:
    return (
        f"Only {n} {cluster} clusters: clustered standard errors are unreliable with fewer "
        f"than about {minimum} clusters."
    )


def _cell(cell: Sequence[Sequence[str]]) -> str:
    return " × ".join(f"{var}={lev}" for var, lev in cell)


def _separation(cell: Sequence[Sequence[str]], unit: str, value: int, rows: int) -> str:
    return (
        f"perfect separation: {_cell(cell)} has outcome = {value} on all {rows} rows, so its "
        f"odds ratio is infinite; merge or drop that {unit}"
    )


def _separation_words(cell: Sequence[Sequence[str]], unit: str, all_wrong: bool, words: int) -> str:
    what = "every word wrong" if all_wrong else "no word error"
    return (
        f"perfect separation: {_cell(cell)} has {what} ({words} words), so its odds ratio is "
        f"infinite; merge or drop that {unit}"
    )


def _not_converged() -> str:
    return (
        "the model did not converge (coefficients ran off to infinity: quasi-complete "
        "separation or too few rows per level); merge sparse levels"
    )


def _ols_dropped(n: int) -> str:
    return (
        f"{count(n, 'utterance')} with a missing outcome, covariate or variable "
        f"{verb(n, 'was', 'were')} left out."
    )


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "regression.single_speaker_level": _single_speaker,
    "regression.binomial_unclustered": _binomial_unclustered,
    "regression.missing_outcome": lambda n, outcome: _left_out(n, f"with a missing {outcome}"),
    "regression.missing_counts": lambda n: _left_out(n, "with missing error or word counts"),
    "regression.zero_words": lambda n: _left_out(n, "with 0 reference words"),
    "regression.capped_errors": _capped,
    "regression.missing_variable": lambda n, variable: _left_out(
        n, f"with a missing {variable}", "left out of its models."
    ),
    "regression.no_speaker": _no_speaker,
    "regression.few_clusters": _few_clusters,
    "regression.separation": _separation,
    "regression.separation_words": _separation_words,
    "regression.not_converged": _not_converged,
    "regression.not_estimable": lambda error, message: (
        f"the model could not be estimated ({error}: {message})"
    ),
    "regression.single_level": lambda variable, other: (
        f"{variable} has a single level where {other} is known"
    ),
    "regression.reference_absent": lambda variable, reference, other: (
        f"the reference level {reference!r} of {variable} has no row where {other} is known"
    ),
    "regression.collinear": lambda variable, other: (
        f"{variable} and {other} are collinear (one determines the other), so one cannot be "
        "adjusted on the other"
    ),
    "regression.interaction_model": lambda problem: f"interaction model: {_inner(problem)}",
    "regression.no_interaction_term": lambda: (
        "no interaction term is estimable (too many empty cells)"
    ),
    "regression.problem_univariate": lambda variable, problem: f"{variable}: {_inner(problem)}",
    "regression.problem_adjusted": lambda variable, other, problem: (
        f"{variable} adjusted on {other}: {_inner(problem)}"
    ),
    "regression.problem_interaction": lambda variable, other, problem: (
        f"{variable} × {other}: {_inner(problem)}"
    ),
    "regression.problem_clustered": lambda variable, problem: (
        f"clustered {variable}: {_inner(problem)}"
    ),
    "regression.independence_single_level": lambda variable: (
        f"{variable} has a single level on the shared rows"
    ),
    "regression.expected_below_1": lambda smallest: (
        f"an expected count is below 1 (smallest {smallest:.2f})"
    ),
    "regression.expected_below_5": lambda share: (
        f"{share:.0%} of cells have an expected count below 5 (more than 20%)"
    ),
    "regression.chi2_not_tested": lambda: (
        "fewer than two levels, or a constant outcome on these rows"
    ),
    "regression.ols_dropped": _ols_dropped,
    "regression.covariate_varies": lambda covariate: (
        f"{covariate} varies within speakers: each speaker's mean enters the model."
    ),
    "regression.aggregation_speaker_wer": lambda: (
        "each speaker's pooled WER (errors / reference words over their utterances) and "
        "covariate means"
    ),
    "regression.aggregation_speaker_mean": lambda: "each speaker's mean",
    "regression.aggregation_utterance": lambda: "one row per utterance",
}
