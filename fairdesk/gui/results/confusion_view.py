"""Per-group confusion matrices (intents, or classifier labels) as heat-map tables."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...jobs.result import AuditRun
from ...jobs.result_parts import ConfusionMatrix
from ...presentation import fmt_percent, short_group
from ..widgets.theme import plain_tip

KINDS = {"intent_confusion": "Intents", "confusion": "Labels"}


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    t = max(0.0, min(1.0, t))
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


class ConfusionView(QWidget):
    """Choose the kind (intents / labels) and the group; rows are the true classes, columns
    the predicted ones. Diagonal cells shade blue, errors red, by the share of the row."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.kind = QComboBox()
        self.group = QComboBox()
        self.group.setMinimumWidth(200)
        self.accuracy = QLabel()
        self.accuracy.setObjectName("muted")
        self.accuracy.setTextFormat(Qt.PlainText)  # names a user's group
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        self.table.setShowGrid(True)
        self.table.verticalHeader().setDefaultSectionSize(30)
        self.empty = QLabel(
            "This run has no intent or label predictions, so there is no confusion matrix."
        )
        self.empty.setObjectName("muted")
        self.empty.setAlignment(Qt.AlignCenter)
        self.controls = QWidget()  # hidden with the table when the run has no matrix
        top = QHBoxLayout(self.controls)
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(QLabel("Matrix"))
        top.addWidget(self.kind)
        top.addSpacing(10)
        top.addWidget(QLabel("Group"))
        top.addWidget(self.group)
        top.addSpacing(10)
        top.addWidget(self.accuracy, 1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.controls)
        self.axis = axis = QLabel("rows: true class · columns: predicted class")
        axis.setObjectName("muted")
        lay.addWidget(axis)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.empty, 1)
        self._result: AuditRun | None = None
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.group.currentIndexChanged.connect(self._draw)

    def set_result(self, result: AuditRun | None) -> None:
        """Show a run's matrices."""
        self._result = result
        self.kind.blockSignals(True)
        self.kind.clear()
        for k, label in KINDS.items():
            if result is not None and self._matrices(k):
                self.kind.addItem(label, k)
        self.kind.blockSignals(False)
        has = self.kind.count() > 0
        for w in (self.table, self.controls, self.axis):
            w.setVisible(has)
        self.empty.setVisible(not has)
        self._kind_changed()

    def _matrices(self, kind: str | None) -> Mapping[str, ConfusionMatrix]:
        """group -> matrix of ``kind`` (``intent_confusion`` or ``confusion``) of the run."""
        if self._result is None or kind not in KINDS:
            return {}
        return getattr(self._result, kind) or {}

    def _kind_changed(self, *_):
        data = self._matrices(self.kind.currentData())
        self.group.blockSignals(True)
        self.group.clear()
        for g in data:
            self.group.addItem(short_group(g), g)
        self.group.blockSignals(False)
        self._draw()

    def set_group(self, group: str) -> None:
        i = self.group.findData(group)
        if i >= 0:
            self.group.setCurrentIndex(i)

    def _draw(self, *_):
        data = self._matrices(self.kind.currentData()).get(self.group.currentData())
        self.table.clear()
        if not data:
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            self.accuracy.setText("")
            return
        true, pred, matrix = data.true, data.predicted, data.matrix
        self.table.setRowCount(len(true))
        self.table.setColumnCount(len(pred))
        self.table.setHorizontalHeaderLabels([str(p) for p in pred])
        self.table.setVerticalHeaderLabels([str(t) for t in true])
        white, blue, red = QColor("#ffffff"), QColor("#1565c0"), QColor("#d32f2f")
        total = correct = 0
        for i, row in enumerate(matrix):
            n = sum(row) or 1
            for j, v in enumerate(row):
                diag = j < len(pred) and i < len(true) and str(pred[j]) == str(true[i])
                share = v / n
                bg = _mix(white, blue if diag else red, share if diag else min(1.0, share * 2.5))
                it = QTableWidgetItem(str(v) if v else "·")
                it.setTextAlignment(Qt.AlignCenter)
                it.setBackground(QBrush(bg))
                dark = (bg.red() * 0.299 + bg.green() * 0.587 + bg.blue() * 0.114) < 140
                it.setForeground(QBrush(QColor("#ffffff" if dark else "#222222")))
                it.setToolTip(
                    plain_tip(
                        f"true {true[i]} → predicted {pred[j]}: {v} of "
                        f"{sum(row)} ({fmt_percent(share, 0)} of the row)"
                    )
                )
                self.table.setItem(i, j, it)
                total += v
                correct += v if diag else 0
        hdr = self.table.horizontalHeader()
        hdr.setSectionResizeMode(QHeaderView.Stretch)
        hdr.setMinimumSectionSize(60)
        self.accuracy.setText(
            f"{self.group.currentData()}: {correct} of {total} correct "
            f"({fmt_percent(correct / max(1, total))})"
        )
