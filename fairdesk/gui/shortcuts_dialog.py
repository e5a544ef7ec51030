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
    """One row per key, in the order first met: the window's shortcuts, then each panel's
    ``SHORTCUTS``. A panel's action is named by its place (the tab label) and the panel's text,
    which never names the place itself: ``Audit: Run the audit``. One action in several
    places is one line naming each (``Datasets, Items: Save the transcript now``); a key that
    several panels bind to different actions (Space plays in Datasets and Items and records
    in Record) is one row of one line per action. Key names are the platform's native text.

    ``panels`` holds ``(place, panel)`` pairs, the place being the panel's tab label.
    """
    # key -> action text -> places, in insertion order (the order first met)
    by_key: dict[str, dict[str, list[str]]] = {}
    sources = [("", window_shortcuts)] + [
        (place, getattr(p, "SHORTCUTS", []) or []) for place, p in panels
    ]
    for place, rows in sources:
        for keys, what in rows:
            native = QKeySequence(keys).toString(QKeySequence.NativeText) or str(keys)
            places = by_key.setdefault(native, {}).setdefault(str(what), [])
            if place and str(place) not in places:
                places.append(str(place))
    return [
        (key, "\n".join(f"{', '.join(pl)}: {w}" if pl else w for w, pl in actions.items()))
        for key, actions in by_key.items()
    ]


class _ShortcutTable(QTableWidget):
    """Home / End / PgUp / PgDn scroll the whole list (a table's End moves along a row)."""

    def keyPressEvent(self, event):  # noqa: N802 - Qt's name
        bar = self.verticalScrollBar()
        step = {
            Qt.Key_PageDown: bar.pageStep(),
            Qt.Key_PageUp: -bar.pageStep(),
        }.get(event.key())
        if event.key() == Qt.Key_Home:
            bar.setValue(bar.minimum())
        elif event.key() == Qt.Key_End:
            bar.setValue(bar.maximum())
        elif step is not None:
            bar.setValue(bar.value() + step)
        else:
            super().keyPressEvent(event)


class ShortcutsDialog(QDialog):
    """A two-column table: key, what it does."""

    def __init__(self, rows: list[tuple[str, str]], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.table = _ShortcutTable(len(rows), 2)
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
        self.table.resizeRowsToContents()
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.table.setFocus()
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.resize(620, 560)
