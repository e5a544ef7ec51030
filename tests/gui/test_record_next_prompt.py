"""Issue 30 item 7: after Next the Record tab shows the new prompt's state (no take yet),
and a transcript corrected there is stored with the annotator's name."""

from __future__ import annotations

from PySide6.QtCore import Qt

from fairdesk.gui.annotation.annotate import GRAVE
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
    from fairdesk.gui.annotation.annotation_panel import AnnotationPanel

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


def test_the_record_tabs_own_annotator_field_stores_each_annotators_version(qtbot, project):  # noqa: F811
    """Issue 47: the Record tab asks for the annotator's name (no login-name default), writes
    the take's annotation under that name, and a second annotator starts from the prompt's
    text with the first one's version hidden; the name is the Items view's too and is
    remembered."""
    from fairdesk.gui.annotation.annotation_panel import AnnotationPanel
    from fairdesk.gui.record.record_panel import RecordPanel

    w, sig = make_panel(qtbot, project)
    _speaker(w)
    w.go(3)
    record_take(qtbot, w, len(sig))
    with qtbot.waitSignal(w.take_accepted, timeout=10000) as acc:
        w.accept_btn.click()
    db = acc.args[0]
    ed = w.transcript
    assert w.annotator.text() == "" and not ed.isEnabled()
    assert "type your name in Annotator first" in ed.status.text()
    w.annotator.setFocus()
    w.annotator.setText(" Ada\u0301 ")  # an input method's decomposed á: trimmed and NFC
    assert project.annotator == "Adá" and ed.isEnabled() and ed.edit.text() == "àkwá"
    ed.edit.setFocus()
    ed.edit.end(False)
    with qtbot.waitSignal(w.transcript_saved, timeout=3000):
        ed.buttons[GRAVE].click()
    assert ed.edit.text() == "àkwà"

    # a second annotator, typed into the same field: the prompt's text, Adá's hidden
    w.annotator.selectAll()
    qtbot.keyClicks(w.annotator, "Obi")
    assert project.annotator == "Obi" and ed.edit.text() == "àkwá"
    assert "starts from the prompt's text" in ed.status.text()
    ed.edit.setFocus()
    ed.edit.end(False)
    qtbot.keyClicks(ed.edit, " ji")
    with qtbot.waitSignal(w.transcript_saved, timeout=3000):
        w.prompts.setFocus()  # leaving the field saves
    iv = project.project.transcript_versions([db])[db]
    assert {v.annotator: v.text for v in iv.versions} == {"Adá": "àkwà", "Obi": "àkwá ji"}
    hist = project.project.transcript_history(db)
    assert [h["annotator"] for h in hist[1:]] == ["Adá", "Obi"]

    # back to Adá: her own version again; the Items view's field shows the same name
    names = AnnotationPanel(project)
    qtbot.addWidget(names)
    assert names.annotator.text() == "Obi"
    names.annotator.setText("Adá")
    assert w.annotator.text() == "Adá" and ed.edit.text() == "àkwà"

    # remembered with the tab's state: a new window's Record tab is named at once
    state = w.save_state()
    assert state["annotator"] == "Adá"
    w.shutdown()
    from fairdesk.gui.context import Context

    other = Context(project.folder)
    try:
        w2 = RecordPanel(other, stream_factory=None)
        qtbot.addWidget(w2)
        w2.restore_state(state)
        assert w2.annotator.text() == "Adá" and other.annotator == "Adá"
        w2.shutdown()
    finally:
        other.close(10000)
