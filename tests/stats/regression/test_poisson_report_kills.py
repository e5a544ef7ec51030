"""The mixed Poisson report's words: the bootstrap agreement sentences and the shrinkage
sentences, every branch and boundary word for word, on hand-made inputs."""

from __future__ import annotations

import math

import pytest

from fairdesk.stats.regression.poisson_mixed_report import (
    _shrink_sentence,
    agreement_with_bootstrap,
)


def _lev(level, rr, p, lo=None, hi=None):
    return {"level": level, "rate_ratio": rr, "ci_low": lo if lo is not None else rr * 0.8,
            "ci_high": hi if hi is not None else rr * 1.2, "p_adjusted": p}


def _cmp(group, gap, p, metric="wer"):
    return {"metric": metric, "group": group, "reference": "us", "gap": gap,
            "ci_low": gap - 0.03, "ci_high": gap + 0.03, "p_adjusted": p}


RESULT = {
    "alpha": 0.05,
    "covariates": [{"covariate": "snr"}, {"covariate": "duration"}, {"covariate": "snr"}],
    "group_variables": [
        {"variable": "accent", "reference": "us", "levels": [
            _lev("nocmp", 1.5, 0.01),            # no bootstrap comparison: left out
            _lev("bootnone", 1.5, 0.01),         # the bootstrap has no p: left out
            _lev("modelnone", 1.5, None),        # the model has no p: left out
            _lev("uk", 1.5, 0.01, 1.2, 1.8),
            _lev("ng", 1.1, 0.4),
            _lev("au", 1.2, 0.3),
            _lev("ca", 0.8, 0.001),
            _lev("ie", 1.4, 0.0004),
            _lev("za", 1.3, 0.05),
            _lev("one", 1.0, 0.01),
            _lev("zero", 0.9, 0.01),
        ]},
        {"variable": "age", "reference": "18-29", "levels": [_lev("60+", 2.0, 0.002)]},
    ],
}
COMPARISONS = [
    _cmp("bootnone", 0.05, None), _cmp("modelnone", 0.05, 0.01),
    _cmp("uk", 0.05, 0.02), _cmp("uk", -0.5, 0.9, metric="cer"),
    _cmp("ng", -0.01, 0.5), _cmp("au", 0.04, 0.01), _cmp("ca", 0.03, 0.03),
    _cmp("ie", 0.02, 0.2), _cmp("za", 0.02, 0.05), _cmp("one", -0.02, 0.01),
    _cmp("zero", 0.0, 0.01), _cmp("60+", 0.1, 0.001),
]


def test_agreement_every_branch_word_for_word():
    got = agreement_with_bootstrap(RESULT, COMPARISONS)
    assert [g["level"] for g in got] == ["uk", "ng", "au", "ca", "ie", "za", "one", "zero"]
    flags = {g["level"]: (g["agree"], g["model_significant"], g["bootstrap_significant"])
             for g in got}
    assert flags == {"uk": (True, True, True), "ng": (True, False, False),
                     "au": (False, False, True), "ca": (False, True, True),
                     "ie": (False, True, False), "za": (True, False, False),
                     "one": (True, True, True), "zero": (True, True, True)}
    for g in got:
        assert set(g) == {"level", "agree", "model_significant", "bootstrap_significant",
                          "sentence"}
        assert all(type(g[k]) is bool for k in ("agree", "model_significant",
                                                "bootstrap_significant"))
    s = {g["level"]: g["sentence"] for g in got}
    assert s["uk"] == ("The model and the bootstrap agree: uk is worse than us (model: rate "
                       "ratio 1.50 [1.20, 1.80], Holm p = 0.010; bootstrap: WER gap +0.050 "
                       "[+0.020, +0.080], Holm p = 0.020).")
    assert s["ng"] == ("Neither the model nor the bootstrap finds a gap for ng (model: rate "
                       "ratio 1.10 [0.88, 1.32], Holm p = 0.400; bootstrap: WER gap -0.010 "
                       "[-0.040, +0.020], Holm p = 0.500).")
    assert s["au"] == ("The model and the bootstrap disagree on au: the model, adjusted for "
                       "duration, snr, finds no gap, so the bootstrap's gap may come from "
                       "those factors (model: rate ratio 1.20 [0.96, 1.44], Holm p = 0.300; "
                       "bootstrap: WER gap +0.040 [+0.010, +0.070], Holm p = 0.010).")
    assert s["ca"] == ("The model and the bootstrap disagree on ca (model: rate ratio 0.80 "
                       "[0.64, 0.96], Holm p = 0.001; bootstrap: WER gap +0.030 [+0.000, "
                       "+0.060], Holm p = 0.030).")
    assert s["ie"] == ("The model and the bootstrap disagree on ie (model: rate ratio 1.40 "
                       "[1.12, 1.68], Holm p = 4.0e-04; bootstrap: WER gap +0.020 [-0.010, "
                       "+0.050], Holm p = 0.200).")
    # p = alpha is not significant
    assert s["za"].startswith("Neither the model nor the bootstrap finds a gap for za (")
    # a rate ratio of exactly 1 and a gap of exactly 0 read as "better"
    assert s["one"].startswith("The model and the bootstrap agree: one is better than us (")
    assert s["zero"].startswith("The model and the bootstrap agree: zero is better than us (")


