"""The OLS family's whole output (every key, number and sentence), its refusals word for word,
and the speaker pooling, each against statsmodels / scipy / pandas called directly."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats

from fairdesk.presentation.notices import notice_text, notice_texts
from fairdesk.presentation.regression_words import linear_sentences
from fairdesk.stats.regression.linear import _pretty, run_linear, speaker_frame
from fairdesk.stats.regression.linear_results import LinearResult


def _ols(*args, **kwargs) -> dict:
    """:func:`run_linear`'s result as ``fairdesk regress --json`` writes it."""
    return run_linear(*args, **kwargs).to_json(words=notice_text)


def linear_sentences_of(d) -> list[str]:
    """:func:`linear_sentences` of a result's JSON (decoded first)."""
    return linear_sentences(LinearResult.from_json(d))


def speakers_frame() -> pd.DataFrame:
    """12 speakers of 3 utterances: WER rises with age; snr varies within speakers; l1 is
    constant per speaker (es 7 speakers, zh 5). One utterance lacks age, one has no words,
    one has a single word."""
    rng = np.random.default_rng(14)
    rows = []
    for s in range(12):
        age = 20 + 4 * s
        l1 = "zh" if s in (1, 4, 6, 9, 11) else "es"
        for u in range(3):
            n = int(rng.integers(40, 80))
            p = 0.01 + 0.006 * age
            err = int(rng.binomial(n, p))
            rows.append(
                {
                    "speaker_id": f"s{s:02d}",
                    "age": float(age),
                    "l1": l1,
                    "snr": float(rng.normal(10, 3)),
                    "n_words": n,
                    "n_sub": err // 2,
                    "n_del": err - err // 2,
                    "n_ins": u % 2,
                }
            )
    df = pd.DataFrame(rows)
    df.loc[4, "age"] = np.nan  # one utterance left out (missing covariate)
    df.loc[7, ["n_words", "n_sub", "n_del", "n_ins"]] = [0, 0, 0, 0]  # no reference word
    df.loc[10, ["n_words", "n_sub", "n_del", "n_ins"]] = [1, 0, 1, 0]  # one word: kept
    return df


