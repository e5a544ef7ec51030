"""The main window: datasets, audit, results, items and record as tabs over one shared
context; a first-run page when no project is open; menus with a shortcut for every frequent
action (Help ▸ Keyboard shortcuts lists them all); geometry, splitters, the last project and
each panel's state remembered in QSettings."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QTabWidget,
    QToolButton,
)

from .._meta import __version__
from .context import Context
from .data.dataset_panel import DatasetPanel
from .exports import Exporter, ReportDialog, folder_and_format
from .first_run import FirstRunPage, default_demo_folder
from .qapp import save_grab
from .settings import (
    app_settings,
    get_json,
    last_run,
    put_json,
    recent_projects,
    remember_project,
    remember_run,
)
from .status_bar import FitStatusBar
from .widgets.lazy_tab import LazyTab

log = logging.getLogger("fairdesk.gui")

TABS = ("datasets", "audit", "results", "items", "record", "incremental")
#: The guide's section for each tab (its "?" button): page, heading anchor.
HELP_PAGES = {
    "datasets": ("your-data.md", ""),
    "audit": ("auditing.md", ""),
    "results": ("reading-results.md", ""),
    "items": ("listening.md", ""),
    "record": ("recording.md", ""),
    "incremental": ("auditing.md", "streaming-incremental-recognition"),
}
#: The tabs built when first shown (or asked for): their module and class.
LAZY = {
    "audit": ("audit.audit_panel", "AuditPanel"),
    "results": ("results.results_panel", "ResultsPanel"),
    "items": ("items.item_panel", "ItemPanel"),
    "record": ("record.record_panel", "RecordPanel"),
    "incremental": ("incremental.incremental_panel", "IncrementalPanel"),
}


def panel_class(name: str):
    """The class of a lazily built tab's panel (its module imported now)."""
    import importlib

    module, cls = LAZY[name]
    return getattr(importlib.import_module(f"{__package__}.{module}"), cls)


def first_size(screen, wanted=(1366, 860)) -> tuple[int, int]:
    """The first window's size: ``wanted``, shrunk to the screen's free area less room for
    the title bar (a 1366×768 laptop gets 1366×728, not 860 px with the status bar off-screen),
    never below the window's minimum of 900×560."""
    if screen is None:
        return wanted
    free = screen.availableGeometry()
    return max(900, min(wanted[0], free.width())), max(560, min(wanted[1], free.height() - 40))


#: The window's own shortcuts (the panels list theirs in ``SHORTCUTS``).
WINDOW_SHORTCUTS = [
    ("Ctrl+O", "Open a project…"),
    ("Ctrl+I", "Import a dataset…"),
    ("Ctrl+Shift+S", "Export a screenshot of the window…"),
    ("Ctrl+Shift+E", "Export the shown run's report (HTML, PDF)…"),
    ("Ctrl+Q", "Quit"),
    *[(f"Ctrl+{i + 1}", f"Show the {t.capitalize()} tab") for i, t in enumerate(TABS)],
    ("F9", "Run the audit"),
    ("Shift+F9", "Cancel the running audit"),
    ("F1", "Keyboard shortcuts (this list)"),
]


