"""The mixed Poisson report's words: the bootstrap agreement sentences and the shrinkage
sentences, every branch and boundary word for word, on hand-made inputs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2

from fairdesk.presentation.pvalues import p_text as _fmt_p
from tests.stats.regression.poisson_words import agreement_words as agreement_with_bootstrap
from tests.stats.regression.poisson_words import run_poisson_mixed, shrink_sentence


def _shrink_sentence(var, level, ref, before, after, what):
    """(shrinkage, sentence) with the covariates named as the sentence does ("a and b are")."""
    added = what.rsplit(" ", 1)[0].split(" and ")
    return shrink_sentence(var, level, ref, before, after, added)


def _lev(level, rr, p, lo=None, hi=None):
    return {
        "level": level,
        "rate_ratio": rr,
        "ci_low": lo if lo is not None else rr * 0.8,
        "ci_high": hi if hi is not None else rr * 1.2,
        "p_adjusted": p,
    }


def _cmp(group, gap, p, metric="wer"):
    return {
        "metric": metric,
        "group": group,
        "reference": "us",
        "gap": gap,
        "ci_low": gap - 0.03,
        "ci_high": gap + 0.03,
        "p_adjusted": p,
    }


RESULT = {
    "alpha": 0.05,
    "covariates": [{"covariate": "snr"}, {"covariate": "duration"}, {"covariate": "snr"}],
    "group_variables": [
        {
            "variable": "accent",
            "reference": "us",
            "levels": [
                _lev("nocmp", 1.5, 0.01),  # no bootstrap comparison: left out
                _lev("bootnone", 1.5, 0.01),  # the bootstrap has no p: left out
                _lev("modelnone", 1.5, None),  # the model has no p: left out
                _lev("uk", 1.5, 0.01, 1.2, 1.8),
                _lev("ng", 1.1, 0.4),
                _lev("au", 1.2, 0.3),
                _lev("ca", 0.8, 0.001),
                _lev("ie", 1.4, 0.0004),
                _lev("za", 1.3, 0.05),
                _lev("one", 1.0, 0.01),
                _lev("zero", 0.9, 0.01),
            ],
        },
        {"variable": "age", "reference": "18-29", "levels": [_lev("60+", 2.0, 0.002)]},
    ],
}
COMPARISONS = [
    _cmp("bootnone", 0.05, None),
    _cmp("modelnone", 0.05, 0.01),
    _cmp("uk", 0.05, 0.02),
    _cmp("uk", -0.5, 0.9, metric="cer"),
    _cmp("ng", -0.01, 0.5),
    _cmp("au", 0.04, 0.01),
    _cmp("ca", 0.03, 0.03),
    _cmp("ie", 0.02, 0.2),
    _cmp("za", 0.02, 0.05),
    _cmp("one", -0.02, 0.01),
    _cmp("zero", 0.0, 0.01),
    _cmp("60+", 0.1, 0.001),
]


def test_agreement_every_branch_word_for_word():
    got = agreement_with_bootstrap(RESULT, COMPARISONS)
    assert [g["level"] for g in got] == ["uk", "ng", "au", "ca", "ie", "za", "one", "zero"]
    flags = {
        g["level"]: (g["agree"], g["model_significant"], g["bootstrap_significant"]) for g in got
    }
    assert flags == {
        "uk": (True, True, True),
        "ng": (True, False, False),
        "au": (False, False, True),
        "ca": (False, True, True),
        "ie": (False, True, False),
        "za": (True, False, False),
        "one": (True, True, True),
        "zero": (True, True, True),
    }
    for g in got:
        assert set(g) == {
            "level",
            "agree",
            "model_significant",
            "bootstrap_significant",
            "sentence",
        }
        assert all(
            type(g[k]) is bool for k in ("agree", "model_significant", "bootstrap_significant")
        )
    s = {g["level"]: g["sentence"] for g in got}
    assert s["uk"] == (
        "The model and the bootstrap agree: uk is worse than us (model: rate "
        "ratio 1.50 [1.20, 1.80], Holm p = 0.010; bootstrap: WER gap +0.050 "
        "[+0.020, +0.080], Holm p = 0.020)."
    )
    assert s["ng"] == (
        "Neither the model nor the bootstrap finds a gap for ng (model: rate "
        "ratio 1.10 [0.88, 1.32], Holm p = 0.400; bootstrap: WER gap -0.010 "
        "[-0.040, +0.020], Holm p = 0.500)."
    )
    assert s["au"] == (
        "The model and the bootstrap disagree on au: the model, adjusted for "
        "duration, snr, finds no gap, so the bootstrap's gap may come from "
        "those factors (model: rate ratio 1.20 [0.96, 1.44], Holm p = 0.300; "
        "bootstrap: WER gap +0.040 [+0.010, +0.070], Holm p = 0.010)."
    )
    assert s["ca"] == (
        "The model and the bootstrap disagree on ca (model: rate ratio 0.80 "
        "[0.64, 0.96], Holm p = 0.001; bootstrap: WER gap +0.030 [+0.000, "
        "+0.060], Holm p = 0.030)."
    )
    assert s["ie"] == (
        "The model and the bootstrap disagree on ie (model: rate ratio 1.40 "
        "[1.12, 1.68], Holm p = 4.0e-04; bootstrap: WER gap +0.020 [-0.010, "
        "+0.050], Holm p = 0.200)."
    )
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
    assert age["sentence"].startswith(
        "The model and the bootstrap agree: 60+ is worse than 18-29 (model: rate ratio 2.00"
    )
    (cer,) = [g for g in agreement_with_bootstrap(RESULT, COMPARISONS, metric="cer")]
    assert cer["level"] == "uk" and not cer["agree"]
    with pytest.raises(ValueError) as e:
        agreement_with_bootstrap(RESULT, COMPARISONS, variable="gender")
    assert str(e.value) == "The model has no group variable 'gender'."


def _eff(log_rr):
    return {"log_rr": log_rr, "rate_ratio": math.exp(log_rr)}


@pytest.mark.parametrize(
    "b0, b1, want_shrink, tail",
    [
        (0.5, 0.375, 25.0, "shrinks by 25% once snr is included"),
        (0.5, 0.625, -25.0, "grows by 25% once snr is included"),
        (0.5, -0.25, 150.0, "reverses once snr is included"),
        (0.5, 0.4775, 4.5, "hardly moves once snr is included"),
        (0.5, 0.4725, 5.5, "shrinks by 6% once snr is included"),
        (0.5, 0.0, 100.0, "shrinks by 100% once snr is included"),
        (1.0, -0.005, 100.5, "reverses once snr is included"),
    ],
)
def test_shrink_sentence_branches(b0, b1, want_shrink, tail):
    shrink, text = _shrink_sentence("accent", "uk", "us", _eff(b0), _eff(b1), "snr is")
    assert shrink == pytest.approx(want_shrink)
    rr = f"rate ratio {math.exp(b0):.2f} → {math.exp(b1):.2f}"
    assert text == f"The gap for uk (vs us, accent) {tail} ({rr})."


@pytest.mark.parametrize("b0", [0.0099, -0.0099])
def test_shrink_sentence_about_one(b0):
    shrink, text = _shrink_sentence("accent", "uk", "us", _eff(b0), _eff(0.3), "snr and x are")
    assert shrink is None
    assert text == (
        f"The rate ratio for uk (vs us, accent) is about 1 before adjustment; once "
        f"snr and x are included it is {math.exp(0.3):.2f} (rate ratio "
        f"{math.exp(b0):.2f} → {math.exp(0.3):.2f})."
    )


def test_shrink_at_exactly_one_hundredth_is_computed():
    shrink, text = _shrink_sentence("accent", "uk", "us", _eff(0.01), _eff(0.0), "snr is")
    assert shrink == 100.0
    assert text.startswith("The gap for uk (vs us, accent) shrinks by 100% once snr is ")


# ------------------------------------------------------------------ tracing, against refits


def _trace_frame(seed: int = 1) -> pd.DataFrame:
    """grp reads long utterances (no effect of its own), oth short ones (a true +0.6);
    errors rise with duration and with speed, speed being unrelated to the group."""
    rng = np.random.default_rng(seed)
    rows = []
    spec = {"ref": ((5, 12), 0.0), "grp": ((12, 26), 0.0), "oth": ((2, 6), 0.6)}
    for g, ((lo, hi), eff) in spec.items():
        si = np.repeat(np.arange(12), 10)
        words = rng.integers(lo, hi, si.size)
        dur = words / rng.uniform(2.0, 3.5, si.size)
        speed = rng.normal(0, 1, si.size)
        eta = -1.7 + eff + 0.3 * (dur - 4) + 0.3 * speed + rng.normal(0, 0.3, 12)[si]
        rows.append(
            pd.DataFrame(
                {
                    "accent": g,
                    "speaker_id": [f"{g}{i}" for i in si],
                    "n_words": words,
                    "n_sub": rng.poisson(words * np.exp(eta)),
                    "n_del": 0,
                    "n_ins": 0,
                    "duration": dur,
                    "speed": speed,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _fit(df, covariates, alpha=0.05):
    return run_poisson_mixed(
        df, "accent", covariates, reference="ref", content_col=None, alpha=alpha
    )


def _levels_of(res):
    return {r["level"]: r for r in res["group_variables"][0]["levels"]}


def test_tracing_equals_the_refits_one_covariate_at_a_time():
    df = _trace_frame()
    res = _fit(df, ["duration", "speed"])
    unadj = _fit(df, None)
    refits = {
        ("duration",): _fit(df, ["duration"]),
        ("speed",): _fit(df, ["speed"]),
        ("duration", "speed"): res,
    }
    assert unadj["tracing"] == []
    assert [s["added"] for s in res["tracing"]] == [["duration"], ["speed"], ["duration", "speed"]]
    o = res["overdispersion"]
    assert o["overdispersed"] is False and o["df"] == 360 - 6
    assert o["reading"] == (
        f"Given each speaker's rate, the errors vary as a Poisson count should (Pearson χ²/df = "
        f"{o['ratio']:.2f}). Without the speaker term χ²/df would be "
        f"{o['ratio_without_speaker']:.2f}: the speaker intercept accounts for the extra "
        "variation between speakers."
    )
    assert 1 / 1.2 < o["ratio"] < 1.2 and o["ratio_without_speaker"] > o["ratio"] + 0.1
    before = _levels_of(unadj)
    sentences = []
    for step in res["tracing"]:
        assert set(step) == {
            "added",
            "lr_stat",
            "df",
            "lr_p_value",
            "lr_p_log10",
            "confounder",
            "levels",
        }
        ref = refits[tuple(step["added"])]
        lr = 2 * (ref["loglik"] - unadj["loglik"])
        assert step["lr_stat"] == pytest.approx(lr, rel=1e-6)
        assert step["df"] == len(step["added"]) and type(step["df"]) is int
        assert step["lr_p_value"] == pytest.approx(chi2.sf(lr, len(step["added"])), rel=1e-5)
        # log10 of the LR p beside it (χ² log survival function): finite where p is 0.0
        assert step["lr_p_log10"] == pytest.approx(
            chi2.logsf(lr, len(step["added"])) / math.log(10), rel=1e-5
        )
        after = _levels_of(ref)
        what = " and ".join(step["added"]) + (" are" if len(step["added"]) > 1 else " is")
        assert [lv["level"] for lv in step["levels"]] == ["grp", "oth"]
        changed = []
        for lv in step["levels"]:
            assert set(lv) == {
                "variable",
                "level",
                "rate_ratio_before",
                "rate_ratio_after",
                "p_before",
                "p_after",
                "p_before_log10",
                "p_after_log10",
                "shrink_pct",
                "conclusion_changed",
                "sentence",
            }
            b, a = before[lv["level"]], after[lv["level"]]
            assert lv["variable"] == "accent"
            assert lv["rate_ratio_before"] == pytest.approx(b["rate_ratio"], rel=1e-9)
            assert lv["rate_ratio_after"] == pytest.approx(a["rate_ratio"], rel=1e-9)
            assert lv["p_before"] == pytest.approx(b["p_value"], rel=1e-9)
            assert lv["p_after"] == pytest.approx(a["p_value"], rel=1e-9)
            shrink = 100 * (1 - math.log(a["rate_ratio"]) / math.log(b["rate_ratio"]))
            assert lv["shrink_pct"] == pytest.approx(shrink, rel=1e-9)
            flip = (b["p_value"] < 0.05) != (a["p_value"] < 0.05)
            assert lv["conclusion_changed"] is flip
            if flip:
                changed.append((lv["level"], a["p_value"]))
            assert lv["sentence"] == _shrink_sentence("accent", lv["level"], "ref", b, a, what)[1]
            sentences.append(lv["sentence"])
        assert step["confounder"] is (step["lr_p_value"] < 0.05 and bool(changed))
        if step["confounder"]:
            parts = "; ".join(
                f"{lev} {'becomes' if q < 0.05 else 'is no longer'} significant (p = {_fmt_p(q)})"
                for lev, q in changed
            )
            names = " and ".join(step["added"])  # the column names as given
            sentences.append(
                f"{names} confounds the group effect (LR p = "
                f"{_fmt_p(step['lr_p_value'])}): adjusted on it, {parts}."
            )
    # duration: grp's gap goes (no longer significant) and oth's appears (becomes significant);
    # speed predicts errors strongly but changes no conclusion, so it confounds nothing
    conf = {tuple(s["added"]): s["confounder"] for s in res["tracing"]}
    assert conf == {("duration",): True, ("speed",): False, ("duration", "speed"): True}
    assert res["tracing"][1]["lr_p_value"] < 1e-6
    flips = {lv["level"]: lv["conclusion_changed"] for lv in res["tracing"][0]["levels"]}
    assert flips == {"grp": True, "oth": True}
    assert any(s.startswith("duration and speed confounds the group effect") for s in sentences)
    assert [s for s in res["conclusions"] if s in sentences] == sentences
    assert (
        "grp is no longer significant" in sentences[2] and "oth becomes significant" in sentences[2]
    )


def test_tracing_flip_at_alpha_equal_to_a_p_value():
    df = _trace_frame()
    res = _fit(df, ["duration", "speed"])
    oth = {tuple(s["added"]): s["levels"][1] for s in res["tracing"]}
    # alpha = p before: not significant before, significant after (duration)
    a1 = oth[("duration",)]["p_before"]
    assert oth[("duration",)]["p_after"] < a1
    r1 = _fit(df, ["duration", "speed"], alpha=a1)
    assert r1["tracing"][0]["levels"][1]["conclusion_changed"] is True
    # alpha = p after: significant before, not after (speed)
    a2 = oth[("speed",)]["p_after"]
    assert oth[("speed",)]["p_before"] < a2
    r2 = _fit(df, ["duration", "speed"], alpha=a2)
    assert r2["tracing"][1]["levels"][1]["conclusion_changed"] is True
    assert r2["tracing"][1]["confounder"] is True
    assert any(
        c.startswith("speed confounds the group effect")
        and c.endswith(f"adjusted on it, oth is no longer significant (p = {_fmt_p(a2)}).")
        for c in r2["conclusions"]
    )


# ------------------------------------------------------------------ the whole report


def test_report_whole_output_against_pandas_scipy_and_statsmodels():
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    df = _trace_frame()
    res = _fit(df, ["duration"])
    assert set(res) == {
        "family",
        "model",
        "approximation",
        "inference",
        "alpha",
        "n_utterances",
        "n_speakers",
        "n_words",
        "n_errors",
        "group_variables",
        "covariates",
        "speaker_sd",
        "speaker_variance",
        "speaker_sd_se",
        "speaker_sd_at_boundary",
        "speaker_sd_lr_stat",
        "speaker_sd_lr_p_value",
        "speaker_sd_lr_p_log10",
        "content",
        "random_effects_note",
        "overdispersion",
        "tracing",
        "converged",
        "loglik",
        "dropped",
        "notes",
        "conclusions",
    }
    assert res["family"] == "poisson-mixed"
    assert res["model"] == (
        "word errors ~ Poisson(reference words × exp(accent + duration + "
        "speaker)), speaker ~ Normal(0, σ²)"
    )
    assert res["approximation"] == (
        "maximum likelihood, adaptive Gauss-Hermite quadrature, 15 "
        "nodes per speaker (as lme4 glmer, nAGQ = 15)"
    )
    # 36 speakers, 3 between-speaker columns (intercept and two accent levels)
    assert res["inference"] == (
        "Wald 95% intervals and p-values from the observed information (Louis' identity). "
        "Effects constant within speakers: standard error × sqrt(speakers / (speakers − "
        f"between-speaker effects)) = × {math.sqrt(36 / 33):.3f}, Student's t on min(speakers "
        "of the level, speakers of the reference) − 1 df; within-speaker effects: normal. Holm "
        "across all levels of all group variables; LR test per group variable"
    )
    err = df.n_sub + df.n_del + df.n_ins
    assert (res["alpha"], res["n_utterances"], res["n_speakers"]) == (0.05, 360, 36)
    assert (res["n_words"], res["n_errors"]) == (int(df.n_words.sum()), int(err.sum()))
    (g,) = res["group_variables"]
    assert g["variable"] == "accent" and g["reference"] == "ref" and g["df"] == 2
    assert g["lr_p_value"] == pytest.approx(stats.chi2.sf(g["lr_stat"], 2))
    for row in [g["reference_row"], *g["levels"]]:
        sub = df[df.accent == row["level"]]
        assert row["n_utterances"] == len(sub) and row["n_speakers"] == sub.speaker_id.nunique()
        assert row["wer"] == pytest.approx(err[sub.index].sum() / sub.n_words.sum())
    assert set(g["reference_row"]) == {"level", "n_utterances", "n_speakers", "wer"}
    holm = multipletests([r["p_value"] for r in g["levels"]], method="holm")[1]
    assert g["lr_p_log10"] == pytest.approx(stats.chi2.logsf(g["lr_stat"], 2) / math.log(10))
    for r, h in zip(g["levels"], holm, strict=True):
        assert r["p_adjusted"] == pytest.approx(h)
        # the logarithms beside them: Holm on the log scale, and the t's log survival function
        assert r["p_adjusted_log10"] == pytest.approx(math.log10(h))
        assert r["p_log10"] == pytest.approx(math.log10(r["p_value"]))
        assert r["df"] == 11.0 and r["rate_ratio"] == pytest.approx(math.exp(r["log_rr"]))
        q = stats.t.ppf(0.975, 11)
        assert r["ci_low"] == pytest.approx(math.exp(r["log_rr"] - q * r["se"]))
        assert r["ci_high"] == pytest.approx(math.exp(r["log_rr"] + q * r["se"]))
        assert r["p_value"] == pytest.approx(2 * stats.t.sf(abs(r["log_rr"] / r["se"]), 11))
    (cov,) = res["covariates"]
    sd = float(np.std(df.duration))
    assert cov["covariate"] == "duration" and cov["kind"] == "numeric" and cov["df"] is None
    assert cov["sd"] == pytest.approx(sd) and cov["per"] == f"1 SD ({sd:.4g})"
    z = stats.norm.ppf(0.975)
    assert cov["ci_low"] == pytest.approx(math.exp(cov["log_rr"] - z * cov["se"]))
    assert cov["p_value"] == pytest.approx(
        2 * stats.norm.sf(abs(cov["log_rr"] / cov["se"])), rel=1e-6
    )
    assert res["speaker_variance"] == pytest.approx(res["speaker_sd"] ** 2)
    assert res["speaker_sd_at_boundary"] is False and res["converged"] is True
    assert res["speaker_sd_lr_p_value"] == pytest.approx(
        0.5 * stats.chi2.sf(res["speaker_sd_lr_stat"], 1)
    )
    assert res["speaker_sd_lr_p_log10"] == pytest.approx(
        math.log10(0.5 * stats.chi2.sf(res["speaker_sd_lr_stat"], 1))
    )
    assert res["content"] == {
        "handling": "absent",
        "n_contents": 0,
        "n_shared": 0,
        "reason": "no content ids: sentence difficulty is not separated.",
    }
    assert res["random_effects_note"] == (
        "Crossed speaker × content random effects are not fitted: adaptive Gauss-Hermite "
        "quadrature integrates one grouping factor (the speaker) only."
    )
    o = res["overdispersion"]
    assert o["df"] == 360 - 5 and o["ratio"] == pytest.approx(o["pearson_chi2"] / 355)
    assert o["p_value"] == pytest.approx(stats.chi2.sf(o["pearson_chi2"], 355))
    assert o["overdispersed"] is True and o["ratio"] > 1.2 and o["p_value"] < 0.05
    assert o["reading"] == (
        "Errors vary more between utterances than a Poisson count allows, even given each "
        f"speaker's rate (Pearson χ²/df = {o['ratio']:.2f}, p = {_fmt_p(o['p_value'])}): bursts "
        "of errors within an utterance (e.g. an insertion run) or sentence difficulty. The "
        "model's intervals are then too narrow; trust the bootstrap comparison, which makes no "
        "Poisson assumption, where the two differ. Without the speaker term χ²/df would be "
        f"{o['ratio_without_speaker']:.2f}: the speaker intercept accounts for the extra "
        "variation between speakers."
    )
    grp, oth = g["levels"]
    assert grp["p_adjusted"] >= 0.05 > oth["p_adjusted"]
    sd_ = res["speaker_sd"]
    assert res["conclusions"][:4] == [
        f"No evidence that grp differs from ref in word errors (rate ratio "
        f"{grp['rate_ratio']:.2f} [{grp['ci_low']:.2f}, {grp['ci_high']:.2f}], Holm p = "
        f"{_fmt_p(grp['p_adjusted'])}, adjusted for duration).",
        f"oth speakers make {oth['rate_ratio']:.2f}× the word errors of ref speakers per "
        f"reference word (more; 95% CI [{oth['ci_low']:.2f}, {oth['ci_high']:.2f}], Holm p = "
        f"{_fmt_p(oth['p_adjusted'])}; mixed Poisson model, adjusted for duration).",
        f"Speakers of the same group differ: speaker SD {sd_:.2f} on the log scale (a speaker "
        f"one SD above another makes {math.exp(sd_):.2f}× the errors; test of no speaker "
        f"variation p = {_fmt_p(res['speaker_sd_lr_p_value'])}).",
        o["reading"],
    ]
    assert res["conclusions"][4:] == [
        *[lv["sentence"] for lv in res["tracing"][0]["levels"]],
        res["conclusions"][6],
    ]
    assert res["conclusions"][6].startswith("duration confounds the group effect")
    assert res["dropped"] == {} and res["notes"] == []


def test_report_without_speaker_variation_and_with_too_even_errors():
    # errors = round(words × rate) exactly: no speaker variation, less than Poisson variation
    rng = np.random.default_rng(4)
    rows = []
    for g, rate in (("ref", 0.2), ("low", 0.1)):
        words = rng.integers(20, 40, 60)
        rows.append(
            pd.DataFrame(
                {
                    "accent": g,
                    "speaker_id": [f"{g}{i % 6}" for i in range(60)],
                    "n_words": words,
                    "n_sub": np.round(words * rate).astype(int),
                    "n_del": 0,
                    "n_ins": 0,
                }
            )
        )
    df = pd.concat(rows, ignore_index=True)
    res = _fit(df, None)
    assert res["speaker_sd_at_boundary"] is True
    assert res["covariates"] == [] and res["tracing"] == []
    o = res["overdispersion"]
    assert o["ratio"] < 1 / 1.2 and o["overdispersed"] is False
    assert o["reading"] == (
        f"Errors vary less than a Poisson count given each speaker's rate "
        f"(Pearson χ²/df = {o['ratio']:.2f}); the intervals are, if "
        "anything, conservative."
    )
    (low,) = res["group_variables"][0]["levels"]
    assert res["conclusions"] == [
        f"low speakers make {low['rate_ratio']:.2f}× the word errors of ref speakers per "
        f"reference word (fewer; 95% CI [{low['ci_low']:.2f}, {low['ci_high']:.2f}], Holm p = "
        f"{_fmt_p(low['p_adjusted'])}; mixed Poisson model).",
        "No variation between speakers beyond their groups is detectable (speaker SD "
        "estimated at 0).",
        o["reading"],
    ]
