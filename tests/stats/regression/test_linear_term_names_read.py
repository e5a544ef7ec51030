"""Term names are read back whole when the variable name holds ``), Treatment(`` or the
reference level holds ``))[`` (each once misread: a SyntaxError, or the reference's tail
shown as the level), and a name that is not a term of the model is refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from fairdesk.stats.regression.linear import _pretty, run_linear


def _frame(var: str, ref: str, other: str) -> pd.DataFrame:
    """40 rows: y = 1 + 0.5 x + 2 (group == other) + noise; every third row in ``other``."""
    rng = np.random.default_rng(5)
    n = 40
    x = rng.normal(size=n)
    grp = np.where(np.arange(n) % 3 == 0, other, ref)
    y = 1.0 + 0.5 * x + 2.0 * (grp == other) + rng.normal(scale=0.3, size=n)
    return pd.DataFrame({"y": y, "x": x, var: grp})


@pytest.mark.parametrize("var, ref, other, want", [
    ("g), Treatment(x", "a", "b", "g), Treatment(x[T.b]"),
    ("g", "a))[z", "b", "g[T.b]"),
    ("g), Treatment(x", "a))[z", "b))[y", "g), Treatment(x[T.b))[y]"),
])
def test_separator_text_in_the_name_or_the_reference(var, ref, other, want):
    df = _frame(var, ref, other)
    res = run_linear(df, ["x"], [var], outcome="y", speaker_col=None, references={var: ref})
    assert [c["term"] for c in res["coefficients"]] == ["Intercept", want, "x"]
    assert res["references"] == {var: ref}
    plain = df.rename(columns={var: "g"}).replace({"g": {ref: "a", other: "b"}})
    fit = smf.ols("y ~ x + C(g, Treatment('a'))", plain).fit()
    got = {c["term"]: c["estimate"] for c in res["coefficients"]}
    assert got[want] == pytest.approx(fit.params["C(g, Treatment('a'))[T.b]"], rel=1e-9)


@pytest.mark.parametrize("name, want", [
    ("C(Q('g), Treatment(x'), Treatment('a'))[T.b]", "g), Treatment(x[T.b]"),
    ("C(Q('g'), Treatment('a))[z'))[T.b]", "g[T.b]"),
    ('C(Q("it\'s), Treatment("), Treatment(\'a))[\'))[T.b))[c]', "it's), Treatment([T.b))[c]"),
])
def test_pretty_reads_each_literal_to_its_own_end(name, want):
    assert _pretty(name) == want


@pytest.mark.parametrize("name", ["C(Q('g'", "C(Q('g'), Treatment('a'", "C(Q('g), Treatment(x"])
def test_pretty_refuses_a_name_it_cannot_read(name):
    with pytest.raises(ValueError) as e:
        _pretty(name)
    assert str(e.value) == f"cannot read the term name {name!r}"
