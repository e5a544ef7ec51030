"""Errors inside words (letters and combining marks), and the item report of a correct item."""

from __future__ import annotations

import unicodedata

import pytest

from fairdesk.review.marks import describe, letters, mark_name, word_edits, word_pairs

GRAVE, ACUTE, DOT = "\u0300", "\u0301", "\u0323"


def _kinds(ref, hyp):
    return [(e.kind, e.index, e.mark, e.new_mark) for e in word_edits(ref, hyp)]


def test_dropped_grave_on_the_first_a():
    assert _kinds("àkwà", "akwà") == [("dropped", 0, GRAVE, "")]
    (e,) = word_edits("àkwà", "akwà")
    assert e.letter == "à" and e.hyp_letter == "a" and describe(e) == "dropped grave on à"


def test_dropped_dot_below_under_an_acute():
    assert _kinds("ọ́", "ó") == [("dropped", 0, DOT, "")]
    assert mark_name(DOT) == "dot below"


@pytest.mark.parametrize(
    ("ref", "hyp", "want"),
    [
        ("akwa", "àkwa", [("added", 0, GRAVE, "")]),
        ("ákwà", "àkwà", [("changed", 0, ACUTE, GRAVE)]),
        ("ṣé", "se", [("dropped", 0, DOT, ""), ("dropped", 1, ACUTE, "")]),
        ("akwa", "okwa", [("substituted", 0, "", "")]),
        ("akwa", "akw", [("deleted", 3, "", "")]),
        ("akwa", "akwaa", [("inserted", 4, "", "")]),
        ("Àkwà", "àkwà", []),  # case is not an error inside the word
        ("a\u0300kwa\u0300", "àkwà", []),  # NFD and NFC are the same word
    ],
)
def test_edits_by_hand(ref, hyp, want):
    assert _kinds(ref, hyp) == want


def test_letters_split_base_and_marks_in_canonical_order():
    assert letters("ọ́k") == [("o", (DOT, ACUTE)), ("k", ())]
    assert unicodedata.normalize(
        "NFC", "".join(b + "".join(m) for b, m in letters("ọ́k"))
    ) == unicodedata.normalize("NFC", "ọ́k")


def test_word_pairs_align_raw_transcripts_with_marks_kept():
    pairs = word_pairs("Àkwà ọ́ dị mma.", "akwà ó dị mma")
    assert [(r, h, [describe(e) for e in es]) for r, h, es in pairs] == [
        ("àkwà", "akwà", ["dropped grave on à"]),
        ("ọ́", "ó", ["dropped dot below on ọ́"]),
    ]
    assert word_pairs("", "x") == [] and word_pairs("same", "same") == []


def test_item_report_of_a_correct_item_has_its_alignment():
    """The root of the Items view's IndexError: jiwer prints nothing for a correct sentence."""
    pytest.importorskip("PySide6")
    from fairdesk.gui.items.diff_view import parse_alignment
    from fairdesk.review import item_report

    rep = item_report(
        {
            "id": "x",
            "reference": "play hotel california",
            "hypothesis": "play hotel california",
            "n_words": 3,
        }
    )
    assert rep["errors"] == 0
    assert rep["alignment"].splitlines()[:2] == [
        "REF: play hotel california",
        "HYP: play hotel california",
    ]
    assert [op for _, _, op in parse_alignment(rep["alignment"])] == ["", "", ""]
    empty = item_report({"id": "y", "reference": "", "hypothesis": ""})
    assert empty["alignment"] == ""
