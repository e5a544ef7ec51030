"""The logistic family's sentences and result dicts, every branch word for word, on hand-made
results (no fit): univariate, adjustment, interaction, clustering and independence lines, the
χ²/ANOVA lines, and every key of ``to_dict`` with and without detail."""

from __future__ import annotations

import math

import numpy as np

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_logit_words import logistic_sentences as _conclusions
from fairdesk.presentation.regression_words import descriptive_sentences
from fairdesk.stats.regression.descriptive_results import Descriptive
from fairdesk.stats.regression.results import (
    AdjustmentResult,
    ClusteredResult,
    IndependenceResult,
    LevelEffect,
    RegressionResult,
    UnivariateResult,
)
from tests.stats.regression.conftest import S

NAN = math.nan


def L(level, p, odds=1.5):  # noqa: N802
    return LevelEffect(level, odds, odds * 0.8, odds * 1.25, p)


def U(var, p, levels=(), problem=None):  # noqa: N802
    return UnivariateResult(var, "ref", p, 0.1, 100, tuple(levels), problem=problem)


def A(
    a,
    b,
    p,
    confounder,
    levels=(),
    unadj=(),
    changed=(),
    problem=None,  # noqa: N802
    inter=False,
    inter_p=NAN,
):
    return AdjustmentResult(
        a,
        b,
        5.0,
        2,
        p,
        confounder,
        {"x": 10.0},
        tuple(levels),
        tuple(unadj),
        tuple(changed),
        problem=problem,
        with_interaction=inter,
        interaction_p_value=inter_p,
    )


def test_univariate_and_adjustment_sentences():
    uni = [
        U("age", 0.0004, [L("30s", 0.02, 1.8), L("60+", 0.0001, 2.5)]),
        U("accent", 0.05),  # p = alpha: no evidence
        U("gender", NAN, problem=S("perfect separation")),
    ]
    adj = [
        A("age", "accent", 0.2, False, inter=True, inter_p=0.01),
        A("accent", "age", 0.2, False, inter=True, inter_p=0.001),  # the same pair: said once
        A(
            "region",
            "gender",
            0.001,
            True,
            levels=[L("n", 0.3)],
            unadj=[L("n", 0.01)],
            changed=["n"],
        ),
        A(
            "region",
            "age",
            0.03,
            True,
            levels=[L("n", 0.01), L("s", 0.2)],
            unadj=[L("n", 0.3), L("s", 0.01)],
            changed=["n", "s"],
        ),
        A("region", "snr", NAN, False, problem=S("collinear"), inter=True, inter_p=0.01),
        A("x", "y", 0.5, False, inter=True, inter_p=0.05),
        A("x", "z", 0.5, False, inter=True, inter_p=NAN),
    ]
    got = _conclusions(uni, adj, None, [], "exact match", 0.05, False, ["a note."])
    # column names as given (never capitalised); two levels: their range and the one that
    # differs most among the significant ones (60+: the larger |log OR|)
    assert got == [
        "age is associated with exact match (LR p = 4.0e-04): odds ratios vs ref range "
        "1.80–2.50 over 2 levels; largest difference: 60+ 2.50 [2.00, 3.12], p = 1.0e-04.",
        "No evidence that accent is associated with exact match (LR p = 0.050).",
        "gender could not be modelled: perfect separation.",
        "The effect of age depends on accent (interaction LR p = 0.010).",
        "The effect of region is explained by gender: adjusted on gender, no level of region "
        "differs significantly (LR p = 0.001).",
        "age confounds the effect of region (LR p = 0.030): adjusted on age, n becomes "
        "significant (p = 0.010); s is no longer significant (p = 0.200).",
        "region could not be adjusted on snr: collinear.",
        "a note.",
    ]
    # a binomial outcome names the odds ratio of a word error
    (line,) = _conclusions(uni[:1], [], None, [], "WER", 0.05, True, [])
    assert line == (
        "age is associated with WER (LR p = 4.0e-04): odds ratios of a word error vs ref "
        "range 1.80–2.50 over 2 levels; largest difference: 60+ 2.50 [2.00, 3.12], "
        "p = 1.0e-04."
    )
    # one level: its odds ratio
    (line,) = _conclusions(
        [U("age", 0.0004, [L("60+", 0.0001, 2.5)])], [], None, [], "WER", 0.05, True, []
    )
    assert line == (
        "age is associated with WER (LR p = 4.0e-04), odds ratio of a word error for 60+ vs "
        "ref: 2.50 [2.00, 3.12]."
    )


