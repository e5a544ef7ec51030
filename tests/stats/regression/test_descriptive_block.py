"""Seed 000's descriptive block of a regression result, every key and number: the outcome χ²
tables, the one-way ANOVAs, the cross-tables and the per-speaker spread, against pandas and
scipy called directly; the degenerate cases and the validity flag at its boundaries."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_words import descriptive_sentences
from fairdesk.stats.regression import run_regression


def _close(got, want, path="") -> None:
    """Nested equality, floats to 1e-9 relative; key order of dicts checked too."""
    if isinstance(want, dict):
        assert isinstance(got, dict), path
        assert list(got) == list(want), path
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _close(g, w, f"{path}[{i}]")
    elif isinstance(want, float) and not isinstance(want, bool):
        assert isinstance(got, float), path
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), path
    else:
        assert type(got) is type(want) and got == want, path


def _frame() -> pd.DataFrame:
    """60 utterances of 12 speakers, not in sorted order of their names; age 60+ has 2
    speakers, 30-44 one; accent missing on 3 rows."""
    rng = np.random.default_rng(21)
    names = [f"s{(5 * i) % 12:02d}" for i in range(12)]  # s00, s05, s10, s03, ...
    spk = np.repeat(names, 5)
    age = np.repeat(
        ["60+" if i in (3, 7) else "30-44" if i == 10 else "18-29" for i in range(12)], 5
    )
    accent = np.repeat(rng.choice(["uk", "us"], 12), 5).astype(object)
    accent[[3, 17, 42]] = None
    em = (rng.random(60) < 0.55).astype(int)
    words = rng.integers(4, 15, 60)
    errors = rng.binomial(words, 0.2)
    return pd.DataFrame(
        {
            "em": em,
            "age": age,
            "accent": accent,
            "speaker_id": spk,
            "n_words": words,
            "n_errors": errors,
        }
    )


def _expected_block(frame: pd.DataFrame, variables, levels, y, n, binomial, what) -> dict:
    chi, an, per_var, spread = [], [], {}, []
    for v in variables:
        sub = frame[frame[v].notna()]
        rows = [
            [
                float(y[sub.index][sub[v] == lev].sum()),
                float(n[sub.index][sub[v] == lev].sum() - y[sub.index][sub[v] == lev].sum()),
            ]
            for lev in levels[v]
        ]
        c2, p, dof, expected = stats.chi2_contingency(np.array(rows))
        cols = ["word errors", "correct words"] if binomial else ["1", "0"]
        chi.append(
            {
                "variable": v,
                "unit": "reference words" if binomial else "utterances",
                "table": {
                    lev: {cols[0]: int(r[0]), cols[1]: int(r[1])}
                    for lev, r in zip(levels[v], rows, strict=True)
                },
                "chi2": float(c2),
                "df": int(dof),
                "p_value": float(p),
                "p_log10": math.log10(p),  # the χ² log survival function's, beside it
                "min_expected": float(expected.min()),
                "valid": bool(expected.min() >= 1 and np.mean(expected < 5) <= 0.2),
            }
        )
        rate = (y / n)[sub.index]
        groups = [rate[sub[v] == lev].to_numpy() for lev in levels[v]]
        f, p = stats.f_oneway(*groups)
        an.append(
            {
                "variable": v,
                "per": "utterance error rate (errors / words)"
                if binomial
                else "utterance outcome (0/1)",
                "n": len(sub),
                "k": len(levels[v]),
                "f": float(f),
                "df_between": len(levels[v]) - 1,
                "df_within": len(sub) - len(levels[v]),
                "p_value": float(p),
                "p_log10": math.log10(p),
            }
        )
        per_var[v] = {
            lev: {
                "utterances": int((sub[v] == lev).sum()),
                "speakers": int(sub.loc[sub[v] == lev, "speaker_id"].nunique()),
            }
            for lev in levels[v]
        }
        lev_rows = []
        for lev in levels[v]:
            s = sub[sub[v] == lev]
            g = pd.DataFrame({"s": s["speaker_id"], "y": y[s.index], "n": n[s.index]}).groupby("s")
            r = g["y"].sum() / g["n"].sum()
            lev_rows.append(
                {
                    "level": lev,
                    "n_speakers": len(r),
                    "min": float(r.min()),
                    "median": float(r.median()),
                    "max": float(r.max()),
                    "sd": float(r.std(ddof=1)) if len(r) > 1 else None,
                    "speakers": [
                        {"speaker": str(k), "n_utterances": int(g.size()[k]), "value": float(r[k])}
                        for k in sorted(r.index)
                    ],
                }
            )
        spread.append({"variable": v, "measure": what, "levels": lev_rows})
    pairs = []
    for i, a in enumerate(variables):
        for b in variables[i + 1 :]:
            sub = frame[frame[a].notna() & frame[b].notna()]
            utt = pd.crosstab(sub[a], sub[b])
            spk = sub.groupby([a, b])["speaker_id"].nunique()
            cells = {}
            for r in sorted(sub[a].unique()):
                cells[r] = {}
                for c in sorted(sub[b].unique()):
                    cells[r][c] = {"utterances": int(utt.loc[r, c])}
                    if (r, c) in spk.index:
                        cells[r][c]["speakers"] = int(spk[(r, c)])
            pairs.append({"variable_a": a, "variable_b": b, "cells": cells})
    return {
        "outcome_chi2": chi,
        "anova": an,
        "cross_tables": {"levels": per_var, "pairs": pairs},
        "speaker_spread": spread,
    }


def _levels(res, frame) -> dict:
    """Each variable's levels: the reference (from the result) first, then the rest sorted."""
    return {
        u.variable: [u.reference] + sorted(set(frame[u.variable].dropna()) - {u.reference})
        for u in res.univariate
    }


