"""The regression results' words are written at output time (fairdesk.presentation.regression_words):
a fresh logistic fit and one stored before the χ² and ANOVA sentences moved out of the
statistics read, in every view, the same sentences as before the move.

``jobs/data/regression_logit_main.json`` was captured before the move: a logistic
regression of exact match on age and accent (120 utterances, 16 speakers, clustered by
speaker) as stored with a run (``payload``), its stored sentences and what
``fairdesk regress`` printed for it (``console``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairdesk.cli.regress import regression_lines
from fairdesk.jobs.regression_result import RegressionRun
from fairdesk.presentation.regression_words import descriptive_sentences, regression_conclusions
from fairdesk.stats.regression import run_regression

OLD = json.loads(
    (Path(__file__).parent / "jobs" / "data" / "regression_logit_main.json").read_text("utf-8")
)


def _fresh() -> RegressionRun:
    """The fixture's regression, fitted today."""
    rng = np.random.default_rng(7)
    n = 120
    spk = [f"s{i % 16:02d}" for i in range(n)]
    age = ["young" if int(s[1:]) % 2 else "old" for s in spk]
    accent = [("north", "south", "east")[int(s[1:]) % 3] for s in spk]
    p = np.array([0.75 if a == "young" else 0.45 for a in age])
    em = (rng.random(n) < p).astype(int)
    frame = pd.DataFrame({"em": em, "age": age, "accent": accent, "speaker_id": spk})
    res = run_regression(
        frame,
        "em",
        ["age", "accent"],
        cluster="speaker_id",
        outcome_label="exact match",
        speaker_col="speaker_id",
    )
    req = OLD["payload"]["request"]
    return RegressionRun(req, res.to_dict(detail=True), summary=res.to_dict(), fit=res)


def test_fresh_fit_says_what_it_said_before_the_move():
    run = _fresh()
    assert regression_conclusions(run) == OLD["summary_conclusions"]
    assert regression_lines(run) == OLD["console"]
    # the statistics store only the sentences they still write (cautions and data notes),
    # the numbers and the outcome's name
    assert run.result["conclusions"] == run.result["cautions"] + run.result["notes"]
    assert run.result["notes"] == [OLD["summary_conclusions"][2]]
    assert run.result["outcome_label"] == "exact match"


def test_stored_run_from_before_renders_with_todays_words():
    old = RegressionRun.from_json(OLD["payload"])
    assert "outcome_label" not in old.result
    assert regression_conclusions(old) == OLD["summary_conclusions"]
    assert regression_lines(old) == OLD["console"]
    # the stored test sentences are replaced by today's, written from the stored numbers
    payload = copy.deepcopy(OLD["payload"])
    stored = payload["result"]["conclusions"]
    k = sum(s.startswith(("χ² test", "One-way ANOVA")) for s in stored)
    assert k == 4
    payload["result"]["conclusions"] = ["worded before"] * 2 + stored[2:-k] + ["worded before"] * k
    assert regression_conclusions(RegressionRun.from_json(payload)) == OLD["summary_conclusions"]
    # between the models' sentences and the tests': the data notes, kept as stored
    assert regression_conclusions(old)[2].startswith("Only 16 speaker_id clusters")


def test_a_stored_mixed_poisson_result_is_worded_from_its_numbers():
    # a result stored with its sentences (the fit's own words): the same words again, the
    # stored sentences not read
    stored = json.loads((Path(__file__).parent / "golden" / "regress-2-poisson.json").read_text())
    words = list(stored["conclusions"])
    stored["conclusions"] = ["worded before"] * len(words)
    run = RegressionRun({"family": "poisson-mixed"}, stored)
    assert regression_conclusions(run) == words


def test_descriptive_sentences_at_another_alpha():
    res = OLD["payload"]["result"]
    lines = descriptive_sentences(res, "exact match", 0.001)
    assert lines[0] == (
        "χ² test: exact match shows no evidence of depending on age (χ² = 6.68, df = 1, "
        "p = 0.010, on utterances)."
    )


OLS = json.loads(
    (Path(__file__).parent / "jobs" / "data" / "regression_ols_main.json").read_text("utf-8")
)


def _ols_frame() -> pd.DataFrame:
    """``regression_ols_main.json``'s data: 90 utterances of 15 speakers whose WER grows
    with age of onset."""
    rng = np.random.default_rng(11)
    n = 90
    spk = [f"s{i % 15:02d}" for i in range(n)]
    age = np.array([20 + 3 * int(s[1:]) for s in spk], float)
    snr = rng.normal(20, 5, n)
    words = rng.integers(5, 20, n)
    errs = rng.binomial(words, np.clip(0.05 + 0.004 * (age - 20) / 3, 0, 1))
    return pd.DataFrame(
        {
            "speaker_id": spk,
            "age_onset": age,
            "snr_db": snr,
            "n_words": words,
            "n_sub": errs,
            "n_del": 0,
            "n_ins": 0,
        }
    )


@pytest.mark.parametrize("level", ["speaker", "utterance"])
def test_ols_fresh_and_stored_say_what_they_said_before_the_move(level):
    from fairdesk.stats.regression.linear import run_linear

    old = OLS[level]
    stored = RegressionRun.from_json(old["payload"])
    assert regression_lines(stored) == old["console"]
    assert regression_conclusions(stored) == old["payload"]["result"]["conclusions"]
    d = run_linear(_ols_frame(), ["age_onset", "snr_db"], level=level)
    assert "conclusions" not in d  # numbers only
    fresh = RegressionRun(old["payload"]["request"], d, summary=d)
    assert regression_lines(fresh) == old["console"]
    # a stored run's sentences are not read: they are written from its numbers
    payload = copy.deepcopy(old["payload"])
    payload["result"]["conclusions"] = ["worded before"]
    assert regression_lines(RegressionRun.from_json(payload)) == old["console"]
