"""The main window: datasets, audit, results and items as tabs over one shared context."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QTabWidget

from .. import __version__
from .audit_panel import AuditPanel
from .context import Context
from .dataset_panel import DatasetPanel
from .item_panel import ItemPanel
from .record_panel import RecordPanel
from .results_panel import ResultsPanel

TABS = ("datasets", "audit", "results", "items", "record")


class MainWindow(QMainWindow):
    """fairdesk's window. ``folder``: a project to open at start (None: none)."""

    def __init__(self, folder=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"fairdesk {__version__}")
        self.resize(1380, 900)
        self.ctx = Context(folder, self)
        self.datasets = DatasetPanel(self.ctx)
        self.audit = AuditPanel(self.ctx)
        self.results = ResultsPanel(self.ctx)
        self.items = ItemPanel(self.ctx)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(False)
        self.tabs.addTab(self.datasets, "Datasets")
        self.tabs.addTab(self.audit, "Audit")
        self.tabs.addTab(self.results, "Results")
        self.tabs.addTab(self.items, "Items")
        # -- Record tab (field recording and transcript annotation) --
        self.record = RecordPanel(self.ctx)
        self.tabs.addTab(self.record, "Record")
        self.setCentralWidget(self.tabs)

        self.ctx.status.connect(lambda m: self.statusBar().showMessage(m, 8000))
        self.ctx.project_changed.connect(self._title)
        self.audit.run_done.connect(lambda _id: self.show_tab("results"))
        self.audit.show_run.connect(lambda _id: self.show_tab("results"))
        self._title()

        m = self.menuBar().addMenu("&File")
        for text, slot, key in (("Open project…", self.datasets.choose_project,
                                 QKeySequence.Open),
                                ("Open demo…", self.datasets.choose_demo, None),
                                ("Import dataset…", self.datasets.import_dialog, None),
                                ("Quit", self.close, QKeySequence.Quit)):
            a = QAction(text, self)
            if key is not None:
                a.setShortcut(key)
            a.triggered.connect(slot)
            m.addAction(a)
        v = self.menuBar().addMenu("&View")
        for i, name in enumerate(TABS):
            a = QAction(name.capitalize(), self)
            a.setShortcut(f"Ctrl+{i + 1}")
            a.triggered.connect(lambda _=False, n=name: self.show_tab(n))
            v.addAction(a)

    def _title(self) -> None:
        f = self.ctx.folder
        self.setWindowTitle(f"fairdesk {__version__}" + (f" — {f}" if f else ""))

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    def closeEvent(self, event):  # noqa: N802 - Qt API
        self.items.player.stop()
        self.record.shutdown()  # finishes a running take, saves a pending transcript
        self.ctx.close()
        super().closeEvent(event)
