"""Regression of a stored run, stored with the run (no Qt): the function the Regression tab
runs in the background and ``fairdesk regress --project P --run N`` can call."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from tests.conftest import tone_project


@pytest.fixture
def run(tmp_path):
    from fairdesk.jobs.audit import AuditRequest, run_audit
    from fairdesk.stats.settings import AuditSettings

    p, root = tone_project(tmp_path, {"a": 0.4, "b": 0.4}, 6, 5, "play the song now")
    preds = tmp_path / "preds.csv"
    with preds.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["path", "text"])
        for accent in ("a", "b"):
            for s in range(6):
                for c in range(5):
                    # b loses a word in 3 of 5 sentences, a in 1 of 5: a planted effect
                    lost = c < (3 if accent == "b" else 1)
                    w.writerow(
                        [f"{accent}/{s}_{c}.wav", "play the song" if lost else "play the song now"]
                    )
    out = run_audit(
        p,
        AuditRequest(
            dataset="d",
            model=f"predictions:{preds}",
            by=("accent",),
            reference="a",
            nlu="none",
            settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2),
        ),
    )
    yield p, out.run_id
    p.close()


def test_regress_run_stores_the_result_with_the_run(run):
    import statsmodels.formula.api as smf

    from fairdesk.core.runs import results_for_run, run_items_frame
    from fairdesk.jobs.regression_run import regress_run, stored_regressions

    p, run_id = run
    out = regress_run(p.folder, run_id, "correct", ["accent"], cluster="speaker_id")
    res = out["result"]
    lev = res["univariate"][0]["levels"][0]
    df = run_items_frame(p, run_id)
    df["correct"] = ((df["n_sub"] + df["n_del"] + df["n_ins"]) == 0).astype(int)
    fit = smf.logit("correct ~ C(accent, Treatment('a'))", df).fit(disp=0)
    assert lev["level"] == "b"
    assert lev["odds_ratio"] == pytest.approx(float(np.exp(fit.params.iloc[1])), rel=1e-6)
    assert lev["odds_ratio"] == pytest.approx((2 / 3) / 4, rel=1e-6)  # (12/18) / (24/6)
    assert res["clustered"]["cluster"] == "speaker_id" and res["conclusions"]
    rows = results_for_run(p, run_id, "regression")
    assert [r["id"] for r in rows] == [out["result_id"]]
    assert rows[0]["payload"]["request"] == {
        "outcome": "correct",
        "variables": ["accent"],
        "cluster": "speaker_id",
        "alpha": 0.05,
        "references": {"accent": "a"},
    }
    again = stored_regressions(p, run_id)
    assert again[0]["result_id"] == out["result_id"] and again[0]["result"] == res
    # the audit's own results are untouched
    from fairdesk.core.runs import run_payload

    assert run_payload(p, run_id)["reference"] == "a"


def test_regress_run_refuses_what_it_cannot_fit(run):
    from fairdesk.core.errors import StoreError
    from fairdesk.core.runs import add_result
    from fairdesk.jobs.regression_run import regress_run

    p, run_id = run
    with pytest.raises(ValueError, match="exact match"):
        regress_run(p.folder, run_id, "em", ["accent"])
    with pytest.raises(ValueError, match="unknown variable"):
        regress_run(p.folder, run_id, "correct", ["dialect"])
    with pytest.raises(ValueError, match="at least one variable"):
        regress_run(p.folder, run_id, "correct", [])
    with pytest.raises(StoreError, match="run 999"):
        add_result(p, 999, "regression", {})
