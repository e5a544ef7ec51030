"""The Audit panel's filters: rows of ``column = value``, the values offered from the
dataset's metadata, as ``fairdesk audit --filter COL=VAL`` (repeatable) takes them.

Several rows on one column keep an item whose value is any of theirs; rows on different
columns must all hold. :meth:`FilterRows.filters` gives the mapping that
:func:`fairdesk.jobs.request.request_filters` turns into the request's filters, the same
function the command line uses.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...presentation import count
from ..widgets.theme import plain_tip

#: At most this many values are listed for a column (a column of ids is not a filter).
MAX_VALUES = 500


class FilterRow(QWidget):
    """One ``column = value`` condition with its remove button."""

    removed = Signal(object)
    changed = Signal()

    def __init__(self, columns: dict, parent=None):
        super().__init__(parent)
        self._columns = columns
        self.column = QComboBox()
        self.value = QComboBox()
        self.value.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.value.setMinimumContentsLength(8)
        self.value.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.remove = QToolButton()
        self.remove.setText("✕")
        self.remove.setToolTip("remove this filter")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.column, 1)
        lay.addWidget(QLabel("="))
        lay.addWidget(self.value, 1)
        lay.addWidget(self.remove)
        self.column.addItems(sorted(columns))
        self.column.currentTextChanged.connect(self._fill_values)
        self.value.currentIndexChanged.connect(lambda *_: self.changed.emit())
        self.remove.clicked.connect(lambda: self.removed.emit(self))
        self._fill_values(self.column.currentText())

    def _fill_values(self, col: str) -> None:
        self.value.blockSignals(True)
        self.value.clear()
        values = self._columns.get(col) or {}
        for v in sorted(values)[:MAX_VALUES]:
            n = (values[v] or {}).get("items") if isinstance(values[v], dict) else None
            self.value.addItem(f"{v} ({count(n, 'item')})" if n is not None else v, v)
            self.value.setItemData(self.value.count() - 1, plain_tip(v), Qt.ToolTipRole)
        self.value.blockSignals(False)
        self.changed.emit()

    def set(self, col: str, value: str) -> bool:
        """Choose ``col = value``; False when the dataset has no such value."""
        if self.column.findText(col) < 0:
            return False
        self.column.setCurrentText(col)
        i = self.value.findData(value)
        if i < 0:
            return False
        self.value.setCurrentIndex(i)
        return True

    def pair(self) -> tuple[str, str] | None:
        col, v = self.column.currentText(), self.value.currentData()
        return (col, str(v)) if col and v is not None else None


class FilterRows(QWidget):
    """The filter rows and the ``Add filter`` button.

    Signals
    -------
    changed : a row was added, removed or changed.
    """

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._columns: dict = {}
        self.rows: list[FilterRow] = []
        self._box = QVBoxLayout()
        self._box.setContentsMargins(0, 0, 0, 0)
        self.add_btn = QPushButton("Add filter")
        self.add_btn.setToolTip(
            "audit only the items with this metadata value (fairdesk audit --filter COL=VAL); "
            "two rows on one column keep either value, rows on different columns must all hold"
        )
        self.add_btn.clicked.connect(lambda: self.add_row())
        self.none = QLabel("every item")
        self.none.setObjectName("muted")
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.none, 1)
        head.addWidget(self.add_btn)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(self._box)
        lay.addLayout(head)
        self._update()

    def set_columns(self, columns: dict) -> None:
        """The dataset's metadata: ``{column: {value: {"items": n, ...}}}``
        (``Project.dataset_summary``'s ``columns``); rows on columns it lacks go."""
        self._columns = dict(columns)
        kept = [p for p in (r.pair() for r in self.rows) if p]
        self.clear()
        for col, v in kept:
            self.add_row(col, v)
        self.add_btn.setEnabled(bool(self._columns))

    def clear(self) -> None:
        for r in list(self.rows):
            self._remove(r, emit=False)
        self._update()

    def add_row(self, col: str | None = None, value: str | None = None) -> FilterRow | None:
        """Add a row (on ``col = value`` when given and present; None when it is not)."""
        if not self._columns:
            return None
        row = FilterRow(self._columns, self)
        if col is not None and not row.set(col, str(value)):
            row.deleteLater()
            return None
        row.removed.connect(self._remove)
        row.changed.connect(self._update)
        self.rows.append(row)
        self._box.addWidget(row)
        self._update()
        return row

    def _remove(self, row: FilterRow, emit: bool = True) -> None:
        if row in self.rows:
            self.rows.remove(row)
            self._box.removeWidget(row)
            row.deleteLater()
        if emit:
            self._update()

    def _update(self) -> None:
        self.none.setVisible(not self.rows)
        self.changed.emit()

    def filters(self) -> dict[str, list[str]]:
        """``{column: [value, ...]}`` of the rows (``parse_filters`` of ``--filter``)."""
        out: dict[str, list[str]] = {}
        for p in (r.pair() for r in self.rows):
            if p is not None:
                out.setdefault(p[0], []).append(p[1])
        return out

    def pairs(self) -> list[list[str]]:
        """The rows as ``[column, value]`` lists (the remembered state)."""
        return [list(p) for p in (r.pair() for r in self.rows) if p]
