"""Journeys that end in files, clicked on the real main window: File ▸ Export report…
(the dialog's Export button), File ▸ Export tables… (the folder, then the format dialog's OK)
and File ▸ Export Praat TextGrids… / ELAN files… (the folder); and one slow journey with a
real recogniser: File ▸ Open the demo project, the Audit tab with pocketsphinx-en-us on the
real read speech of the demo, Run audit, the Results tab.

Every journey fails on an exception reaching the event loop (pytest-qt), on a job's error
signal and on a status-bar message saying something "failed" (``Watch``)."""

# ruff: noqa: F811 (the journeys' `watch` fixture, imported, is a test argument here)
from __future__ import annotations

import csv

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QMessageBox,
)

from tests.gui.conftest import ACCENTS
from tests.gui.test_journeys import _menu_action, _open, _settings, _tab, watch  # noqa: F401

SIZE = (1366, 768)


def _shown_run(qtbot, win, run_id):
    """The Results tab with ``run_id`` shown, as the window opens it on the last run."""
    _tab(qtbot, win, 3, "results")
    qtbot.waitUntil(lambda: win.shown_run() == run_id, timeout=10000)


def _click_ok_of_the_next_dialog(qtbot) -> list:
    """Click OK of the next modal dialog as soon as it shows (QDialog.exec blocks the test);
    returns a list that holds the dialog's title once clicked."""
    seen: list = []

    def click():
        dlg = QApplication.activeModalWidget()
        if not isinstance(dlg, QDialog):
            QTimer.singleShot(20, click)
            return
        seen.append(dlg.windowTitle())
        box = dlg.findChild(QDialogButtonBox)
        qtbot.mouseClick(box.button(QDialogButtonBox.Ok), Qt.LeftButton)

    QTimer.singleShot(0, click)
    return seen


def test_report_tables_and_tiers_from_the_file_menu(
    qtbot,
    mini,
    tmp_path,
    watch,
    monkeypatch,
):
    win = _open(qtbot, mini.folder, _settings(tmp_path), SIZE, watch)
    _shown_run(qtbot, win, mini.run_id)
    exporter = win.exporter

    # the report: File ▸ Export report…, the path typed, Export clicked
    _menu_action(win, "File", "Export report…").trigger()
    dlg = win.report_dialog
    assert dlg.isVisible()
    html = tmp_path / "out" / "report.html"
    html.parent.mkdir()
    dlg.path.clear()
    qtbot.keyClicks(dlg.path, str(html))
    box = dlg.findChild(QDialogButtonBox)
    with qtbot.waitSignal(exporter.done, timeout=120000) as got:
        qtbot.mouseClick(box.button(QDialogButtonBox.Ok), Qt.LeftButton)
    assert got.args[0] == "report" and html.is_file()
    text = html.read_text(encoding="utf-8")
    assert all(a in text for a in ACCENTS)
    assert f"written to {html}" in exporter.last_message

    # the tables: the folder chosen, then TSV in the format dialog, OK clicked
    tables = tmp_path / "tables"
    tables.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tables))
    seen = _click_ok_of_the_next_dialog(qtbot)
    with qtbot.waitSignal(exporter.done, timeout=60000) as got:
        _menu_action(win, "File", "Export tables…").trigger()
    assert seen == ["Table format"] and got.args[0] == "tables"
    written = {p.name for p in tables.iterdir()}
    assert {"items.csv", "groups.csv", "comparisons.csv"} <= written, written
    with (tables / "items.csv").open(encoding="utf-8") as f:
        assert sum(1 for _ in csv.DictReader(f)) == mini.n_items

    # the tiers: one TextGrid per item, then one EAF per item reusing the alignments
    for kind, menu, ext in (
        ("textgrid", "Export Praat TextGrids…", "*.TextGrid"),
        ("eaf", "Export ELAN files…", "*.eaf"),
    ):
        folder = tmp_path / kind
        folder.mkdir()
        monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, f=folder, **k: str(f))
        with qtbot.waitSignal(exporter.done, timeout=300000) as got:
            _menu_action(win, "File", menu).trigger()
        assert got.args[0] == kind and got.args[1]["n"] == mini.n_items
        assert len(list(folder.rglob(ext))) == mini.n_items
    assert got.args[1]["reused"] == mini.n_items  # the EAFs read the TextGrids' alignments
    win.close()
    watch.check()


def test_export_report_without_a_run_says_what_to_do(
    qtbot,
    tmp_path,
    watch,
    monkeypatch,
):
    """A project with no run: File ▸ Export report… opens no dialog and says why."""
    from fairdesk.core.store import Project

    Project(tmp_path / "empty").close()
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text, *a: said.append(text))
    win = _open(qtbot, tmp_path / "empty", _settings(tmp_path), SIZE, watch)
    _menu_action(win, "File", "Export report…").trigger()
    assert getattr(win, "report_dialog", None) is None
    assert said == ["Open a project and show a finished run in Results first."]
    win.close()
    watch.check()


@pytest.mark.slow
def test_open_the_demo_and_audit_it_with_pocketsphinx(
    qtbot,
    tmp_path,
    watch,
    monkeypatch,
):
    """The first journey a newcomer makes, with a real recogniser on real speech: no
    assertion on its accuracy, only that the run is made, stored and shown."""
    import fairdesk.gui.main_window as main_window

    demo = tmp_path / "demo-project"
    monkeypatch.setattr(main_window, "default_demo_folder", lambda: demo)
    win = _open(qtbot, None, _settings(tmp_path), SIZE, watch)
    _menu_action(win, "File", "Open the demo project").trigger()
    qtbot.waitUntil(
        lambda: (
            win.ctx.project is not None
            and {d.name for d in win.ctx.project.datasets()} >= {"demo", "l2-english"}
        ),
        timeout=600000,
    )
    audit = _tab(qtbot, win, 2, "audit")
    i = audit.dataset.findText("l2-english")
    assert i >= 0
    audit.dataset.setCurrentIndex(i)
    audit.dataset.activated.emit(i)
    j = audit.model.findData("pocketsphinx-en-us")
    assert j >= 0
    audit.model.setCurrentIndex(j)
    audit.model.activated.emit(j)
    audit.by1.setCurrentText("gender")
    audit.sample.setValue(4)  # 4 utterances per group, drawn
    audit.n_boot.setValue(200)
    audit.min_items.setValue(4)
    audit.min_speakers.setValue(2)
    with qtbot.waitSignal(audit.run_done, timeout=600000) as done:
        qtbot.mouseClick(audit.run_btn, Qt.LeftButton)
    rid = done.args[0]
    qtbot.waitUntil(lambda: win.results.run_id == rid, timeout=20000)
    run = win.results.result
    assert run is not None and {g.group for g in run.groups} == {"female", "male"}
    assert run.model == "pocketsphinx-en-us" and run.dataset == "l2-english"
    assert all(g.n_items == 4 for g in run.groups)
    win.close()
    watch.check()
