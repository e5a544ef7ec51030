"""The analysis step's input rules (METHODS.md §2): language auto, empty references and
hypotheses, classification tables, one test for balanced accuracy = macro recall."""

import unicodedata

import numpy as np
import pandas as pd
import pytest

from fairdesk.jobs.analysis import analyse
from fairdesk.metrics.inputs import check_transcripts
from fairdesk.metrics.normalize import choose_normaliser
from fairdesk.stats import AuditSettings

AUTO = AuditSettings(n_bootstrap=200, min_items=1, min_speakers=1, normaliser="auto")


def _frame(refs, hyps, groups=None):
    n = len(refs)
    return pd.DataFrame(
        {
            "group": groups or (["a", "b"] * n)[:n],
            "reference": refs,
            "hypothesis": hyps,
            "item_id": [f"i{k}" for k in range(n)],
        }
    )


def test_choose_normaliser_by_share_of_ascii_letters():
    assert choose_normaliser(["Play some music", None, ""])[0] == "whisper-english"
    name, reason = choose_normaliser(["Ọ́ na-eri ákwà", "ụlọ akwụkwọ"])
    assert name == "whisper-basic" and reason["basis"] == "ascii_share" and not reason["english"]
    assert reason["letters"] == 20 and reason["share"] < reason["threshold"] == 0.99
    # decomposed (NFD) marks count too: the base letter is ASCII, the mark is not plain
    assert choose_normaliser([unicodedata.normalize("NFD", "àkwà ákwá")])[0] == "whisper-basic"
    # 1 marked letter in 200: 99.5% plain, still English
    assert choose_normaliser(["a" * 199 + "é"])[0] == "whisper-english"
    assert choose_normaliser(["a" * 98 + "éé"])[0] == "whisper-basic"  # 98%
    assert choose_normaliser(["ákwà"], "en")[0] == "whisper-english"  # a named language wins
    assert choose_normaliser(["hello"], "ig")[0] == "whisper-basic"


def test_igbo_table_keeps_tone_marks_by_default():
    refs = ["ákwà ọ́ma", "àkwá ọma"] * 2
    hyps = ["akwa ọma", "àkwá ọma"] * 2  # first hypothesis drops the tones of two words
    f, res = analyse(_frame(refs, hyps, ["a", "a", "b", "b"]), AUTO, language=None)
    res = res.to_json()  # bridge: typed consumer pending
    assert res["settings"]["normaliser"] == "whisper-basic"
    assert res["normaliser"]["reason"]["code"] == "run.normaliser_ascii_share"  # stored coded
    assert res["settings"]["normaliser_reason"] == res["normaliser"]["reason"]
    assert f["n_sub"].tolist() == [2, 0, 2, 0]  # with marks kept, akwa ≠ ákwà
    # the English normaliser would strip the marks and see no error
    _, en = analyse(_frame(refs, hyps, ["a", "a", "b", "b"]), AUTO, language="en")
    en = en.to_json()  # bridge: typed consumer pending
    assert en["settings"]["normaliser"] == "whisper-english"
    assert {g["group"]: g["values"]["wer"] for g in en["groups"]} == {"a": 0.0, "b": 0.0}


def test_empty_references_are_problems_with_their_lines():
    df = _frame(
        ["play music", "", None, "stop", float("nan"), "next song"],
        ["play music", "hello there", "x", "stop", "y", "next song"],
    )
    df["line"] = [2, 3, 4, 5, 6, 7]
    kept, problems, warnings = check_transcripts(df)
    assert [p["line"] for p in problems] == [3, 4, 6]
    assert [p["item"] for p in problems] == ["i1", "i2", "i4"]
    assert "empty reference" in problems[0]["reason"] and len(kept) == 3 and warnings == []
    # without a line column, the index names the row
    _, problems, _ = check_transcripts(
        df.drop(columns="line").set_index(pd.Index([10, 11, 12, 13, 14, 15]))
    )
    assert [p["line"] for p in problems] == [11, 12, 14]
    f, res = analyse(df, AUTO, language=None)
    res = res.to_json()  # bridge: typed consumer pending
    assert len(f) == 3 and [p["line"] for p in res["input_problems"]] == [3, 4, 6]
    assert res["groups"] and all(g["values"]["wer"] == 0.0 for g in res["groups"])  # no insertions


