"""The import dialog offers every format of ``fairdesk import`` with that format's options,
detects a layout in a job, and imports an ELAN session with its tier options."""

from __future__ import annotations

from tests.core.test_importers_sessions import elan_session


def _visible(dlg, widget) -> bool:
    return dlg.form.isRowVisible(widget)


def test_every_format_is_offered_with_only_its_options(qtbot, tmp_path):
    from fairdesk.core.importers import FORMATS
    from fairdesk.gui.context import Context
    from fairdesk.gui.data.import_dialog import FORMAT_LABELS, ImportDialog

    c = Context(tmp_path / "proj")
    try:
        dlg = ImportDialog(c)
        qtbot.addWidget(dlg)
        offered = [dlg.format.itemData(i) for i in range(dlg.format.count())]
        assert offered == list(FORMATS) and set(FORMAT_LABELS) == set(FORMATS)
        dlg.set_format("eaf")
        assert _visible(dlg, dlg.fields["tiers"]) and _visible(dlg, dlg.speaker_by)
        assert not _visible(dlg, dlg._col_row) and not _visible(dlg, dlg.fields["kaldi_meta"])
        dlg.set_format("textgrid")
        assert _visible(dlg, dlg.fields["speaker_tier"]) and not _visible(dlg, dlg.speaker_by)
        dlg.set_format("kaldi")
        assert _visible(dlg, dlg.fields["kaldi_meta"]) and _visible(dlg, dlg.fields["audio_root"])
        assert not _visible(dlg, dlg.fields["tiers"])
        dlg.set_format("hf")
        assert _visible(dlg, dlg._col_row)
        dlg.set_format("commonvoice")
        assert _visible(dlg, dlg.split) and not _visible(dlg, dlg._col_row)
        dlg.fields["kaldi_meta"].setText("spk2gender")  # typed, but not Common Voice's
        dlg.split.setText("test")
        assert dlg.options() == {"split": "test"}
    finally:
        c.close(10000)


def test_an_elan_session_is_detected_and_imported_with_its_tiers(qtbot, tmp_path):
    from fairdesk.gui.context import Context
    from fairdesk.gui.data.import_dialog import ImportDialog

    elan_session(tmp_path / "corpus")
    c = Context(tmp_path / "proj")
    try:
        dlg = ImportDialog(c)
        qtbot.addWidget(dlg)
        dlg.path.setText(str(tmp_path / "corpus"))
        with qtbot.waitSignal(dlg.detect().signals.finished, timeout=10000):
            pass
        qtbot.waitUntil(lambda: dlg.detected == "eaf", timeout=5000)
        assert "ELAN session" in dlg.detect_note.text()
        assert _visible(dlg, dlg.fields["tiers"])  # auto shows the detected format's options
        dlg.fields["tiers"].setText("Ana-tx")
        dlg.speaker_by.setCurrentIndex(1)  # the tier's name
        assert dlg.options() == {"tiers": "Ana-tx", "speaker_by": "tier"}
        dlg.name.setText("session")
        with qtbot.waitSignal(dlg.imported, timeout=20000) as blocker:
            dlg.start()
        rep = blocker.args[0]
        assert rep["format"] == "eaf" and rep["imported"] == 20
        items = c.project.items(c.project.dataset("session"))
        assert set(items["speaker_id"]) == {"Ana-tx"} and items["start_s"].notna().all()
    finally:
        c.close(10000)


def test_an_elan_session_imported_with_a_speaker_sheet_through_the_window(qtbot, tmp_path):
    """Clicked as a fieldworker would: File ▸ Import dataset…, the session folder, the
    speaker sheet, Import; the dialog says what the sheet joined and the items have gender."""
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtWidgets import QApplication

    from fairdesk.gui.data.import_dialog import ImportDialog
    from fairdesk.gui.main_window import MainWindow

    elan_session(tmp_path / "corpus")
    sheet = tmp_path / "speakers.csv"
    sheet.write_text("participant,gender\nAna,female\nBen,male\nZoe,female\n")
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)
    win = MainWindow(tmp_path / "proj", settings=settings)
    qtbot.addWidget(win)
    win.show()
    win.import_action.trigger()
    dlg = next(  # this window's dialog (an earlier test's may not be deleted yet)
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, ImportDialog) and w.isVisible() and w.ctx is win.ctx
    )
    dlg.path.clear()  # the dialog may offer the last source imported
    qtbot.keyClicks(dlg.path, str(tmp_path / "corpus"))
    qtbot.waitUntil(lambda: dlg.detected == "eaf", timeout=10000)
    qtbot.keyClicks(dlg.speakers, str(sheet))
    dlg.name.clear()
    qtbot.keyClicks(dlg.name, "field")
    with qtbot.waitSignal(dlg.imported, timeout=20000, raising=False) as blocker:
        qtbot.mouseClick(dlg.import_btn, Qt.LeftButton)
    assert blocker.signal_triggered, dlg.message.text()
    rep = blocker.args[0]
    assert rep["imported"] == 40 and rep["speakers"]["joined_speakers"] == 2
    assert "1 row of the sheet that no item uses: Zoe" in dlg.message.text()
    items = win.ctx.project.items(win.ctx.project.dataset("field"))
    assert items.groupby("speaker_id")["gender"].first().to_dict() == {
        "Ana": "female",
        "Ben": "male",
    }
    dlg.close()
