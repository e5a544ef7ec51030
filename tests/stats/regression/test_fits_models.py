"""The shared fits against statsmodels called directly: the GEE of word errors on one
Bernoulli row per reference word, interaction designs with an empty or an aliased cell; and
the problems they report word for word (a separated word-error level or cell, quasi-complete
separation of an additive model, no estimable interaction)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

from fairdesk.stats.regression import run_regression
from tests.stats.regression.conftest import texts, words

SEP = "so its odds ratio is infinite; merge or drop that"


def _words_frame() -> pd.DataFrame:
    """240 utterances of 1-6 words by 24 speakers, accent a/b/c, speaker effects."""
    rng = np.random.default_rng(11)
    n = 240
    spk = np.repeat(np.arange(24), 10)
    accent = np.array(["a", "b", "c"])[spk % 3]
    words = rng.integers(1, 7, n)
    u = rng.normal(0, 0.5, 24)[spk]
    p = 1 / (1 + np.exp(-(-1.2 + 0.5 * (accent == "b") - 0.4 * (accent == "c") + u)))
    return pd.DataFrame(
        {
            "accent": accent,
            "spk": spk.astype(str),
            "n_words": words,
            "n_errors": rng.binomial(words, p),
        }
    )


def test_gee_of_word_errors_equals_statsmodels_on_word_rows():
    df = _words_frame()
    res = run_regression(
        df,
        "wer",
        ["accent"],
        references={"accent": "a"},
        cluster="spk",
        cluster_method="gee",
        binomial=("n_errors", "n_words"),
    )
    # one row per reference word: the first n_errors words of an utterance are errors
    rows = [
        {"y": float(k < e), "accent": a, "g": int(s)}
        for a, s, w, e in zip(df.accent, df.spk, df.n_words, df.n_errors, strict=True)
        for k in range(w)
    ]
    long = pd.DataFrame(rows)
    fit = smf.gee(
        "y ~ C(accent, Treatment('a'))",
        groups=long.g,
        data=long,
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Exchangeable(),
    ).fit(maxiter=100)
    clus = res.clustered.univariate[0]
    assert clus.problem is None and [lev.level for lev in clus.levels] == ["b", "c"]
    ci = fit.conf_int(0.05)
    for lev in clus.levels:
        name = f"C(accent, Treatment('a'))[T.{lev.level}]"
        assert lev.odds_ratio == pytest.approx(np.exp(fit.params[name]), rel=1e-6)
        assert lev.ci_low == pytest.approx(np.exp(ci.loc[name, 0]), rel=1e-6)
        assert lev.ci_high == pytest.approx(np.exp(ci.loc[name, 1]), rel=1e-6)
        assert lev.p_value == pytest.approx(fit.pvalues[name], rel=1e-5)
    names = [f"C(accent, Treatment('a'))[T.{x}]" for x in "bc"]
    b = fit.params[names].to_numpy()
    stat = float(b @ np.linalg.solve(fit.cov_params().loc[names, names].to_numpy(), b))
    assert (clus.test, clus.df) == ("wald", 2)
    assert clus.llr_stat == pytest.approx(stat, rel=1e-6)
    assert clus.llr_p_value == pytest.approx(stats.chi2.sf(stat, 2), rel=1e-5)


def test_word_error_levels_without_variation_are_named():
    none = pd.DataFrame(
        {
            "g": ["x"] * 10 + ["y"] * 10 + ["z"] * 10,
            "e": [0] * 10 + list(range(10)) + [5] * 10,
            "w": [5] * 10 + [9] * 10 + [5] * 10,
        }
    )
    res = run_regression(none, "wer", ["g"], binomial=("e", "w"))
    assert words(res.univariate[0].problem) == (
        f"perfect separation: g=x has no word error (50 words), {SEP} level"
    )
    every = pd.DataFrame(
        {"g": ["x"] * 10 + ["y"] * 10, "e": [5] * 10 + list(range(10)), "w": [5] * 10 + [9] * 10}
    )
    res = run_regression(every, "wer", ["g"], binomial=("e", "w"))
    assert words(res.univariate[0].problem) == (
        f"perfect separation: g=x has every word wrong (50 words), {SEP} level"
    )
    assert texts(res.problems) == [f"g: {words(res.univariate[0].problem)}"]


def test_word_error_cell_without_variation_is_named():
    rng = np.random.default_rng(4)
    rows = []
    for a in ("a1", "a2"):
        for b in ("b1", "b2"):
            for _ in range(30):
                w = int(rng.integers(2, 8))
                e = 0 if (a, b) == ("a2", "b2") else int(rng.binomial(w, 0.3))
                rows.append({"A": a, "B": b, "e": e, "w": w})
    df = pd.DataFrame(rows)
    n_words = int(df.loc[(df.A == "a2") & (df.B == "b2"), "w"].sum())
    res = run_regression(df, "wer", ["A", "B"], binomial=("e", "w"), interactions=True)
    want = (
        f"interaction model: perfect separation: A=a2 × B=b2 has no word error "
        f"({n_words} words), {SEP} cell"
    )
    assert [words(a.interaction_problem) for a in res.adjustments] == [want, want]
    assert all(a.problem is None for a in res.adjustments)


def test_quasi_complete_separation_of_the_additive_model_is_reported():
    """No level is pure, but (a1, b2) is all 1 and (a2, b1) all 0: in C(A) + C(B) the B
    coefficient runs off to infinity."""
    rows = []
    for a, b, kind in [("a1", "b1", "mix"), ("a1", "b2", 1), ("a2", "b1", 0), ("a2", "b2", "mix")]:
        for i in range(40):
            rows.append(
                {"A": a, "B": b, "em": i % 2 if kind == "mix" else kind, "spk": f"s{i % 20}"}
            )
    res = run_regression(pd.DataFrame(rows), "em", ["A", "B"], cluster="spk")
    want = (
        "the model did not converge (coefficients ran off to infinity: quasi-complete "
        "separation or too few rows per level); merge sparse levels"
    )
    assert [words(a.problem) for a in res.adjustments] == [want, want]
    assert [words(a.problem) for a in res.clustered.adjustments] == [want, want]
    assert all(np.isnan(a.p_value) and a.levels == () for a in res.adjustments)
    # each variable alone is estimable
    assert all(u.problem is None for u in res.univariate)


def _cells_frame(cells, seed=2, n=60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for a, b in cells:
        p = 0.3 + 0.1 * int(a[1]) + 0.08 * int(b[1]) + (0.15 if (a, b) == ("a2", "b2") else 0)
        rows += [{"A": a, "B": b, "em": int(rng.random() < p)} for _ in range(n)]
    return pd.DataFrame(rows)


def _interaction_lr(df, cols):
    add = smf.logit("em ~ C(A, Treatment('a1')) + C(B, Treatment('b1'))", df).fit(disp=0)
    d = df.assign(**{f"i{a}{b}": ((df.A == a) & (df.B == b)).astype(float) for a, b in cols})
    terms = " + ".join(f"i{a}{b}" for a, b in cols)
    full = smf.logit(f"em ~ C(A, Treatment('a1')) + C(B, Treatment('b1')) + {terms}", d).fit(disp=0)
    return 2 * (full.llf - add.llf)


def test_interaction_with_an_empty_cell_has_no_parameter_for_it():
    cells = [(f"a{i}", f"b{j}") for i in (1, 2, 3) for j in (1, 2, 3) if (i, j) != (3, 3)]
    df = _cells_frame(cells)
    res = run_regression(df, "em", ["A", "B"], references={"A": "a1", "B": "b1"}, interactions=True)
    stat = _interaction_lr(df, [("a2", "b2"), ("a2", "b3"), ("a3", "b2")])
    for a in res.adjustments:
        assert a.interaction_problem is None and a.interaction_df == 3
        assert a.interaction_lr_stat == pytest.approx(stat, rel=1e-6)
        assert a.interaction_p_value == pytest.approx(stats.chi2.sf(stat, 3), rel=1e-6)


def test_interaction_cell_aliased_with_a_level_is_left_out():
    """a3 occurs only with b2: the a3 × b2 column equals the a3 dummy, so one interaction
    parameter is left (a2 × b2)."""
    df = _cells_frame([("a1", "b1"), ("a1", "b2"), ("a2", "b1"), ("a2", "b2"), ("a3", "b2")])
    res = run_regression(df, "em", ["A", "B"], references={"A": "a1", "B": "b1"}, interactions=True)
    stat = _interaction_lr(df, [("a2", "b2")])
    for a in res.adjustments:
        assert a.interaction_problem is None and a.interaction_df == 1
        assert a.interaction_lr_stat == pytest.approx(stat, rel=1e-6)
        assert a.interaction_p_value == pytest.approx(stats.chi2.sf(stat, 1), rel=1e-6)


def test_no_estimable_interaction_is_reported():
    df = _cells_frame([("a1", "b1"), ("a1", "b2"), ("a2", "b1")], seed=5, n=50)
    res = run_regression(df, "em", ["A", "B"], interactions=True)
    want = "no interaction term is estimable (too many empty cells)"
    assert [(a.interaction_df, words(a.interaction_problem)) for a in res.adjustments] == [
        (0, want),
        (0, want),
    ]
    assert texts(res.problems) == [f"A × B: {want}", f"B × A: {want}"]


def test_clustered_interaction_wald_test_of_the_kept_cells_equals_statsmodels():
    """Cluster-robust Wald test of the interaction columns left after an aliased cell (a3
    only with b2) and with two kept cells (a2 x b2, a2 x b3)."""
    cells = [
        ("a1", "b1"),
        ("a1", "b2"),
        ("a1", "b3"),
        ("a2", "b1"),
        ("a2", "b2"),
        ("a2", "b3"),
        ("a3", "b2"),
    ]
    df = _cells_frame(cells, seed=8, n=50)
    df["spk"] = (np.arange(len(df)) % 35).astype(str)
    res = run_regression(
        df, "em", ["A", "B"], references={"A": "a1", "B": "b1"}, cluster="spk", interactions=True
    )
    d = df.assign(
        i22=((df.A == "a2") & (df.B == "b2")).astype(float),
        i23=((df.A == "a2") & (df.B == "b3")).astype(float),
    )
    groups = pd.factorize(df["spk"])[0]
    fit = smf.logit("em ~ C(A, Treatment('a1')) + C(B, Treatment('b1')) + i22 + i23", d).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": groups}
    )
    names = ["i22", "i23"]
    b = fit.params[names].to_numpy()
    stat = float(b @ np.linalg.solve(fit.cov_params().loc[names, names].to_numpy(), b))
    clus = res.clustered.adjustments[0]
    assert clus.interaction_problem is None and clus.interaction_df == 2
    assert clus.interaction_lr_stat == pytest.approx(stat, rel=1e-6)
    assert clus.interaction_p_value == pytest.approx(stats.chi2.sf(stat, 2), rel=1e-6)


def test_word_error_model_running_off_is_reported_though_irls_converged():
    """(a1, b2) has every word wrong and (a2, b1) none, the other cells are mixed: IRLS stops
    (its deviance no longer changes) with coefficients past ±20 and finite standard errors;
    the coefficients alone mark the fit as failed."""
    rng = np.random.default_rng(3)
    rows = []
    for a, b, kind in [
        ("a1", "b1", "mix"),
        ("a1", "b2", "all"),
        ("a2", "b1", "none"),
        ("a2", "b2", "mix"),
    ]:
        for _ in range(30):
            w = int(rng.integers(2, 8))
            e = int(rng.binomial(w, 0.4)) if kind == "mix" else (w if kind == "all" else 0)
            rows.append({"A": a, "B": b, "e": e, "w": w})
    df = pd.DataFrame(rows)
    X = np.column_stack(
        [np.ones(len(df)), (df.A == "a2").astype(float), (df.B == "b2").astype(float)]
    )
    glm = sm.GLM(np.column_stack([df.e, df.w - df.e]), X, family=sm.families.Binomial()).fit()
    assert glm.converged and np.isfinite(glm.bse).all() and np.abs(glm.params).max() > 20
    res = run_regression(df, "wer", ["A", "B"], binomial=("e", "w"))
    want = (
        "the model did not converge (coefficients ran off to infinity: quasi-complete "
        "separation or too few rows per level); merge sparse levels"
    )
    assert [words(a.problem) for a in res.adjustments] == [want, want]
    assert all(u.problem is None for u in res.univariate)


def test_fits_print_nothing(capsys):
    """The logistic fits are silent (statsmodels' optimiser would print its summary)."""
    df = _cells_frame([("a1", "b1"), ("a1", "b2"), ("a2", "b1"), ("a2", "b2")], n=30)
    df["spk"] = (np.arange(len(df)) % 20).astype(str)
    res = run_regression(df, "em", ["A", "B"], cluster="spk")
    assert res.univariate[0].problem is None
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_single_row_level_with_outcome_one_is_named():
    df = pd.DataFrame({"em": [0, 1] * 10 + [1], "g": ["x"] * 10 + ["y"] * 10 + ["z"]})
    res = run_regression(df, "em", ["g"])
    assert words(res.univariate[0].problem) == (
        f"perfect separation: g=z has outcome = 1 on all 1 rows, {SEP} level"
    )


def test_first_pure_cell_in_row_order_is_named():
    """Two pure cells: (a2, b1) all 0 comes first in the rows, (a1, b3) all 1 later."""
    rows = [("a2", "b1", 0)] * 8 + [("a1", "b1", i % 2) for i in range(8)]
    rows += [("a1", "b2", i % 2) for i in range(8)] + [("a2", "b2", i % 2) for i in range(8)]
    rows += [("a2", "b3", i % 2) for i in range(8)] + [("a1", "b3", 1)] * 8
    df = pd.DataFrame(rows, columns=["A", "B", "em"])
    res = run_regression(df, "em", ["A", "B"], interactions=True)
    assert words(res.adjustments[0].interaction_problem) == (
        f"interaction model: perfect separation: A=a2 × B=b1 has outcome = 0 on all 8 rows, "
        f"{SEP} cell"
    )
