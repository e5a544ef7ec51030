"""``fairdesk regress --table`` on a huge, clean effect whose p-values underflow to 0.0 in
statsmodels (issue 28): the console prints ``p < 1e-300 (log10 p = …)``, never ``0.0e+00``;
the JSON carries ``p_log10`` beside each p (close to an independent asymptotic formula); the
odds-ratio table file carries the logarithms too; the headline names Mid-Atlantic (the
largest odds ratio), not the first level whose p is 0, and the column name as given."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
import statsmodels.formula.api as smf

from fairdesk.cli import main
from tests.stats.regression.conftest import (
    chi2_df3_tail_log10,
    normal_tail_log10,
    underflow_frame,
)

TERM = "C(dialectal_region, Treatment('Asian'))[T.{}]"


@pytest.fixture(scope="module")
def regressed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("underflow")
    frame = underflow_frame()[["dialectal_region", "recognised", "speaker_id"]]
    table = tmp / "dialects.csv"
    frame.to_csv(table, index=False)
    out, odds = tmp / "out.json", tmp / "odds.csv"
    args = [
        "regress",
        "--table",
        str(table),
        "--outcome",
        "recognised",
        "--vars",
        "dialectal_region",
        "--reference",
        "dialectal_region=Asian",
        "--cluster",
        "speaker_id",
        "--json",
        str(out),
        "--table-out",
        str(odds),
    ]
    return frame, args, out, odds


def test_console_json_and_table_of_underflowed_p_values(regressed, capsys):
    frame, args, out, odds = regressed
    assert main(args) == 0
    printed = capsys.readouterr().out
    fit = smf.logit("recognised ~ C(dialectal_region, Treatment('Asian'))", frame).fit(disp=0)
    assert fit.pvalues[TERM.format("Mid-Atlantic")] == 0.0 and fit.llr_pvalue == 0.0
    d = json.loads(out.read_text())
    (u,) = d["univariate"]
    # the JSON: p 0.0, and its logarithm finite and equal to the normal tail's series
    for lev in u["levels"]:
        z = fit.tvalues[TERM.format(lev["level"])]
        if lev["level"] == "Southern":
            assert lev["p_log10"] == pytest.approx(math.log10(lev["p_value"]), rel=1e-8)
            continue
        assert lev["p_value"] == 0.0
        assert lev["p_log10"] == pytest.approx(normal_tail_log10(z), rel=1e-8)
    assert u["llr_p_value"] == 0.0
    assert u["llr_p_log10"] == pytest.approx(chi2_df3_tail_log10(fit.llr), rel=1e-7)
    (cu,) = d["clustered"]["univariate"]
    assert cu["llr_p_value"] == 0.0 and math.isfinite(cu["llr_p_log10"])
    assert all(math.isfinite(lev["p_log10"]) for lev in cu["levels"])
    # the console: no 0.0e+00, the floor with its logarithm, the largest effect named
    assert "e+00" not in printed
    best = next(lev for lev in u["levels"] if lev["level"] == "Mid-Atlantic")
    head = (
        f"dialectal_region is associated with recognised (LR p < 1e-300 (log10 p = "
        f"{u['llr_p_log10']:.1f})): odds ratios vs Asian range 1.21–3.52 over 3 levels; "
        f"largest difference: Mid-Atlantic 3.52 [{best['ci_low']:.2f}, {best['ci_high']:.2f}]"
        f", p < 1e-300 (log10 p = {best['p_log10']:.1f})."
    )
    assert head in printed.splitlines()
    assert "Dialectal_region" not in printed
    # the odds-ratio table: each p with its logarithm beside it
    t = pd.read_csv(odds).set_index("level")
    assert t.loc["Mid-Atlantic", "p_value"] == 0.0
    assert t.loc["Mid-Atlantic", "p_log10"] == pytest.approx(best["p_log10"], rel=1e-12)
    assert t.loc["Mid-Atlantic", "lr_p_log10"] == pytest.approx(u["llr_p_log10"], rel=1e-12)
    assert math.isfinite(t.loc["Mid-Atlantic", "clustered_p_log10"])
    assert pd.isna(t.loc["Asian", "p_log10"])  # the reference level: no test