def test_whole_block_for_a_0_1_outcome_equals_pandas_and_scipy():
    frame = _frame()
    variables = ["age", "accent"]
    res = run_regression(frame, "em", variables, cluster="speaker_id")
    levels = _levels(res, frame)
    y = frame["em"].astype(float)
    n = pd.Series(1.0, index=frame.index)
    want = _expected_block(frame, variables, levels, y, n, False, "exact match rate")
    _close(res.descriptive.to_json(notice_text), want)
    d = res.to_dict(words=notice_text)
    for key in ("outcome_chi2", "anova", "cross_tables", "speaker_spread"):
        _close(d[key], want[key])


def test_whole_block_for_word_errors_equals_pandas_and_scipy():
    frame = _frame()
    variables = ["age", "accent"]
    res = run_regression(
        frame, "wer", variables, binomial=("n_errors", "n_words"), cluster="speaker_id"
    )
    levels = _levels(res, frame)
    y = frame["n_errors"].astype(float)
    n = frame["n_words"].astype(float)
    want = _expected_block(frame, variables, levels, y, n, True, "WER (errors / reference words)")
    _close(res.descriptive.to_json(notice_text), want)


def test_speaker_spread_names_the_outcome_and_needs_a_speaker_column():
    frame = _frame()
    res = run_regression(frame, "em", ["age"], outcome_label="exact match")
    assert res.descriptive.to_json(notice_text)["speaker_spread"] == []
    assert (
        "speakers"
        not in res.descriptive.to_json(notice_text)["cross_tables"]["levels"]["age"]["60+"]
    )
    frame = frame.assign(no_err=frame["em"])
    res = run_regression(frame, "no_err", ["age"], speaker_col="speaker_id")
    assert res.descriptive.to_json(notice_text)["speaker_spread"][0]["measure"] == "no err rate"


def test_speaker_spread_is_empty_when_the_speaker_column_holds_no_ids():
    """A --table without speakers: the column exists but every value is missing, so there is
    no spread to give (it used to fail on the minimum of an empty array)."""
    frame = _frame().assign(speaker_id=None)
    res = run_regression(frame, "em", ["age"], speaker_col="speaker_id")
    assert res.descriptive.to_json(notice_text)["speaker_spread"] == []
    half = _frame()
    half.loc[half["age"] != "18-29", "speaker_id"] = None  # only 18-29 has speaker ids
    (spread,) = run_regression(half, "em", ["age"], speaker_col="speaker_id").descriptive.to_json(
        notice_text
    )["speaker_spread"]
    assert [lv["level"] for lv in spread["levels"]] == ["18-29"]
    assert spread["levels"][0]["n_speakers"] == 9


def test_chi2_validity_at_smallest_expected_1_and_20_percent_below_5():
    # 5 levels of 2, 24, 24, 25, 25 utterances, half of each with em = 1: the first level's
    # two expected counts are exactly 1 (2 cells of 10 below 5), the rest 12 or 12.5
    sizes = {"a": 2, "b": 24, "c": 24, "d": 25, "e": 25}
    lev = np.concatenate([[k] * v for k, v in sizes.items()])
    em = np.concatenate([[0, 1], [0, 1] * 12, [0, 1] * 12, [0, 1] * 12 + [0], [1, 0] * 12 + [1]])
    frame = pd.DataFrame({"em": em, "v": lev})
    (chi,) = run_regression(frame, "em", ["v"]).descriptive.to_json(notice_text)["outcome_chi2"]
    table = pd.crosstab(frame["v"], frame["em"]).to_numpy()
    expected = stats.chi2_contingency(table)[3]
    assert expected.min() == 1.0 and np.mean(expected < 5) == 0.2
    assert chi["min_expected"] == 1.0
    assert chi["valid"] is True
    # two more utterances in the small level: expected 2, still 2 cells of 10 below 5
    frame2 = pd.concat([frame, pd.DataFrame({"em": [1, 0], "v": ["a", "a"]})])
    (chi2,) = run_regression(frame2, "em", ["v"]).descriptive.to_json(notice_text)["outcome_chi2"]
    assert chi2["valid"] is True and chi2["min_expected"] == pytest.approx(4 * 51 / 102)
    # the small level with 1 utterance: expected counts about 0.5 -> not valid
    frame3 = frame.iloc[1:]
    (chi3,) = run_regression(frame3, "em", ["v"]).descriptive.to_json(notice_text)["outcome_chi2"]
    assert chi3["min_expected"] < 1 and chi3["valid"] is False