def _pooled(df: pd.DataFrame) -> pd.DataFrame:
    d = df[(df.n_words > 0) & df.age.notna()]
    d = d.assign(e=d.n_sub + d.n_del + d.n_ins)
    g = d.groupby("speaker_id")
    return pd.DataFrame(
        {
            "wer": g.e.sum() / g.n_words.sum(),
            "age": g.age.mean(),
            "snr": g.snr.mean(),
            "l1": g.l1.first(),
        }
    ).reset_index()


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def test_per_speaker_wer_whole_output_equals_statsmodels():
    df = speakers_frame()
    res = _ols(df, ["age", "snr"], ["l1"])
    spk = _pooled(df)
    fit = smf.ols("wer ~ age + snr + C(l1, Treatment('es'))", spk).fit()
    ci = fit.conf_int(0.05)
    names = {
        "Intercept": "Intercept",
        "C(l1, Treatment('es'))[T.zh]": "l1[T.zh]",
        "age": "age",
        "snr": "snr",
    }
    want_coefs = [
        {
            "term": names[k],
            "estimate": fit.params[k],
            "se": fit.bse[k],
            "ci_low": ci.loc[k, 0],
            "ci_high": ci.loc[k, 1],
            "p_value": fit.pvalues[k],
            # log10 of the t test's p, from the t log survival function
            "p_log10": math.log10(2 * stats.t.sf(abs(fit.tvalues[k]), fit.df_resid)),
        }
        for k in fit.params.index
    ]
    assert [c["term"] for c in res["coefficients"]] == [c["term"] for c in want_coefs]
    for got, want in zip(res["coefficients"], want_coefs, strict=True):
        assert set(got) == set(want)
        for k in ("estimate", "se", "ci_low", "ci_high", "p_value", "p_log10"):
            assert got[k] == pytest.approx(want[k], rel=1e-9), k
    sp = []
    for c in ("age", "snr"):
        rho, p = stats.spearmanr(spk.wer, spk[c])
        sp.append(
            {
                "covariate": c,
                "rho": pytest.approx(rho),
                "p_value": pytest.approx(p),
                "p_log10": pytest.approx(math.log10(p)),
                "n": 12,
            }
        )
    assert res["spearman"] == sp
    assert set(res) == {
        "family",
        "outcome",
        "level",
        "formula",
        "n",
        "n_utterances",
        "n_dropped",
        "alpha",
        "references",
        "coefficients",
        "r2",
        "adj_r2",
        "f_p_value",
        "f_p_log10",
        "spearman",
        "aggregation",
        "notes",
    }
    assert res["family"] == "linear" and res["outcome"] == "wer" and res["level"] == "speaker"
    assert res["formula"] == "WER ~ age + snr + C(l1)"
    # 36 rows, one without words (never counted), one without age (left out)
    assert (res["n"], res["n_utterances"], res["n_dropped"]) == (12, 34, 1)
    assert res["alpha"] == 0.05 and res["references"] == {"l1": "es"}
    assert res["r2"] == pytest.approx(fit.rsquared)
    assert res["adj_r2"] == pytest.approx(fit.rsquared_adj)
    assert res["f_p_value"] == pytest.approx(fit.f_pvalue)
    assert res["f_p_log10"] == pytest.approx(math.log10(fit.f_pvalue))
    assert res["aggregation"] == (
        "each speaker's pooled WER (errors / reference words over "
        "their utterances) and covariate means"
    )
    notes = [
        "1 utterance with a missing outcome, covariate or variable was left out.",
        "snr varies within speakers: each speaker's mean enters the model.",
    ]
    assert res["notes"] == notes
    # the sentences, word for word, from statsmodels' numbers
    pa, ps = fit.pvalues["age"], fit.pvalues["snr"]
    assert pa < 0.001 and 0.05 < ps
    lines = [
        f"WER per speaker changes by {fit.params['age']:+.4f} per unit of age, holding snr "
        f"fixed (95% CI [{ci.loc['age', 0]:+.4f}, {ci.loc['age', 1]:+.4f}], p < 0.001; OLS, "
        "n = 12 speakers).",
        f"No evidence that snr predicts WER per speaker, holding age fixed (β = "
        f"{fit.params['snr']:+.4f}, 95% CI [{ci.loc['snr', 0]:+.4f}, {ci.loc['snr', 1]:+.4f}]"
        f", p = {ps:.3f}; n = 12).",
    ]
    for s in sp:
        lines.append(
            f"Spearman correlation of WER with {s['covariate']}: ρ = "
            f"{s['rho'].expected:+.2f} (p = {s['p_value'].expected:.3g}, n = 12 "
            "speakers; descriptive)."
        )
    lines.append(f"R² = {fit.rsquared:.3f} (adjusted {fit.rsquared_adj:.3f}).")
    assert linear_sentences_of(res) == lines + notes


def test_explicit_reference_level_speaker_level_and_alpha():
    df = speakers_frame()
    res = _ols(df, ["age"], ["l1"], {"l1": "zh"}, level="speaker", alpha=0.1)
    spk = _pooled(df)
    fit = smf.ols("wer ~ age + C(l1, Treatment('zh'))", spk).fit()
    ci = fit.conf_int(0.1)
    co = {c["term"]: c for c in res["coefficients"]}
    assert set(co) == {"Intercept", "l1[T.es]", "age"}
    assert co["l1[T.es]"]["estimate"] == pytest.approx(
        fit.params["C(l1, Treatment('zh'))[T.es]"], rel=1e-9
    )
    assert co["age"]["ci_low"] == pytest.approx(ci.loc["age", 0], rel=1e-9)
    assert res["level"] == "speaker" and res["references"] == {"l1": "zh"}
    assert res["alpha"] == 0.1
    # a single covariate: nothing is held fixed
    assert linear_sentences_of(res)[0] == (
        f"WER per speaker changes by {fit.params['age']:+.4f} per unit of age (90% CI "
        f"[{ci.loc['age', 0]:+.4f}, {ci.loc['age', 1]:+.4f}], p < 0.001; OLS, n = 12 speakers)."
    )


def test_p_value_equal_to_alpha_is_not_evidence():
    df = speakers_frame()
    p = {c["term"]: c["p_value"] for c in _ols(df, ["age", "snr"])["coefficients"]}["snr"]
    assert 0.001 < p < 1
    res = _ols(df, ["age", "snr"], alpha=p)
    line = linear_sentences_of(res)[1]
    assert line.startswith("No evidence that snr predicts WER per speaker, holding age fixed")
    assert line.endswith(f", p = {p:.3f}; n = 12).")


def per_utterance_frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 30
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "index": np.arange(n),  # a column named "index" must not get in the way
            "score": (1.0 + 0.5 * x + rng.normal(size=n)).round(4).astype(str),  # numbers as text
            "level_0": 0,
            "x": x,
            "const": 2.0,
            "g": ["a", "b", "c"] * 10,
            "speaker_id": None,
        },
        index=[f"r{i}" for i in range(n)],
    )


