"""A read-only Qt table model over a pandas DataFrame, and a proxy with text and column filters."""

from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QSortFilterProxyModel, Qt


def display(value) -> str:
    """Text of one cell (numbers rounded, missing values blank)."""
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.3f}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


class FrameModel(QAbstractTableModel):
    """Rows and columns of a DataFrame; ``UserRole`` gives the raw value (for sorting)."""

    def __init__(self, frame=None, parent=None):
        super().__init__(parent)
        self._frame = None
        self._cols: list[str] = []
        self._rows: list[tuple] = []
        self.set_frame(frame)

    def set_frame(self, frame) -> None:
        self.beginResetModel()
        self._frame = frame
        if frame is None:
            self._cols, self._rows = [], []
        else:
            self._cols = [str(c) for c in frame.columns]
            self._rows = list(frame.itertuples(index=False, name=None))
        self.endResetModel()

    @property
    def frame(self):
        return self._frame

    @property
    def columns(self) -> list[str]:
        return list(self._cols)

    def rowCount(self, parent=None):  # noqa: N802 - Qt API
        return 0 if parent is not None and parent.isValid() else len(self._rows)

    def columnCount(self, parent=None):  # noqa: N802 - Qt API
        return 0 if parent is not None and parent.isValid() else len(self._cols)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        v = self._rows[index.row()][index.column()]
        if role in (Qt.DisplayRole, Qt.ToolTipRole):
            return display(v)
        if role == Qt.UserRole:
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return float(v) if not (isinstance(v, float) and math.isnan(v)) else -math.inf
            return display(v)
        if role == Qt.TextAlignmentRole and isinstance(v, (int, float)):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802 - Qt API
        if role != Qt.DisplayRole:
            return None
        if orientation == Qt.Horizontal:
            return self._cols[section] if section < len(self._cols) else None
        return str(section + 1)

    def row(self, r: int) -> dict:
        return dict(zip(self._cols, self._rows[r]))


class FrameFilter(QSortFilterProxyModel):
    """Keeps rows containing a text (any column) and matching every column filter."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._text = ""
        self._columns: dict[int, str] = {}
        self.setSortRole(Qt.UserRole)

    def _refilter(self, change) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.9
            self.beginFilterChange()
            change()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            change()
            self.invalidateFilter()

    def set_text(self, text: str) -> None:
        self._refilter(lambda: setattr(self, "_text", text.strip().lower()))

    def set_column_filter(self, column: int, value: str | None) -> None:
        def change():
            if value is None:
                self._columns.pop(column, None)
            else:
                self._columns[column] = value

        self._refilter(change)

    def filterAcceptsRow(self, source_row, source_parent):  # noqa: N802 - Qt API
        m = self.sourceModel()
        for col, want in self._columns.items():
            if m.data(m.index(source_row, col)) != want:
                return False
        if not self._text:
            return True
        return any(self._text in str(m.data(m.index(source_row, c))).lower()
                   for c in range(m.columnCount()))
