"""The mixed Poisson model's data preparation: every refusal word for word, every dropped
count and note, the speaker codes and the covariate blocks against numpy by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairdesk.presentation.notices import notice_texts
from fairdesk.stats.regression.poisson_mixed import MAX_FIXED_CONTENTS, PreparedData, _levels

ERR = ("n_sub", "n_del", "n_ins")


def _prep(
    frame,
    group_vars="accent",
    covariates=None,
    reference=None,
    speaker_col="speaker_id",
    content_col=None,
):
    return PreparedData(
        frame,
        group_vars,
        covariates,
        reference,
        speaker_col,
        content_col,
        ERR,
        "n_words",
        MAX_FIXED_CONTENTS,
    )


def _frame(n=12) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    return pd.DataFrame(
        {
            "accent": (["us", "uk", "us"] * n)[:n],
            "speaker_id": [f"s{i % 5}" for i in range(n)],
            "n_words": rng.integers(3, 9, n),
            "n_sub": rng.integers(0, 3, n),
            "n_del": 1,
            "n_ins": 0,
            "snr": rng.normal(10, 2, n),
            "room": (["a", "b", "b", "c"] * n)[:n],
            "content_id": [f"c{i % 3}" for i in range(n)],
        },
        index=[f"r{i}" for i in range(n)],
    )


def _raises(fn, *args, **kw) -> str:
    with pytest.raises(ValueError) as e:
        fn(*args, **kw)
    return str(e.value)


def test_refusals_word_for_word():
    df = _frame()
    assert _raises(_prep, [1, 2]) == "frame must be a pandas DataFrame, got list."
    assert _raises(_prep, df, []) == "Name at least one group variable (e.g. accent) to test."
    assert _raises(_prep, df, "accent", ["snr", "accent"]) == (
        "A column is listed twice among the variables: ['accent', 'snr', 'accent']."
    )
    assert _raises(_prep, df, speaker_col="talker") == (
        "The frame has no speaker column 'talker': the model's random intercept is per "
        "speaker. Name the speaker column (speaker_col=...), or use the logistic/binomial "
        "regression when speakers are unknown."
    )
    assert _raises(_prep, df[["accent", "speaker_id", "n_words", "n_sub", "n_del"]]) == (
        "Column(s) ['n_ins'] are not in the frame; available: accent, speaker_id, n_words, "
        "n_sub, n_del. Word errors need n_sub + n_del + n_ins and n_words (per-item "
        "statistics of a run)."
    )
    bad = df.astype({"n_sub": object})
    bad.loc[["r3", "r5"], "n_sub"] = ["x", "y"]
    assert _raises(_prep, bad) == "Column 'n_sub' must hold counts; row 'r3' holds 'x'."
    bad = df.astype({"n_sub": float})
    bad.loc["r2", "n_sub"] = 1.5
    assert _raises(_prep, bad) == (
        "Word-error counts must be non-negative integers; row 'r2' has 2.5."
    )
    assert _raises(_prep, df, "accent", "snr2").startswith("Column(s) ['snr2'] are not")


def test_negative_integer_errors_are_refused():
    df = _frame()
    df.loc["r2", ["n_sub", "n_del"]] = [-2, 0]
    assert _raises(_prep, df) == (
        "Word-error counts must be non-negative integers; row 'r2' has -2."
    )


def test_dropped_counts_and_notes():
    df = _frame(14).astype({"n_words": float})
    df.loc["r0", "accent"] = None  # missing group
    df.loc["r1", ["accent", "snr"]] = [None, np.nan]  # missing both: counted once, as accent
    df.loc["r2", "snr"] = np.nan  # missing covariate
    df.loc["r3", "n_words"] = np.nan  # no word count: left out
    df.loc["r4", "n_words"] = 0  # no reference word
    df.loc[["r5", "r6"], ["n_words", "accent"]] = [[0, None], [0, "us"]]
    df.loc["r7", "n_words"] = 1  # one word: kept
    d = _prep(df, "accent", "snr")
    assert d.covariates == ["snr"] and d.group_vars == ["accent"]
    assert d.dropped == {
        "counts (n_words, n_sub, n_del, n_ins)": 1,
        "accent": 3,
        "snr": 1,
        "n_words = 0": 2,
    }
    assert notice_texts(d.notes) == [
        "1 utterance(s) left out: missing counts (n_words, n_sub, n_del, n_ins).",
        "3 utterance(s) left out: missing accent.",
        "1 utterance(s) left out: missing snr.",
        "2 utterance(s) with no reference word left out.",
    ]
    kept = ["r7", "r8", "r9", "r10", "r11", "r12", "r13"]
    assert d.df.index.tolist() == kept
    e = df.loc[kept, list(ERR)].sum(axis=1).to_numpy(float)
    np.testing.assert_array_equal(d.y, e)
    np.testing.assert_allclose(d.offset, np.log(df.loc[kept, "n_words"].to_numpy(float)))
    assert d.content_col is None and d.content is None


def test_missing_speaker_ids_become_their_own_speakers():
    df = _frame(6).astype({"speaker_id": object})
    df.loc[["r1", "r4"], "speaker_id"] = None
    d = _prep(df, content_col="content_id")
    assert d.speakers.tolist() == ["s0", "\x00utt1", "s2", "s3", "\x00utt4", "s0"]
    assert notice_texts(d.notes) == ["2 utterance(s) have no speaker id; each is its own speaker."]
    assert d.content_col == "content_id"
    assert d.content.tolist() == ["c0", "c1", "c2", "c0", "c1", "c2"]


def test_numeric_covariate_is_standardised():
    df = _frame()
    d = _prep(df, "accent", ["snr"])
    x = df.snr.to_numpy(float)
    sd = float(np.std(x))
    assert d.cov_info == {
        "snr": {"kind": "numeric", "mean": pytest.approx(x.mean()), "sd": pytest.approx(sd)}
    }
    X, names, kind = d.terms["snr"]
    np.testing.assert_allclose(X[:, 0], (x - x.mean()) / sd)
    assert X.shape == (12, 1) and names == ["snr"] and kind == "numeric"
    assert _raises(_prep, df.assign(snr=3.0), "accent", "snr") == (
        "Covariate 'snr' is constant: it cannot adjust anything."
    )


def test_categorical_covariates_text_bool_and_category():
    df = _frame()
    # room: a 1, b 6, c 3... counted on the 12 rows: b most, then a and c
    d = _prep(df, "accent", ["room"])
    counts = df.room.value_counts()
    levels = sorted(counts.index, key=lambda v: (-counts[v], v))
    assert d.cov_info == {"room": {"kind": "categorical", "reference": levels[0]}}
    X, names, kind = d.terms["room"]
    assert names == levels[1:] and kind == "categorical"
    want = np.column_stack([(df.room == lev).to_numpy(float) for lev in levels[1:]])
    np.testing.assert_array_equal(X, want)
    # a two-level covariate is enough
    d2 = _prep(df.assign(room=np.where(df.room == "b", "b", "x")), "accent", "room")
    assert d2.terms["room"][1] == ["x"]
    # booleans and pandas categoricals are categories even when numbers would parse
    flag = np.arange(12) % 3 == 0
    d3 = _prep(df.assign(flag=flag), "accent", "flag")
    assert d3.cov_info["flag"] == {"kind": "categorical", "reference": "False"}
    np.testing.assert_array_equal(d3.terms["flag"][0][:, 0], flag.astype(float))
    assert d3.terms["flag"][1:] == (["True"], "categorical")
    cat = pd.Categorical(np.where(flag, 7, 9))
    d4 = _prep(df.assign(k=cat), "accent", "k")
    assert d4.cov_info["k"] == {"kind": "categorical", "reference": "9"}
    assert _raises(_prep, df.assign(room="a", room2=np.nan), "accent", "room") == (
        "Covariate 'room' has a single level: it cannot adjust anything."
    )


def test_levels_by_count_then_name():
    assert _levels(pd.Series(["c", "c", "b", "b", "a"])) == ["b", "c", "a"]
    assert _levels(pd.Series(["a", "z", "z", "y", "y", "y"])) == ["y", "z", "a"]


def test_rows_without_their_counts_are_left_out_and_counted():
    df = _frame().astype({"n_words": float, "n_del": float})
    df.loc["r1", "n_words"] = np.nan
    df.loc[["r4", "r7"], "n_del"] = np.nan
    d = _prep(df)
    assert d.dropped == {"counts (n_words, n_sub, n_del, n_ins)": 3}
    assert notice_texts(d.notes) == [
        "3 utterance(s) left out: missing counts (n_words, n_sub, n_del, n_ins)."
    ]
    assert list(d.df.index) == [f"r{i}" for i in range(12) if i not in (1, 4, 7)]
    assert d.y.tolist() == (df.n_sub + df.n_del + df.n_ins).drop(["r1", "r4", "r7"]).tolist()