def test_agreement_without_covariates_and_by_variable():
    res = {**RESULT, "covariates": []}
    au = [g for g in agreement_with_bootstrap(res, COMPARISONS) if g["level"] == "au"][0]
    assert au["sentence"].startswith("The model and the bootstrap disagree on au (model: ")
    (age,) = agreement_with_bootstrap(RESULT, COMPARISONS, variable="age")
    assert age["sentence"].startswith("The model and the bootstrap agree: 60+ is worse than "
                                      "18-29 (model: rate ratio 2.00")
    (cer,) = [g for g in agreement_with_bootstrap(RESULT, COMPARISONS, metric="cer")]
    assert cer["level"] == "uk" and not cer["agree"]
    with pytest.raises(ValueError) as e:
        agreement_with_bootstrap(RESULT, COMPARISONS, variable="gender")
    assert str(e.value) == "The model has no group variable 'gender'."


def _eff(log_rr):
    return {"log_rr": log_rr, "rate_ratio": math.exp(log_rr)}


@pytest.mark.parametrize("b0, b1, want_shrink, tail", [
    (0.5, 0.375, 25.0, "shrinks by 25% once snr is included"),
    (0.5, 0.625, -25.0, "grows by 25% once snr is included"),
    (0.5, -0.25, 150.0, "reverses once snr is included"),
    (0.5, 0.4775, 4.5, "hardly moves once snr is included"),
    (0.5, 0.4725, 5.5, "shrinks by 6% once snr is included"),
    (0.5, 0.0, 100.0, "shrinks by 100% once snr is included"),
    (1.0, -0.005, 100.5, "reverses once snr is included"),
])
def test_shrink_sentence_branches(b0, b1, want_shrink, tail):
    shrink, text = _shrink_sentence("accent", "uk", "us", _eff(b0), _eff(b1), "snr is")
    assert shrink == pytest.approx(want_shrink)
    rr = f"rate ratio {math.exp(b0):.2f} → {math.exp(b1):.2f}"
    assert text == f"The gap for uk (vs us, accent) {tail} ({rr})."


@pytest.mark.parametrize("b0", [0.0099, -0.0099])
def test_shrink_sentence_about_one(b0):
    shrink, text = _shrink_sentence("accent", "uk", "us", _eff(b0), _eff(0.3), "snr and x are")
    assert shrink is None
    assert text == (f"The rate ratio for uk (vs us, accent) is about 1 before adjustment; once "
                    f"snr and x are included it is {math.exp(0.3):.2f} (rate ratio "
                    f"{math.exp(b0):.2f} → {math.exp(0.3):.2f}).")


def test_shrink_at_exactly_one_hundredth_is_computed():
    shrink, text = _shrink_sentence("accent", "uk", "us", _eff(0.01), _eff(0.0), "snr is")
    assert shrink == 100.0
    assert text.startswith("The gap for uk (vs us, accent) shrinks by 100% once snr is ")
