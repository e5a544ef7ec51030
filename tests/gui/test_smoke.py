"""Smoke test: the main window on a demo-like project, every panel opened, no traceback;
and the screenshot mode of ``fairdesk gui``."""

from __future__ import annotations

import logging

from fairdesk.gui.main_window import TABS


def test_main_window_opens_every_panel_without_a_traceback(qtbot, mini, caplog, capfd):
    from fairdesk.gui.app import settle
    from fairdesk.gui.main_window import MainWindow

    caplog.set_level(logging.INFO)
    win = MainWindow(mini.folder)
    qtbot.addWidget(win)
    win.show()
    settle(win)
    assert win.results.run_id is not None  # the newest run is shown at start
    win.ctx.select_run(mini.run_id)
    for name in TABS:
        win.show_tab(name)
        settle(win)
        win.repaint()
    for i in range(win.results.tabs.count()):
        win.results.tabs.setCurrentIndex(i)
        win.repaint()
    assert win.items.report is not None
    win.close()
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [r.getMessage() for r in bad]
    err = capfd.readouterr().err
    assert "Traceback" not in err


def test_screenshot_mode_writes_one_png_per_panel(qtbot, mini, tmp_path, caplog):
    from fairdesk.cli import build_parser

    caplog.set_level(logging.WARNING)
    out = tmp_path / "shots"
    a = build_parser().parse_args(
        ["gui", "--screenshot", str(out), "--project", str(mini.folder), "--run", str(mini.run_id)]
    )
    assert a.func(a) == 0
    files = sorted(p.name for p in out.glob("*.png"))
    assert {
        "01_datasets.png",
        "02_audit.png",
        "03_results_groups.png",
        "03_results_values.png",
        "03_results_radar.png",
        "03_results_confusion.png",
        "03_results_regression.png",
        "00_first_run.png",
        "04_items.png",
    } <= set(files)
    assert all((out / f).stat().st_size > 5000 for f in files)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
