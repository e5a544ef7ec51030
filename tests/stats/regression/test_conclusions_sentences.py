"""The regression's plain-English conclusions, sentence by sentence, from given results.

Each case builds the result records by hand, so the expected sentences are known exactly:
the significance cut is strict (p < alpha; p equal to alpha is not significant), a record
with a problem is skipped without ending the others, and an interaction is reported once
per pair of variables.
"""

import math

from fairdesk.presentation.pvalues import p_text as _fmt_p
from fairdesk.presentation.regression_logit_words import logistic_sentences as _conclusions
from fairdesk.stats.regression.results import (
    AdjustmentResult,
    ClusteredResult,
    LevelEffect,
    UnivariateResult,
)
from tests.stats.regression.conftest import S

ALPHA = 0.05


def _lev(level, p):
    return LevelEffect(level, 2.0, 1.5, 3.0, p)


def _adj(a, b, **kw):
    base = dict(
        variable=a,
        adjusted_on=b,
        lr_stat=4.0,
        df=1,
        p_value=0.01,
        confounder=False,
        or_change_pct={},
    )
    base.update(kw)
    return AdjustmentResult(**base)


def _uni(var, p, problem=None):
    return UnivariateResult(var, "ref", p, 0.1, 100, (_lev("x", p),), problem=problem)


def _run(univariate=(), adjustments=(), clustered=None):
    return _conclusions(univariate, adjustments, clustered, (), "word errors", ALPHA, True, [])


def test_p_values_are_written_plainly_or_as_not_available():
    assert _fmt_p(math.nan) == "n/a"
    assert _fmt_p(math.inf) == "n/a"
    assert _fmt_p(0.0004) == "4.0e-04"
    assert _fmt_p(0.05) == "0.050"


def test_a_problem_adjustment_does_not_end_the_list():
    lines = _run(
        adjustments=[
            _adj("accent", "age", problem=S("age has a single level")),
            _adj(
                "accent",
                "gender",
                confounder=True,
                p_value=0.002,
                levels=(_lev("b", 0.5),),
                unadjusted_levels=(_lev("b", 0.01),),
                changed_levels=("b",),
            ),
        ]
    )
    assert lines == [
        "accent could not be adjusted on age: age has a single level.",
        "The effect of accent is explained by gender: adjusted on gender, no level of accent "
        "differs significantly (LR p = 0.002).",
    ]


def test_p_equal_to_alpha_is_not_significant_in_the_confounding_sentences():
    # adjusted p exactly alpha: not significant, so the effect is explained by b
    explained = _adj(
        "accent",
        "gender",
        confounder=True,
        p_value=0.002,
        levels=(_lev("b", ALPHA),),
        unadjusted_levels=(_lev("b", 0.01),),
        changed_levels=("b",),
    )
    assert _run(adjustments=[explained]) == [
        "The effect of accent is explained by gender: adjusted on gender, no level of accent "
        "differs significantly (LR p = 0.002)."
    ]
    # unadjusted p exactly alpha: it was not significant, so a level that became significant
    became = _adj(
        "accent",
        "gender",
        confounder=True,
        p_value=0.002,
        levels=(_lev("b", 0.01), _lev("c", ALPHA)),
        unadjusted_levels=(_lev("b", ALPHA), _lev("c", 0.2)),
        changed_levels=("b", "c"),
    )
    # nothing significant after adjustment, and before it only p exactly alpha: not
    # "explained by" (nothing was significant to explain)
    neither = _adj(
        "accent",
        "gender",
        confounder=True,
        p_value=0.002,
        levels=(_lev("b", 0.2),),
        unadjusted_levels=(_lev("b", ALPHA),),
        changed_levels=("b",),
    )
    assert _run(adjustments=[neither]) == [
        "gender confounds the effect of accent (LR p = 0.002): adjusted on gender, "
        "b is no longer significant (p = 0.200)."
    ]
    assert _run(adjustments=[became]) == [
        "gender confounds the effect of accent (LR p = 0.002): adjusted on gender, "
        "b becomes significant (p = 0.010); c is no longer significant (p = 0.050)."
    ]


def test_each_interaction_is_reported_once_per_pair():
    inter = dict(with_interaction=True, interaction_p_value=0.0005)
    lines = _run(
        adjustments=[
            _adj("accent", "gender", **inter),
            _adj("gender", "accent", **inter),  # the same pair, the other way round
            _adj("accent", "age", **inter),  # another pair
            _adj("age", "gender", with_interaction=True, interaction_p_value=ALPHA),  # not below
        ]
    )
    assert lines == [
        "The effect of accent depends on gender (interaction LR p = 5.0e-04).",
        "The effect of accent depends on age (interaction LR p = 5.0e-04).",
    ]


def test_clustering_sentences_skip_a_problem_model_and_go_on():
    plain = [_uni("age", 0.3, problem=S("age is constant")), _uni("accent", 0.01)]
    clus = ClusteredResult("robust", "speaker", 12, (_uni("age", 0.3), _uni("accent", 0.2)), ())
    lines = _run(univariate=plain, clustered=clus)
    assert lines[-1] == (
        "Allowing for speaker clustering (cluster-robust standard errors), the association of "
        "accent with word errors is no longer significant (Wald p = 0.200, against LR p = "
        "0.010 when utterances are treated as independent)."
    )
    assert lines[0] == "age could not be modelled: age is constant."
    assert len(lines) == 3


def test_a_plain_p_equal_to_alpha_was_not_significant_before_clustering():
    plain = [_uni("accent", ALPHA)]
    clus = ClusteredResult("robust", "speaker", 12, (_uni("accent", 0.2),), ())
    lines = _run(univariate=plain, clustered=clus)
    assert lines == ["No evidence that accent is associated with word errors (LR p = 0.050)."]