def test_clustered_and_independence_sentences():
    uni = [
        U("age", 0.01, [L("60+", 0.01)]),
        U("accent", 0.01, [L("uk", 0.01)]),
        U("gender", 0.2),
        U("room", 0.01, [L("b", 0.01)]),
    ]
    cl_uni = (
        U("age", 0.05),
        U("accent", 0.04),
        U("gender", 0.3),
        U("room", NAN, problem=S("singular")),
    )
    adj = [
        A("age", "accent", 0.01, True, [L("60+", 0.2)], changed=["60+"]),
        A("accent", "age", 0.01, True, [L("uk", 0.2)], changed=["uk"]),
        A("gender", "age", 0.01, True, [L("m", 0.01)], changed=["m"]),
        A("room", "age", 0.3, False),
    ]
    cl_adj = (
        A("age", "accent", 0.2, False),
        A("accent", "age", 0.01, True),
        A("gender", "age", NAN, False, problem=S("singular")),
        A("room", "age", 0.5, False),
    )
    robust = ClusteredResult("robust", "speaker_id", 40, cl_uni, cl_adj)
    ind = [
        IndependenceResult("age", "accent", 9.0, 2, 0.01, True, None, {}),
        IndependenceResult("age", "gender", 9.0, 2, 0.01, False, S("sparse"), {}),
        IndependenceResult("gender", "room", 1.0, 2, 0.05, True, None, {}),
    ]
    got = _conclusions(uni, adj, robust, ind, "WER", 0.05, True, [])
    assert got[-3:] == [
        "Allowing for speaker_id clustering (cluster-robust standard errors), the association "
        "of age with WER is no longer significant (Wald p = 0.050, against LR p = 0.010 when "
        "utterances are treated as independent).",
        "Allowing for speaker_id clustering, the evidence that accent confounds age does not "
        "hold (Wald p = 0.200).",
        "age and accent are not independent in this corpus (χ² p = 0.010): read univariate "
        "results with the adjusted ones.",
    ]
    gee = ClusteredResult("gee", "speaker_id", 40, cl_uni, cl_adj)
    line = _conclusions(uni, adj, gee, [], "WER", 0.05, True, [])[-2]
    assert line.startswith(
        "Allowing for speaker_id clustering (a GEE with exchangeable "
        "correlation), the association of age with WER is no longer"
    )


def test_descriptive_sentences():
    block = {
        "outcome_chi2": [
            {"variable": "age", "chi2": 12.345, "df": 2, "p_value": 0.0002, "unit": "utterances"},
            {"variable": "accent", "chi2": 1.0, "df": 3, "p_value": 0.05, "unit": "words"},
            {"variable": "skip1", "chi2": None, "df": 3, "p_value": 0.5, "unit": "words"},
            {"variable": "skip2", "chi2": 1.0, "df": 3, "p_value": None, "unit": "words"},
            {"variable": "room", "chi2": 2.0, "df": 1, "p_value": 0.001, "unit": "words"},
        ],
        "anova": [
            {
                "variable": "age",
                "per": "speaker means",
                "df_between": 2,
                "df_within": 40,
                "f": 3.456,
                "p_value": 0.04,
            },
            {
                "variable": "skip",
                "per": "x",
                "df_between": 2,
                "df_within": 40,
                "f": 1.0,
                "p_value": None,
            },
            {
                "variable": "accent",
                "per": "x",
                "df_between": 2,
                "df_within": 40,
                "f": None,
                "p_value": 0.0,
            },
            {
                "variable": "room",
                "per": "utterances",
                "df_between": 1,
                "df_within": 9,
                "f": 20.0,
                "p_value": 0.0009,
            },
            {
                "variable": "nan",
                "per": "utterances",
                "df_between": 1,
                "df_within": 9,
                "f": 0.0,
                "p_value": NAN,
            },
        ],
    }
    assert descriptive_sentences(Descriptive.from_json(block), "EM", 0.05) == [
        "χ² test: EM depends on age (χ² = 12.35, df = 2, p < 0.001, on utterances).",
        "χ² test: EM shows no evidence of depending on accent (χ² = 1.00, df = 3, p = 0.050, "
        "on words).",
        "χ² test: EM depends on room (χ² = 2.00, df = 1, p = 0.001, on words).",
        "One-way ANOVA of the speaker means by age: F(2, 40) = 3.46, p = 0.040.",
        "One-way ANOVA by accent: the outcome does not vary within any level, so F is infinite "
        "(the levels differ completely).",
        "One-way ANOVA of the utterances by room: F(1, 9) = 20.00, p < 0.001.",
    ]  # a NaN p is no p (a fit's NaN was stored as null, and a null p says nothing)


