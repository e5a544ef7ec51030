"""A layout that sets its lines in one, two or three columns, as many as its width holds.

A verdict card's lines (gap, CI, values, p_adj, verdict, plan button) stacked one under the
other made a card seven lines tall: with one or two compared groups the card was as wide as
the window and two rows of cards did not fit a laptop's pane. In a wide card the same lines
share two or three columns (the order kept: read down the first column, then the next); a
narrow card (five groups on a 1024-px screen) keeps one column and its width, never cutting
a line.
"""

from __future__ import annotations

from itertools import combinations

from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QLayout

#: The most columns a card's lines are set in.
MAX_COLUMNS = 3


class ColumnsLayout(QLayout):
    """Lines in order, split into as many columns (up to :data:`MAX_COLUMNS`) as the width
    holds at their natural widths; each column as short as the split allows. Height for
    width: the height of the columns at that width."""

    def __init__(self, parent=None, column_spacing: int = 16, line_spacing: int = 0):
        super().__init__(parent)
        self._items = []
        self.column_spacing = column_spacing
        self.line_spacing = line_spacing
        #: the widths the split takes for the lines (by position), at least their own: the
        #: cards of a grid share them, so every card sets its lines the same way
        self.shared_widths: list[int] = []

    # -- QLayout's API --------------------------------------------------------------------
    def addItem(self, item):  # noqa: N802 - Qt API
        self._items.append(item)

    def count(self):
        return len(self._items)

    def itemAt(self, i):  # noqa: N802 - Qt API
        return self._items[i] if 0 <= i < len(self._items) else None

    def takeAt(self, i):  # noqa: N802 - Qt API
        return self._items.pop(i) if 0 <= i < len(self._items) else None

    def hasHeightForWidth(self):  # noqa: N802 - Qt API
        return True

    def heightForWidth(self, width):  # noqa: N802 - Qt API
        m = self.contentsMargins()
        cols = self.columns(width - m.left() - m.right())
        return self._height(cols) + m.top() + m.bottom()

    def sizeHint(self):  # noqa: N802 - Qt API
        return self._size(self.columns(None))

    def minimumSize(self):  # noqa: N802 - Qt API
        """One column's width (the widest line) and the shortest height any split has: the
        height itself comes from :meth:`heightForWidth`."""
        m = self.contentsMargins()
        lines = self._lines()
        w = max((i.minimumSize().width() for i in lines), default=0)
        wide = self.columns(10**6)  # the widest split is the shortest
        return QSize(w + m.left() + m.right(), self._height(wide) + m.top() + m.bottom())

    def setGeometry(self, rect):  # noqa: N802 - Qt API
        super().setGeometry(rect)
        m = self.contentsMargins()
        inner = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x = inner.x()
        for col in self.columns(inner.width()):
            width = max(self._row_width(r) for r in col)
            y = inner.y()
            for row in col:
                h = max(i.sizeHint().height() for i in row)
                left = x
                for item in row:  # side by side on one line, their bottoms aligned
                    hint = item.sizeHint()
                    w = max(hint.width(), item.minimumSize().width())
                    item.setGeometry(QRect(left, y + h - hint.height(), w, hint.height()))
                    left += self._w(item) + self.column_spacing
                y += h + self.line_spacing
            x += width + self.column_spacing

    # -- the split ------------------------------------------------------------------------
    def _lines(self):
        return [i for i in self._items if not i.isEmpty()]

    def columns(self, width: int | None) -> list[list[list]]:
        """The visible lines split into columns for ``width`` (None: one column, a line
        each): the most columns whose widths fit, each split keeping the lines' order and
        making the tallest column as short as it can be; each column a list of rows, each
        row the items side by side. One column packs consecutive lines side by side where
        they fit (a card of three groups at 1024 px: the gap and its CI on one line)."""
        lines = self._lines()
        if not lines:
            return []
        if width is None:
            return [[[i] for i in lines]]
        best = [self._pack(lines, width)]
        for k in range(2, min(MAX_COLUMNS, len(lines)) + 1):
            fits = [
                cols
                for cols in _splits(lines, k)
                if sum(max(self._w(i) for i in c) for c in cols) + (k - 1) * self.column_spacing
                <= width
            ]
            if not fits:
                break
            # the shortest; of equally short splits the one with the later cuts (the same
            # split on every card of a row, whatever its numbers' widths)
            chosen = min(fits, key=lambda c: (self._height1(c), [-len(x) for x in c]))
            best = [[[i] for i in c] for c in chosen]
        return best

    def _pack(self, lines, width: int) -> list[list]:
        """One column: consecutive lines side by side while they fit ``width``."""
        rows: list[list] = []
        for item in lines:
            if rows and self._row_width([*rows[-1], item]) <= width:
                rows[-1].append(item)
            else:
                rows.append([item])
        return rows

    def _w(self, item) -> int:
        """A line's width for the split: its own, or the width its peers share."""
        own = item.sizeHint().width()
        k = self._items.index(item)
        return max(own, self.shared_widths[k]) if k < len(self.shared_widths) else own

    def _row_width(self, row) -> int:
        return sum(self._w(i) for i in row) + (len(row) - 1) * self.column_spacing

    def line_widths(self) -> list[int]:
        """The lines' own widths, by position (0 for a hidden one)."""
        return [0 if i.isEmpty() else i.sizeHint().width() for i in self._items]

    def _height1(self, cols) -> int:
        """The tallest column of a split of lines (one line a row)."""
        return self._height([[[i] for i in c] for c in cols])

    def _height(self, cols) -> int:
        return max(
            (
                sum(max(i.sizeHint().height() for i in r) for r in c)
                + (len(c) - 1) * self.line_spacing
                for c in cols
            ),
            default=0,
        )

    def _size(self, cols) -> QSize:
        m = self.contentsMargins()
        w = sum(max(self._row_width(r) for r in c) for c in cols)
        w += max(len(cols) - 1, 0) * self.column_spacing
        return QSize(w + m.left() + m.right(), self._height(cols) + m.top() + m.bottom())


def _splits(lines, k):
    """Every split of ``lines`` into ``k`` non-empty runs, in order."""
    for cuts in combinations(range(1, len(lines)), k - 1):
        bounds = (0, *cuts, len(lines))
        yield [lines[a:b] for a, b in zip(bounds, bounds[1:])]
