"""The OLS family (seed 002) and seed 000's χ², ANOVA, cross-tables and per-speaker spread,
each against statsmodels / scipy called directly on the same rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_words import descriptive_sentences, linear_sentences
from fairdesk.stats.regression import run_regression
from fairdesk.stats.regression.linear import run_linear
from fairdesk.stats.regression.linear_results import LinearResult


def _ols(*args, **kwargs) -> dict:
    """:func:`run_linear`'s result as ``fairdesk regress --json`` writes it."""
    return run_linear(*args, **kwargs).to_json(words=notice_text)


def linear_sentences_of(d) -> list[str]:
    """:func:`linear_sentences` of a result's JSON (decoded first)."""
    return linear_sentences(LinearResult.from_json(d))


BETA_ONSET, BETA_AGE = 0.01, 0.002


def onset_frame(seed: int = 4, n_speakers: int = 120) -> pd.DataFrame:
    """Speakers reading 3 utterances; WER = 0.05 + 0.01·onset + 0.002·age (binomial words)."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_speakers):
        onset = int(rng.integers(0, 25))
        age = int(rng.integers(18, 70))
        p = 0.05 + BETA_ONSET * onset + BETA_AGE * age
        for _u in range(3):
            n = 60
            err = int(rng.binomial(n, p))
            sub = err // 2
            rows.append(
                {
                    "speaker_id": f"s{s}",
                    "age_onset": onset,
                    "age": age,
                    "l1": ["es", "zh"][s % 2],
                    "n_words": n,
                    "n_sub": sub,
                    "n_del": err - sub,
                    "n_ins": 0,
                    "duration_s": rng.uniform(1, 5),
                }
            )
    return pd.DataFrame(rows)


def test_linear_recovers_planted_onset_effect_per_speaker():
    df = onset_frame()
    res = _ols(df, ["age_onset", "age"])
    assert res["level"] == "speaker" and res["n"] == 120 and res["n_utterances"] == 360
    co = {c["term"]: c for c in res["coefficients"]}
    assert co["age_onset"]["ci_low"] <= BETA_ONSET <= co["age_onset"]["ci_high"]
    assert co["age"]["ci_low"] <= BETA_AGE <= co["age"]["ci_high"]
    # the same numbers as a direct statsmodels call on an independently pooled frame
    g = df.assign(e=df.n_sub + df.n_del + df.n_ins).groupby("speaker_id")
    spk = pd.DataFrame(
        {"wer": g.e.sum() / g.n_words.sum(), "age_onset": g.age_onset.first(), "age": g.age.first()}
    )
    fit = smf.ols("wer ~ age_onset + age", spk).fit()
    for name in ("Intercept", "age_onset", "age"):
        assert co[name]["estimate"] == pytest.approx(fit.params[name], rel=1e-9)
        assert co[name]["p_value"] == pytest.approx(fit.pvalues[name], rel=1e-9)
        assert co[name]["ci_low"] == pytest.approx(fit.conf_int().loc[name, 0], rel=1e-9)
    assert res["r2"] == pytest.approx(fit.rsquared)
    sp = {s["covariate"]: s for s in res["spearman"]}
    rho, p = stats.spearmanr(spk.wer, spk.age_onset)
    assert sp["age_onset"]["rho"] == pytest.approx(rho) and sp["age_onset"]["n"] == 120
    assert any("age_onset" in c and "changes by" in c for c in linear_sentences_of(res))


def test_linear_per_utterance_with_group_term_equals_statsmodels():
    df = onset_frame(seed=5, n_speakers=40)
    res = _ols(df, ["duration_s"], ["l1"], {"l1": "es"}, level="utterance")
    assert res["level"] == "utterance" and res["n"] == 120
    d = df.assign(wer=(df.n_sub + df.n_del + df.n_ins) / df.n_words)
    fit = smf.ols("wer ~ duration_s + C(l1, Treatment('es'))", d).fit()
    co = {c["term"]: c["estimate"] for c in res["coefficients"]}
    assert co["duration_s"] == pytest.approx(fit.params["duration_s"], rel=1e-9)
    assert co["l1[T.zh]"] == pytest.approx(fit.params["C(l1, Treatment('es'))[T.zh]"], rel=1e-9)


def test_linear_refuses_bad_input():
    df = onset_frame(n_speakers=10)
    with pytest.raises(ValueError, match="covariate"):
        _ols(df, [])
    with pytest.raises(ValueError, match="unknown column"):
        _ols(df, ["nope"])
    with pytest.raises(ValueError, match="not constant within speakers"):
        _ols(df.assign(l1=np.arange(len(df)) % 2), ["age"], ["l1"])


def test_seed000_chi2_anova_crosstabs_and_spread(small_frame):
    res = run_regression(small_frame, "em", ["age", "accent"], cluster="speaker_id")
    d = res.to_dict(words=notice_text)
    chi = {c["variable"]: c for c in d["outcome_chi2"]}["age"]
    table = pd.crosstab(small_frame["age"], small_frame["em"])
    c2, p, dof, _ = stats.chi2_contingency(table.to_numpy())
    assert chi["chi2"] == pytest.approx(c2) and chi["p_value"] == pytest.approx(p)
    assert chi["df"] == dof == 2
    an = {a["variable"]: a for a in d["anova"]}["accent"]
    f, p = stats.f_oneway(*[g.em.to_numpy() for _, g in small_frame.groupby("accent")])
    assert an["f"] == pytest.approx(f) and an["p_value"] == pytest.approx(p)
    # and the same F as statsmodels' ANOVA table of outcome ~ C(accent)
    import statsmodels.api as sm

    tab = sm.stats.anova_lm(smf.ols("em ~ C(accent)", small_frame).fit())
    assert an["f"] == pytest.approx(tab.loc["C(accent)", "F"])
    ct = d["cross_tables"]
    assert ct["levels"]["age"]["60+"]["utterances"] == int((small_frame.age == "60+").sum())
    pair = ct["pairs"][0]
    sub = small_frame[(small_frame.age == "60+") & (small_frame.accent == "uk")]
    assert pair["cells"]["60+"]["uk"] == {
        "utterances": len(sub),
        "speakers": sub.speaker_id.nunique(),
    }
    spread = {s["variable"]: s for s in d["speaker_spread"]}["accent"]
    uk = [lv for lv in spread["levels"] if lv["level"] == "uk"][0]
    want = small_frame[small_frame.accent == "uk"].groupby("speaker_id").em.mean()
    got = {r["speaker"]: r["value"] for r in uk["speakers"]}
    assert got == pytest.approx(want.to_dict())
    assert uk["median"] == pytest.approx(want.median())
    adj = d["adjustments"][0]
    assert adj["levels"] and {"odds_ratio", "ci_low", "p_value"} <= set(adj["levels"][0])
    # the statistics give the numbers; presentation writes their sentences
    assert not any(s.startswith(("χ² test", "One-way ANOVA")) for s in d["conclusions"])
    said = descriptive_sentences(res.descriptive, "exact match", 0.05)
    assert any(s.startswith("χ² test") for s in said)
    assert any(s.startswith("One-way ANOVA") for s in said)


def test_seed000_wer_outcome_uses_words(small_frame):
    res = run_regression(
        small_frame, "wer", ["age"], binomial=("n_errors", "n_words"), cluster="speaker_id"
    )
    chi = res.to_dict(words=notice_text)["outcome_chi2"][0]
    assert chi["unit"] == "reference words"
    t = small_frame.groupby("age")[["n_errors", "n_words"]].sum()
    table = np.c_[t.n_errors, t.n_words - t.n_errors]
    assert chi["chi2"] == pytest.approx(stats.chi2_contingency(table)[0])
    an = res.to_dict(words=notice_text)["anova"][0]
    r = small_frame.n_errors / small_frame.n_words
    f, _ = stats.f_oneway(*[r[small_frame.age == a] for a in sorted(small_frame.age.unique())])
    assert an["f"] == pytest.approx(f)