def test_empty_hypotheses_are_all_deletions_with_a_warning():
    df = _frame(
        ["play some music", "stop it", "next song", "louder"], ["", None, "next song", "louder"]
    )
    kept, problems, warnings = check_transcripts(df)
    assert problems == [] and len(kept) == 4
    assert warnings and warnings[0].startswith("2 item(s) have an empty hypothesis")
    f, res = analyse(df, AUTO, language=None)
    res = res.to_json()  # bridge: typed consumer pending
    assert f["n_del"].tolist() == [3, 2, 0, 0] and f["n_words"].tolist() == [3, 2, 2, 1]
    # stored coded (its words: tests/jobs/test_run_notes.py)
    assert res["warnings"][0] == {
        "code": "run.empty_hypotheses",
        "args": {"n": 2, "column": "hypothesis"},
    }


def test_classification_table_without_transcripts_balanced_accuracy_tested_once():
    from sklearn.metrics import balanced_accuracy_score, recall_score

    rng = np.random.default_rng(0)
    n = 120
    labels = rng.choice(["cat", "dog", "owl"], size=n)
    pred = np.where(rng.random(n) < 0.7, labels, rng.choice(["cat", "dog", "owl"], size=n))
    df = pd.DataFrame(
        {"group": np.repeat(["x", "y"], n // 2), "label": labels, "predicted_label": pred}
    )
    f, res = analyse(df, AUTO, language=None)
    res = res.to_json()  # bridge: typed consumer pending
    assert "balanced_accuracy" in res["tested_metrics"]
    assert "macro_recall" not in res["tested_metrics"]
    assert "macro_recall" in res["descriptive_metrics"]
    assert {c["metric"] for c in res["comparisons"]} == {"accuracy", "balanced_accuracy"}
    for g in res["groups"]:
        sub = df[df.group == g["group"]]
        want = balanced_accuracy_score(sub.label, sub.predicted_label)
        # every predicted label is also a true label here, so sklearn's macro recall agrees
        assert recall_score(sub.label, sub.predicted_label, average="macro") == pytest.approx(want)
        assert g["values"]["balanced_accuracy"] == pytest.approx(want)
        assert g["values"]["macro_recall"] == pytest.approx(want)
        assert g["ci"]["balanced_accuracy"] is not None
    # asking for both tests one and says why
    _, res = analyse(df, AUTO, wanted=["macro_recall", "balanced_accuracy"], language=None)
    res = res.to_json()  # bridge: typed consumer pending
    assert res["tested_metrics"] == ["macro_recall"]
    assert {
        "code": "run.same_number",
        "args": {"dropped": ["balanced_accuracy"], "kept": "macro_recall"},
    } in res["warnings"]


def test_classifier_rows_with_empty_transcripts_are_not_problems():
    df = pd.DataFrame(
        {
            "group": ["a", "a", "b", "b"],
            "reference": ["", None, "", ""],
            "hypothesis": ["cat", "", "dog", ""],
            "label": ["cat", "dog"] * 2,
            "predicted_label": ["cat", "cat", "dog", "dog"],
        }
    )
    kept, problems, _ = check_transcripts(df)
    assert problems == [] and len(kept) == 4
    f, res = analyse(df, AUTO, language=None)
    res = res.to_json()  # bridge: typed consumer pending
    assert res["input_problems"] == [] and "wer" not in res["tested_metrics"]
    assert "n_words" not in f.columns and "accuracy" in res["tested_metrics"]
