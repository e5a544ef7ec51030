"""The normalisers and their memo, the item statistics' diacritic columns, the transcript
checks, the registry's specs and the loop finder.

Values are checked against hand-worked examples or the whisper-normalizer classes called
directly. The normalisers' caches (lru_cache of the Whisper calls, the process-wide memo of
:func:`fairdesk.metrics.normalize.remember`) are emptied around every test, so that no text
normalised earlier in the same process answers for the code under test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from whisper_normalizer.basic import BasicTextNormalizer
from whisper_normalizer.english import EnglishTextNormalizer

from fairdesk.metrics import compute_item_stats, metric_specs
from fairdesk.metrics import normalize as nz
from fairdesk.metrics.hallucination import find_loop
from fairdesk.metrics.inputs import check_transcripts, classification_only
from fairdesk.metrics.normalize import basic, english, get_normalizer, memoised, remember
from fairdesk.metrics.registry import METRICS, class_labels

_WHISPER_EN = EnglishTextNormalizer()
_WHISPER_BASIC = BasicTextNormalizer(remove_diacritics=False, preserve_marks=True)


@pytest.fixture(autouse=True)
def _fresh_caches(monkeypatch):
    monkeypatch.setattr(nz, "_MEMO", {})
    nz._english_str.cache_clear()
    nz._basic_str.cache_clear()
    yield
    nz._english_str.cache_clear()
    nz._basic_str.cache_clear()


# ---------------------------------------------------------------- the English normaliser


def test_english_keeps_leading_zeros_and_drops_punctuation_tokens():
    # Whisper alone drops the leading zero and leaves the ellipsis' "."
    assert _WHISPER_EN("dial 0351 now") == "dial 351 now"
    assert english("dial 0351 now") == "dial 0351 now"
    assert english("zero three five one") == "0351"
    assert english("0351") == english("zero three five one")
    assert _WHISPER_EN("well...").split()[-1] == "."
    assert english("well...") == "well"
    assert english("") == ""


def test_get_normalizer_default_and_unknown_name_word_for_word():
    assert get_normalizer() is english
    assert get_normalizer(language="yo") is basic
    with pytest.raises(ValueError) as exc:
        get_normalizer("whisper")
    assert str(exc.value) == (
        "unknown text normaliser 'whisper'; use one of ['tone-preserving', 'whisper-basic', "
        "'whisper-english'] or 'auto' (Whisper English for English, Whisper basic with "
        "diacritics otherwise)."
    )


# ---------------------------------------------------------------- memo of normalised texts


def test_memoised_builtin_answers_from_remembered_texts():
    remember(english, ["a remembered text", None], ["planted answer", "never"])
    assert nz._MEMO[english] == {"a remembered text": "planted answer"}  # str keys only
    f = memoised(english)
    assert f("a remembered text") == "planted answer"
    # a new text is normalised, kept, and answered from the memo afterwards
    assert f("Seven Apples") == "7 apples"
    assert nz._MEMO[english]["Seven Apples"] == "7 apples"
    nz._MEMO[english]["Seven Apples"] = "planted again"
    assert f("Seven Apples") == "planted again"
    # not text: normalised as such, never memoised
    assert f(7) == "7" == _WHISPER_EN("7")
    assert f(None) == ""
    assert f(float("nan")) == ""
    assert set(nz._MEMO[english]) == {"a remembered text", "Seven Apples"}


def test_memoised_first_use_of_a_builtin_starts_its_memo():
    assert nz._MEMO == {}
    assert memoised(nz.tone_preserving)("Ọ́kụ̀, Ada!") == "ọ́kụ̀ ada"
    assert list(nz._MEMO) == [nz.tone_preserving]


def test_memoised_other_callable_keeps_a_memo_of_its_own():
    class Suffix:
        def __init__(self):
            self.tag = "1"

        def __call__(self, text):
            return f"{text}-{self.tag}"

    fn = Suffix()
    first = memoised(fn)
    assert first("a") == "a-1"
    fn.tag = "2"
    assert first("a") == "a-1"  # its own memo
    assert memoised(fn)("a") == "a-2"  # a new wrapper, a new memo: no stale answer
    assert nz._MEMO == {}
    remember(fn, ["b"], ["planted"])  # only built-in normalisers are remembered
    assert nz._MEMO == {}
    assert memoised(fn)("b") == "b-2"


def test_memo_limit_clears_before_passing_it(monkeypatch):
    monkeypatch.setattr(nz, "MEMO_LIMIT", 3)
    f = memoised(basic)
    for t in ("x", "y", "z"):
        f(t)
    assert len(nz._MEMO[basic]) == 3
    f("w")  # would be the 4th: cleared first
    assert nz._MEMO[basic] == {"w": "w"}
    remember(basic, ["p", "q"], ["P", "Q"])  # 1 + 2 = 3: fits, kept
    assert nz._MEMO[basic] == {"w": "w", "p": "P", "q": "Q"}
    remember(basic, ["r"], ["R"])  # 3 + 1 > 3: cleared first
    assert nz._MEMO[basic] == {"r": "R"}
    monkeypatch.setattr(nz, "MEMO_LIMIT", 4)
    remember(basic, ["s", "t", "u"], ["S", "T", "U"])  # 1 + 3 = 4: fits
    remember(basic, ["v", "w"], ["V", "W"])  # 4 + 2 > 4 (4 - 2 would not be)
    assert nz._MEMO[basic] == {"v": "V", "w": "W"}


@pytest.mark.parametrize(
    ("language", "normalizer", "norm", "other"),
    [
        ("en", None, english, basic),
        ("yo", None, basic, english),
        ("en", "whisper-basic", basic, english),
    ],
)
def test_item_stats_remember_texts_under_the_normaliser_used(language, normalizer, norm, other):
    ref, hyp = "Seven Ọ́kụ̀ Apples!", "seven oku apples"
    frame = pd.DataFrame({"reference": [ref, ref], "hypothesis": [hyp, hyp]})
    compute_item_stats(frame, language=language, normalizer=normalizer)
    assert nz._MEMO[norm] == {ref: norm(ref), hyp: norm(hyp)}
    assert other not in nz._MEMO
    assert memoised(other)(ref) == other(ref)
    assert memoised(norm)(ref) == norm(ref)
    assert english(ref) == _WHISPER_EN(ref) == "7 oku apples"
    assert basic(ref) == " ".join(_WHISPER_BASIC(ref).split())
    assert type(nz._MEMO[norm][ref]) is str and type(nz._MEMO[norm][hyp]) is str


def test_item_stats_default_language_is_english():
    s = compute_item_stats(pd.DataFrame({"reference": ["Seven"], "hypothesis": ["7"]}))
    assert (s["n_words"].tolist(), s["n_sub"].tolist()) == ([1], [0])
    assert s["n_items"].dtype == np.int64
    with pytest.raises(TypeError) as exc:
        compute_item_stats([{"reference": "a", "hypothesis": "a"}])
    assert str(exc.value) == "compute_item_stats needs a pandas DataFrame, got list."


# ---------------------------------------------------------------- diacritic columns


def test_nodia_and_letter_columns_by_hand():
    frame = pd.DataFrame(
        {
            "reference": ["ọ́kụ̀", "oku a", "a", "123", "ɛgbɛ́ 12", ""],
            "hypothesis": ["ọ́kụ", "ọ́kù a", "à", "12̀3", "ɛgbɛ", "à"],
        }
    )
    s = compute_item_stats(frame, language="yo", diacritic_count="marks")
    # letters: o k u; o k u a; a; none; ɛ g b ɛ (non-ASCII base); none
    assert s["ref_letters"].tolist() == [3, 4, 1, 0, 4, 0]
    # marks: ọ́ has 2, ụ̀ has 2 / ọ́ 2 + ù 1 / à 1 / 2̀ is no letter / ɛ́ 1
    assert s["dia_expected"].tolist() == [4, 0, 0, 0, 1, 0]
    assert s["dia_produced"].tolist() == [3, 3, 1, 0, 0, 1]
    assert s["nodia_items"].tolist() == [0, 1, 1, 0, 0, 0]
    assert s["nodia_added"].tolist() == [0, 3, 1, 0, 0, 0]
    assert s["nodia_letters"].tolist() == [0, 4, 1, 0, 0, 0]
    for c in (
        "ref_letters",
        "nodia_items",
        "nodia_added",
        "nodia_letters",
        "dia_expected",
        "dia_produced",
        "tone_expected",
    ):
        assert s[c].dtype == np.int64, c
    letters = compute_item_stats(frame, language="yo")
    assert letters["dia_produced"].tolist() == [2, 2, 1, 0, 0, 1]


def test_empty_transcription_frame_gives_integer_columns():
    frame = pd.DataFrame(
        {"reference": pd.Series([], dtype=object), "hypothesis": pd.Series([], dtype=object)}
    )
    s = compute_item_stats(frame)
    assert len(s) == 0
    assert (s.dtypes == np.int64).all(), s.dtypes[s.dtypes != np.int64]


# ---------------------------------------------------------------- transcript checks


def test_check_transcripts_messages_and_item_ids_word_for_word():
    frame = pd.DataFrame(
        {"id": ["u1", "u2", "u3"], "reference": ["a b", " ", "c"], "hypothesis": ["a", "x", ""]}
    )
    kept, problems, warnings = check_transcripts(frame)
    assert kept.index.tolist() == [0, 2]
    assert problems == [
        {
            "line": 1,
            "item": "u2",
            "reason": "empty reference: the row cannot be scored (every hypothesis word would "
            "count as an insertion) and is left out; fill in the reference or drop the row",
        }
    ]
    assert warnings == [
        "1 item(s) have an empty hypothesis (the model produced no words): "
        "each counts as all deletions"
    ]


def test_check_transcripts_classification_test_reads_the_given_column():
    labels = {"label": ["a", "b"], "predicted_label": ["a", "a"]}
    # a partly empty 'text' with labels: still a transcript table, the blank row is left out
    frame = pd.DataFrame({**labels, "text": ["hello", ""]})
    kept, problems, _ = check_transcripts(frame, ref_col="text")
    assert kept.index.tolist() == [0] and [p["line"] for p in problems] == [1]
    # 'text' all empty: a classification table, whole, whatever 'reference' holds
    frame = pd.DataFrame({**labels, "text": ["", ""], "reference": ["x", "y"]})
    kept, problems, _ = check_transcripts(frame, ref_col="text")
    assert len(kept) == 2 and problems == []


def test_classification_only_defaults_and_needs_both_label_columns():
    labels = {"label": ["a"], "predicted_label": ["a"]}
    assert not classification_only(pd.DataFrame({**labels, "reference": ["words"]}))
    assert classification_only(pd.DataFrame({**labels, "reference": [" "]}))
    assert classification_only(pd.DataFrame(labels))
    assert not classification_only(pd.DataFrame({"label": ["a"]}))
    assert not classification_only(pd.DataFrame({"predicted_label": ["a"]}))


# ---------------------------------------------------------------- registry


def test_ratio_metric_with_fractional_sums():
    wer = METRICS["wer"]
    sums = np.zeros(len(wer.stats))
    sums[list(wer.stats).index("n_words")] = 0.5
    sums[list(wer.stats).index("n_sub")] = 0.25
    assert wer.compute(sums) == pytest.approx(0.5)
    sums[list(wer.stats).index("n_words")] = 0.0
    assert np.isnan(wer.compute(sums))


def test_metric_specs_from_exactly_the_needed_columns():
    ids = [s.id for s in metric_specs(list(METRICS["wer"].stats))]
    assert ids[0] == "wer"


def test_metric_specs_skips_an_empty_denominator_and_goes_on():
    frame = pd.DataFrame(
        {
            "reference": ["a b", "c"],
            "hypothesis": ["a", "c"],
            "label": ["x", "y"],
            "predicted_label": ["x", "x"],
        }
    )
    s = compute_item_stats(frame)
    ids = [m.id for m in metric_specs(s)]
    assert "der" not in ids  # no diacritic in the references: skipped
    assert "wer" in ids and "accuracy" in ids and "balanced_accuracy" in ids


def test_class_labels_each_once_when_one_label_prefixes_another():
    cols = ["cls_a_n", "cls_a_correct", "cls_a_corre_n", "cls_a_corre_correct", "n_items"]
    assert class_labels(cols) == ["a", "a_corre"]


# ---------------------------------------------------------------- loops


def test_find_loop_keeps_looking_after_a_skipped_run():
    # a run too short, then a long one
    got = find_loop("x x y y y y y".split(), [])
    assert (got["ngram"], got["repeats"], got["start_word"]) == ("y", 5, 2)
    # "y y" is the 1-gram "y" (skipped at n = 2); "a b" x 5 covers more words after it
    got = find_loop(("y " * 8 + "a b " * 5).split(), [])
    assert (got["ngram"], got["repeats"], got["words"]) == ("a b", 5, 10)
    # a run the reference also repeats is skipped, a later one is not
    got = find_loop("z z z z z q q q q q q".split(), "z z z z z".split())
    assert (got["ngram"], got["repeats"]) == ("q", 6)


def test_find_loop_longest_ngram_is_four_by_default():
    five = "a b c d e".split() * 4
    assert find_loop(five, []) is None
    assert find_loop(five, [], max_n=5)["ngram"] == "a b c d e"


def test_compute_reads_sums_of_any_integer_dtype_as_numbers():
    net_loss = METRICS["diacritic_net_loss"]  # (E - P) / E, negative when P > E
    assert net_loss.stats == ("dia_expected", "dia_produced")
    for dtype in (np.int64, np.uint32, np.uint64):
        assert net_loss.compute(np.array([2, 3], dtype=dtype)) == pytest.approx(-0.5)
    assert net_loss.compute(np.array([True, False])) == pytest.approx(1.0)