class MainWindow(QMainWindow):
    """fairdesk's window.

    Parameters
    ----------
    folder : a project to open at start (None: the last project, else the first-run page).
    settings : where state is remembered (default :func:`app_settings`; tests pass a
        ``QSettings`` on a temporary file).
    input_file : an audio file the Record tab records from, played as the microphone.
    restore : read the remembered state (geometry, panels, last project).
    """

    def __init__(
        self,
        folder=None,
        parent=None,
        *,
        settings: QSettings | None = None,
        input_file=None,
        restore: bool = True,
    ):
        super().__init__(parent)
        self.settings = settings if settings is not None else app_settings()
        self.setWindowTitle(f"fairdesk {__version__}")
        self.setMinimumSize(900, 560)
        self.resize(*first_size(QGuiApplication.primaryScreen()))
        remembered = False
        if folder is None and restore:
            last = self.settings.value("last_project")
            if last and (Path(str(last)) / "project.sqlite").exists():
                folder, remembered = str(last), True
        try:
            self.ctx = Context(folder, self)
        except Exception as exc:  # noqa: BLE001 - StoreError, OSError
            if not remembered:
                raise
            # the last project cannot be opened any more: start on the first-run page
            log.warning("the last project %s cannot be opened: %s", folder, exc)
            self.ctx = Context(None, self)
        self._restore = restore
        if restore and self.ctx.folder is not None:  # before the results list the runs
            self.ctx.remembered_run = last_run(self.settings, self.ctx.folder)
        self._input_file = input_file
        # the Datasets tab as the first screen: its table is read in a job after the window
        # is drawn (another first tab needs pandas at once: a job would only compete with it)
        first = self.settings.value("window/tab") if restore else None
        self.datasets = DatasetPanel(self.ctx, deferred=first in (None, "datasets"))
        # every other tab is built when first shown or asked for (self.audit, …): the window
        # opens with the first screen only
        self._lazy = {
            name: LazyTab(
                lambda n=name: self._build_panel(n),
                lambda panel, n=name: self._panel_built(n, panel),
            )
            for name in LAZY
        }
        self.tabs = QTabWidget()
        for name in TABS:
            page = self.datasets if name == "datasets" else self._lazy[name]
            self.tabs.addTab(page, name.capitalize())
        self.help_btn = QToolButton()
        self.help_btn.setText("?")
        self.help_btn.setToolTip("This tab's section of the user guide (F1: the shortcuts)")
        self.help_btn.clicked.connect(lambda: self.show_guide(TABS[self.tabs.currentIndex()]))
        self.tabs.setCornerWidget(self.help_btn, Qt.TopRightCorner)
        self.welcome = FirstRunPage()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.welcome)
        self.stack.addWidget(self.tabs)
        self.setCentralWidget(self.stack)
        self.setStatusBar(FitStatusBar(self))  # long messages elided, whole in the tooltip

        self.ctx.status.connect(lambda m: self.statusBar().showMessage(m, 8000))
        # a recording plan made from a verdict card: record it in the Record tab
        self.ctx.recording_planned.connect(lambda _plan: self.show_tab("record"))
        self.exporter = Exporter(self.ctx, self)
        self.exporter.message.connect(lambda m: self.statusBar().showMessage(m, 15000))
        self.statusBar().addPermanentWidget(self.exporter.progress_view)
        self.report_dialog: ReportDialog | None = None
        self.ctx.project_changed.connect(self._project_changed)
        self.ctx.runs_changed.connect(self.ctx.select_default_run)  # no Results tab needed
        self.ctx.run_selected.connect(self._remember_run)
        self.welcome.demo.connect(self.open_demo)
        self.welcome.open_project.connect(self.choose_project)
        self.welcome.import_dataset.connect(self.import_dataset)
        self.welcome.open_recent.connect(self.open_project)
        self._build_menus()
        if restore:
            self.restore_state()
        self._project_changed()
        self.ctx.select_default_run()

    # -- the lazily built tabs -----------------------------------------------------------
    def _build_panel(self, name: str):
        cls = panel_class(name)
        if name == "record":
            return cls(self.ctx, input_file=self._input_file)
        if name in ("results", "incremental"):
            return cls(self.ctx, lazy=True)  # their hidden sub-tabs load on first show
        return cls(self.ctx)

    def _panel_built(self, name: str, panel) -> None:
        if name == "results":
            panel.chart_export.failed.connect(
                lambda m: self.statusBar().showMessage(f"Export failed: {m}", 15000)
            )
        elif name == "audit":
            panel.run_done.connect(lambda _id: self.show_tab("results"))
            panel.show_run.connect(lambda _id: self.show_tab("results"))
        if self._restore:
            self._restore_panel(name, panel)

    def panel(self, name: str):
        """The ``name`` tab's panel, built now if it was not yet."""
        return self.datasets if name == "datasets" else self._lazy[name].panel()

    def current_panel(self):
        """The panel of the tab shown (built, since it is shown)."""
        return self.panel(TABS[self.tabs.currentIndex()])

    def built(self, name: str) -> bool:
        """Whether the ``name`` tab's panel exists yet (the Datasets tab always does)."""
        return name == "datasets" or self._lazy[name].is_built

    @property
    def audit(self):
        return self.panel("audit")

    @property
    def results(self):
        return self.panel("results")

    @property
    def items(self):
        return self.panel("items")

    @property
    def record(self):
        return self.panel("record")

    @property
    def incremental(self):
        return self.panel("incremental")

    # -- menus ------------------------------------------------------------------------
    def _action(self, menu, text: str, slot, key=None) -> QAction:
        a = QAction(text, self)
        if key is not None:
            a.setShortcut(QKeySequence(key))
        a.triggered.connect(lambda _=False: slot())
        menu.addAction(a)
        return a

    def _build_menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        self._action(m, "Open project…", self.choose_project, QKeySequence.Open)
        self._action(m, "Open the demo project", self.open_demo)
        self.import_action = self._action(m, "Import dataset…", self.import_dataset, "Ctrl+I")
        m.addSeparator()
        self._action(m, "Record from an audio file…", self.choose_input_file)
        self._action(m, "Audio output…", self.pick_output)
        self._action(m, "Export screenshot…", self.export_screenshot, "Ctrl+Shift+S")
        self.report_action = self._action(m, "Export report…", self.export_report, "Ctrl+Shift+E")
        self._action(m, "Export tables…", self.export_tables)
        self._action(m, "Export Praat TextGrids…", lambda: self.export_tiers("textgrid"))
        self._action(m, "Export ELAN files…", lambda: self.export_tiers("eaf"))
        m.addSeparator()
        self._action(m, "Quit", self.close, QKeySequence.Quit)
        v = self.menuBar().addMenu("&View")
        for i, name in enumerate(TABS):
            self._action(v, name.capitalize(), lambda n=name: self.show_tab(n), f"Ctrl+{i + 1}")
        a = self.menuBar().addMenu("&Audit")
        self.run_action = self._action(a, "Run audit", self._run_audit, "F9")
        self.cancel_action = self._action(a, "Cancel audit", self._cancel_audit, "Shift+F9")
        h = self.menuBar().addMenu("&Help")
        self._action(h, "Keyboard shortcuts", self.show_shortcuts, "F1")
        self._action(h, "User guide", lambda: self.show_guide())
        self._action(h, "About fairdesk", self._about)

    def pick_output(self) -> None:
        """The audio output dialog (every player's output)."""
        from .audio.output_picker import OutputPicker

        OutputPicker(self).exec()

    def _cancel_audit(self) -> None:
        if self.built("audit"):
            self.audit.cancel()

    def panels(self) -> list:
        """Every tab's panel (building those not built yet)."""
        return [self.panel(name) for name in TABS]

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """Every shortcut: the window's, then each panel's ``SHORTCUTS`` (read from the
        panel classes: listing them builds no tab)."""
        from .shortcuts_dialog import collect_shortcuts

        places = [
            (self.tabs.tabText(i), DatasetPanel if name == "datasets" else panel_class(name))
            for i, name in enumerate(TABS)
        ]
        return collect_shortcuts(WINDOW_SHORTCUTS, places)

    def show_shortcuts(self):
        from .shortcuts_dialog import ShortcutsDialog

        dlg = ShortcutsDialog(self.shortcut_rows(), self)
        dlg.show()
        return dlg

    def show_guide(self, tab: str | None = None):
        """The user guide; with ``tab`` (a "?" button), at that tab's section."""
        from .guide import GuideWindow

        dlg = GuideWindow(self)
        if tab in HELP_PAGES:
            dlg.open_page(*HELP_PAGES[tab])
        dlg.show()
        return dlg

    def _about(self) -> None:
        QMessageBox.about(
            self,
            "About fairdesk",
            f"fairdesk {__version__}: does a speech model work equally well for "
            "everyone? Every number is defined in METHODS.md.",
        )

    # -- projects -----------------------------------------------------------------------
    def _project_changed(self) -> None:
        f = self.ctx.folder
        ro = self.ctx.read_only
        self.setWindowTitle(
            f"fairdesk {__version__}" + (f" — {f}" if f else "") + (" (read-only)" if ro else "")
        )
        self.import_action.setEnabled(not ro)
        self.run_action.setEnabled(not ro)
        for act in (self.import_action, self.run_action):
            act.setToolTip(self.ctx.read_only_tip() if ro else act.text())
        if ro:
            self.statusBar().showMessage(f"{f}: {self.ctx.read_only_tip()}")
        if f is not None:
            remember_project(self.settings, f)
            # fired before the runs are listed again: they open on the run last shown here
            self.ctx.remembered_run = last_run(self.settings, f) if self._restore else None
            self.stack.setCurrentWidget(self.tabs)
        else:
            self.welcome.set_recent(recent_projects(self.settings))
            self.stack.setCurrentWidget(self.welcome)
        self.welcome.set_busy("")

    def _remember_run(self, run_id: int) -> None:
        if self.ctx.folder is not None:
            remember_run(self.settings, self.ctx.folder, run_id)

    def open_project(self, folder) -> None:
        try:
            self.ctx.open_project(folder)
        except Exception as exc:  # noqa: BLE001 - StoreError, OSError: say it, keep going
            QMessageBox.warning(self, "Open project", f"{folder}: {exc}")

    def choose_project(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Open or create a fairdesk project folder")
        if d:
            self.open_project(d)

    def open_demo(self, folder=None):
        """Create (or reopen) the demo project (default ``~/fairdesk-demo``) in the
        background; the window shows it when it is ready."""
        folder = Path(folder) if folder else default_demo_folder()
        self.welcome.set_busy(f"Preparing the demo project in {folder}…")
        job = self.datasets.open_demo(folder)
        job.signals.error.connect(lambda _m: self.welcome.set_busy(""))
        job.signals.finished.connect(lambda: self.show_tab("datasets"))
        return job

    def import_dataset(self):
        """Import into the open project, or first choose (or create) one."""
        if self.ctx.project is None:
            d = QFileDialog.getExistingDirectory(
                self, "Project folder for the dataset (an empty folder creates a project)"
            )
            if not d:
                return None
            self.open_project(d)
            if self.ctx.project is None:
                return None
        self.show_tab("datasets")
        return self.datasets.import_dialog()

    def choose_input_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Record from an audio file", "", "Audio (*.wav *.flac *.ogg *.mp3)"
        )
        if path:
            self.set_input_file(path)

    def set_input_file(self, path) -> None:
        """Record from ``path`` (played as the microphone) and show the Record tab."""
        self.record.devices.set_input_file(str(path))
        if self.ctx.project is not None:
            self.show_tab("record")

    # -- actions ------------------------------------------------------------------------
    def show_tab(self, name: str) -> None:
        if self.ctx.project is not None:
            self.stack.setCurrentWidget(self.tabs)
        self.tabs.setCurrentIndex(TABS.index(name))

    def _run_audit(self) -> None:
        if self.audit.run_btn.isEnabled():
            self.show_tab("audit")
            self.audit.start()

    def export_screenshot(self, path=None):
        """Save the window as a PNG (asks where when ``path`` is None)."""
        if path is None:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export a screenshot", str(Path.home() / "fairdesk.png"), "PNG image (*.png)"
            )
            if not path:
                return None
        from ..core.atomic import OutputError

        try:
            save_grab(self, path)  # complete or not at all
        except (OutputError, ValueError) as exc:
            self.statusBar().showMessage(f"could not write the screenshot: {exc}", 8000)
            return None
        self.statusBar().showMessage(f"screenshot saved to {path}", 8000)
        return Path(path)

    def shown_run(self) -> int | None:
        """The run the results pane shows (what the exports write)."""
        return self.results.run_id if self.results.result else None

    def _no_run(self) -> bool:
        if self.ctx.project is None or self.shown_run() is None:
            QMessageBox.information(
                self, "Export", "Open a project and show a finished run in Results first."
            )
            return True
        return False

    def export_report(self, path=None, *, pdf=None, embed_audio: bool = False):
        """Export the shown run's report: with no ``path``, a dialog asks where (and whether
        to add the PDF and embed the audio); returns the dialog or the job."""
        if self._no_run():
            return None
        run_id = self.shown_run()
        if path is not None:
            return self.exporter.report(run_id, path, pdf=pdf, embed_audio=embed_audio)
        dlg = ReportDialog(run_id, Path.home() / f"fairdesk-run{run_id}-report.html", self)
        dlg.accepted.connect(lambda: self.exporter.report(run_id, **dlg.values()))
        self.report_dialog = dlg
        dlg.open()
        return dlg

    def export_tables(self, folder=None, ext: str = "csv"):
        """items, groups and comparisons of the shown run as CSV/TSV/Parquet files."""
        if self._no_run():
            return None
        if folder is None:
            folder, ext = folder_and_format(
                self, "Folder for the tables", ("csv", "tsv", "parquet")
            )
            if folder is None:
                return None
        return self.exporter.tables(self.shown_run(), folder, ext)

    def export_tiers(self, kind: str = "textgrid", folder=None):
        """One Praat TextGrid or ELAN file per item of the shown run."""
        if self._no_run():
            return None
        if folder is None:
            folder, _ = folder_and_format(
                self,
                "Folder for the TextGrids" if kind == "textgrid" else "Folder for the ELAN files",
            )
            if folder is None:
                return None
        return self.exporter.tiers(self.shown_run(), folder, kind)

    # -- remembered state -----------------------------------------------------------------
    def save_state(self) -> None:
        s = self.settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("window/tab", TABS[self.tabs.currentIndex()])
        for name in TABS:
            if not self.built(name):  # never shown: its remembered state stays as it was
                continue
            panel = self.panel(name)
            if hasattr(panel, "save_state"):
                try:
                    put_json(s, f"panels/{name}", panel.save_state())
                except Exception:  # noqa: BLE001 - a panel's state must never block closing
                    log.exception("saving the %s panel's state failed", name)
        s.sync()

    def restore_state(self) -> None:
        s = self.settings
        geo = s.value("window/geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        st = s.value("window/state")
        if st is not None:
            self.restoreState(st)
        self._restore_panel("datasets", self.datasets)  # the others: when they are built
        tab = s.value("window/tab")
        if tab in TABS:
            self.tabs.setCurrentIndex(TABS.index(tab))

    def _restore_panel(self, name: str, panel) -> None:
        state = get_json(self.settings, f"panels/{name}")
        if isinstance(state, dict) and hasattr(panel, "restore_state"):
            try:
                panel.restore_state(state)
            except Exception:  # noqa: BLE001 - a stale state is ignored, not fatal
                log.exception("restoring the %s panel's state failed", name)

    def closeEvent(self, event):  # noqa: N802 - Qt API
        # hidden first: what follows (saving a take, cancelling jobs, waiting for them
        # briefly) must not keep a dead-looking window on screen
        self.hide()
        QGuiApplication.sync()  # the window system sees it now, not at the next event loop pass
        self.save_state()
        if self.built("items"):
            self.items.stop_background_saliency()
            self.items.player.stop()
        if self.built("incremental"):
            self.incremental.player.stop()
        if self.built("record"):
            self.record.shutdown()  # finishes a running take, saves a pending transcript
        if self.built("results"):
            self.results.regression.shutdown()
        self.ctx.close()
        super().closeEvent(event)
