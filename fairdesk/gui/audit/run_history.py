"""The Audit panel's table of the project's runs: each run named by its stored request (the
grouping, filters and non-default settings, as ``fairdesk runs`` prints them); a
double-click on a finished run asks to show it."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ...presentation import run_name
from ..context import Context
from ..widgets.theme import plain_tip

COLUMNS = ["Run", "Status", "Started", "What was run"]
#: The column of the run's status (its colour), and of its name (last: it takes the width
#: left and wraps, so a laptop's narrow pane cuts nothing off).
STATUS, HOW = 1, 3
COLOURS = {"done": "#2e7d32", "failed": "#c62828", "cancelled": "#ef6c00", "running": "#1565c0"}


class RunHistory(QTableWidget):
    """The runs of the project, newest first.

    Signals
    -------
    open_run(int) : a finished run was double-clicked.
    """

    open_run = Signal(int)

    def __init__(self, ctx: Context, parent=None):
        super().__init__(0, len(COLUMNS), parent)
        self.ctx = ctx
        self.setHorizontalHeaderLabels(COLUMNS)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        head = self.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeToContents)
        head.setSectionResizeMode(HOW, QHeaderView.Stretch)
        head.setToolTip("What was run: model on dataset, grouping, filters and settings")
        # the wrapped name's height follows the column's width
        head.sectionResized.connect(lambda *_: self.resizeRowsToContents())
        self.setWordWrap(True)
        self.setTextElideMode(Qt.ElideNone)
        self.setToolTip("Double-click a finished run to show its results")
        self.cellDoubleClicked.connect(self._open)

    def fill(self) -> None:
        runs = self.ctx.runs(done_only=False)
        self.setRowCount(len(runs))
        for i, r in enumerate(runs):
            vals = [str(r.id), r.status, r.when(), run_name(r.spec, short=True)]
            for j, v in enumerate(vals):
                it = QTableWidgetItem(v)
                it.setData(Qt.UserRole, r.id)
                if j == STATUS:
                    it.setForeground(QBrush(QColor(COLOURS.get(r.status, "#222222"))))
                if j == HOW:
                    it.setToolTip(plain_tip(v))
                self.setItem(i, j, it)
        self.resizeRowsToContents()  # a long name wraps instead of being cut

    def resizeEvent(self, event):  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        QTimer.singleShot(0, self.resizeRowsToContents)  # after the stretch column settles

    def _open(self, row: int, _col: int) -> None:
        it = self.item(row, 0)
        status = self.item(row, STATUS).text()
        if it is not None and status == "done":
            self.open_run.emit(int(it.data(Qt.UserRole)))
