"""Starting the application, and the offscreen screenshot mode (one PNG per panel)."""

from __future__ import annotations

import logging
import os
import sys
import time
import traceback
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from .qapp import application, save_grab

log = logging.getLogger("fairdesk.gui")


def _excepthook(window):
    def hook(etype, value, tb):
        text = "".join(traceback.format_exception(etype, value, tb))
        log.error("unexpected error in the GUI:\n%s", text)
        if window is not None:
            QMessageBox.critical(
                window,
                "fairdesk: unexpected error",
                f"{etype.__name__}: {value}\n\nDetails are in the log.",
            )

    return hook


def run(project=None, input_file=None) -> int:
    """Open the main window (on ``project`` when given, else the last project or the
    first-run page) and run the event loop. ``input_file``: record from this audio file,
    played as the microphone."""
    from .main_window import MainWindow

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = application()
    win = MainWindow(project, input_file=input_file)
    sys.excepthook = _excepthook(win)
    win.show()
    if os.environ.get("FAIRDESK_QUIT_AFTER_SHOW") == "1":
        # installer/smoke_bundle.sh times the start to the first window with this.
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, app.quit)
    code = app.exec()
    _exit_abandoning_jobs(win, code)
    return code


def _exit_abandoning_jobs(win, code: int) -> None:
    """End the process at once when a background job is still inside a model call after the
    window closed (it was cancelled and waited for briefly: ``Context.close``).

    Letting Python finish would wait for that call (a shard of inference, an encoder pass):
    seconds on a loaded machine. Nothing half-written is left: the job's database writes are
    transactions (an unfinished one is rolled back; its run reads ``interrupted`` when the
    project is next opened and resumes from the cached predictions), its run lock is an OS
    lock released with the process, and the temporary files of unfinished output writers are
    removed here (the targets stay as they were)."""
    jobs = getattr(getattr(win, "ctx", None), "jobs", None)
    if jobs is None or jobs.pool.activeThreadCount() == 0:
        return
    from ..core.atomic import discard_live_temps

    left = [j.name for j in jobs.live()]
    gone = discard_live_temps()
    log.info(
        "exiting without waiting for %s (cancelled, inside a model call); %d unfinished "
        "output file(s) removed",
        ", ".join(left) or "a background job",
        len(gone),
    )
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


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


def _throwaway_settings(folder: Path):
    """Settings in a temporary file: screenshots neither read nor change the user's."""
    from PySide6.QtCore import QSettings

    return QSettings(str(folder / "settings.ini"), QSettings.IniFormat)


