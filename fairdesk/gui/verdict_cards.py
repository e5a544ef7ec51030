"""Verdict cards: one per group × tested metric, coloured by the verdict, the plain-English
reading as tooltip and, for the selected card, as text below the grid."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from .charts import short_group
from .theme import (
    VERDICT_SHORT,
    VERDICTS,
    higher_is_better,
    metric_label,
    metric_short,
    pct,
    pvalue,
    verdict_style,
)


class VerdictCard(QFrame):
    """One comparison: gap and CI, the verdict, the reading as tooltip."""

    clicked = Signal(dict)

    def __init__(self, comparison: dict, parent=None):
        super().__init__(parent)
        self.comparison = comparison
        c = comparison
        label, bg, fg = verdict_style(c.get("verdict", ""))
        self.verdict_label = label
        self.setObjectName("card")
        self.setCursor(Qt.PointingHandCursor)
        self.setStyleSheet(
            f"QFrame#card {{ background: {bg.name()}; border-radius: 7px; "
            f"border: 1px solid {bg.darker(125).name()}; }}"
            f"QFrame#card QLabel {{ color: {fg.name()}; background: transparent; }}")
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setMinimumWidth(150)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 4, 10, 4)
        lay.setSpacing(1)
        gap = pct(c.get("gap"), 1, signed=True).replace("%", " pp")
        ci = ""
        if c.get("ci_low") is not None and c.get("ci_high") is not None:
            ci = (f"[{pct(c['ci_low'], 1, signed=True)[:-1]}, "
                  f"{pct(c['ci_high'], 1, signed=True)[:-1]}]")
        direction = c.get("direction")
        arrow = {"worse": " ▼ worse", "better": " ▲ better"}.get(direction, "")
        vals = QLabel(f"<span style='font-size:15px'><b>{gap}</b></span> {ci}")
        sub = QLabel(f"{pct(c.get('value'))} vs {pct(c.get('reference_value'))} · "
                     f"p<sub>adj</sub> {pvalue(c.get('p_adjusted'))}")
        short = VERDICT_SHORT.get(c.get("verdict", ""), label)
        verdict = QLabel(f"<b>{short}</b>{arrow}")
        for w in (vals, sub, verdict):
            w.setTextFormat(Qt.RichText)
            lay.addWidget(w)
        self.setToolTip(c.get("reading") or label)

    def mousePressEvent(self, event):  # noqa: N802 - Qt API
        self.clicked.emit(self.comparison)
        super().mousePressEvent(event)


class VerdictCards(QWidget):
    """The grid of cards: a row per tested metric, a column per compared group."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.cards: list[VerdictCard] = []
        self.legend = QHBoxLayout()
        self.legend.setSpacing(12)
        for key, (label, bg, _fg) in VERDICTS.items():
            if key == "not_computable":
                continue
            sw = QLabel()
            sw.setFixedSize(14, 14)
            sw.setStyleSheet(f"background:{bg}; border-radius:3px;")
            self.legend.addWidget(sw)
            t = QLabel(label)
            t.setObjectName("muted")
            self.legend.addWidget(t)
        self.legend.addStretch(1)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(8)
        self.grid.setContentsMargins(2, 2, 2, 2)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setWidget(self.grid_host)
        self.reading = QLabel()
        self.reading.setWordWrap(True)
        self.reading.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.reading.setStyleSheet("background:#f3f5f8; border:1px solid #d9dde2; "
                                   "border-radius:5px; padding:7px;")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(self.legend)
        lay.addWidget(scroll, 1)
        lay.addWidget(self.reading)

    def set_result(self, result: dict | None) -> None:
        while self.grid.count():
            w = self.grid.takeAt(0).widget()
            if w is not None:  # hide at once: deleteLater waits for the event loop
                w.hide()
                w.setParent(None)
                w.deleteLater()
        self.cards = []
        self.reading.setText("")
        if not result:
            return
        comps = result.get("comparisons") or []
        metrics = [m for m in result.get("tested_metrics") or [] if
                   any(c["metric"] == m for c in comps)]
        groups = list(dict.fromkeys(c["group"] for c in comps))
        for j, g in enumerate(groups):
            h = QLabel(f"<b>{short_group(g)}</b>")
            h.setAlignment(Qt.AlignCenter)
            h.setToolTip(g)
            self.grid.addWidget(h, 0, j + 1)
        for i, m in enumerate(metrics):
            lab = QLabel(f"<b>{metric_short(m)}</b><br><span style='color:#5f6b7a'>"
                         f"{'higher' if higher_is_better(m) else 'lower'} is better</span>")
            lab.setToolTip(metric_label(m))
            lab.setMinimumWidth(112)
            self.grid.addWidget(lab, i + 1, 0)
            for j, g in enumerate(groups):
                c = next((x for x in comps if x["metric"] == m and x["group"] == g), None)
                if c is None:
                    continue
                card = VerdictCard(c)
                card.clicked.connect(self.show_reading)
                self.grid.addWidget(card, i + 1, j + 1)
                self.cards.append(card)
        self.grid.setRowStretch(len(metrics) + 1, 1)
        worst = _most_severe(comps)
        if worst is not None:
            self.show_reading(worst)

    def preferred_height(self) -> int:
        """Height that shows every card without scrolling (legend and reading included)."""
        grid = self.grid_host.sizeHint().height() + 6
        return grid + self.reading.sizeHint().height() + 40

    def show_reading(self, c: dict) -> None:
        label = verdict_style(c.get("verdict", ""))[0]
        flags = ", ".join(c.get("flags") or [])
        self.reading.setText(
            f"<b>{metric_short(c['metric'])} · {c['group']}</b> — <i>{label}</i><br>"
            f"{c.get('reading') or ''}" + (f"<br><i>flags: {flags}</i>" if flags else ""))


def _most_severe(comps: list[dict]) -> dict | None:
    order = {k: i for i, k in enumerate(VERDICTS)}
    return min(comps, key=lambda c: (order.get(c.get("verdict"), 99),
                                     -abs(c.get("gap") or 0)), default=None)
