"""Word positions and phone confusions of a run (docs/METHODS.md, "Word-position heatmap" and "Phone confusions"): a self-contained view.

``PhonesView.set_result(run)`` shows, from an audit's typed result
(:class:`~fairdesk.jobs.result.AuditRun`):

* the word-position heatmap of one shared content (a combo picks which): rows are groups,
  columns the reference words, each cell the group's error rate at that word, shaded white
  (0) to red (1), with the counts as tooltip;
* the model-side phone confusions per group (``phone_confusion``), and the annotated ones
  (``phone_annotations``) when the run has them: the most frequent confusions with counts
  and rates.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.plurals import count
from ...jobs.result import AuditRun
from ...jobs.result_blocks import PhoneTable
from ...jobs.result_parts import WordPosition
from ...presentation import fmt_percent
from ..widgets.fit_scroll import FitScrollArea

#: Confusions listed per group.
TOP = 8


def _pct(v) -> str:
    return fmt_percent(v, 0)


def heat_color(rate) -> QColor:
    """White at 0, red at 1 (the rate, clipped to [0, 1])."""
    a = 0.0 if rate is None else max(0.0, min(1.0, float(rate)))
    return QColor(255, int(255 - 200 * a), int(255 - 200 * a))


#: The most rows a table of this tab shows before it scrolls.
MAX_ROWS = 8


def fit_rows(table: QTableWidget, most: int = MAX_ROWS) -> None:
    """Give ``table`` the height of its header and rows (at most ``most``), and the
    horizontal scroll bar's when its columns are wider than it."""
    table.resizeRowsToContents()
    n = min(table.rowCount(), most)
    rows = sum(table.rowHeight(r) for r in range(n))
    header = table.horizontalHeader()
    head = 0 if header.isHidden() else max(header.height(), header.sizeHint().height())
    bar = table.horizontalScrollBar().sizeHint().height()
    h = head + rows + 2 * table.frameWidth() + bar
    table.setMinimumHeight(h)
    table.setMaximumHeight(h)


class PhonesView(QWidget):
    """The heatmap and the phone-confusion tables of one run."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._positions: Mapping[str, WordPosition] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        page = QWidget()
        # each table as tall as its rows (at most MAX_ROWS), the page scrolling on a short
        # screen: a table squeezed into a fixed share showed 1.5 rows under an empty box
        self.scroll = FitScrollArea(page)
        outer.addWidget(self.scroll)
        lay = QVBoxLayout(page)
        top = QHBoxLayout()
        top.addWidget(QLabel("Shared text:"))
        self.content = QComboBox()
        self.content.currentIndexChanged.connect(self._show_content)
        top.addWidget(self.content, 1)
        lay.addLayout(top)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        lay.addWidget(self.note)
        self.heatmap = QTableWidget()
        self.heatmap.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        lay.addWidget(self.heatmap)
        self.model_title = QLabel("Phone confusions of the model (reference → heard)")
        lay.addWidget(self.model_title)
        self.model = QTableWidget()
        self.model.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        lay.addWidget(self.model)
        self.annotated_title = QLabel("Annotated pronunciation errors (canonical → perceived)")
        lay.addWidget(self.annotated_title)
        self.annotated = QTableWidget()
        self.annotated.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        lay.addWidget(self.annotated)
        lay.addStretch(1)
        for t in (self.heatmap, self.model, self.annotated):
            t.setSizeAdjustPolicy(QTableWidget.SizeAdjustPolicy.AdjustIgnored)

    def set_result(self, run: AuditRun | None) -> None:
        """Show a run's ``word_positions``, ``phone_confusion`` and ``phone_annotations``."""
        self._positions = (run.word_positions if run is not None else None) or {}
        self.content.blockSignals(True)
        self.content.clear()
        for cid, h in self._positions.items():
            ref = h.reference if h.reference is not None else cid
            self.content.addItem(f"{ref[:80]} ({count(h.n_items, 'reading')})", cid)
        self.content.blockSignals(False)
        if self._positions:
            self.note.setText(
                "Share of each group's readings in which the model substituted "
                "or deleted each reference word. Descriptive, with n."
            )
            self._show_content(0)
        else:
            self.note.setText(
                "No text was read by more than one group in this run: the "
                "word-position heatmap needs a matched design."
            )
            self.heatmap.clear()
            self.heatmap.setRowCount(0)
            self.heatmap.setColumnCount(0)
        model = run.phone_confusion if run is not None else None
        self._fill(self.model, model.groups if model is not None else {})
        annotated = run.phone_annotations if run is not None else None
        ann = (annotated.confusion if annotated is not None else None) or {}
        self._fill(self.annotated, ann)
        self.annotated.setVisible(bool(ann))
        self.annotated_title.setVisible(bool(ann))
        self.heatmap.setVisible(bool(self._positions))  # no empty box: the note says why
        self.content.setEnabled(bool(self._positions))
        self.model_title.setVisible(self.model.rowCount() > 0)
        self.model.setVisible(self.model.rowCount() > 0)
        for t in (self.heatmap, self.model, self.annotated):
            fit_rows(t)
        self.scroll.fit()

    def _show_content(self, index: int) -> None:
        cid = self.content.itemData(index)
        h = self._positions.get(cid)
        if not h:
            return
        groups = list(h.groups)
        words = list(h.words)
        self.heatmap.clear()
        self.heatmap.setRowCount(len(groups))
        self.heatmap.setColumnCount(len(words))
        self.heatmap.setHorizontalHeaderLabels(words)
        self.heatmap.setVerticalHeaderLabels([f"{g} ({h.n.get(g)})" for g in groups])
        for r, g in enumerate(groups):
            for c, rate in enumerate(h.groups[g]):
                it = QTableWidgetItem(_pct(rate))
                it.setBackground(heat_color(rate))
                it.setForeground(QColor(0, 0, 0))
                err = (h.errors or {}).get(g, [None] * len(words))[c]
                it.setToolTip(f"{g}: '{words[c]}' lost in {err} of {count(h.n.get(g), 'reading')}")
                self.heatmap.setItem(r, c, it)
        self.heatmap.resizeColumnsToContents()
        fit_rows(self.heatmap)

    @staticmethod
    def _fill(table: QTableWidget, groups: Mapping[str, PhoneTable]) -> None:
        cols = ["group", "phones", "phone error rate"] + [f"#{i + 1}" for i in range(TOP)]
        table.clear()
        table.setColumnCount(len(cols))
        table.setHorizontalHeaderLabels(cols)
        table.setRowCount(len(groups))
        for r, (g, t) in enumerate(groups.items()):
            cells = [g, str(t.n_ref_phones), _pct(t.phone_error_rate)]
            for c in t.top[:TOP]:
                cells.append(
                    f"{c.ref}→{c.hyp} ×{c.count}"
                    + (f" ({_pct(c.rate)})" if c.rate is not None else "")
                )
            for k, text in enumerate(cells):
                table.setItem(r, k, QTableWidgetItem(text))
        table.resizeColumnsToContents()
