"""The Systems view of the results pane (docs/METHODS.md, "Comparing systems"): for a run that
is the baseline of a stored comparison of systems, the system × group table with CIs, one
card per gap difference with its sentence, the system differences, the classical cross-
checks and a chart of each system's per-group values with error bars, side by side.

It only renders the typed :class:`~fairdesk.stats.system_results.SystemComparisonResult`;
every string comes from :mod:`fairdesk.presentation.systems`."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...presentation import is_ratio, metric_label, metric_short, short_group
from ...presentation.systems import (
    GAP_WORDS,
    classical_line,
    comparison_head,
    comparison_metrics,
    difference_sentence,
    gap_sentence,
    system_rows,
    system_table,
)
from ...reports.palette import SYSTEM_VERDICT_COLOURS
from ..widgets.theme import SERIES, esc, plain_tip

#: What the view says for a run that is not the baseline of a comparison.
NO_COMPARISON = (
    "This run is not the baseline of a comparison of systems. To compare recognisers on "
    "the same items, audit with several models (fairdesk audit --model A --model B; the "
    "first is the baseline), pick a second model under “Compare with” in the Audit panel, "
    "or compare stored runs of one dataset with fairdesk compare --run N --run M."
)


def verdict_colours(verdict: str) -> tuple[QColor, QColor]:
    """Background and text colour of a system or gap verdict."""
    bg, fg = SYSTEM_VERDICT_COLOURS.get(verdict, ("#e0e0e0", "#1a1a1a"))
    return QColor(bg), QColor(fg)


def tint(colour: QColor, share: float = 0.3) -> QColor:
    """``colour`` mixed with white (``share`` of the colour): a table cell's background
    that keeps its text readable."""
    return QColor(
        *(round(255 - share * (255 - c)) for c in (colour.red(), colour.green(), colour.blue()))
    )


class GapCard(QFrame):
    """One gap difference: its verdict and its sentence, in the verdict cards' look."""

    def __init__(self, gap, parent=None):
        super().__init__(parent)
        self.gap = gap
        bg, fg = verdict_colours(gap.verdict)
        self.setObjectName("card")
        self.setStyleSheet(
            f"QFrame#card {{ background: {bg.name()}; border-radius: 7px; "
            f"border: 1px solid {bg.darker(125).name()}; }}"
            f"QFrame#card QLabel {{ color: {fg.name()}; background: transparent; }}"
        )
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Minimum)
        self.setMinimumWidth(220)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(9, 5, 9, 6)
        lay.setSpacing(2)
        word = GAP_WORDS.get(gap.verdict, gap.verdict)
        self.head = QLabel(
            f"<b>{esc(short_group(gap.group))} vs {esc(short_group(gap.reference))}</b>"
            f" · {esc(metric_short(gap.metric))} · <b>{esc(word)}</b>"
        )
        self.head.setTextFormat(Qt.RichText)
        self.sentence = QLabel(gap_sentence(gap))
        self.sentence.setTextFormat(Qt.PlainText)
        self.sentence.setWordWrap(True)
        lay.addWidget(self.head)
        lay.addWidget(self.sentence)
        self.setToolTip(plain_tip(gap_sentence(gap)))


