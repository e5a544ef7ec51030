"""The typed regression results (issue 43): the statistics return numbers and coded notes,
the JSON codecs read what main stored before, and the words are today's.

``data/regression_before_typed.json`` was captured with the code before the results were
typed: logistic (clustered, with interactions; one with a single-speaker level that
separates perfectly), binomial (unclustered, rows left out and capped) and OLS (per speaker
and per utterance) runs as a project stored them (``payload``, schema 1: sentences where
notes are), with their conclusions and the console lines ``fairdesk regress`` printed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairdesk.cli.regress import regression_lines
from fairdesk.jobs.regression_result import SCHEMA, RegressionRequest, RegressionRun
from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_words import (
    regression_conclusions,
    regression_problems,
    regression_summary,
)
from fairdesk.stats.notices import Notice
from fairdesk.stats.regression import RegressionResult, codes, run_regression
from fairdesk.stats.regression.linear import run_linear
from fairdesk.stats.regression.linear_results import LinearResult

from .conftest import small_frame_data

OLD = json.loads((Path(__file__).parent / "data" / "regression_before_typed.json").read_text())


def _separation_frame() -> pd.DataFrame:
    df = small_frame_data(400)
    df.loc[df.index[:3], "age"] = None
    df.loc[df.index[3:5], "speaker_id"] = None
    df.loc[df.index[5], "em"] = None
    solo = pd.DataFrame(
        {
            "em": [1] * 6,
            "age": ["90+"] * 6,
            "accent": ["us"] * 6,
            "speaker_id": ["solo"] * 6,
            "n_words": [5] * 6,
            "n_errors": [0] * 6,
        }
    )
    return pd.concat([df, solo], ignore_index=True)


def _binomial_frame() -> pd.DataFrame:
    df = small_frame_data(300)
    df.loc[df.index[:4], "n_errors"] = df.loc[df.index[:4], "n_words"] + 2
    df.loc[df.index[4:6], "n_words"] = 0
    df.loc[df.index[4:6], "n_errors"] = 0
    df.loc[df.index[6], "n_errors"] = None
    return df


def _linear_frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 120
    spk = [f"s{i % 20:02d}" for i in range(n)]
    lf = pd.DataFrame(
        {
            "speaker_id": spk,
            "age_onset": [20 + int(s[1:]) for s in spk],
            "snr_db": rng.normal(20, 5, n),
            "group": ["a" if int(s[1:]) % 2 else "b" for s in spk],
            "n_words": rng.integers(5, 20, n),
        }
    )
    lf["n_sub"] = rng.binomial(lf["n_words"], 0.1)
    lf["n_del"] = 0
    lf["n_ins"] = 0
    lf.loc[0, "snr_db"] = None
    return lf


def _fresh(name: str):
    if name == "logit_separation":
        return run_regression(
            _separation_frame(), "em", ["age", "accent"], cluster="speaker_id",
            interactions=True, speaker_col="speaker_id",
        )  # fmt: skip
    if name == "logit":
        df = small_frame_data(500)
        return run_regression(
            df, "em", ["age", "accent"], cluster="speaker_id", interactions=True,
            speaker_col="speaker_id",
        )  # fmt: skip
    if name == "binomial":
        return run_regression(
            _binomial_frame(), "wer", ["age", "accent"], binomial=("n_errors", "n_words"),
            speaker_col="speaker_id",
        )  # fmt: skip
    level = name.split("_", 1)[1]
    return run_linear(_linear_frame(), ["age_onset", "snr_db"], ["group"], level=level)


def _words_json(result) -> dict:
    if isinstance(result, RegressionResult):
        return result.to_json(detail=True, words=notice_text)
    return result.to_json(words=notice_text)


@pytest.mark.parametrize("name", sorted(OLD))
def test_a_run_stored_before_reads_and_says_what_it_said(name):
    old = OLD[name]
    run = RegressionRun.from_json(old["payload"])
    assert isinstance(run.request, RegressionRequest)
    assert isinstance(run.result, (RegressionResult, LinearResult))
    assert regression_conclusions(run) == old["conclusions"]
    assert regression_lines(run) == old["console"]
    # written with words, the decoded result is the dict that was stored
    assert _words_json(run.result) == old["payload"]["result"]


@pytest.mark.parametrize("name", sorted(OLD))
def test_a_fresh_fit_writes_what_main_wrote(name):
    old = OLD[name]
    fresh = _fresh(name)
    assert _words_json(fresh) == old["payload"]["result"]
    run = RegressionRun(RegressionRequest.from_json(old["payload"]["request"]), fresh, 1.0, 2)
    assert regression_conclusions(run) == old["conclusions"]
    assert regression_lines(run) == old["console"]


@pytest.mark.parametrize("name", sorted(OLD))
def test_the_stored_payload_holds_codes_and_reads_back(name):
    run = RegressionRun.from_json(OLD[name]["payload"])
    payload = json.loads(json.dumps(run.to_json()))
    assert payload["schema"] == SCHEMA == 2
    assert RegressionRun.from_json(payload) == run
    assert RegressionRun.from_json(payload).to_json() == payload
    # a fresh fit stores no sentence: every note is a code with its numbers
    fresh = RegressionRun(run.request, _fresh(name))
    text = json.dumps(fresh.to_json()["result"])
    for words in ("Caution:", "left out", "perfect separation", "varies within", "expected count"):
        assert words not in text
    assert RegressionRun.from_json(json.loads(json.dumps(fresh.to_json()))) == fresh


def test_sentences_stored_before_are_coded_again_from_their_numbers():
    run = RegressionRun.from_json(OLD["logit_separation"]["payload"])
    res = run.result
    assert isinstance(res, RegressionResult)
    assert res.cautions == (
        Notice(codes.SINGLE_SPEAKER_LEVEL, {"variable": "age", "level": "90+"}),
    )
    assert [n.code for n in res.notes] == [
        codes.MISSING_OUTCOME,
        codes.MISSING_VARIABLE,
        codes.NO_SPEAKER,
    ]
    assert res.notes[1].args == {"n": 3, "variable": "age"}
    (ind,) = res.independence
    assert ind.reason is not None and ind.reason.code == codes.EXPECTED_BELOW_5
    assert ind.reason.args["share"] == pytest.approx(0.25)
    # a problem no pattern knows is kept as its sentence, worded as stored
    assert res.univariate[0].problem is not None
    assert res.univariate[0].problem.code == codes.STORED
    lin = RegressionRun.from_json(OLD["linear_speaker"]["payload"]).result
    assert isinstance(lin, LinearResult)
    assert [n.code for n in lin.notes] == [codes.OLS_DROPPED, codes.COVARIATE_VARIES]
    assert lin.aggregation.code == codes.AGGREGATION_SPEAKER_WER


def test_a_fresh_fit_returns_codes_with_numbers_not_sentences():
    res = _fresh("logit_separation")
    assert isinstance(res, RegressionResult)
    assert res.univariate[0].problem == Notice(
        codes.SEPARATION, {"cell": [["age", "90+"]], "unit": "level", "value": 1, "rows": 6}
    )
    assert [n.code for n in res.problems] == [
        codes.PROBLEM_UNIVARIATE,
        codes.PROBLEM_ADJUSTED,
        codes.PROBLEM_ADJUSTED,
        codes.PROBLEM_CLUSTERED,
    ]
    run = RegressionRun(RegressionRequest(outcome="em"), res)
    assert regression_problems(run) == OLD["logit_separation"]["payload"]["result"]["problems"]
    assert all(isinstance(n, Notice) for n in res.conclusions)
    summary = regression_summary(run)
    assert summary == res.to_json(words=notice_text)
    assert summary["cautions"][0].startswith("Caution: age = 90+ has a single speaker")


def test_a_newer_schema_is_refused():
    payload = dict(OLD["logit"]["payload"], schema=SCHEMA + 1)
    with pytest.raises(ValueError, match="update fairdesk"):
        RegressionRun.from_json(payload)


def test_a_wording_change_reaches_a_stored_run(monkeypatch):
    """A stored run holds codes: today's words, whatever they are, write its notes."""
    from fairdesk.presentation import regression_notes

    run = RegressionRun.from_json(
        json.loads(json.dumps(RegressionRun.from_json(OLD["binomial"]["payload"]).to_json()))
    )
    monkeypatch.setitem(
        regression_notes.TEXTS, codes.ZERO_WORDS, lambda n: f"{n} rows had no reference word."
    )
    said = regression_conclusions(run)
    assert "2 rows had no reference word." in said
    assert "2 rows with 0 reference words were left out." not in said


def test_nested_problems_read_back_equal():
    """An interaction model's problem names the fit's own problem (a note in a note): its
    JSON in the args, so a stored-and-read result equals the fresh one, worded alike."""
    frame = small_frame_data(300)
    frame.loc[(frame["accent"] == "in") & (frame["age"] == "60+"), "em"] = 0
    res = run_regression(frame, "em", ["accent", "age"], interactions=True)
    noted = [a for a in res.adjustments if a.interaction_problem is not None]
    assert noted and noted[0].interaction_problem.code == codes.INTERACTION_MODEL
    back = RegressionResult.from_json(json.loads(json.dumps(res.to_json(detail=True))))
    assert back == res
    assert [notice_text(n) for n in back.problems] == [notice_text(n) for n in res.problems]
    assert notice_text(noted[0].interaction_problem).startswith(
        "interaction model: perfect separation: accent=in × age=60+ has outcome = 0"
    )
