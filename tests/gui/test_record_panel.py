"""The Record tab offscreen, with a synthetic input stream (no audio device)."""

from __future__ import annotations

import threading
import time
import unicodedata

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import Qt

from fairdesk.gui.annotation.annotate import ACUTE, DOT_BELOW, GRAVE, MACRON, apply_mark
from fairdesk.recording import recorder as rec


@pytest.mark.parametrize(
    "text,pos,mark,want,want_pos",
    [
        ("akwa", 1, GRAVE, "àkwa", 1),
        ("àkwa", 1, ACUTE, "ákwa", 1),  # one tone per letter: acute replaces grave
        ("ákwa", 1, ACUTE, "akwa", 1),  # pressing it again takes it off
        ("oko", 1, DOT_BELOW, "ọko", 1),
        ("ọko", 1, GRAVE, "ọ̀ko", 2),  # dot below and a tone combine (NFC: ọ + U+0300)
        ("ọ̀ko", 2, ACUTE, "ọ́ko", 2),
        ("ọ̀ko", 2, DOT_BELOW, "òko", 1),
        ("ego", 3, MACRON, "egō", 3),
        ("a b", 2, GRAVE, None, None),  # no letter before the cursor
        ("", 0, ACUTE, None, None),
    ],
)
def test_apply_mark(text, pos, mark, want, want_pos):
    out = apply_mark(text, pos, mark)
    if want is None:
        assert out is None
        return
    assert out == (unicodedata.normalize("NFC", want), want_pos)
    assert unicodedata.is_normalized("NFC", out[0])


@pytest.fixture
def project(tmp_path):
    from fairdesk.gui.context import Context

    c = Context(tmp_path / "proj")
    yield c
    c.close(10000)


def make_panel(qtbot, ctx, seconds=1.2, **kw):
    from fairdesk.gui.record.record_panel import RecordPanel

    sig = rec.synthetic_speech(seconds)
    w = RecordPanel(ctx, stream_factory=rec.ArrayStream.factory(sig, realtime=True, speed=3), **kw)
    qtbot.addWidget(w)
    w.show()
    w.activateWindow()  # shortcuts (Space) fire in the active window
    qtbot.waitUntil(w.isActiveWindow, timeout=3000)
    return w, sig


def record_take(qtbot, w, n):
    qtbot.keyClick(w.prompts, Qt.Key_Space)  # Space starts (focus is not in a text field)
    assert w.recorder.recording
    peaks = []
    qtbot.waitUntil(
        lambda: peaks.append(w.meter.level.peak) or w.recorder.frames >= n, timeout=10000
    )
    qtbot.waitUntil(
        lambda: w._live_hi.yData is not None and len(w._live_hi.yData) > 0, timeout=5000
    )
    assert max(peaks) > 0.1 and float(np.max(w._live_hi.yData)) > 0.1  # meter and waveform
    with qtbot.waitSignal(w.take_recorded, timeout=5000):
        qtbot.keyClick(w.prompts, Qt.Key_Space)  # and stops
    assert not w.recorder.recording


def test_record_accept_and_annotate_with_the_palette(qtbot, project, caplog):
    w, sig = make_panel(qtbot, project)
    assert w.prompt_list.language == "ig" and w.language.text() == "ig"
    assert not w.record_btn.isEnabled()  # no speaker yet
    w.speaker_id.setText("spk01")
    w.meta["accent"].setText("owerri")
    w.meta["gender"].setCurrentText("female")
    w.meta["age"].setText("34")
    assert w.record_btn.isEnabled()
    w.go(3)
    assert w.prompt_label.text() == "àkwá" and "egg" in w.gloss.text()
    w.prompts.setFocus()

    record_take(qtbot, w, len(sig))
    assert w.takes.count() == 1 and "done" in w.takes.item(0).text()
    take = w.selected_take()
    data, _ = sf.read(str(take.path), dtype="int16")
    np.testing.assert_array_equal(data, sig)  # exactly what the input delivered
    with qtbot.waitSignal(w.take_accepted, timeout=10000) as acc:
        w.accept_btn.click()
    db_id = acc.args[0]
    p = project.project
    items = p.items(p.dataset("field"))
    assert items.iloc[0]["text"] == "àkwá" and items.iloc[0]["accent"] == "owerri"
    assert items.iloc[0]["age"] == 34 and items.iloc[0]["speaker_id"] == "spk01"
    assert w.prompts.item(3).text().startswith("✓")

    # The speaker said àkwà ('bed'): the linguist names themself, then marks a low tone on
    # the last vowel.
    ed = w.transcript
    assert not ed.isEnabled() and ed.edit.text() == "àkwá"  # no login-name default
    qtbot.keyClicks(w.annotator, "Ngozi")
    assert ed.isEnabled() and ed.edit.text() == "àkwá"
    ed.edit.setFocus()
    ed.edit.end(False)
    with qtbot.waitSignal(w.transcript_saved, timeout=3000):
        ed.buttons[GRAVE].click()  # debounced save, within 0.5 s
    assert ed.edit.text() == "àkwà"
    assert p.items(p.dataset("field")).iloc[0]["text"] == "àkwà"
    ann = p.annotations(db_id)
    assert [(a["kind"], a["value"]["text"], a["value"]["previous"]) for a in ann] == [
        ("transcript", "àkwà", "àkwá")
    ]

    # typing, then leaving the field, saves too (focus-out), in NFC
    ed.edit.setFocus()
    ed.edit.end(False)
    qtbot.keyClicks(ed.edit, " o")
    ed.edit.insert(unicodedata.normalize("NFD", "\u0323\u0300"))  # an input method's marks
    with qtbot.waitSignal(w.transcript_saved, timeout=3000):
        w.prompts.setFocus()
    assert p.items(p.dataset("field")).iloc[0]["text"] == "àkwà ọ̀"
    assert ed.edit.text() == "àkwà ọ̀" and unicodedata.is_normalized("NFC", ed.edit.text())

    # re-record: a second file; the first stays
    w.prompts.setFocus()
    record_take(qtbot, w, len(sig))
    assert w.takes.count() == 2 and take.path.exists() and w.selected_take().number == 2
    assert w.accept_btn.isEnabled()
    w.shutdown()
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    # the recorder's writer and the synthetic stream are joined, not left running
    assert not [t.name for t in threading.enumerate() if t.name.startswith("fairdesk-")]