def test_per_utterance_numeric_outcome_equals_statsmodels():
    df = per_utterance_frame()
    res = _ols(df, ["x"], outcome="score", speaker_col="speaker_id")
    d = df.assign(score=df.score.astype(float))
    fit = smf.ols("score ~ x", d).fit()
    assert res["level"] == "utterance" and res["outcome"] == "score"
    assert res["formula"] == "score ~ x" and res["aggregation"] == "one row per utterance"
    assert (res["n"], res["n_utterances"], res["n_dropped"], res["notes"]) == (30, 30, 0, [])
    co = {c["term"]: c for c in res["coefficients"]}
    assert co["x"]["estimate"] == pytest.approx(fit.params["x"], rel=1e-9)
    assert co["x"]["se"] == pytest.approx(fit.bse["x"], rel=1e-9)
    assert linear_sentences_of(res)[0].startswith(
        f"score per utterance changes by {fit.params['x']:+.4f} per unit of x (95% CI"
    )
    assert linear_sentences_of(res)[0].endswith("; OLS, n = 30 utterances).")


def test_three_covariates_hold_the_other_two_fixed():
    df = per_utterance_frame()
    df = df.assign(z=np.sin(np.arange(len(df))), w=np.cos(np.arange(len(df))))
    res = _ols(df, ["x", "z", "w"], outcome="score", level="utterance")
    for line, held in zip(linear_sentences_of(res)[:3], ["z, w", "x, w", "x, z"], strict=True):
        assert f", holding {held} fixed (" in line


@pytest.mark.filterwarnings("ignore")
def test_constant_covariate_has_no_spearman_sentence():
    df = per_utterance_frame()
    with np.errstate(all="ignore"):
        res = _ols(df, ["const", "x"], outcome="score", speaker_col=None)
    sp = [c for c in linear_sentences_of(res) if c.startswith("Spearman")]
    rho, p = stats.spearmanr(df.score.astype(float), df.x)
    assert sp == [
        f"Spearman correlation of score with x: ρ = {rho:+.2f} (p = {p:.3g}, "
        "n = 30 utterances; descriptive)."
    ]
    assert res["spearman"][0]["rho"] is None


def test_speaker_mean_of_a_numeric_outcome():
    df = speakers_frame().dropna(subset=["age"])
    df = df.assign(score=df.age / 10 + df.snr)
    res = _ols(df, ["age"], outcome="score")
    assert res["level"] == "speaker" and res["aggregation"] == "each speaker's mean"
    g = df.groupby("speaker_id")
    fit = smf.ols("score ~ age", pd.DataFrame({"score": g.score.mean(), "age": g.age.mean()})).fit()
    co = {c["term"]: c for c in res["coefficients"]}
    assert co["age"]["estimate"] == pytest.approx(fit.params["age"], rel=1e-9)
    assert res["n_utterances"] == len(df) == 35


def _msg(exc_info) -> str:
    return str(exc_info.value)


def test_refusals_word_for_word():
    df = speakers_frame()
    with pytest.raises(ValueError) as e:
        _ols(df, [])
    assert _msg(e) == "the linear model needs at least one covariate (--covariates COL)"
    with pytest.raises(ValueError) as e:
        _ols(df, ["age"], level="word")
    assert _msg(e) == "level must be one of ('auto', 'speaker', 'utterance'), got 'word'"
    for a in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError) as e:
            _ols(df, ["age"], alpha=a)
        assert _msg(e) == f"alpha must be between 0 and 1, got {a}"
    with pytest.raises(ValueError) as e:
        _ols(df[["age", "n_words"]], ["age", "nope"])
    assert _msg(e) == "unknown column(s) ['nope'] (columns: age, n_words)"
    with pytest.raises(ValueError) as e:
        _ols(df.drop(columns=["n_ins"]), ["age"])
    assert _msg(e) == "outcome 'wer' needs the word-error counts ['n_ins']"
    with pytest.raises(ValueError) as e:
        _ols(df, ["age"], outcome="score")
    assert _msg(e) == "no outcome column 'score'"
    bad = per_utterance_frame()
    bad.loc[["r3", "r5"], "score"] = ["abc", "def"]
    with pytest.raises(ValueError) as e:
        _ols(bad, ["x"], outcome="score")
    assert _msg(e) == "column 'score' must be numeric; row r3 holds 'abc'"
    with pytest.raises(ValueError) as e:
        _ols(df, ["age"], level="speaker", speaker_col=None)
    assert _msg(e) == "a per-speaker fit needs a speaker column"
    with pytest.raises(ValueError) as e:
        _ols(df, ["age"], level="speaker", speaker_col="talker")
    assert _msg(e) == "a per-speaker fit needs a speaker column"
    with pytest.raises(ValueError) as e:
        _ols(df, ["age"], ["l1"], {"l1": "fr"})
    assert _msg(e) == "reference level 'fr' is not among 'l1''s levels ['es', 'zh']"


