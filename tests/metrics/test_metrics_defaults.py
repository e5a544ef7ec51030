"""Defaults, edge branches and messages of the per-item functions (found unchecked by the
mutation run of bench/mutation.py)."""

import numpy as np
import pytest

from fairdesk.metrics import registry, text
from fairdesk.metrics.slots import exact_match, slot_diff
from fairdesk.metrics.text import ToneCounts, char_counts, tone_counts, word_counts


def test_english_is_the_default_language():
    # Whisper's English normaliser maps British spellings ("colour" -> "color"); the basic
    # one (any other language) does not
    assert word_counts("colour", "color", language="xx").n_sub == 1
    w = word_counts("colour", "color")
    assert (w.n_words, w.n_sub, w.n_del, w.n_ins) == (1, 0, 0, 0)
    c = char_counts("colour", "color")
    assert c == char_counts("colour", "color", language="en")
    assert c != char_counts("colour", "color", language="xx")
    # slot values: "seven" == "7" only for English
    assert exact_match("SetVolume", "SetVolume", {"volume": "seven"}, {"volume": "7"}) == 1
    assert [d.status for d in slot_diff({"volume": "seven"}, {"volume": "7"})] == ["ok"]


def test_tone_counts_accumulate_over_deleted_and_inserted_letters():
    # a dropped tone on an aligned letter, then a deleted marked letter: both count
    assert tone_counts("àkwà", "akw") == ToneCounts(2, 2, 0, 0)
    # a hallucinated tone on an aligned letter, then an inserted marked letter
    assert tone_counts("akw", "ákwá") == ToneCounts(0, 0, 2, 0)
    # a substituted base letter keeps the comparison of mark sets (a replace block)
    assert tone_counts("àkwà", "ékwà") == ToneCounts(2, 0, 0, 1)
    assert tone_counts("àkwà", "ekwà") == ToneCounts(2, 1, 0, 0)


def test_marks_mode_counts_every_mark_on_both_sides():
    assert text.count_marked(text._units("ọ́")) == 1  # letters by default
    assert text.count_marked(text._units("ọ́"), "marks") == 2
    d = text.diacritic_counts("ọ́", "ọ́", count="marks")
    assert (d.dia_expected, d.dia_produced, d.dia_dropped, d.dia_added) == (2, 2, 0, 0)


def test_many_pairs_length_mismatch_names_the_function():
    with pytest.raises(ValueError) as e:
        text.char_counts_many(["a", "b"], ["a"])
    assert str(e.value) == (
        "char_counts_many: 2 references but 1 hypotheses; pass one hypothesis per reference."
    )
    with pytest.raises(ValueError) as e:
        text.word_counts_many(["a"], [])
    assert str(e.value).startswith("word_counts_many: 1 references but 0 hypotheses")


def test_slot_values_are_shown_joined():
    (d,) = slot_diff({"artist": ["adele", "abba"]}, {})
    assert (d.status, d.reference, d.hypothesis) == ("missed", "adele | abba", None)
    (d,) = slot_diff({}, {"song": 7.0})
    assert (d.status, d.reference, d.hypothesis) == ("extra", None, "7")
    assert exact_match("Play", "Play", float("nan"), None) == 1  # a NaN cell: no slots


def test_ratio_is_nan_only_where_the_denominator_is_zero():
    out = registry._ratio(np.array([1, 2, 3]), np.array([2, 0, 3]))
    assert out[0] == 0.5 and np.isnan(out[1]) and out[2] == 1.0
    assert registry._ratio(3, 4) == 0.75  # plain numbers too
    with pytest.raises(ValueError) as e:
        registry.class_metric("f1", ["a"])
    assert str(e.value) == (
        f"class_metric id must be one of {registry.CLASS_METRIC_IDS}, got 'f1'."
    )
    spec = registry.class_metric("macro_recall", ["a", "b"])
    sums = np.array([[2, 1, 4, 4], [2, 2, 0, 0]], dtype=float)  # per row: a_n a_c b_n b_c
    cols = {c: i for i, c in enumerate(["cls_a_n", "cls_a_correct", "cls_b_n", "cls_b_correct"])}
    ordered = sums[:, [cols[c] for c in spec.stats]]
    np.testing.assert_allclose(spec.compute(ordered), [(0.5 + 1.0) / 2, 1.0])
