"""Issue 30 item 7: after Next the Record tab shows the new prompt's state (no take yet),
and a transcript corrected there is stored with the annotator's name."""

from __future__ import annotations

from PySide6.QtCore import Qt

from fairdesk.gui.annotate import GRAVE
from tests.gui.test_record_panel import make_panel, project, record_take  # noqa: F401


def _speaker(w):
    w.speaker_id.setText("spk01")
    w.meta["accent"].setText("owerri")
    w.prompts.setFocus()


def test_next_shows_the_new_prompts_state_not_the_previous_take(qtbot, project):  # noqa: F811
    w, sig = make_panel(qtbot, project)
    _speaker(w)
    w.go(0)
    record_take(qtbot, w, len(sig))
    qtbot.waitUntil(lambda: w.player.samples is not None, timeout=10000)
    assert w.player.duration > 0 and w.elapsed.text() != "0:00.0"
    assert "take 1 recorded" in w.message.text()
    w.next_btn.click()
    assert w.index == 1 and w.takes.count() == 0
    # the live strip, the time and the level are empty: no take of this prompt yet
    assert w._live_hi.yData is None or len(w._live_hi.yData) == 0
    assert w.elapsed.text() == "0:00.0" and w.meter.level.peak == 0
    assert w.player.samples is None and w.player.duration == 0
    assert w.player.time_label.text() == "0:00.00 / 0:00.00"
    assert w.player.info.text() == "no take of this prompt yet"
    assert "prompt 2: no take yet" in w.message.text() and "take 1" not in w.message.text()
    # back to the first prompt: its take is listed and loaded again
    qtbot.keyClick(w.prompts, Qt.Key_Left, Qt.AltModifier)
    assert w.index == 0 and w.takes.count() == 1
    assert "prompt 1: 1 take recorded" in w.message.text()
    qtbot.waitUntil(lambda: w.player.duration > 0, timeout=10000)
    w.shutdown()


def test_a_transcript_corrected_in_the_record_tab_names_its_annotator(qtbot, project):  # noqa: F811
    from fairdesk.gui.annotation_panel import AnnotationPanel

    names = AnnotationPanel(project)  # the Items view's field: one name for both tabs
    qtbot.addWidget(names)
    names.annotator.setText("  Ngozi  ")
    assert project.annotator == "Ngozi"
    w, sig = make_panel(qtbot, project)
    _speaker(w)
    w.go(3)
    record_take(qtbot, w, len(sig))
    with qtbot.waitSignal(w.take_accepted, timeout=10000) as acc:
        w.accept_btn.click()
    ed = w.transcript
    ed.edit.setFocus()
    ed.edit.end(False)
    with qtbot.waitSignal(w.transcript_saved, timeout=3000):
        ed.buttons[GRAVE].click()
    hist = project.project.transcript_history(acc.args[0])
    assert [h["annotator"] for h in hist[1:]] == ["Ngozi"]
    assert hist[-1]["text"] == "àkwà"
    w.shutdown()