def test_without_an_input_device_the_panel_still_annotates(qtbot, project, monkeypatch):
    from fairdesk.gui.record.record_panel import RecordPanel
    from fairdesk.recording.prompts import load_builtin
    from fairdesk.recording.session import RecordingSession, Speaker

    # a take recorded earlier (synthetic), accepted
    pr = load_builtin("igbo_tonal_minimal_pairs")[0]
    s = RecordingSession(project.project, "field", Speaker("spk9"), language="ig")
    r = rec.Recorder(rec.ArrayStream.factory(rec.synthetic_speech(0.3)))
    t = s.start_take(pr, r)
    deadline = time.monotonic() + 10
    while r.frames < 4800 and time.monotonic() < deadline:
        time.sleep(0.005)
    s.accept(pr, s.stop_take(t, r))

    monkeypatch.setattr(
        rec,
        "input_status",
        lambda device=None: (
            False,
            "Recording unavailable: no audio input device found (test). Connect a microphone",
        ),
    )
    w = RecordPanel(project)
    qtbot.addWidget(w)
    w.show()
    w.speaker_id.setText("spk9")
    w.go(0)
    assert not w.record_btn.isEnabled()
    assert "Connect a microphone" in w.record_btn.toolTip()
    assert w.no_input.isVisible()
    w.start_recording()  # refused quietly, nothing created
    assert not w.recorder.recording
    assert w.takes.count() == 1 and not w.transcript.isEnabled()
    qtbot.keyClicks(w.annotator, "Ngozi")
    assert w.transcript.isEnabled()
    w.transcript.edit.setFocus()
    w.transcript.edit.setCursorPosition(1)
    with qtbot.waitSignal(w.transcript_saved, timeout=3000):
        w.transcript.buttons[GRAVE].click()
    assert s.item(pr)["text"] == "àkwá"
    w.shutdown()


def test_a_failing_device_disables_recording_with_the_reason(qtbot, project):
    from fairdesk.gui.record.record_panel import RecordPanel

    def factory(*a, **k):
        raise rec.RecorderUnavailable("no audio input device found; connect a microphone")

    w = RecordPanel(project, stream_factory=factory)
    qtbot.addWidget(w)
    w.speaker_id.setText("spk1")
    w.start_recording()
    assert not w.recorder.recording and not w.record_btn.isEnabled()
    assert "connect a microphone" in w.record_btn.toolTip()
    # the failed attempt leaves no take, file or row behind
    assert project.project.conn.execute("SELECT COUNT(*) FROM recordings").fetchone()[0] == 0
    assert w.takes.count() == 0
    assert "Recording unavailable: no audio input" in w.record_btn.toolTip()
    w.shutdown()


def test_open_a_prompt_list_file_and_see_its_problems(qtbot, project, tmp_path):
    f = tmp_path / "mine.txt"
    f.write_text("# language: yo\nọkọ\n\nọkọ\nìgbà\n", encoding="utf-8")
    w, _ = make_panel(qtbot, project)
    w.open_list(str(f))
    assert [p.text for p in w.prompt_list.prompts] == ["ọkọ", "ìgbà"]
    assert w.language.text() == "yo"
    assert "line 4" in w.list_note.text()
    w.shutdown()


def test_main_window_has_the_record_tab(qtbot, project):
    from fairdesk.gui.main_window import TABS, MainWindow

    win = MainWindow(project.project.folder)
    qtbot.addWidget(win)
    win.show_tab("record")
    assert "record" in TABS and win.current_panel() is win.record
    win.close()


def test_a_saved_tab_naming_an_old_list_name_opens_the_list(qtbot, project):
    """A Record tab saved when the Igbo tone-mark lists were named ``seed003_*`` reopens on the
    same list under its new name, and the combo shows the list's title, not the old name."""
    w, _ = make_panel(qtbot, project)
    w.restore_state({"prompt_list": "seed003_2_tone_sensitivity"})
    assert w.list_combo.currentData() == "igbo_tone_marks_2_tone_sensitivity"
    assert w.prompt_list.name.startswith("Igbo tone-mark study, category 2")
    assert w.save_state()["prompt_list"] == "igbo_tone_marks_2_tone_sensitivity"
