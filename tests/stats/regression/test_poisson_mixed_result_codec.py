"""The typed mixed Poisson result: its JSON codec, results stored before it (with their
sentences) read with today's words, and words equal to those the report used to write.

``fixtures/poisson_mixed_main.json`` holds ``run_poisson_mixed`` outputs (and the agreement
rows) written by the report before the typed result, on the frames built here (tracing with
a confounder, three covariates with data notes, content not modelled / not shared / a fixed
effect with error-free contents left out, overdispersion with the Laplace approximation);
``tests/golden/regress-2-poisson.json`` is a ``regress --json`` of the same era.
"""

from __future__ import annotations

import ast
import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_poisson_words import (
    TEXTS,
    agreement_note_text,
    model_based_json,
    model_based_lines,
    poisson_conclusions,
    poisson_json,
)
from fairdesk.stats.notices import Notice
from fairdesk.stats.regression import agreement_with_bootstrap, run_poisson_mixed
from fairdesk.stats.regression.poisson_mixed_result import MixedPoissonResult
from tests.stats.regression.test_poisson_mixed import _frame

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
MAIN = json.loads((HERE / "fixtures" / "poisson_mixed_main.json").read_text())
GOLDEN = json.loads((ROOT / "tests" / "golden" / "regress-2-poisson.json").read_text())
STORED = {**{k: v["result"] for k, v in MAIN.items()}, "golden": GOLDEN}


