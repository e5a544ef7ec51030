"""PreparedData of the mixed Poisson model: content handling word for word at its limits,
references, error-free levels, refusals and the dtypes of the counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairdesk.presentation.notices import notice_text, notice_texts
from fairdesk.presentation.regression_poisson_words import CROSSED_NOTE
from fairdesk.stats.regression.poisson_mixed import PreparedData

ERR = ("n_sub", "n_del", "n_ins")


def _frame(n_shared, n_own=0, errors=None, levels=("ref", "grp"), reps=2):
    """Every level reads the shared contents s0.. `reps` times, and `n_own` contents of its own;
    errors: content -> error count (default 1 everywhere)."""
    rows = []
    for g in levels:
        conts = [f"s{i}" for i in range(n_shared)] + [f"{g}-o{i}" for i in range(n_own)]
        for r in range(reps):
            for c in conts:
                e = 1 if errors is None else errors.get(c, 0)
                rows.append(
                    {
                        "accent": g,
                        "speaker_id": f"{g}{r}",
                        "content_id": c,
                        "n_words": 8,
                        "n_sub": e,
                        "n_del": 0,
                        "n_ins": 0,
                    }
                )
    return pd.DataFrame(rows)


def _prep(
    df,
    group_vars="accent",
    reference="ref",
    content_col="content_id",
    max_fixed=50,
    covariates=None,
):
    return PreparedData(
        df, group_vars, covariates, reference, "speaker_id", content_col, ERR, "n_words", max_fixed
    )


def _info(d) -> dict:
    """The content handling as the report writes it (its reason in words)."""
    return d.content_info.to_json(notice_text)


def test_four_shared_contents_are_not_modelled_five_are():
    d = _prep(_frame(4, n_own=2))
    assert _info(d) == {
        "handling": "not_shared",
        "n_contents": 8,
        "n_shared": 4,
        "reason": (
            "the levels of accent share 4 content id(s) (< 5): content differences "
            "between groups cannot be separated from the groups (content_confounded); "
            "within-group sentence variation shows in the overdispersion check."
        ),
    }
    assert "content" not in d.terms
    d = _prep(_frame(5))
    assert _info(d) == {
        "handling": "fixed_effect",
        "n_contents": 5,
        "n_shared": 5,
        "reason": (
            "5 content ids, 5 shared across the levels of accent: content enters as a "
            "fixed effect (every comparison is within sentence). " + CROSSED_NOTE
        ),
    }
    X, names, kind = d.terms["content"]
    assert kind == "content" and names == ["s1", "s2", "s3", "s4"] and X.shape == (20, 4)
    _, labels = d.design(["accent", "content"])
    assert labels[2:] == [("content", f"s{i}") for i in range(1, 5)]


def test_as_many_contents_as_the_fixed_limit_are_fixed_effects_one_more_are_not():
    df = _frame(6)
    assert _prep(df, max_fixed=6).content_info.handling == "fixed_effect"
    d = _prep(df, max_fixed=5)
    assert _info(d) == {
        "handling": "not_modelled",
        "n_contents": 6,
        "n_shared": 6,
        "reason": (
            "6 content ids (6 shared) are too many for fixed effects (at most 5); "
            "crossed speaker × content random effects are not fitted: adaptive "
            "gauss-hermite quadrature integrates one grouping factor (the speaker) "
            "only. Sentence difficulty then shows as extra-Poisson variation (see the "
            "overdispersion check); the two-way bootstrap comparison resamples "
            "sentences."
        ),
    }
    assert "content" not in d.terms


def test_error_free_contents_are_left_out_and_said_so():
    d = _prep(_frame(6, errors={"s0": 2, "s1": 1, "s2": 3, "s3": 1}))
    info = _info(d)
    assert info["dropped_error_free_contents"] == 2 and info["dropped_utterances"] == 8
    assert info["reason"] == (
        "6 content ids, 6 shared across the levels of accent: content enters as a fixed "
        "effect (every comparison is within sentence). " + CROSSED_NOTE + " 2 content id(s) "
        "had no error in any utterance; their 8 utterance(s) carry no information about the "
        "groups once content is a fixed effect and were left out."
    )
    assert d.y.size == 16 and d.terms["content"][1] == ["s0", "s1", "s2", "s3"][1:]


def test_a_single_content_left_with_errors_has_no_column():
    d = _prep(_frame(5, errors={"s3": 2}))
    X, names, kind = d.terms["content"]
    assert X.shape == (4, 0) and names == [] and kind == "content"
    assert d.design(["accent", "content"])[0].shape == (4, 2)


def test_content_column_absent_or_empty():
    df = _frame(5)
    for frame, col in (
        (df.drop(columns="content_id"), "content_id"),
        (df.assign(content_id=None), "content_id"),
        (df, None),
    ):
        d = _prep(frame, content_col=col)
        assert _info(d) == {
            "handling": "absent",
            "n_contents": 0,
            "n_shared": 0,
            "reason": "no content ids: sentence difficulty is not separated.",
        }


def test_reference_by_mapping_and_unknown_variables():
    df = _frame(5)
    d = _prep(df, reference={"accent": "grp"})
    assert d.levels["accent"] == ["grp", "ref"]
    assert d.terms["accent"][1:] == (["ref"], "group")
    with pytest.raises(ValueError) as err:
        _prep(df, reference={"nope": "x", "accent": "ref"})
    assert str(err.value) == "Reference given for ['nope'], not a group variable."


def test_error_free_levels_are_left_out_with_their_content_kept():
    df = _frame(5, levels=("ref", "grp", "quiet", "calm"))
    df.loc[df.accent.isin(["quiet", "calm"]), "n_sub"] = 0
    df = df[~((df.accent == "calm") & (df.speaker_id == "calm1"))]  # 15 rows left out, 20 kept
    d = _prep(df)
    assert d.levels["accent"] == ["ref", "grp"] and d.y.size == 20
    assert d.dropped == {"accent: no error": 15}
    assert notice_texts(d.notes) == [
        "accent level(s) 'calm', 'quiet' have no word error in any of their 15 utterance(s) "
        "and were left out (a rate ratio of 0 has no Wald interval; the bootstrap comparison "
        "reports them)."
    ]
    assert d.content_info.handling == "fixed_effect" and d.terms["content"][0].shape == (20, 4)
    with pytest.raises(ValueError) as err:
        _prep(df, reference="quiet")
    assert str(err.value) == (
        "The reference level 'quiet' of 'accent' has no word error at all: every rate ratio "
        "against it is infinite. Choose another reference level."
    )


def test_nothing_or_one_utterance_left():
    df = _frame(5)
    with pytest.raises(ValueError) as err:
        _prep(df.assign(n_words=0))
    assert str(err.value) == "No utterance is left to model (see the dropped counts)."
    with pytest.raises(ValueError) as err:
        _prep(df.iloc[:1], reference=None)
    assert str(err.value) == (
        "Group variable 'accent' has a single level (['ref']): nothing to compare."
    )


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "Int16", "float32"])
def test_word_counts_of_any_dtype_give_double_precision_offsets(dtype):
    df = _frame(5)
    df["n_words"] = np.arange(len(df)) % 7 + 3
    d = _prep(df.astype({"n_words": dtype}))
    assert d.offset.dtype == np.float64
    assert np.array_equal(d.offset, np.log(df.n_words.to_numpy(float)))