def screenshots(
    out_dir, project, run_id: int | None = None, size: tuple[int, int] = (1440, 920)
) -> list[Path]:
    """Open every panel of ``project`` with real data and save one PNG per panel.

    Parameters
    ----------
    out_dir : folder for the PNGs (created).
    project : project folder.
    run_id : the run to show (default: the newest finished run).
    size : the window's size (e.g. 1366×768 to check a laptop screen).

    Returns
    -------
    list of Path
        The files written.
    """
    import tempfile

    from ..core.atomic import make_folder
    from .items import item_saliency
    from .main_window import MainWindow

    item_saliency.PRECOMPUTE = False  # the pictures show what is stored, nothing computing
    out = make_folder(out_dir, "the screenshots")
    app = application()
    tmp = tempfile.TemporaryDirectory()
    written: list[Path] = []
    # the first-run page (no project)
    first = MainWindow(None, settings=_throwaway_settings(Path(tmp.name)), restore=False)
    first.resize(*size)
    first.show()
    app.processEvents()
    path = out / "00_first_run.png"
    save_grab(first, path)
    written.append(path)
    first.close()
    win = MainWindow(project, settings=_throwaway_settings(Path(tmp.name)), restore=False)
    win.resize(*size)
    win.show()
    settle(win)
    runs = win.ctx.runs()
    if run_id is None and runs:
        run_id = runs[0].id
    if run_id is not None:
        win.ctx.run_id = None
        win.ctx.select_run(run_id)
        shown = win.results.result  # the run's AuditRun (None: nothing shown)
        dataset = shown.dataset if shown is not None else None
        if dataset and win.audit.dataset.findText(dataset) >= 0:
            win.audit.dataset.setCurrentText(dataset)  # its columns, then "by"
            from ..core.dataset_sets import run_dataset_names

            win.audit.with_datasets.set_chosen(run_dataset_names(shown)[1:])
            settle(win)
        if shown is not None and shown.model:
            win.audit.set_model(shown.model)
        by = list(shown.by) if shown is not None else []
        if by:
            win.audit.by1.setCurrentText(by[0])
            if len(by) > 1:
                win.audit.by2.setCurrentText(by[1])

    def shot(name: str, widget=None) -> None:
        settle(win)
        app.processEvents()
        path = out / f"{name}.png"
        save_grab(widget or win, path)
        written.append(path)

    win.show_tab("datasets")
    shot("01_datasets")
    ds = win.datasets
    if ds.model.rowCount():  # an item selected: its player and transcript editor
        ds.table.selectRow(0)
        shot("01_datasets_item")
    win.show_tab("audit")
    shot("02_audit")
    win.show_tab("results")
    from .results.results_panel import SUBTABS

    for name in SUBTABS:
        win.results.show_subtab(name)
        if name == "regression" and run_id is not None:
            reg = win.results.regression
            if reg.shown is None and reg.run_btn.isEnabled():
                reg.start()  # fitted in the background and stored with the run
                settle(win, 120)
        shot(f"03_results_{name}")
    win.show_tab("items")
    if win.items.model.rowCount():
        win.items.select(0)
    shot("04_items")
    win.show_tab("incremental")  # the newest stored incremental run, if any
    inc = win.incremental
    if inc.runs.count() and inc.items.count():
        inc.show_timeline()
    shot("09_incremental")
    _import_shot(win, out / "05_import_dialog.png", written)
    dlg = win.show_shortcuts()
    app.processEvents()
    path = out / "07_shortcuts.png"
    save_grab(dlg, path)
    written.append(path)
    dlg.close()
    win.close()
    app.processEvents()

    from .record.record_shot import screenshot as record_screenshot

    with tempfile.TemporaryDirectory() as rtmp:  # a synthetic take, never in the user's project
        written.append(record_screenshot(out / "06_record.png", Path(rtmp) / "field", size=size))
    from .items.annotation_shot import screenshot as annotation_screenshot

    # the transcript editor with its palette and history, on a copy of the store
    written.append(annotation_screenshot(out / "08_annotation.png", project, run_id, size=size))
    app.processEvents()
    tmp.cleanup()
    return written


def _import_shot(win, path: Path, written: list[Path]) -> None:
    """The import dialog after a real import into a throwaway project: a manifest naming
    three of the project's files, one missing file and one row without a transcript."""
    import csv
    import tempfile

    import soundfile as sf

    from ..constants import SAMPLE_RATE
    from ..core.audio_paths import audio_file
    from ..core.spans import load_row, span_of
    from .context import Context
    from .data.import_dialog import ImportDialog

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
            names = []
            for k, r in enumerate(items.to_dict(orient="records")):
                if span_of(r) is None:
                    dst = manifest.parent / Path(r["path"]).name
                    dst.write_bytes(audio_file(dss[0].root, r["path"]).read_bytes())
                else:  # a segment of a session: its clip
                    dst = manifest.parent / f"clip{k + 1}.wav"
                    sf.write(str(dst), load_row(dss[0].root, r).samples, SAMPLE_RATE)
                names.append(dst.name)
                w.writerow([dst.name, r["text"], r["speaker_id"]])
            w.writerow(["lost_take.wav", "turn it up", "s9"])
            w.writerow([names[0], "", "s1"])
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
        save_grab(dlg, path)
        written.append(path)
        # the formats it offers: the open format list, over the dialog
        dlg.format.showPopup()
        QApplication.instance().processEvents()
        popup = dlg.format.view().window()
        formats = path.with_name(path.stem + "_formats.png")
        save_grab(popup, formats)
        written.append(formats)
        dlg.format.hidePopup()
        dlg.close()
        ctx.close()
