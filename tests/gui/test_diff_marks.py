"""The difference view shows errors inside words: the dropped, added or changed mark."""

from __future__ import annotations


def test_a_tone_only_error_is_named_and_its_letter_underlined(qtbot):
    from fairdesk.gui.items.diff_view import OPS, DiffView, alignment_html

    rep = {
        "reference": "àkwà ọ́ dị mma",
        "hypothesis": "akwà ó dị mma",
        "errors": 2,
        "n_words": 4,
        "substitutions": 2,
        "deletions": 0,
        "insertions": 0,
        "alignment": "REF: àkwà ọ́ dị mma\nHYP: akwà  ó dị mma\n        S    S",
    }
    html = alignment_html(rep)
    assert "dropped grave on à" in html and "dropped dot below on ọ́" in html
    assert "<u style='color:#c62828;'>à</u>kwà" in html  # the letter that lost its mark
    assert OPS["I"][0] != "#c8e6c9"  # insertions are not green ("correct")
    w = DiffView()
    qtbot.addWidget(w)
    w.set_report(rep)
    assert "Inside words" in w.text.toPlainText()


def test_user_text_is_escaped(qtbot):
    from fairdesk.gui.items.diff_view import alignment_html

    rep = {"reference": "<b>x</b> y", "hypothesis": "<i>x</i> y", "alignment": ""}
    html = alignment_html(rep)
    assert "<b>x</b>" not in html and "&lt;b&gt;" in html


def test_one_error_and_one_word_are_singular_and_insertions_are_not_violet():
    from fairdesk.gui.items.diff_view import OPS, alignment_html
    from fairdesk.reports.palette import OPS as REPORT_OPS

    rep = {"reference": "play", "hypothesis": "pay", "errors": 1, "n_words": 1}
    rep |= {"substitutions": 1, "deletions": 0, "insertions": 0}
    rep["alignment"] = "REF: play\nHYP:  pay\n        S"
    text = alignment_html(rep)
    assert "1 word error / 1 reference word " in text.replace("&nbsp;", " ")
    assert "1 word errors" not in text and "1 reference words" not in text
    assert OPS["I"] == REPORT_OPS["I"] and OPS["I"][0] != REPORT_OPS["T"][0]
