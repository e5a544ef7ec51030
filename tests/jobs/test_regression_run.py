"""Regression of a stored run, stored with the run (no Qt): the function the Regression tab
runs in the background and ``fairdesk regress --project P --run N`` can call."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import predictions_csv, tone_project


@pytest.fixture
def run(tmp_path):
    from fairdesk.jobs.audit import AuditRequest, run_audit
    from fairdesk.stats.settings import AuditSettings

    p, root = tone_project(tmp_path, {"a": 0.4, "b": 0.4}, 6, 5, "play the song now")
    # b loses a word in 3 of 5 sentences, a in 1 of 5: a planted effect
    preds = predictions_csv(tmp_path / "preds.csv", lambda acc, s, c: c < (3 if acc == "b" else 1))
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
    res = out.result
    lev = res.univariate[0].levels[0]
    df = run_items_frame(p, run_id)
    df["correct"] = ((df["n_sub"] + df["n_del"] + df["n_ins"]) == 0).astype(int)
    fit = smf.logit("correct ~ C(accent, Treatment('a'))", df).fit(disp=0)
    assert lev.level == "b"
    assert lev.odds_ratio == pytest.approx(float(np.exp(fit.params.iloc[1])), rel=1e-6)
    assert lev.odds_ratio == pytest.approx((2 / 3) / 4, rel=1e-6)  # (12/18) / (24/6)
    assert res.clustered is not None and res.clustered.cluster == "speaker_id"
    assert res.conclusions
    rows = results_for_run(p, run_id, "regression")
    assert [r["id"] for r in rows] == [out.result_id]
    assert rows[0]["payload"]["schema"] == 2
    assert rows[0]["payload"]["request"] == {
        "family": "logit",
        "outcome": "correct",
        "variables": ["accent"],
        "covariates": [],
        "filters": [],
        "cluster": "speaker_id",
        "alpha": 0.05,
        "references": {"accent": "a"},
    }
    again = stored_regressions(p, run_id)
    assert again == [out] and again[0].result == res and again[0].run_id == run_id
    # the same fit as the CLI's: the speaker spread is computed for the GUI's runs too
    assert res.descriptive.speaker_spread
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


def test_the_outcome_checks_hold_for_the_gui_and_the_cli_alike(run, monkeypatch, capsys):
    """One outcome derivation for both callers: ``em`` with no exact match at all (a column
    of NaN) and ``wer`` without reference word counts are refused with what to use, by the
    job (the GUI's call) and by ``fairdesk regress`` (whose copy fitted ``em`` on an empty
    frame and failed on the missing ``n_words`` column)."""
    import fairdesk.core.runs as cache
    from fairdesk.cli import main
    from fairdesk.jobs.regression_run import outcome_frame, regress_run

    p, run_id = run
    frame = cache.run_items_frame(p, run_id)
    frame["em"] = float("nan")
    with pytest.raises(ValueError, match="exact match"):
        outcome_frame(frame, "em")
    with pytest.raises(ValueError, match="reference word counts"):
        outcome_frame(frame.drop(columns=["n_words"]), "wer")
    rows, col, binomial, _ = outcome_frame(frame, "wer")
    assert binomial == ("n_errors", "n_words") and (rows["n_words"] > 0).all()
    assert rows[col].tolist() == (rows["n_sub"] + rows["n_del"] + rows["n_ins"]).tolist()

    real = cache.run_items_frame
    monkeypatch.setattr(
        cache,
        "run_items_frame",
        lambda *a: real(*a).assign(em=float("nan")).drop(columns=["n_words"]),
    )
    base = ["regress", "--project", str(p.folder), "--run", str(run_id), "--vars", "accent"]
    for outcome, says in (("em", "needs intent and slot labels"), ("wer", "n_words")):
        with pytest.raises(ValueError, match=says):
            regress_run(p.folder, run_id, outcome, ["accent"])
        assert main([*base, "--outcome", outcome]) == 2
        assert says in capsys.readouterr().err
    from fairdesk.jobs.regression_run import stored_regressions

    assert stored_regressions(p, run_id) == []  # nothing stored


def test_a_regression_stored_in_todays_layout_opens(run):
    """Payloads stored before the schema version (the GUI's: no family; the CLI's: a family)
    open as RegressionRun; a newer schema is refused; to_json / from_json round-trip."""
    import json
    import math

    from fairdesk.jobs.regression_result import SCHEMA, RegressionRun
    from fairdesk.jobs.regression_run import store_regression, stored_regressions
    from fairdesk.presentation.regression_words import regression_conclusions, regression_problems
    from fairdesk.stats.regression.linear_results import LinearResult

    p, run_id = run
    gui = {
        "run_id": run_id,
        "request": {
            "outcome": "correct",
            "variables": ["accent"],
            "cluster": None,
            "alpha": 0.1,
            "references": {},
        },
        "result": {
            "model": "logit",
            "univariate": [],
            "conclusions": ["None differ."],
            "problems": ["p"],
        },
        "created_at": 12.5,
    }
    cli = {
        **gui,
        "request": {**gui["request"], "family": "linear"},
        "result": {"family": "linear", "coefficients": [{"term": "x", "p_value": None}]},
    }
    ids = [store_regression(p, run_id, gui), store_regression(p, run_id, cli)]
    new, old = stored_regressions(p, run_id)
    assert [new.result_id, old.result_id] == ids[::-1]
    assert old.family == "logit" and old.alpha == 0.1 and old.created_at == 12.5
    assert regression_conclusions(old) == ["None differ."]
    assert regression_problems(old) == []  # the problems of its models (none stored)
    assert isinstance(new.result, LinearResult)
    assert new.family == "linear" and math.isnan(new.result.coefficients[0].p_value)
    back = RegressionRun.from_json(json.loads(json.dumps(old.to_json())), old.result_id)
    assert back == old and back.to_json()["schema"] == SCHEMA
    assert old.to_json()["request"] == {
        **gui["request"],
        "family": "logit",
        "covariates": [],
        "filters": [],
    }
    assert old.to_json()["result"]["conclusions"] == [
        {"code": "stored.sentence", "args": {"text": "None differ."}}
    ]
    with pytest.raises(ValueError, match="schema 7"):
        RegressionRun.from_json({**gui, "schema": 7})


def test_the_default_request_reads_the_typed_run():
    """The Regression tab's defaults from the run's AuditRun: its grouping columns that the
    item table has, ``em`` only when the run measured it and the table has it, speakers as
    clusters when the table names them; no run: the plain defaults."""
    from fairdesk.jobs.regression_run import default_request
    from fairdesk.jobs.result import AuditRun

    run = AuditRun.from_json(
        {"by": ["accent", "gender"], "tested_metrics": ["wer"], "descriptive_metrics": ["em"]}
    )
    cols = ["id", "accent", "speaker_id", "em"]
    assert default_request(run, cols) == {
        "outcome": "em",
        "variables": ["accent"],
        "cluster": "speaker_id",
        "alpha": 0.05,
    }
    assert default_request(run, ["accent", "gender"]) == {
        "outcome": "correct",
        "variables": ["accent", "gender"],
        "cluster": None,
        "alpha": 0.05,
    }
    plain = AuditRun.from_json({"by": ["accent"], "tested_metrics": ["wer"]})
    assert default_request(plain, cols)["outcome"] == "correct"
    assert default_request(None, cols) == {
        "outcome": "correct",
        "variables": [],
        "cluster": "speaker_id",
        "alpha": 0.05,
    }
