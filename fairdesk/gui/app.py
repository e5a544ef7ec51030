"""Starting the application, and the offscreen screenshot mode (one PNG per panel)."""

from __future__ import annotations

import logging
import sys
import time
import traceback
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from .theme import apply_style

log = logging.getLogger("fairdesk.gui")


def application(argv=None) -> QApplication:
    """The QApplication (created once), with fairdesk's font and style."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(list(argv or sys.argv[:1]))
        app.setApplicationName("fairdesk")
        app.setOrganizationName("fairdesk")
    apply_style(app)
    return app


def _excepthook(window):
    def hook(etype, value, tb):
        text = "".join(traceback.format_exception(etype, value, tb))
        log.error("unexpected error in the GUI:\n%s", text)
        if window is not None:
            QMessageBox.critical(window, "fairdesk: unexpected error",
                                 f"{etype.__name__}: {value}\n\nDetails are in the log.")
    return hook


def run(project=None) -> int:
    """Open the main window (on ``project`` when given) and run the event loop."""
    from .main_window import MainWindow

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s "
                        "%(message)s")
    app = application()
    win = MainWindow(project)
    sys.excepthook = _excepthook(win)
    win.show()
    return app.exec()


def settle(window, timeout: float = 60.0) -> None:
    """Process events until the window's background jobs are done and delivered."""
    app = QApplication.instance()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if not window.ctx.jobs.live():
            break
        window.ctx.jobs.wait(50)
    for _ in range(3):
        app.processEvents()


def screenshots(out_dir, project, run_id: int | None = None) -> list[Path]:
    """Open every panel of ``project`` with real data and save one PNG per panel.

    Parameters
    ----------
    out_dir : folder for the PNGs (created).
    project : project folder.
    run_id : the run to show (default: the newest finished run).

    Returns
    -------
    list of Path
        The files written.
    """
    from .main_window import MainWindow

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    app = application()
    win = MainWindow(project)
    win.resize(1440, 920)
    win.show()
    settle(win)
    runs = win.ctx.runs()
    if run_id is None and runs:
        run_id = runs[0].id
    if run_id is not None:
        win.ctx.run_id = None
        win.ctx.select_run(run_id)
        payload = win.results.result or {}
        if payload.get("model"):
            win.audit.set_model(payload["model"])
        by = payload.get("by") or []
        if by:
            win.audit.by1.setCurrentText(by[0])
            if len(by) > 1:
                win.audit.by2.setCurrentText(by[1])
    written: list[Path] = []

    def shot(name: str, widget=None) -> None:
        settle(win)
        app.processEvents()
        path = out / f"{name}.png"
        (widget or win).grab().save(str(path))
        written.append(path)

    win.show_tab("datasets")
    shot("01_datasets")
    win.show_tab("audit")
    shot("02_audit")
    win.show_tab("results")
    for i, name in enumerate(("groups", "comparisons", "gaps", "radar", "confusion")):
        win.results.tabs.setCurrentIndex(i)
        shot(f"03_results_{name}")
    win.show_tab("items")
    if win.items.model.rowCount():
        win.items.select(0)
    shot("04_items")
    _import_shot(win, out / "05_import_dialog.png", written)
    win.close()
    app.processEvents()
    import tempfile

    from .record_shot import screenshot as record_screenshot

    with tempfile.TemporaryDirectory() as tmp:  # a synthetic take, never in the user's project
        written.append(record_screenshot(out / "06_record.png", Path(tmp) / "field"))
    app.processEvents()
    return written


def _import_shot(win, path: Path, written: list[Path]) -> None:
    """The import dialog after a real import into a throwaway project: a manifest naming
    three of the project's files, one missing file and one row without a transcript."""
    import csv
    import tempfile

    from .context import Context
    from .import_dialog import ImportDialog

    p = win.ctx.project
    dss = p.datasets() if p is not None else []
    if not dss:
        return
    items = p.items(dss[0]).head(3)
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "data" / "manifest.csv"
        manifest.parent.mkdir()
        with manifest.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["path", "text", "speaker_id"])
            for r in items.itertuples():
                src = dss[0].root / r.path
                dst = manifest.parent / Path(r.path).name
                dst.write_bytes(src.read_bytes())
                w.writerow([dst.name, r.text, r.speaker_id])
            w.writerow(["lost_take.wav", "turn it up", "s9"])
            w.writerow([Path(items.iloc[0].path).name + "", "", "s1"])
        ctx = Context(Path(tmp) / "project")
        dlg = ImportDialog(ctx, win)
        dlg.resize(900, 540)
        dlg.path.setText(str(manifest))
        dlg.name.setText("sample")
        dlg.show()
        dlg.start()
        deadline = time.monotonic() + 30
        while dlg.report is None and time.monotonic() < deadline:
            QApplication.instance().processEvents()
            ctx.jobs.wait(50)
        QApplication.instance().processEvents()
        dlg.grab().save(str(path))
        written.append(path)
        dlg.close()
        ctx.close()
