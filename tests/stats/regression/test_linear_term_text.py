"""The OLS family's term names when a column name, reference level or level holds the very
text that separates the parts of a patsy term (``), Treatment(`` or ``))[``; each once misread:
a SyntaxError, or the reference's tail shown as the level), a name that is not a term of the
model refused, and the p-value text of its sentences at the 0.001 boundary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_words import linear_sentences
from fairdesk.stats.regression.linear import _pretty, run_linear
from fairdesk.stats.regression.linear_results import LinearResult


def _ols(*args, **kwargs) -> dict:
    """:func:`run_linear`'s result as ``fairdesk regress --json`` writes it."""
    return run_linear(*args, **kwargs).to_json(words=notice_text)


def linear_sentences_of(d) -> list[str]:
    """:func:`linear_sentences` of a result's JSON (decoded first)."""
    return linear_sentences(LinearResult.from_json(d))


def _frame(var: str, ref: str, other: str) -> pd.DataFrame:
    """40 rows: y = 1 + 0.5 x + 2 (group == other) + noise; every third row in ``other``."""
    rng = np.random.default_rng(3)
    n = 40
    x = rng.normal(size=n)
    grp = np.where(np.arange(n) % 3 == 0, other, ref)
    y = 1.0 + 0.5 * x + 2.0 * (grp == other) + rng.normal(scale=0.3, size=n)
    return pd.DataFrame({"y": y, "x": x, var: grp})


@pytest.mark.parametrize(
    "var, ref, other, want",
    [
        # the variable name holds "), Treatment(": once a SyntaxError
        ("g), Treatment(x", "a", "b", "g), Treatment(x[T.b]"),
        # the reference level holds "))[": once the reference's tail shown as the level
        ("g", "a))[z", "b", "g[T.b]"),
        ("g), Treatment(x", "a))[z", "b))[y", "g), Treatment(x[T.b))[y]"),
        # the reference level holds "), Treatment(": the variable name ends at the first one
        ("g", "a), Treatment(z", "b", "g[T.b]"),
        # the variable name holds "))[": the level starts after the reference, not in the name
        ("g))[x", "a", "b", "g))[x[T.b]"),
        # the level holds "))[": the level starts at the first "))[" after the reference
        ("g", "a", "b))[z", "g[T.b))[z]"),
        ("g", "a", "b), Treatment(q", "g[T.b), Treatment(q]"),
    ],
)
def test_term_names_with_separator_text_read_back(var, ref, other, want):
    df = _frame(var, ref, other)
    res = _ols(df, ["x"], [var], outcome="y", speaker_col=None, references={var: ref})
    assert [c["term"] for c in res["coefficients"]] == ["Intercept", want, "x"]
    assert res["references"] == {var: ref}
    # the numbers are those of the same model with plain names
    plain = df.rename(columns={var: "g"}).replace({"g": {ref: "a", other: "b"}})
    fit = smf.ols("y ~ x + C(g, Treatment('a'))", plain).fit()
    got = {c["term"]: c["estimate"] for c in res["coefficients"]}
    assert got[want] == pytest.approx(fit.params["C(g, Treatment('a'))[T.b]"], rel=1e-9)
    assert got["x"] == pytest.approx(fit.params["x"], rel=1e-9)


@pytest.mark.parametrize(
    "name, want",
    [
        ("C(Q('g'), Treatment('a), Treatment(z'))[T.b]", "g[T.b]"),
        ("C(Q('g))[x'), Treatment('a'))[T.b]", "g))[x[T.b]"),
        ("C(Q('g'), Treatment('a'))[T.b))[z]", "g[T.b))[z]"),
        ("C(Q('g))[x'), Treatment('a'))[T.b))[z]", "g))[x[T.b))[z]"),
        ("C(Q('g), Treatment(x'), Treatment('a'))[T.b]", "g), Treatment(x[T.b]"),
        ("C(Q('g'), Treatment('a))[z'))[T.b]", "g[T.b]"),
        ("C(Q(\"it's), Treatment(\"), Treatment('a))['))[T.b))[c]", "it's), Treatment([T.b))[c]"),
    ],
)
def test_pretty_splits_at_the_separators_that_follow_each_literal(name, want):
    assert _pretty(name) == want


@pytest.mark.parametrize("name", ["C(Q('g'", "C(Q('g'), Treatment('a'", "C(Q('g), Treatment(x"])
def test_pretty_refuses_a_name_it_cannot_read(name):
    with pytest.raises(ValueError) as e:
        _pretty(name)
    assert str(e.value) == f"cannot read the term name {name!r}"


def _out(p: float) -> dict:
    return {
        "level": "speaker",
        "n": 12,
        "r2": 0.5,
        "adj_r2": 0.4,
        "notes": [],
        "coefficients": [
            {"term": "age", "estimate": 0.01, "ci_low": 0.002, "ci_high": 0.018, "p_value": p}
        ],
        # one entry per covariate, as run_linear writes (no ρ: no Spearman sentence)
        "spearman": [{"covariate": "age", "rho": None, "p_value": None, "n": 12}],
    }


@pytest.mark.parametrize(
    "p, ptxt",
    [
        (0.001, "p = 0.001"),  # the boundary itself is written as a number
        (0.000999, "p < 0.001"),
        (0.0012, "p = 0.001"),
    ],
)
def test_p_text_at_the_thousandth(p, ptxt):
    got = linear_sentences_of(_out(p))
    assert got == [
        f"WER per speaker changes by +0.0100 per unit of age (95% CI [+0.0020, +0.0180], "
        f"{ptxt}; OLS, n = 12 speakers).",
        "R² = 0.500 (adjusted 0.400).",
    ]