def test_result_dicts_every_key():
    lev = LevelEffect("60+", np.float64(2.0), 1.5, np.inf, np.float64(0.01))
    assert lev.to_dict() == {
        "level": "60+",
        "odds_ratio": 2.0,
        "ci_low": 1.5,
        "ci_high": None,
        "p_value": 0.01,
        "p_log10": None,
    }
    u = UnivariateResult("age", "18-29", 0.01, NAN, np.int64(100), (lev,), 7.5, 2, 3, "wald", None)
    assert u.to_dict(words=notice_text) == {
        "variable": "age",
        "reference": "18-29",
        "llr_p_value": 0.01,
        "llr_p_log10": None,
        "pseudo_r2": None,
        "n": 100,
        "levels": [lev.to_dict()],
    }
    assert u.to_dict(True, words=notice_text) == {
        **u.to_dict(words=notice_text),
        "llr_stat": 7.5,
        "df": 2,
        "n_dropped": 3,
        "test": "wald",
        "problem": None,
    }
    a = AdjustmentResult(
        "age",
        "accent",
        4.0,
        2,
        0.02,
        True,
        {"60+": np.float64(12.5)},
        (lev,),
        (lev,),
        ("60+",),
        90,
        "lr",
        None,
        3.0,
        4,
        0.3,
        S("sparse"),
        True,
    )
    assert a.to_dict(words=notice_text) == {
        "variable": "age",
        "adjusted_on": "accent",
        "lr_stat": 4.0,
        "df": 2,
        "p_value": 0.02,
        "p_log10": None,
        "confounder": True,
        "or_change_pct": {"60+": 12.5},
        "levels": [lev.to_dict()],
        "interaction_lr_stat": 3.0,
        "interaction_df": 4,
        "interaction_p_value": 0.3,
        "interaction_p_log10": None,
    }
    assert a.to_dict(True, words=notice_text) == {
        **a.to_dict(words=notice_text),
        "unadjusted_levels": [lev.to_dict()],
        "changed_levels": ["60+"],
        "n": 90,
        "test": "lr",
        "problem": None,
        "interaction_problem": "sparse",
    }
    plain = AdjustmentResult("age", "accent", 4.0, 2, 0.02, False, {})
    assert set(plain.to_dict(True, words=notice_text)) == {
        "variable",
        "adjusted_on",
        "lr_stat",
        "df",
        "p_value",
        "p_log10",
        "confounder",
        "or_change_pct",
        "levels",
        "unadjusted_levels",
        "changed_levels",
        "n",
        "test",
        "problem",
    }
    ind = IndependenceResult(
        "a", "b", 3.0, 1, 0.08, True, S("ok"), {"x": {"y": np.int64(4)}}, 20, 2.5, 0.25
    )
    assert ind.to_dict(words=notice_text) == {
        "variable_a": "a",
        "variable_b": "b",
        "chi2": 3.0,
        "df": 1,
        "p_value": 0.08,
        "p_log10": None,
        "valid": True,
        "reason": "ok",
        "table": {"x": {"y": 4}},
    }
    assert ind.to_dict(True, words=notice_text) == {
        **ind.to_dict(words=notice_text),
        "n": 20,
        "min_expected": 2.5,
        "share_expected_below_5": 0.25,
    }
    cl = ClusteredResult("robust", "speaker_id", 40, (u,), (a,))
    assert cl.to_dict(words=notice_text) == {
        "method": "robust",
        "cluster": "speaker_id",
        "univariate": [u.to_dict(words=notice_text)],
        "adjustments": [a.to_dict(words=notice_text)],
    }
    assert cl.to_dict(True, words=notice_text) == {
        "method": "robust",
        "cluster": "speaker_id",
        "univariate": [u.to_dict(True, words=notice_text)],
        "adjustments": [a.to_dict(True, words=notice_text)],
        "n_clusters": 40,
    }
    r = RegressionResult(
        "em",
        "logit",
        0.1,
        (u,),
        (a,),
        cl,
        (ind,),
        {"age": 2},
        Descriptive(present=False),
        (S("k."),),
        "",
        (S("c."),),
    )
    assert r.to_dict(words=notice_text) == {
        "univariate": [u.to_dict(words=notice_text)],
        "adjustments": [a.to_dict(words=notice_text)],
        "clustered": cl.to_dict(words=notice_text),
        "independence": [ind.to_dict(words=notice_text)],
        "conclusions": ["k.", "c."],
        "cautions": ["k."],
    }
    assert r.to_dict(True, words=notice_text) == {
        "univariate": [u.to_dict(True, words=notice_text)],
        "adjustments": [a.to_dict(True, words=notice_text)],
        "clustered": cl.to_dict(True, words=notice_text),
        "independence": [ind.to_dict(True, words=notice_text)],
        "conclusions": ["k.", "c."],
        "cautions": ["k."],
        "outcome": "em",
        "model": "logit",
        "alpha": 0.1,
        "dropped": {"age": 2},
        "problems": ["age × accent: sparse"],
        "outcome_label": "",
        "notes": ["c."],
    }
    r0 = RegressionResult("em", "logit", 0.05, (), (), None, (), ())
    assert r0.to_dict(words=notice_text)["clustered"] is None
