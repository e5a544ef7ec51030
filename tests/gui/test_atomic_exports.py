"""GUI exports are complete or not there (issue 29): a screenshot, a chart and the tables
written through the atomic writer; a path that cannot be written, or a full disk, is said in
the window (status bar, the exporter's ``failed``) and leaves the earlier file unchanged."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QSettings

from fairdesk.core import atomic

from ..hostile.faults import disk_full


@pytest.fixture
def win(qtbot, mini, tmp_path):
    from fairdesk.gui.main_window import MainWindow

    w = MainWindow(mini.folder, settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.results.loaded, timeout=10000, raising=False):
        w.ctx.select_run(mini.run_id)
    yield w
    w.close()


def _temps(folder):
    return [n for n in os.listdir(folder) if atomic.TEMP_MARK in n]


def test_screenshot_is_written_whole_or_the_reason_is_shown(win, tmp_path, monkeypatch):
    shot = tmp_path / "win.png"
    assert win.export_screenshot(shot) == shot
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert win.statusBar().currentMessage() == f"screenshot saved to {shot}"
    # a folder as the file
    assert win.export_screenshot(tmp_path) is None
    msg = win.statusBar().currentMessage()
    assert msg.startswith(f"could not write the screenshot: {tmp_path}: this is a folder")
    # a full disk: the earlier screenshot is kept
    disk_full(monkeypatch)
    assert win.export_screenshot(shot) is None
    assert "the disk is full" in win.statusBar().currentMessage()
    assert "the earlier file is unchanged" in win.statusBar().currentMessage()
    assert shot.read_bytes() == png and _temps(tmp_path) == []


def test_chart_export_on_a_full_disk_keeps_the_old_chart(win, tmp_path, monkeypatch, qtbot):
    from fairdesk.gui.exports import run_charts

    button = win.results.chart_export
    name = run_charts(win.results.result)[0].name
    path = tmp_path / f"{name}.svg"
    path.write_text("<svg>old</svg>")
    disk_full(monkeypatch)
    with qtbot.waitSignal(button.failed, timeout=5000) as blocker:
        assert button.export(name, "svg", path) is None
    assert "the disk is full" in blocker.args[0] and str(path) in blocker.args[0]
    assert win.statusBar().currentMessage().startswith("Export failed: ")
    assert path.read_text() == "<svg>old</svg>" and _temps(tmp_path) == []
    monkeypatch.undo()
    folder_is_file = tmp_path / "every"
    folder_is_file.write_text("x")
    with qtbot.waitSignal(button.failed, timeout=5000) as blocker:
        assert button.export_all(folder_is_file) == []
    assert "this is a file, not a folder" in blocker.args[0]


def test_tables_into_a_file_fail_with_the_reason(win, tmp_path, qtbot):
    f = tmp_path / "tables"
    f.write_text("mine")
    with qtbot.waitSignal(win.exporter.failed, timeout=60000) as blocker:
        win.export_tables(f, "csv")
    kind, message = blocker.args
    assert kind == "tables" and str(f) in message and "is a file, not a folder" in message
    assert "Traceback" not in message
    assert f.read_text() == "mine"
