"""Table exports (CSV/Parquet) and the odds-ratio table against statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairdesk.cli import main
from fairdesk.reports.data import load_run
from fairdesk.reports.tables import odds_ratio_table, write_table


def _read(path):
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


@pytest.mark.parametrize("ext", [".csv", ".parquet"])
def test_export_items_groups_comparisons(speech_runs, tmp_path, ext, capsys):
    out = {k: tmp_path / f"{k}{ext}" for k in ("items", "groups", "comparisons")}
    rc = main(
        [
            "export",
            "--project",
            str(speech_runs.project.folder),
            "--run",
            str(speech_runs.run),
            "--items",
            str(out["items"]),
            "--groups",
            str(out["groups"]),
            "--comparisons",
            str(out["comparisons"]),
        ]
    )
    assert rc == 0
    d = load_run(speech_runs.project, speech_runs.run)
    items = _read(out["items"])
    assert len(items) == 50
    for col in (
        "id",
        "group",
        "speaker_id",
        "reference",
        "hypothesis",
        "n_words",
        "n_sub",
        "n_del",
        "n_ins",
        "accent",
        "gender",
        "content_id",
        "duration",
    ):
        assert col in items.columns
    row = items.set_index("id").loc["scot-4-0"]
    speaker, group, ref, hyp = speech_runs.items["scot-4-0"]
    assert (row["speaker_id"], row["group"], row["reference"], row["hypothesis"]) == (
        speaker,
        group,
        ref,
        hyp,
    )
    # pooled WER from the exported rows = the run's value
    scot = items[items["group"] == "scot"]
    wer = (scot["n_sub"] + scot["n_del"] + scot["n_ins"]).sum() / scot["n_words"].sum()
    groups = _read(out["groups"])
    g = groups[(groups["group"] == "scot") & (groups["metric"] == "wer")].iloc[0]
    assert g["value"] == pytest.approx(wer) and g["n_items"] == 25
    assert {"ci_low", "ci_high", "ci_scheme", "excluded", "excluded_reason"} <= set(groups)
    comps = _read(out["comparisons"])
    stored = d.payload["comparisons"]
    assert len(comps) == len(stored)
    for c in stored:
        for k in c:
            if k == "n_blocks":
                assert {f"n_blocks.{b}" for b in c[k]} <= set(comps.columns)
            else:
                assert k in comps.columns
    first = comps.iloc[0]
    assert first["gap"] == pytest.approx(stored[0]["gap"])
    assert first["p_adjusted"] == pytest.approx(stored[0]["p_adjusted"])
    assert first["flags"] == ";".join(stored[0]["flags"])


def test_export_refuses_unknown_extension_and_empty_request(speech_runs, tmp_path):
    base = ["export", "--project", str(speech_runs.project.folder), "--run", str(speech_runs.run)]
    assert main(base + ["--items", str(tmp_path / "x.xlsx")]) == 2
    assert main(base) == 2
    assert main(base + ["--textgrid", str(tmp_path / "t"), "--item", "nope"]) == 2


def _regression_frame(seed=3):
    """Utterances of 60 speakers with a planted accent effect and a gender confounder."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(60):
        accent = ["a", "b", "c"][s % 3]
        gender = "f" if (s % 3 == 1 and rng.random() < 0.8) or rng.random() < 0.3 else "m"
        spk = rng.normal(0, 0.4)
        for _ in range(20):
            logit = (
                1.2 - 0.9 * (accent == "b") - 0.4 * (accent == "c") + 0.3 * (gender == "f") + spk
            )
            rows.append(
                {
                    "speaker_id": f"s{s}",
                    "accent": accent,
                    "gender": gender,
                    "correct": int(rng.random() < 1 / (1 + np.exp(-logit))),
                }
            )
    return pd.DataFrame(rows)


def test_odds_ratio_table_matches_statsmodels(tmp_path):
    import statsmodels.formula.api as smf

    from fairdesk.stats.regression import run_regression

    df = _regression_frame()
    res = run_regression(
        df,
        "correct",
        ["accent", "gender"],
        references={"accent": "a", "gender": "m"},
        cluster="speaker_id",
    )
    t = odds_ratio_table(res)
    uni = smf.logit("correct ~ C(accent, Treatment('a'))", df).fit(disp=0)
    adj = smf.logit("correct ~ C(accent, Treatment('a')) + C(gender, Treatment('m'))", df).fit(
        disp=0
    )
    clu = smf.logit("correct ~ C(accent, Treatment('a'))", df).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": pd.factorize(df["speaker_id"])[0]}
    )
    rows = t[t["variable"] == "accent"].set_index("level")
    assert rows.loc["a", "is_reference"] and rows.loc["a", "odds_ratio"] == 1.0
    for lev in ("b", "c"):
        name = f"C(accent, Treatment('a'))[T.{lev}]"
        r = rows.loc[lev]
        assert r["odds_ratio"] == pytest.approx(np.exp(uni.params[name]), rel=1e-6)
        lo, hi = np.exp(uni.conf_int().loc[name])
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi), rel=1e-6)
        assert r["p_value"] == pytest.approx(uni.pvalues[name], rel=1e-6)
        assert r["adjusted_or[gender]"] == pytest.approx(np.exp(adj.params[name]), rel=1e-6)
        assert r["adjusted_p[gender]"] == pytest.approx(adj.pvalues[name], rel=1e-6)
        assert r["clustered_p_value"] == pytest.approx(clu.pvalues[name], rel=1e-4)
    assert set(t["variable"]) == {"accent", "gender"} and len(t) == 5
    for ext in (".csv", ".parquet"):
        back = _read(write_table(t, tmp_path / f"or{ext}"))
        assert list(back.columns) == list(t.columns) and len(back) == 5


def test_groups_and_comparisons_tables_carry_the_basis_e():
    """docs/METHODS.md, "When the diacritic metrics apply": export --groups has E beside every
    DER value; the comparisons table flattens each side's E."""
    from fairdesk.reports.data import RunData
    from fairdesk.reports.tables import comparisons_table, groups_table
    from tests.conftest import english_accents_run

    run = english_accents_run(metrics=["der"])
    d = RunData(project=None, run_id=1, payload=run, items=pd.DataFrame(index=range(108)))
    g = groups_table(d)
    der = g[g["metric"] == "der"].set_index("group")
    assert der.loc[["a", "b", "c", "(all groups)"], "basis"].tolist() == [12, 12, 3, 27]
    assert der.loc["c", "ci_scheme"] == "descriptive" and pd.isna(der.loc["c", "ci_low"])
    assert g[g["metric"] == "wer"]["basis"].isna().all()
    c = comparisons_table(d).set_index("group")
    assert c.loc["c", "verdict"] == "descriptive"
    assert (c.loc["c", "basis.group"], c.loc["c", "basis.reference"]) == (3, 12)
