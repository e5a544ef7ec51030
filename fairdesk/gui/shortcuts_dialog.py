"""Help ▸ Keyboard shortcuts: the window's own and every panel's ``SHORTCUTS``."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)


def collect_shortcuts(window_shortcuts, panels) -> list[tuple[str, str]]:
    """The window's shortcuts, then each panel's ``SHORTCUTS`` (duplicates once), with key
    names in the platform's native text."""
    out, seen = [], set()
    for keys, what in list(window_shortcuts) + [
        s for p in panels for s in getattr(p, "SHORTCUTS", []) or []
    ]:
        native = QKeySequence(keys).toString(QKeySequence.NativeText) or str(keys)
        if (native, what) not in seen:
            seen.add((native, what))
            out.append((native, str(what)))
    return out


class ShortcutsDialog(QDialog):
    """A two-column table: key, what it does."""

    def __init__(self, rows: list[tuple[str, str]], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.table = QTableWidget(len(rows), 2)
        self.table.setHorizontalHeaderLabels(["Key", "Action"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        for i, (key, what) in enumerate(rows):
            k = QTableWidgetItem(key)
            k.setTextAlignment(Qt.AlignLeft | Qt.AlignVCenter)
            self.table.setItem(i, 0, k)
            self.table.setItem(i, 1, QTableWidgetItem(what))
        hdr = self.table.horizontalHeader()
        hdr.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        hdr.setSectionResizeMode(1, QHeaderView.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.resize(620, 560)
