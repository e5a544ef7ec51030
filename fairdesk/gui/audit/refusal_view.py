"""The Audit panel's view of a refusal by the minimums: the groups in a table (items,
speakers, the minimum each misses) and the controls of the form to change, never the
command line's flags.

The numbers come from the job's typed refusal
(:class:`fairdesk.stats.minimums.MinimumsRefused`, its ``shortfall``), the same object whose
text ``fairdesk audit`` prints.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...presentation import count

#: The Audit panel's labels of the controls a refusal names (the form uses these too).
ITEMS_FIELD = "Min. items per group"
SPEAKERS_FIELD = "Min. speakers per group"
FILTERS_FIELD = "Only items with"
SAMPLE_FIELD = "Sample"

COLUMNS = ("Group", "Items", "Speakers", "Misses")


def misses_text(row, short) -> str:
    """What a group misses, e.g. ``items: 10 < 30; speakers: 3 < 5`` (``meets both``)."""
    parts = []
    if row.few_items:
        parts.append(f"items: {row.items} < {short.min_items}")
    if row.few_speakers:
        parts.append(f"speakers: {row.speakers} < {short.min_speakers}")
    if parts:
        return "; ".join(parts)
    return "meets both" if short.has_speakers else "meets it"


def advice_html(short, *, sample: int | None = None, filtered: bool = False) -> str:
    """What to change in the form (rich text, escaped), and what a lower minimum costs."""
    from ...presentation.minimums_words import lower_minimum_cost

    b = lambda name: f"<b>{html.escape(name)}</b>"  # noqa: E731 - a local label formatter
    steps = []
    if short.lower_items is not None:
        steps.append(f"lower {b(ITEMS_FIELD)} (Statistics) to {short.lower_items}")
    if short.lower_speakers is not None:
        steps.append(f"lower {b(SPEAKERS_FIELD)} (Statistics) to {short.lower_speakers}")
    if sample and any(r.few_items for r in short.excluded):
        steps.append(f"raise {b(SAMPLE_FIELD)} (now {sample} per group) or clear it")
    if filtered:
        steps.append(f"remove a row of {b(FILTERS_FIELD)} (the filters leave fewer items)")
    if not steps:
        return html.escape(
            "The minimums cannot go lower for the excluded group(s): record more items "
            "(a group without a known speaker can't meet a speakers minimum of 1)."
        )
    text = "To analyse every group, " + ", or ".join(steps) + ", or record more. "
    if short.lower_items is None and short.lower_speakers is None:
        return text
    return text + html.escape(lower_minimum_cost(short.has_speakers))


class RefusalView(QWidget):
    """The refusal's headline, its table of groups and the advice; hidden until shown.

    Signals
    -------
    use_minimums(int, int) : the user asked for the suggested minimums (items, speakers;
        the current value where that minimum excludes no group).
    """

    use_minimums = Signal(int, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.short = None
        self.title = QLabel()  # one line: the details are in the table and the advice
        self.title.setTextFormat(Qt.RichText)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        self.table.verticalHeader().setVisible(False)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeToContents)
        head.setStretchLastSection(True)
        # a text browser, not a wrapped label: it keeps its height in a tight splitter pane
        # (and scrolls), where a label's height-for-width is not honoured and overlaps
        self.advice = QTextBrowser()
        self.advice.setFrameShape(QFrame.NoFrame)
        self.advice.setOpenLinks(False)
        self.advice.viewport().setAutoFillBackground(False)
        self.advice.setStyleSheet("QTextBrowser { background: transparent; }")
        lines = self.advice.fontMetrics().lineSpacing()
        self.advice.setFixedHeight(int(lines * 4.6) + 8)
        self.advice_html = ""
        self.apply = QPushButton("Use these minimums")
        self.apply.setToolTip("set the Statistics minimums to the values suggested above")
        self.apply.clicked.connect(self._apply)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        row = QHBoxLayout()  # the table, and beside it the button that applies the advice
        row.addWidget(self.table, 1)
        row.addWidget(self.apply, 0, Qt.AlignBottom)
        lay.addLayout(row)
        lay.addWidget(self.advice)
        self.setVisible(False)

    def show_refusal(self, short, *, sample: int | None = None, filtered: bool = False) -> None:
        """Fill the view from a :class:`fairdesk.stats.minimums.Shortfall` and show it."""
        self.short = short
        n_ex, n_all = len(short.excluded), len(short.rows)
        left = ": nothing is left to compare" if len(short.kept) < 2 else ""
        mins = f"{ITEMS_FIELD} {short.min_items}" + (
            f", {SPEAKERS_FIELD} {short.min_speakers}" if short.has_speakers else ""
        )
        self.title.setText(
            "<span style='color:#c62828'><b>Audit refused:</b></span> "
            + html.escape(f"the minimums exclude {n_ex} of {count(n_all, 'group')}{left}.")
        )
        self.title.setToolTip(f"the minimums: {mins}")
        self.table.setRowCount(n_all)
        for i, r in enumerate(short.rows):
            cells = (
                r.group,
                str(r.items),
                "no speaker ids" if r.speakers is None else str(r.speakers),
                misses_text(r, short),
            )
            for j, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                if j in (1, 2):
                    cell.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if (
                    (j == 1 and r.few_items)
                    or (j == 2 and r.few_speakers)
                    or (j == 3 and r.excluded)
                ):
                    cell.setForeground(Qt.red)
                self.table.setItem(i, j, cell)
        self.table.resizeRowsToContents()
        rows_shown = min(n_all, 5)
        head = max(self.table.horizontalHeader().sizeHint().height(), self.fontMetrics().height())
        body = sum(self.table.rowHeight(i) for i in range(rows_shown))
        self.table.setFixedHeight(head + body + 2 * self.table.frameWidth() + 2)
        self.advice_html = advice_html(short, sample=sample, filtered=filtered)
        self.advice.setHtml(self.advice_html)
        self.apply.setVisible(short.lower_items is not None or short.lower_speakers is not None)
        self.setVisible(True)

    def clear(self) -> None:
        self.short = None
        self.table.setRowCount(0)
        self.setVisible(False)

    def _apply(self) -> None:
        s = self.short
        if s is None:
            return
        self.use_minimums.emit(
            s.lower_items if s.lower_items is not None else s.min_items,
            s.lower_speakers if s.lower_speakers is not None else s.min_speakers,
        )