def _same(got, want, path=""):
    """Equal JSON: text exactly, numbers to 1e-9 (a fit on another machine's BLAS)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), path
        for k in want:
            _same(got[k], want[k], path + "/" + k)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, path + "/" + str(i))
    elif isinstance(want, float) and not isinstance(want, bool):
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), path
    else:
        assert got == want, path


@pytest.mark.parametrize("name", sorted(STORED))
def test_a_result_stored_in_words_reads_back_in_the_same_words(name):
    stored = STORED[name]
    assert poisson_json(MixedPoissonResult.from_json(stored)) == stored


@pytest.mark.parametrize("name", sorted(STORED))
def test_stored_sentences_are_not_read_but_derived_from_the_numbers(name):
    stored = copy.deepcopy(STORED[name])
    want = copy.deepcopy(stored)
    stored["conclusions"] = ["stale"]
    stored["overdispersion"]["reading"] = "stale"
    stored["content"]["reason"] = "stale (at most 50)"
    stored["model"] = "stale"
    stored["random_effects_note"] = "stale"
    for step in stored["tracing"]:
        for lev in step["levels"]:
            lev["sentence"] = "stale"
    for c in stored["covariates"]:
        c["per"] = "stale"
    assert poisson_json(MixedPoissonResult.from_json(stored)) == want


@pytest.mark.parametrize("name", sorted(STORED))
def test_coded_round_trip(name):
    fit = MixedPoissonResult.from_json(STORED[name])
    coded = fit.to_json()
    assert json.loads(json.dumps(coded)) == coded  # JSON-ready, no NaN
    again = MixedPoissonResult.from_json(coded)
    assert again.to_json() == coded
    assert poisson_json(again) == STORED[name]
    # every sentence of the coded form is a note the presentation words
    for c in coded["conclusions"]:
        assert set(c) == {"code", "args"} and c["code"] in TEXTS | {"stored.sentence": 0}


def test_old_data_notes_stay_as_stored_new_ones_are_coded():
    old = MixedPoissonResult.from_json(MAIN["two_covariates_notes"]["result"])
    assert [n.code for n in old.notes] == ["stored.sentence"] * 3
    assert [notice_text(n) for n in old.notes] == MAIN["two_covariates_notes"]["result"]["notes"]
    coded = MixedPoissonResult.from_json(old.to_json())
    assert coded.notes == old.notes
    # an old approximation and inference are read back from their numbers
    assert old.approximation == Notice("poisson.approximation", {"kind": "aghq", "n_quad": 15})
    assert old.inference.code == "poisson.inference"
    laplace = MixedPoissonResult.from_json(MAIN["overdispersed_laplace"]["result"])
    assert laplace.approximation.args == {"kind": "laplace", "n_quad": 1}


def test_every_code_has_words_in_its_area():
    assert all(code.startswith("poisson.") for code in TEXTS)
    for stored in STORED.values():
        fit = MixedPoissonResult.from_json(stored)
        for n in fit.conclusions():
            assert n.area in ("poisson", "stored"), n.code
            assert notice_text(n)


def _fit_case(name):
    """The frames fixtures/poisson_mixed_main.json was written from (see its capture)."""
    if name == "traced_confounder":
        rng = np.random.default_rng(7)
        df = _frame(
            rng, {"ref": 0.0, "grp": 0.0}, speakers=30, sd=0.3, long_group="grp", gamma=0.15
        )
        return run_poisson_mixed(df, "accent", ["duration"], reference="ref", content_col=None)
    rng = np.random.default_rng(8)
    df = _frame(rng, {"ref": 0.0, "grp": 0.3}, speakers=8, per=10, contents=10, sd=0.6)
    df.loc[df.content_id == "c3", "n_sub"] = 0
    return run_poisson_mixed(df, "accent", reference="ref")


@pytest.mark.parametrize("name", ["traced_confounder", "content_fixed_dropped"])
def test_a_fresh_fit_says_what_the_report_said(name):
    fit = _fit_case(name)
    _same(poisson_json(fit), MAIN[name]["result"])
    assert poisson_conclusions(fit) == MAIN[name]["result"]["conclusions"]
    rows = agreement_with_bootstrap(fit, MAIN[name]["comparisons"])
    _same([a.to_json(notice_text) for a in rows], MAIN[name]["agreement"])


def test_agreement_of_a_stored_result_in_todays_words():
    for case in MAIN.values():
        fit = MixedPoissonResult.from_json(case["result"])
        rows = agreement_with_bootstrap(fit, case["comparisons"])
        assert [a.to_json(notice_text) for a in rows] == case["agreement"]


def test_model_based_block_stored_coded_reads_as_the_old_words():
    from fairdesk.jobs.result_codec import canonical
    from fairdesk.jobs.result_parts import ModelBasedFit

    case = MAIN["content_not_shared"]
    fit = MixedPoissonResult.from_json(case["result"])
    rows = agreement_with_bootstrap(fit, case["comparisons"])
    caveat = Notice("poisson.groups_excluded", {"groups": ["zz"]})
    coded = fit.to_json()
    del coded["conclusions"]
    coded["notes"].append(caveat.to_json())
    coded["agreement"] = [
        {
            "level": a.level,
            "agree": a.agree,
            "model_significant": a.model_significant,
            "bootstrap_significant": a.bootstrap_significant,
            "note": a.note.to_json(),
        }
        for a in rows
    ]
    coded["agreement_note"] = Notice("poisson.combined_groups", {"columns": ["a", "b"]}).to_json()
    # the same block as the report stored it, in words
    worded = {
        **case["result"],
        "notes": case["result"]["notes"]
        + ["groups excluded by the audit's minimums were left out: ['zz']"],
        "agreement": case["agreement"],
        "agreement_note": "the audit compared combinations of a × b; the model compares the "
        "levels of each column",
    }
    for block in (coded, worded):
        typed = canonical({"accent": block}, dict[str, ModelBasedFit])
        payload = {"model_based": {"accent": json.loads(json.dumps(block))}}
        assert model_based_json(payload, typed)["model_based"]["accent"] == worded
        assert agreement_note_text(typed["accent"]) == worded["agreement_note"]
        lines = model_based_lines(typed)
        assert lines[1:] == ["  " + s for s in case["result"]["conclusions"]] + [
            "  " + a["sentence"] for a in case["agreement"]
        ]


STATS_FILES = [
    "poisson_mixed.py",
    "poisson_mixed_parts.py",
    "poisson_mixed_report.py",
    "poisson_mixed_result.py",
]


@pytest.mark.parametrize("name", STATS_FILES)
def test_no_formatted_text_outside_raise(name):
    path = ROOT / "fairdesk" / "stats" / "regression" / name
    tree = ast.parse(path.read_text())
    in_raise = {id(m) for n in ast.walk(tree) if isinstance(n, ast.Raise) for m in ast.walk(n)}
    bad = []
    for n in ast.walk(tree):
        if id(n) in in_raise:
            continue
        fmt_call = (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "format"
            and isinstance(n.func.value, ast.Constant)
        )
        percent = (
            isinstance(n, ast.BinOp)
            and isinstance(n.op, ast.Mod)
            and isinstance(n.left, ast.Constant)
            and isinstance(n.left.value, str)
        )
        if isinstance(n, ast.JoinedStr) or fmt_call or percent:
            bad.append(n.lineno)
    assert bad == []


def test_nan_is_written_null_and_read_back_nan():
    fit = MixedPoissonResult.from_json(GOLDEN)
    east = fit.group_variables[0].levels[-1]
    assert east.level == "east" and math.isnan(east.p_value) and math.isnan(east.ci_low)
    row = fit.to_json()["group_variables"][0]["levels"][-1]
    assert row["p_value"] is None and row["ci_low"] is None and row["df"] == 0.0