class SystemValuePlot(pg.PlotWidget):
    """Each system's per-group value of one metric with its 95% CI, side by side."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(260)
        self.series: dict[str, int] = {}  # system → points drawn
        p = self.getPlotItem()
        p.setMenuEnabled(False)
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        p.showGrid(x=False, y=True, alpha=0.25)

    def set_rows(self, metric: str | None, rows: dict) -> None:
        """Draw ``rows`` (system → :class:`~fairdesk.presentation.rows.GroupRow` list, from
        :func:`fairdesk.presentation.systems.system_rows`)."""
        p = self.getPlotItem()
        p.clear()
        if p.legend is not None:
            p.legend.scene().removeItem(p.legend)
            p.legend = None
        self.series = {}
        if not metric or not rows:
            p.setTitle("")
            return
        p.setTitle(
            f"<b>{esc(metric_short(metric))}</b> by group and system "
            "<span style='color:#666'>(value and 95% CI)</span>",
            size="10pt",
        )
        legend = p.addLegend(offset=(8, 4), labelTextSize="9pt")
        labels = list(dict.fromkeys(r.label for rs in rows.values() for r in rs))
        n = len(rows)
        width = 0.62 / max(n, 1)
        nan = float("nan")
        spans = []
        for k, (system, rs) in enumerate(rows.items()):
            colour = SERIES[k % len(SERIES)]
            by_label = {r.label: r for r in rs}
            x = np.array([i + (k - (n - 1) / 2) * width for i in range(len(labels))])
            get = [by_label.get(lab) for lab in labels]
            y = np.array([r.value if r and r.value is not None else nan for r in get])
            lo = np.array([r.low if r and r.low is not None else nan for r in get])
            hi = np.array([r.high if r and r.high is not None else nan for r in get])
            ok = np.isfinite(y) & np.isfinite(lo) & np.isfinite(hi)
            if ok.any():
                p.addItem(
                    pg.ErrorBarItem(
                        x=x[ok],
                        y=y[ok],
                        top=(hi - y)[ok],
                        bottom=(y - lo)[ok],
                        beam=width * 0.5,
                        pen=pg.mkPen(colour, width=2),
                    )
                )
            fin = np.isfinite(y)
            scatter = pg.ScatterPlotItem(
                x=x[fin], y=y[fin], size=11, brush=pg.mkBrush(colour), pen=pg.mkPen("#263238")
            )
            p.addItem(scatter)
            legend.addItem(scatter, system)
            self.series[system] = int(fin.sum())
            spans += [y[fin], lo[ok], hi[ok]]
        ax = p.getAxis("bottom")
        ax.setTicks([[(float(i), lab) for i, lab in enumerate(labels)]])
        ax.setStyle(tickFont=QFont(QFont().family(), 9))
        left = p.getAxis("left")
        left.enableAutoSIPrefix(False)
        left.setLabel("lift (×)" if is_ratio(metric) else f"{metric_short(metric)} (%)")
        span = np.concatenate(spans) if spans else np.array([])
        if span.size:
            lo_, hi_ = float(span.min()), float(span.max())
            if not is_ratio(metric):
                lo_ = min(lo_, 0.0)
            pad = max(0.02 if is_ratio(metric) else 1.0, (hi_ - lo_) * 0.12)
            p.setYRange(lo_ - (pad * 0.3 if lo_ == 0 else pad), hi_ + pad * 2.2, padding=0)
        p.setXRange(-0.6, len(labels) - 0.4, padding=0)


def _heading(text: str) -> QLabel:
    lab = QLabel(text)
    lab.setObjectName("heading")
    return lab


class SystemsView(QWidget):
    """The comparison of systems stored with the shown run (its baseline), or a line
    saying how to make one. ``set_comparison(None)`` shows that line."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.comparison = None  # the StoredComparison shown
        self.cards: list[GapCard] = []
        self.empty = QLabel(NO_COMPARISON)
        self.empty.setWordWrap(True)
        self.empty.setObjectName("muted")
        self.empty.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.head = QLabel()
        self.head.setTextFormat(Qt.PlainText)
        self.head.setWordWrap(True)
        self.head.setObjectName("muted")
        self.head.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.metric_box = QComboBox()
        self.metric_box.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.metric_label = QLabel("Metric")
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.table.setSizeAdjustPolicy(QTableWidget.AdjustToContents)
        self.cards_host = QWidget()
        self.cards_grid = QGridLayout(self.cards_host)
        self.cards_grid.setContentsMargins(0, 0, 0, 0)
        self.cards_grid.setSpacing(8)
        self.differences = QLabel()
        self.differences.setTextFormat(Qt.RichText)
        self.differences.setWordWrap(True)
        self.differences.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.classical = QLabel()
        self.classical.setTextFormat(Qt.PlainText)
        self.classical.setWordWrap(True)
        self.classical.setObjectName("muted")
        self.classical.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.plot = SystemValuePlot()

        self.body = QWidget()
        bl = QVBoxLayout(self.body)
        bl.setContentsMargins(8, 6, 8, 8)
        bl.setSpacing(6)
        bl.addWidget(self.head)
        row = QHBoxLayout()
        row.addWidget(_heading("Systems by group"))
        row.addStretch(1)
        row.addWidget(self.metric_label)
        row.addWidget(self.metric_box)
        bl.addLayout(row)
        bl.addWidget(self.table)
        self.gaps_heading = _heading("Gap differences: is the other system fairer?")
        bl.addWidget(self.gaps_heading)
        bl.addWidget(self.cards_host)
        bl.addWidget(self.plot)
        bl.addWidget(_heading("System differences"))
        bl.addWidget(self.differences)
        bl.addWidget(self.classical)
        bl.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setWidget(self.body)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.empty)
        lay.addWidget(self.scroll, 1)
        self.metric_box.currentIndexChanged.connect(lambda _i: self._fill())
        self.set_comparison(None)

    @property
    def result(self):
        return self.comparison.result if self.comparison is not None else None

    def set_comparison(self, comparison) -> None:
        """Show a :class:`~fairdesk.jobs.system_run.StoredComparison` (None: the line
        saying how to make one)."""
        self.comparison = comparison
        has = comparison is not None
        self.empty.setVisible(not has)
        self.scroll.setVisible(has)
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        if has:
            for m in comparison_metrics(comparison.result):
                self.metric_box.addItem(metric_short(m), m)
                self.metric_box.setItemData(
                    self.metric_box.count() - 1, metric_label(m), Qt.ToolTipRole
                )
        self.metric_box.blockSignals(False)
        several = self.metric_box.count() > 1
        self.metric_box.setVisible(several)
        self.metric_label.setVisible(several)
        if has:
            res = comparison.result
            runs = ", ".join(
                f"{s} (run {rid})" if rid is not None else s
                for s, rid in zip(res.systems, comparison.run_ids)
            )
            self.head.setText("\n".join([f"Systems: {runs}.", *comparison_head(res)]))
        self._fill()

    def _fill(self) -> None:
        res = self.result
        metric = self.metric_box.currentData() if res is not None else None
        self._fill_table(res, metric)
        self._fill_cards(res, metric)
        self.plot.set_rows(metric, system_rows(res, metric) if metric else {})
        if res is None or metric is None:
            self.differences.setText("")
            self.classical.setText("")
            return
        lines = []
        for d in res.differences:
            if d.metric != metric:
                continue
            bg, fg = verdict_colours(d.verdict)
            lines.append(
                f"<span style='background:{bg.name()}; color:{fg.name()};'>&nbsp;&nbsp;</span>"
                f"&nbsp;{esc(difference_sentence(d))}"
            )
        self.differences.setText("<br>".join(lines))
        classical = [classical_line(c) for c in res.classical if c.metric == metric]
        self.classical.setText("\n".join(classical))
        self.classical.setVisible(bool(classical))

    def _fill_table(self, res, metric) -> None:
        t = self.table
        t.clear()
        if res is None or metric is None:
            t.setRowCount(0)
            t.setColumnCount(0)
            return
        head, rows = system_table(res, metric)
        t.setColumnCount(len(head))
        t.setHorizontalHeaderLabels(head)
        t.setRowCount(len(rows))
        bold = QFont(t.font())
        bold.setBold(True)
        n_sys = len(res.systems)
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                it = QTableWidgetItem(text)
                if j > 0:
                    it.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if j == 0 and (row[0] == "corpus" or "(reference)" in row[0]):
                    it.setFont(bold)
                if j > n_sys:  # a difference: coloured by its verdict
                    s = res.systems[j - n_sys]
                    g = res.groups[i] if i < len(res.groups) else None
                    try:
                        d = res.difference(s, metric, g)
                    except KeyError:
                        d = None
                    if d is not None:
                        it.setBackground(tint(verdict_colours(d.verdict)[0]))
                        it.setToolTip(plain_tip(difference_sentence(d)))
                t.setItem(i, j, it)
        hdr = t.horizontalHeader()
        hdr.setSectionResizeMode(QHeaderView.ResizeToContents)
        hdr.setStretchLastSection(False)
        t.resizeRowsToContents()
        h = t.horizontalHeader().sizeHint().height() + sum(
            t.rowHeight(r) for r in range(t.rowCount())
        )
        t.setFixedHeight(h + 2 * t.frameWidth() + 2)
        w = t.verticalHeader().width() + sum(t.columnWidth(c) for c in range(t.columnCount()))
        t.setMaximumWidth(w + 2 * t.frameWidth() + 4)  # no empty stretch beside the columns

    def _fill_cards(self, res, metric) -> None:
        while self.cards_grid.count():
            w = self.cards_grid.takeAt(0).widget()
            if w is not None:
                w.hide()
                w.setParent(None)
                w.deleteLater()
        self.cards = []
        gaps = [g for g in (res.gap_differences if res is not None else ()) if g.metric == metric]
        cols = 2 if len(gaps) > 1 else 1
        for k, g in enumerate(gaps):
            card = GapCard(g)
            self.cards_grid.addWidget(card, k // cols, k % cols)
            self.cards.append(card)
        self.gaps_heading.setVisible(bool(gaps))
        self.cards_host.setVisible(bool(gaps))