def test_rows_against_coefficients_boundary():
    # 1 + 2 covariates + (3 levels - 1) = 5 coefficients: 6 rows fit, 5 do not
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        {
            "y": rng.normal(size=6),
            "a": rng.normal(size=6),
            "b": rng.normal(size=6),
            "g": ["p", "q", "r", "p", "q", "r"],
        }
    )
    res = _ols(df, ["a", "b"], ["g"], outcome="y", level="utterance")
    assert res["n"] == 6 and len(res["coefficients"]) == 5
    with pytest.raises(ValueError) as e:
        _ols(df.iloc[:5], ["a", "b"], ["g"], outcome="y", level="utterance")
    assert _msg(e) == (
        "5 utterances for 5 coefficients: the model needs more rows than coefficients"
    )


def test_speaker_frame_pools_and_checks():
    df = pd.DataFrame(
        {
            "spk": ["b", "b", "a", "a", "a", "c"],
            "y": [1.0, 3.0, 2.0, 4.0, 6.0, 5.0],
            "e": [1, 2, 0, 1, 1, 3],
            "w": [10, 10, 5, 5, 10, 6],
            "cov": [1.0, 1.0, 2.0, np.nan, 2.0, 3.0],  # constant within speakers (NaN aside)
            "var": ["x", "x", "y", None, "y", "x"],
        }
    )
    out, notes = speaker_frame(df, "spk", "y", ["cov"], ["var"], None, None)
    want = pd.DataFrame(
        {
            "spk": ["a", "b", "c"],
            "y": [4.0, 2.0, 5.0],
            "n_utterances": [3, 2, 1],
            "cov": [2.0, 1.0, 3.0],
            "var": ["y", "x", "x"],
        }
    )
    pd.testing.assert_frame_equal(out, want)
    assert notes == []
    out, notes = speaker_frame(
        df.assign(cov=[1.0, 2.0, 2.0, 2.0, 2.0, 3.0]), "spk", "wer", ["cov"], [], "e", "w"
    )
    assert list(out.columns) == ["spk", "wer", "n_utterances", "cov"]
    assert out["wer"].tolist() == pytest.approx([2 / 20, 3 / 20, 3 / 6])
    assert notice_texts(notes) == [
        "cov varies within speakers: each speaker's mean enters the model."
    ]
    bad = pd.DataFrame({"spk": list("aabbccddee"), "y": 1.0, "var": list("xxxyxyxyxy")})
    with pytest.raises(ValueError) as e:
        speaker_frame(bad, "spk", "y", [], ["var"], None, None)
    assert _msg(e) == (
        "'var' is not constant within speakers (e.g. ['b', 'c', 'd']); fit per "
        "utterance instead (--level utterance)"
    )


@pytest.mark.parametrize(
    "name, want",
    [
        ("Intercept", "Intercept"),
        ("Q('age')", "age"),
        ("Q('a\\\\b')", "a\\b"),
        ("C(Q('l1'), Treatment('es'))[T.zh]", "l1[T.zh]"),
        ("C(Q(\"it's [x]\"), Treatment('e[s'))[T.z\"h[1]]", "it's [x][T.z\"h[1]]"),
        ("C(Q('a\\\\b'), Treatment('a'))[T.b]", "a\\b[T.b]"),
    ],
)
def test_pretty_term_names(name, want):
    assert _pretty(name) == want


def test_names_with_quotes_and_backslashes_read_back():
    df = speakers_frame().rename(columns={"l1": "speaker's l1", "age": "age\\y"})
    res = _ols(df, ["age\\y"], ["speaker's l1"])
    assert [c["term"] for c in res["coefficients"]] == ["Intercept", "speaker's l1[T.zh]", "age\\y"]
    assert res["formula"] == "WER ~ age\\y + C(speaker's l1)"
    assert linear_sentences_of(res)[0].startswith("WER per speaker changes by ")
    assert " per unit of age\\y (95% CI [" in linear_sentences_of(res)[0]
