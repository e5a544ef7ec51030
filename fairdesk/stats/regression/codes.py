"""The coded notes of the logistic, binomial and OLS regressions (area ``regression``;
worded by fairdesk.presentation.regression_notes), and the decoding of notes stored by
versions that kept them as sentences.

A note is a :class:`~fairdesk.stats.notices.Notice`: its code below and its numbers and
names. A fit problem (``problem`` of a model) is one of the ``SEPARATION*``,
``NOT_CONVERGED``, ``NOT_ESTIMABLE``, ``SINGLE_LEVEL``, ``REFERENCE_ABSENT``,
``COLLINEAR``, ``INTERACTION_*`` codes; :data:`PROBLEM_*` name which model of a result it
belongs to (the result's ``problems``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..notices import STORED_SENTENCE, Notice, notice

# cautions: what the data cannot separate
SINGLE_SPEAKER_LEVEL = "regression.single_speaker_level"  # variable, level
BINOMIAL_UNCLUSTERED = "regression.binomial_unclustered"
# data notes: rows left out or changed
MISSING_OUTCOME = "regression.missing_outcome"  # n, outcome
MISSING_COUNTS = "regression.missing_counts"  # n
ZERO_WORDS = "regression.zero_words"  # n
CAPPED_ERRORS = "regression.capped_errors"  # n
MISSING_VARIABLE = "regression.missing_variable"  # n, variable
NO_SPEAKER = "regression.no_speaker"  # n, cluster
FEW_CLUSTERS = "regression.few_clusters"  # n, cluster, minimum
# fit problems
SEPARATION = "regression.separation"  # cell [[variable, level], ...], unit, value, rows
SEPARATION_WORDS = "regression.separation_words"  # cell, unit, all_wrong (bool), words
NOT_CONVERGED = "regression.not_converged"
NOT_ESTIMABLE = "regression.not_estimable"  # error (exception class), message
SINGLE_LEVEL = "regression.single_level"  # variable, other
REFERENCE_ABSENT = "regression.reference_absent"  # variable, reference, other
COLLINEAR = "regression.collinear"  # variable, other
INTERACTION_MODEL = "regression.interaction_model"  # problem (a note's JSON)
NO_INTERACTION_TERM = "regression.no_interaction_term"
# which model a problem belongs to (variable, other, problem)
PROBLEM_UNIVARIATE = "regression.problem_univariate"
PROBLEM_ADJUSTED = "regression.problem_adjusted"
PROBLEM_INTERACTION = "regression.problem_interaction"
PROBLEM_CLUSTERED = "regression.problem_clustered"
# χ² tests that could not be computed
INDEPENDENCE_SINGLE_LEVEL = "regression.independence_single_level"  # variable
EXPECTED_BELOW_1 = "regression.expected_below_1"  # smallest
EXPECTED_BELOW_5 = "regression.expected_below_5"  # share
CHI2_NOT_TESTED = "regression.chi2_not_tested"
# OLS
OLS_DROPPED = "regression.ols_dropped"  # n
COVARIATE_VARIES = "regression.covariate_varies"  # covariate
AGGREGATION_SPEAKER_WER = "regression.aggregation_speaker_wer"
AGGREGATION_SPEAKER_MEAN = "regression.aggregation_speaker_mean"
AGGREGATION_UTTERANCE = "regression.aggregation_utterance"

#: The code of a sentence stored by an older version (``Notice("stored.sentence", ...)``).
STORED = STORED_SENTENCE

_N = r"(\d+)"
#: Sentences older versions stored, and the note each one is: (pattern, code, its args
#: from the match). Tried in order; a sentence none matches is kept as it was stored.
_STORED: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Notice]], ...] = (
    (
        re.compile(
            r"Caution: (.+) = (.+) has a single speaker: speaker and level cannot be told "
            r"apart, and a speaker-clustered test cannot separate them; record more speakers "
            r"of this level\."
        ),
        lambda m: notice(SINGLE_SPEAKER_LEVEL, variable=m[1], level=m[2]),
    ),
    (
        re.compile(r"Caution: the binomial model counts every reference word as an .*"),
        lambda m: notice(BINOMIAL_UNCLUSTERED),
    ),
    (
        re.compile(_N + r" rows? with missing error or word counts (?:was|were) left out\."),
        lambda m: notice(MISSING_COUNTS, n=int(m[1])),
    ),
    (
        re.compile(_N + r" rows? with 0 reference words (?:was|were) left out\."),
        lambda m: notice(ZERO_WORDS, n=int(m[1])),
    ),
    (
        re.compile(_N + r" rows? had more errors than reference words \(insertions\); .*"),
        lambda m: notice(CAPPED_ERRORS, n=int(m[1])),
    ),
    (
        re.compile(_N + r" rows? with a missing (.+) (?:was|were) left out of its models\."),
        lambda m: notice(MISSING_VARIABLE, n=int(m[1]), variable=m[2]),
    ),
    (
        re.compile(_N + r" rows? with a missing (.+) (?:was|were) left out\."),
        lambda m: notice(MISSING_OUTCOME, n=int(m[1]), outcome=m[2]),
    ),
    (
        re.compile(
            _N + r" utterances? (?:has|have) no (.+); each was treated as its own cluster\."
        ),
        lambda m: notice(NO_SPEAKER, n=int(m[1]), cluster=m[2]),
    ),
    (
        re.compile(
            r"Only " + _N + r" (.+) clusters: clustered standard errors are unreliable with "
            r"fewer than about " + _N + r" clusters\."
        ),
        lambda m: notice(FEW_CLUSTERS, n=int(m[1]), cluster=m[2], minimum=int(m[3])),
    ),
    (
        re.compile(
            _N + r" utterances? with a missing outcome, covariate or variable (?:was|were) "
            r"left out\."
        ),
        lambda m: notice(OLS_DROPPED, n=int(m[1])),
    ),
    (
        re.compile(r"(.+) varies within speakers: each speaker's mean enters the model\."),
        lambda m: notice(COVARIATE_VARIES, covariate=m[1]),
    ),
    (
        re.compile(r"(.+) has a single level on the shared rows"),
        lambda m: notice(INDEPENDENCE_SINGLE_LEVEL, variable=m[1]),
    ),
    (
        re.compile(r"fewer than two levels, or a constant outcome on these rows"),
        lambda m: notice(CHI2_NOT_TESTED),
    ),
    (
        re.compile(r"each speaker's pooled WER \(errors / reference words over their .*"),
        lambda m: notice(AGGREGATION_SPEAKER_WER),
    ),
    (re.compile(r"each speaker's mean"), lambda m: notice(AGGREGATION_SPEAKER_MEAN)),
    (re.compile(r"one row per utterance"), lambda m: notice(AGGREGATION_UTTERANCE)),
)


def decode_note(value: Any) -> Notice | None:
    """A stored note: a coded note's JSON (``{"code", "args"}``), or a sentence an older
    version stored (its code again where the sentence is one of :data:`_STORED`'s, else
    ``stored.sentence``); None for None or ``""`` (no note)."""
    if value is None or value == "":
        return None
    if isinstance(value, Notice):
        return value
    if isinstance(value, Mapping):
        return Notice.from_json(value)
    text = str(value)
    for pattern, make in _STORED:
        m = pattern.fullmatch(text)
        if m is not None:
            return make(m)
    return notice(STORED, text=text)


def decode_notes(values: Any) -> tuple[Notice, ...]:
    """:func:`decode_note` of each stored note (None and ``""`` left out)."""
    out = (decode_note(v) for v in values or ())
    return tuple(n for n in out if n is not None)


#: How a result's ``to_json`` writes a note: None writes its code and numbers (what is
#: stored); a function of the note (fairdesk.presentation.notices.notice_text) writes its
#: sentence (what ``--json`` shows).
Words = Callable[[Notice], str] | None


def write_note(note: Notice | None, words: Words) -> Any:
    """One note as ``to_json`` writes it (None stays None)."""
    if note is None:
        return None
    return words(note) if words is not None else note.to_json()