@pytest.mark.parametrize("ones", [(5, 5), (6, 5)])
def test_chi2_expected_counts_of_5_or_a_little_above_are_not_below_5(ones):
    # 10 (or 11) utterances per level, 10 (or 11) with em = 1: every expected count 5 (5.5)
    k = sum(ones)
    em = [1] * ones[0] + [0] * (k - ones[0]) + [1] * ones[1] + [0] * (k - ones[1])
    frame = pd.DataFrame({"em": em, "v": ["x"] * k + ["y"] * k})
    (chi,) = run_regression(frame, "em", ["v"]).descriptive.to_json(notice_text)["outcome_chi2"]
    expected = stats.chi2_contingency(pd.crosstab(frame["v"], frame["em"]).to_numpy())[3]
    assert (expected == k / 2).all()
    assert chi["min_expected"] == k / 2 and chi["valid"] is True


def test_three_levels_below_5_of_ten_cells_is_not_valid():
    sizes = {"a": 4, "b": 4, "c": 30, "d": 31, "e": 31}
    lev = np.concatenate([[k] * v for k, v in sizes.items()])
    frame = pd.DataFrame({"em": np.arange(len(lev)) % 2, "v": lev})
    (chi,) = run_regression(frame, "em", ["v"]).descriptive.to_json(notice_text)["outcome_chi2"]
    expected = stats.chi2_contingency(pd.crosstab(frame["v"], frame["em"]).to_numpy())[3]
    assert expected.min() >= 1 and np.mean(expected < 5) == 0.4
    assert chi["valid"] is False


def test_constant_outcome_where_the_variable_is_known():
    # em is 1 on every row where b is known (it varies only on rows without b)
    frame = pd.DataFrame(
        {
            "em": [1, 1, 1, 1, 0, 1],
            "b": ["p", "q", "p", "q", None, None],
            "a": ["x", "y", "y", "x", "x", "y"],
        }
    )
    res = run_regression(frame, "em", ["a", "b"])
    chi = {c["variable"]: c for c in res.descriptive.to_json(notice_text)["outcome_chi2"]}["b"]
    assert chi == {
        "variable": "b",
        "unit": "utterances",
        "table": {"p": {"1": 2, "0": 0}, "q": {"1": 2, "0": 0}},
        "chi2": None,
        "df": 0,
        "p_value": None,
        "reason": "fewer than two levels, or a constant outcome on these rows",
    }
    said = descriptive_sentences(res.descriptive, "exact match", 0.05)
    assert not any(s.startswith("χ² test: exact match") and " b " in s for s in said)


def test_anova_with_one_utterance_per_level_has_no_f():
    frame = pd.DataFrame({"em": [0, 1, 1], "a": ["x", "y", "z"]})
    res = run_regression(frame, "em", ["a"])
    (an,) = res.descriptive.to_json(notice_text)["anova"]
    assert an == {
        "variable": "a",
        "per": "utterance outcome (0/1)",
        "n": 3,
        "k": 3,
        "f": None,
        "df_between": 0,
        "df_within": 0,
        "p_value": None,
    }
    said = descriptive_sentences(res.descriptive, "exact match", 0.05)
    assert not any(s.startswith("One-way ANOVA") for s in said)


def test_anova_without_variation_within_levels_is_infinite_f():
    frame = pd.DataFrame({"em": [0, 0, 1, 1], "a": ["x", "x", "y", "y"]})
    res = run_regression(frame, "em", ["a"])
    (an,) = res.descriptive.to_json(notice_text)["anova"]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f, _ = stats.f_oneway([0.0, 0.0], [1.0, 1.0])
    assert math.isinf(f)
    assert an["f"] is None and an["df_between"] == 1 and an["df_within"] == 2
    assert an["n"] == 4 and an["k"] == 2
    assert (
        "One-way ANOVA by a: the outcome does not vary within any level, so F is infinite "
        "(the levels differ completely)." in descriptive_sentences(res.descriptive, "em", 0.05)
    )
