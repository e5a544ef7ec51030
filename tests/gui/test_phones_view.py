"""The word-position / phone-confusion view renders a run's blocks (offscreen)."""

import pytest

from fairdesk.jobs.result import AuditRun

pytest.importorskip("PySide6")


def test_phones_view_shows_heatmap_and_confusions():
    from PySide6.QtWidgets import QApplication

    from fairdesk.gui.results.phones_view import PhonesView, heat_color

    QApplication.instance() or QApplication([])
    payload = {
        "word_positions": {
            "p1": {
                "reference": "please call stella",
                "n_items": 4,
                "words": ["please", "call", "stella"],
                "n": {"a": 2, "b": 2},
                "errors": {"a": [0, 0, 0], "b": [0, 0, 2]},
                "groups": {"a": [0.0, 0.0, 0.0], "b": [0.0, 0.0, 1.0]},
            }
        },
        "phone_confusion": {
            "groups": {
                "b": {
                    "n_ref_phones": 20,
                    "phone_error_rate": 0.1,
                    "top": [{"ref": "L", "hyp": "-", "count": 2, "rate": 0.5}],
                }
            }
        },
    }
    v = PhonesView()
    v.set_result(AuditRun.from_json(payload))
    assert v.heatmap.rowCount() == 2 and v.heatmap.columnCount() == 3
    assert v.heatmap.item(1, 2).text() == "100%"
    assert v.heatmap.item(1, 2).background().color() == heat_color(1.0)
    assert "lost in 2 of 2" in v.heatmap.item(1, 2).toolTip()
    assert v.model.item(0, 3).text() == "L→- ×2 (50%)"
    assert v.annotated.isHidden()
    v.set_result(AuditRun.from_json({}))
    assert v.heatmap.rowCount() == 0 and "matched design" in v.note.text()
