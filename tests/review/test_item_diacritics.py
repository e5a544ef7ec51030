"""Per-item diacritic detail of the item report and ``fairdesk show`` (seed 003)."""

from __future__ import annotations

import io
import json

from fairdesk.cli.show import print_diacritics
from fairdesk.review import item_report
from fairdesk.review.diacritics import diacritic_detail


def _kinds(d):
    return sorted(
        (e["kind"], e["ref_word"], e["hyp_word"], e["mark_name"], e["new_mark_name"])
        for e in d["edits"]
    )


def test_dropped_added_changed_marks_by_hand():
    # the seed's akwa / oke sets: àkwà loses both graves, ákwá -> ákwà changes the last
    # tone, the bare "oke" is left out (no marks to lose), òkè and ọkè are kept
    d = diacritic_detail("àkwà ákwá oke òkè ọkè", "akwa ákwà òkè ọkè")
    assert (d["expected"], d["produced"]) == (2 + 2 + 0 + 2 + 2, 0 + 2 + 2 + 2)
    assert (d["dropped"], d["added"]) == (2, 0)
    assert d["der"] == 2 / 8
    assert _kinds(d) == sorted(
        [
            ("dropped", "àkwà", "akwa", "grave", ""),
            ("dropped", "àkwà", "akwa", "grave", ""),
            ("changed", "ákwá", "ákwà", "acute", "grave"),
        ]
    )
    assert d["marks"] == {"dropped": 2, "added": 0, "changed": 1}


def test_deleted_and_inserted_words_carry_their_marks():
    d = diacritic_detail("ọkè akwa", "akwa")
    assert _kinds(d) == [
        ("dropped", "ọkè", "", "dot below", ""),
        ("dropped", "ọkè", "", "grave", ""),
    ]
    d = diacritic_detail("akwa", "akwa ákwá")
    assert _kinds(d) == [("added", "", "ákwá", "acute", "")] * 2
    assert d["edits"][0]["text"] == "added acute on á"


def test_no_diacritic_reference_reports_added_per_100_letters():
    d = diacritic_detail("O na-eri oji n'ututu", "Ọ na-eri ọjị n'ututu")
    assert d["expected"] == 0 and d["der"] is None
    assert d["produced"] == 3 and d["added"] == 3
    assert d["ref_letters"] == 15
    assert d["added_per_100_letters"] == 100 * 3 / 15
    assert [e["kind"] for e in d["edits"]] == ["added"] * 3
    assert {e["mark_name"] for e in d["edits"]} == {"dot below"}


def test_item_report_carries_it_and_show_prints_it():
    rep = item_report(
        {"id": "x", "reference": "àkwà", "hypothesis": "akwa", "n_words": 1, "n_sub": 0}, "und"
    )
    json.dumps(rep, ensure_ascii=False)
    d = rep["diacritics"]
    assert d["dropped"] == 2 and d["marks"]["dropped"] == 2
    buf = io.StringIO()
    print_diacritics(d, buf)
    text = buf.getvalue()
    assert "expected 2, produced 0, dropped 2" in text
    assert text.count("dropped grave on à") == 2
    assert (
        item_report({"reference": "play music", "hypothesis": "play music"})["diacritics"] is None
    )
