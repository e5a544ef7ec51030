"""What run_regression assembles around the fits: the problems list and the cautions word for
word, the outcome's name in sentences, the speaker column used for cautions and spread, the
result's settings, and its refusals of a bad alpha or cluster method."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_words import descriptive_sentences, result_conclusions
from fairdesk.stats.regression import run_regression
from tests.stats.regression.conftest import small_frame_data, texts

SINGLE = (
    "Caution: {var} = {level} has a single speaker: speaker and level cannot be told "
    "apart, and a speaker-clustered test cannot separate them; record more speakers of "
    "this level."
)
WORDS = (
    "Caution: the binomial model counts every reference word as an independent trial, "
    "but words of one utterance and utterances of one speaker are not independent, so "
    "its intervals are too narrow; add --cluster speaker_id."
)


def test_problems_list_every_failed_model_once():
    f = small_frame_data()
    n = len(f)
    cell = (f.accent == "in") & (f.age == "60+")
    f.loc[cell, "em"] = 0  # an empty cross cell
    f["room"] = np.where((np.arange(n) % 10 == 0) & ~cell, "z", "y")
    f.loc[f.room == "z", "em"] = 1  # a separated level
    n_z, n_cell = int((f.room == "z").sum()), int(cell.sum())
    res = run_regression(
        f, "em", ["age", "accent", "room"], cluster="speaker_id", interactions=True
    )
    sep = (
        f"perfect separation: room=z has outcome = 1 on all {n_z} rows, so its odds ratio "
        "is infinite; merge or drop that level"
    )
    inter = (
        f"interaction model: perfect separation: age=60+ × accent=in has outcome = 0 on "
        f"all {n_cell} rows, so its odds ratio is infinite; merge or drop that cell"
    )
    assert texts(res.problems) == [
        f"room: {sep}",
        f"age adjusted on room: {sep}",
        f"accent adjusted on room: {sep}",
        f"room adjusted on age: {sep}",
        f"room adjusted on accent: {sep}",
        f"age × accent: {inter}",
        f"accent × age: {inter}",
        f"clustered room: {sep}",
    ]
    assert res.to_dict(detail=True, words=notice_text)["problems"] == texts(res.problems)
    # without interactions the interaction lines are not asked for; without a cluster
    # there is no clustered line
    plain = run_regression(f, "em", ["age", "accent", "room"])
    assert texts(plain.problems) == texts(res.problems)[:5]


def _speakers_frame(single_b: bool = True) -> pd.DataFrame:
    """Region a: 6 speakers; region b: one speaker b0 (and b1 whose outcome is missing)."""
    rng = np.random.default_rng(0)
    rows = []
    for level, speakers in (("a", [f"a{i}" for i in range(6)]), ("b", ["b0", "b1"])):
        for spk in speakers:
            for _ in range(12):
                words = 6
                errors = int(rng.binomial(words, 0.2 if level == "a" else 0.35))
                rows.append(
                    {
                        "region": level,
                        "talker": spk,
                        "errors": errors,
                        "words": words,
                        "ok": float(rng.random() < 0.5),
                    }
                )
    df = pd.DataFrame(rows)
    if single_b:  # b1's rows have no outcome (and no counts): left out, so b has one speaker
        df.loc[df.talker == "b1", ["ok", "errors", "words"]] = np.nan
    return df


def test_single_speaker_caution_counts_the_rows_kept_and_comes_first():
    df = _speakers_frame()
    res = run_regression(df, "ok", ["region"], cluster="talker")
    want = SINGLE.format(var="region", level="b")
    assert texts(res.cautions) == [want]
    assert result_conclusions(res)[0] == want
    assert res.to_dict(words=notice_text)["cautions"] == [want]
    # the speaker column can be named without clustering: same caution, and the speaker
    # spread uses it
    by_name = run_regression(df, "ok", ["region"], speaker_col="talker")
    assert by_name.clustered is None and texts(by_name.cautions) == [want]
    spread = by_name.to_dict(words=notice_text)["speaker_spread"][0]
    assert [lv["n_speakers"] for lv in spread["levels"]] == [6, 1]
    # with both kept speakers of b there is nothing to caution about
    both = run_regression(_speakers_frame(single_b=False), "ok", ["region"], cluster="talker")
    assert texts(both.cautions) == []


def test_no_speaker_column_no_speaker_caution_nor_spread():
    df = _speakers_frame()
    res = run_regression(df, "ok", ["region"])
    assert texts(res.cautions) == [] and res.to_dict(words=notice_text)["speaker_spread"] == []
    # a speaker column that is not in the frame is not used either
    res = run_regression(df, "ok", ["region"], speaker_col="nobody")
    assert texts(res.cautions) == [] and res.to_dict(words=notice_text)["speaker_spread"] == []


def test_numeric_speaker_ids_are_spread_as_text():
    df = _speakers_frame(single_b=False)
    df["talker"] = df["talker"].map({s: i for i, s in enumerate(sorted(df.talker.unique()))})
    spread = run_regression(df, "ok", ["region"], speaker_col="talker").to_dict()
    b = spread["speaker_spread"][0]["levels"][1]
    assert sorted(r["speaker"] for r in b["speakers"]) == ["6", "7"]


def test_unclustered_word_model_caution_after_the_speaker_cautions():
    df = _speakers_frame()
    res = run_regression(df, "wer", ["region"], binomial=("errors", "words"), speaker_col="talker")
    assert texts(res.cautions) == [SINGLE.format(var="region", level="b"), WORDS]
    assert list(result_conclusions(res)[:2]) == texts(res.cautions)
    assert (
        res.model == "binomial"
        and res.to_dict(detail=True, words=notice_text)["model"] == "binomial"
    )
    clustered = run_regression(
        df, "wer", ["region"], binomial=("errors", "words"), cluster="talker"
    )
    assert texts(clustered.cautions) == [SINGLE.format(var="region", level="b")]
    alone = run_regression(df, "wer", ["region"], binomial=("errors", "words"))
    assert texts(alone.cautions) == [WORDS]


@pytest.mark.parametrize(
    "outcome, kwargs, label",
    [
        ("em", {}, "exact match"),
        ("no_word_error", {}, "no word error"),
        ("em", {"outcome_label": "a perfect transcript"}, "a perfect transcript"),
        ("wer", {"binomial": ("n_errors", "n_words")}, "word errors"),
    ],
)
def test_outcome_named_in_the_sentences(outcome, kwargs, label):
    f = small_frame_data()
    f["no_word_error"] = f["em"]
    res = run_regression(f, outcome, ["age"], references={"age": "18-29"}, **kwargs)
    first = [s for s in result_conclusions(res) if not s.startswith("Caution: ")][0]
    assert first.startswith(f"age is associated with {label} (LR p = ")  # as given
    assert res.outcome == outcome


def test_settings_of_the_result():
    f = small_frame_data()
    f.loc[:2, "speaker_id"] = None  # three utterances without a speaker: their own clusters
    res = run_regression(f, "em", "age", cluster="speaker_id", alpha=np.float32(0.25))
    assert [u.variable for u in res.univariate] == ["age"] and res.adjustments == ()
    assert res.model == "logit"
    assert type(res.alpha) is float and res.alpha == float(np.float32(0.25))
    assert res.clustered.method == "robust" and res.clustered.cluster == "speaker_id"
    assert res.clustered.n_clusters == f.speaker_id.nunique() + 3
    gee = run_regression(f, "em", ["age"], cluster="speaker_id", cluster_method="gee")
    assert gee.clustered.method == "gee"
    d = res.to_dict(detail=True, words=notice_text)
    assert d["alpha"] == float(np.float32(0.25)) and d["outcome"] == "em"
    assert d["clustered"]["n_clusters"] == f.speaker_id.nunique() + 3


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({"alpha": 0.0}, "alpha must be between 0 and 1, got 0.0"),
        ({"alpha": 1}, "alpha must be between 0 and 1, got 1"),
        (
            {"cluster_method": "mixed"},
            "cluster_method must be one of ('robust', 'gee'), got 'mixed'",
        ),
    ],
)
def test_bad_settings_refused_word_for_word(kwargs, msg):
    with pytest.raises(ValueError) as e:
        run_regression(small_frame_data(60), "em", ["age"], **kwargs)
    assert str(e.value) == msg


def _speaker_effect_frame(seed: int = 0) -> pd.DataFrame:
    """40 speakers x 30 utterances, speaker sd 1 on the logit, a speaker-level group with no
    effect (seed 0: plain LR p = 0.0006, clustered Wald p = 0.18)."""
    rng = np.random.default_rng(seed)
    speaker = np.repeat(np.arange(40), 30)
    level = np.repeat(rng.permutation(np.arange(40) % 2), 30)
    u = rng.normal(0.0, 1.0, 40)[speaker]
    em = (rng.random(speaker.size) < 1 / (1 + np.exp(-(0.5 + u)))).astype(int)
    return pd.DataFrame(
        {"em": em, "group": np.where(level == 1, "b", "a"), "speaker_id": speaker.astype(str)}
    )


def _fmt(p: float) -> str:
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


@pytest.mark.parametrize(
    "method, how",
    [
        ("robust", "cluster-robust standard errors"),
        ("gee", "a GEE with exchangeable correlation"),
    ],
)
def test_clustered_sentence_when_clustering_removes_the_evidence(method, how):
    res = run_regression(
        _speaker_effect_frame(), "em", ["group"], cluster="speaker_id", cluster_method=method
    )
    plain, clus = res.univariate[0].llr_p_value, res.clustered.univariate[0].llr_p_value
    assert plain < 0.05 <= clus
    assert (
        f"Allowing for speaker_id clustering ({how}), the association of group with "
        f"exact match is no longer significant (Wald p = {_fmt(clus)}, against LR p = "
        f"{_fmt(plain)} when utterances are treated as independent)."
    ) in result_conclusions(res)


def test_word_error_sentences_name_the_odds_of_a_word_error():
    f = small_frame_data()
    res = run_regression(
        f, "wer", ["age"], references={"age": "18-29"}, binomial=("n_errors", "n_words")
    )
    first = [s for s in result_conclusions(res) if not s.startswith("Caution: ")][0]
    levels = res.univariate[0].levels
    # the level that differs most among the significant ones: largest |log OR|
    best = max(
        (lev for lev in levels if lev.p_value < 0.05), key=lambda v: abs(np.log(v.odds_ratio))
    )
    ors = [lev.odds_ratio for lev in levels]
    assert first.startswith("age is associated with word errors (LR p = ")
    assert first.endswith(
        f"): odds ratios of a word error vs 18-29 range {min(ors):.2f}–{max(ors):.2f} over 2 "
        f"levels; largest difference: {best.level} {best.odds_ratio:.2f} "
        f"[{best.ci_low:.2f}, {best.ci_high:.2f}], p = {_fmt(best.p_value)}."
    )
    logit = run_regression(f, "em", ["age"], references={"age": "18-29"})
    assert "): odds ratios vs 18-29 range " in result_conclusions(logit)[0]


@pytest.mark.parametrize(
    "kwargs, label",
    [
        ({}, "exact match"),
        ({"outcome_label": "a perfect transcript"}, "a perfect transcript"),
    ],
)
def test_descriptive_block_and_sentences_use_the_outcome_name(kwargs, label):
    f = small_frame_data()
    res = run_regression(f, "em", ["age"], cluster="speaker_id", **kwargs)
    d = res.to_dict(words=notice_text)
    assert d["speaker_spread"][0]["measure"] == f"{label} rate"
    chi = d["outcome_chi2"][0]
    sig = "depends on" if chi["p_value"] < 0.05 else "shows no evidence of depending on"
    assert res.to_dict(detail=True, words=notice_text)["outcome_label"] == label
    assert any(
        s.startswith(f"χ² test: {label} {sig} age (χ² = {chi['chi2']:.2f}, df = 2, ")
        for s in descriptive_sentences(res.descriptive, res.outcome_label, 0.05)
    )
    words = run_regression(
        f, "wer", ["age"], binomial=("n_errors", "n_words"), cluster="speaker_id"
    ).to_dict()
    assert words["speaker_spread"][0]["measure"] == "WER (errors / reference words)"
