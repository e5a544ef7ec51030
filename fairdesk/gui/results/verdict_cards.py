"""Verdict cards: one per group × tested metric, coloured by the verdict, the plain-English
reading as tooltip and, for the selected card, as text below the grid."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...jobs.result import AuditRun
from ...presentation import (
    comparison_basis,
    direction_word,
    fmt_ci,
    fmt_gap,
    fmt_p,
    fmt_value,
    higher_is_better,
    metric_label,
    metric_short,
    short_group,
)
from ...presentation.estimability_words import reason_text, sample_text
from ...presentation.pitfalls import note_text
from ...presentation.plans import followup_sentence, followup_short, plan_sentence
from ...presentation.readings import reading as comparison_reading
from ...presentation.warnings import coded_warnings
from ...stats.results import Comparison
from ..widgets.card_columns import ColumnsLayout
from ..widgets.theme import VERDICT_SHORT, VERDICTS, esc, plain_tip, verdict_style

#: Verdicts that test nothing: the card says why instead of showing a gap.
#: Verdicts that found a gap (p_adjusted < alpha): they may call a group worse or better.
#: The most lines of the reading below the cards shown at once (a longer one scrolls).
READING_LINES = 4
#: ... and where two rows of cards would not be in sight above that many (the Regression
#: sub-tab's four result rows at 1024x700 left 1.7 rows of cards), the least.
READING_TIGHT_LINES = 3

UNTESTED = frozenset({"descriptive", "not_estimable", "no_variation", "not_computable"})


class VerdictCard(QFrame):
    """One comparison: gap and CI, the two values, p_adj, the verdict; the reading as
    tooltip. Labels keep their full width (the grid scrolls), so p_adj is never clipped."""

    clicked = Signal(object)  # the card's Comparison
    plan_requested = Signal(object)  # the card's ComparisonPlan (its Plan is card.plan)

    def __init__(
        self,
        comparison: Comparison,
        parent=None,
        plan=None,
        comparison_plan=None,
        followup=None,
        reading: str = "",
    ):
        super().__init__(parent)
        # the comparison's reading in words (fairdesk.presentation.readings.reading)
        self.reading_text = reading
        # the recording plan made for this comparison, when the run audits its recordings
        self.followup = followup
        self.comparison = c = comparison
        # an underpowered comparison's recording plan: the sentence every view ends it with
        self.plan, self.comparison_plan = plan, comparison_plan
        self.plan_text = (
            plan_sentence(comparison_plan, plan) if comparison_plan is not None else None
        )
        verdict = c.verdict or ""
        label, bg, fg = verdict_style(verdict)
        self.verdict_label = label
        self.setObjectName("card")
        self.setCursor(Qt.PointingHandCursor)
        self._style = (
            f"QFrame#card {{ background: {bg.name()}; border-radius: 7px; "
            f"border: 1px solid {bg.darker(125).name()}; padding: 2px; }}"
            f"QFrame#card QLabel {{ color: {fg.name()}; background: transparent; }}"
        )
        self.setStyleSheet(self._style)
        policy = QSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        policy.setHeightForWidth(True)  # its lines share columns on a wide card
        self.setSizePolicy(policy)
        # no explicit minimum width: it would override the labels' (a card squeezed to 140 px
        # cut its CI "[-72.1 pp, +" and its plan button at 1024 px); the grid scrolls instead
        lay = QVBoxLayout(self)
        lay.setContentsMargins(9, 4, 9, 4)
        lay.setSpacing(0)
        m = c.metric or ""
        # the card names its group and metric itself: the grid's row and column labels
        # scroll out of view, and a card reading "-0.7 pp" of no group misleads
        self.title = QLabel(f"{short_group(c.group)} · {metric_short(m)}")
        self.title.setTextFormat(Qt.PlainText)  # a user's group name, never HTML
        self.title.setToolTip(plain_tip(f"{c.group}: {metric_label(m)}"))
        tf = QFont(self.title.font())
        tf.setBold(True)
        self.title.setFont(tf)
        lay.addWidget(self.title)
        arrow = _direction_word(verdict, c.direction, c.gap)
        short = VERDICT_SHORT.get(verdict, label)
        if verdict in UNTESTED:
            reason = reason_text(c.reason) or reading or label
            head = QLabel(f"<b>{esc(short)}</b>")
            # short: a card's width is its longest line, and the reading below says it all
            why = QLabel(esc(_clip(str(reason), 30)))
            vals = QLabel(f"{esc(fmt_value(m, c.value))} vs {esc(fmt_value(m, c.reference_value))}")
            self.labels = [head, why, vals]
            if verdict == "descriptive":  # the values and their basis E, no test
                why.setText(esc(comparison_basis(c)))
        else:
            # the gap, then its CI on a line of its own: side by side they made a card too
            # wide for five groups on a laptop
            # the CI on a line of its own where the card is narrow, beside the gap where the
            # card has the width (the card's lines pack: ColumnsLayout)
            gap = QLabel(f"<span style='font-size:15px'><b>{fmt_gap(m, c.gap)}</b></span>")
            ci = QLabel(f"<span style='color:#37474f'>CI {fmt_ci(m, c.ci_low, c.ci_high)}</span>")
            # the two values and p_adj on one line: no wider than the verdict's line, and a
            # line shorter (a card in one column was seven lines tall)
            vals = QLabel(
                f"{fmt_value(m, c.value)} vs {fmt_value(m, c.reference_value)}"
                f" · p<sub>adj</sub> {fmt_p(c.p_adjusted)}"
            )
            head = QLabel(f"<b>{esc(short)}</b>{arrow}")
            self.labels = [gap, ci, vals, head]
            if c.basis is not None:
                self.labels.append(QLabel(esc(comparison_basis(c))))
        if c.sample:  # a metric compared on a sample names it (the grounding lift's)
            self.labels.append(QLabel(esc(f"on {sample_text(c.sample)}")))
        if followup is not None:  # the MDE now beside the plan's prediction
            self.followup_label = QLabel(esc(followup_short(followup)))
            self.followup_label.setToolTip(plain_tip(followup_sentence(followup)))
            self.labels.append(self.followup_label)
        # the lines in one column on a narrow card, in two or three on a wide one (a card
        # as wide as the pane was seven lines tall: two rows did not fit a laptop's pane)
        self.body = QWidget()
        self.lines = ColumnsLayout(self.body)
        self.lines.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.body)
        for w in self.labels:
            # no word wrap: a label's minimum width is its text, so the grid scrolls
            # sideways on a narrow window instead of cutting p_adj off
            w.setTextFormat(Qt.RichText)
            self.lines.addWidget(w)
        self.p_adj_label = self.labels[2] if verdict not in UNTESTED else None
        self.plan_button = None
        if self.plan_text is not None:
            b = QToolButton()
            b.setText("Plan: how many speakers ▸")
            b.setToolTip(plain_tip(self.plan_text + " Click for the MDE-versus-speakers chart."))
            b.setCursor(Qt.PointingHandCursor)
            b.setStyleSheet(
                "QToolButton { border: 1px solid #546e7a; border-radius: 4px; padding: 0px 5px;"
                " background: #eceff1; color: #1a1a1a; }"
            )
            b.clicked.connect(lambda: self.plan_requested.emit(self.comparison_plan))
            self.lines.addWidget(b)
            self.plan_button = b
        tip = reading or reason_text(c.reason) or label
        tip += f" {self.plan_text}" if self.plan_text else ""
        tip += f" {followup_sentence(followup)}" if followup is not None else ""
        self.setToolTip(plain_tip(tip))

    def set_selected(self, on: bool) -> None:
        # as wide a border and padding together as an unselected card's: selecting a card
        # never re-sets its lines in other columns
        extra = "QFrame#card { border: 3px solid #0d47a1; padding: 0px; }" if on else ""
        self.setStyleSheet(self._style + extra)

    def mousePressEvent(self, event):  # noqa: N802 - Qt API
        self.clicked.emit(self.comparison)
        super().mousePressEvent(event)


def _direction_word(verdict: str, direction, gap) -> str:
    """The card's direction (:func:`fairdesk.presentation.direction_word`), after a space."""
    word = direction_word(verdict, direction, gap)
    return f" {word}" if word else ""


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


class VerdictCards(QWidget):
    """The grid of cards: a row per tested metric, a column per compared group.

    Signals
    -------
    plan_requested(object, object) : a card's plan button: (ComparisonPlan, Plan).
    """

    plan_requested = Signal(object, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plan = None
        self.cards: list[VerdictCard] = []
        self.selected: Comparison | None = None
        self.n_rows = 0  # rows of cards (one per tested metric)
        self.legend = QHBoxLayout()
        self.legend.setSpacing(12)
        for key, (label, bg, _fg) in VERDICTS.items():
            if key in ("not_computable", "no_variation", "descriptive"):
                continue
            sw = QLabel()
            sw.setFixedSize(14, 14)
            sw.setStyleSheet(f"background:{bg}; border-radius:3px;")
            self.legend.addWidget(sw)
            t = QLabel(VERDICT_SHORT.get(key, label))
            t.setToolTip(label)
            t.setObjectName("muted")
            self.legend.addWidget(t)
        self.legend.addStretch(1)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(8)
        self.grid.setContentsMargins(2, 2, 2, 2)
        self.scroll = scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setWidget(self.grid_host)
        # the annotators' agreement beside the diacritic comparisons (several versions)
        self.agreed = None  # the AgreementResult shown, or None
        self.run: AuditRun | None = None  # the run whose cards are shown
        self.resampled = False
        self.agreement = QLabel()
        self.agreement.setObjectName("muted")
        self.agreement.setWordWrap(True)
        self.agreement.setTextFormat(Qt.PlainText)
        self.agreement.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.agreement.setVisible(False)
        self.reading = QLabel()
        self.reading.setWordWrap(True)
        self.reading.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.reading.setTextFormat(Qt.RichText)
        self.reading.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.reading.setStyleSheet("QLabel { background: transparent; padding: 6px; }")
        # the reading scrolls past READING_LINES lines: a long one (seven lines at 1024 px)
        # took the room of a row of cards
        self.reading_box = box = QScrollArea()
        box.setObjectName("reading")
        box.setWidgetResizable(True)
        box.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        box.setStyleSheet(
            "QScrollArea#reading { background:#f3f5f8; border:1px solid #d9dde2;"
            " border-radius:5px; } QScrollArea#reading > QWidget > QWidget"
            " { background: transparent; }"
        )
        box.setWidget(self.reading)
        box.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        lay.addLayout(self.legend)
        lay.addWidget(scroll, 1)
        lay.addWidget(self.agreement)
        lay.addWidget(box)
        self._chosen = False  # the reading's card was clicked (else: the run's default)
        self._fit_reading()

    def set_result(self, run: AuditRun | None, followups=()) -> None:
        """One card per tested metric × compared group of a run; ``followups``: the recording plans it follows up
        (:func:`fairdesk.jobs.recording_plan.plan_followups`), each on its comparison's card."""
        while self.grid.count():
            w = self.grid.takeAt(0).widget()
            if w is not None:  # hide at once: deleteLater waits for the event loop
                w.hide()
                w.setParent(None)
                w.deleteLater()
        self.cards = []
        self.warnings: tuple[str, ...] = ()
        self.reading.setText("")
        self._chosen = False
        self.n_rows = 0
        self.agreed, self.resampled, self.run = None, False, None
        self.agreement.setText("")
        self.agreement.setVisible(False)
        self._fit_reading()
        if run is None:
            return
        self.run = run
        comps = run.comparisons
        self.plan = run.plan
        # the run's typed warnings (no speaker ids ...) under every card's reading
        self.warnings = coded_warnings(run)
        plans = {(cp.metric, cp.group): cp for cp in (run.plan.comparisons if run.plan else ())}
        metrics = [m for m in run.tested_metrics if any(c.metric == m for c in comps)]
        groups = list(dict.fromkeys(c.group for c in comps))
        # no row of group names above the cards: each card names its group and metric
        # itself (a header row scrolled out of sight left cards reading "-0.7 pp" of no group)
        for i, m in enumerate(metrics):
            lab = QLabel(
                f"<b>{esc(metric_short(m))}</b><br><span style='color:#5f6b7a'>"
                f"{'higher' if higher_is_better(m) else 'lower'} is better</span>"
            )
            lab.setToolTip(plain_tip(metric_label(m)))
            lab.setMinimumWidth(100)
            self.grid.addWidget(lab, i, 0)
            for j, g in enumerate(groups):
                c = next((x for x in comps if x.metric == m and x.group == g), None)
                if c is None:
                    continue
                up = next(
                    (f for f in followups if (f.prediction.metric, f.prediction.group) == (m, g)),
                    None,
                )
                card = VerdictCard(
                    c,
                    plan=run.plan,
                    comparison_plan=plans.get((m, g)),
                    followup=up,
                    reading=comparison_reading(c, run),
                )
                card.clicked.connect(self.show_reading)
                card.plan_requested.connect(
                    lambda cp, _card=card: self.plan_requested.emit(cp, _card.plan)
                )
                self.grid.addWidget(card, i, j + 1)
                self.cards.append(card)
        # the cards of one shape (the same lines) share their lines' widths: each sets its
        # lines in the same columns, whatever its numbers' widths
        shapes: dict[int, list] = {}
        for card in self.cards:
            shapes.setdefault(card.lines.count(), []).append(card)
        for same in shapes.values():
            widths = [max(w) for w in zip(*(k.lines.line_widths() for k in same))]
            for card in same:
                card.lines.shared_widths = widths
                card.lines.invalidate()
        self.grid.setRowStretch(len(metrics), 1)
        self.n_rows = len(metrics)
        worst = _most_severe(comps)
        if worst is not None:
            # the most severe card's reading, the grid at its top: a new run opens at its
            # first row, every card naming its group (item 4 of issue 45)
            self.show_reading(worst, reveal=False)
        self.to_top()
        QTimer.singleShot(0, self.to_top)  # again once the cards are laid out

    def to_top(self) -> None:
        """Scroll the cards to their first row and column, unless a card was clicked since
        the run was shown (then its card stays in view)."""
        if not self._chosen:
            self.scroll.verticalScrollBar().setValue(0)
            self.scroll.horizontalScrollBar().setValue(0)

    def reveal(self) -> None:
        """Scroll the card the user chose (the one the reading describes) into view; the
        run's default reading leaves the grid at its top."""
        if not self._chosen:
            self.to_top()
            return
        for card in self.cards:
            if card.comparison is self.selected:
                self.scroll.ensureWidgetVisible(card, 4, 4)

    def _fit_reading(self) -> None:
        """The reading's box: as tall as its text, at most :data:`READING_LINES` lines
        where the cards need the room (then it scrolls), the whole text where every card is
        in sight above it; hidden when there is none."""
        box = self.reading_box
        if not self.reading.text():
            box.setFixedHeight(0)
            box.setVisible(False)
            return
        box.setVisible(True)
        text = self._reading_text_height()
        pitch, pad = self._line_pitch(), 12 + 2 * box.frameWidth()

        def below(rows: int | None) -> int:  # the room under ``rows`` rows, in whole lines
            left = self.height() - self.legend.sizeHint().height() - self._grid_height(rows)
            return pad + max(left - 2 * self._gap() - pad, 0) // pitch * pitch

        cap = self._reading_cap()
        if below(2) < cap:  # two rows of cards in sight before the reading's last lines
            cap = max(self._reading_cap(READING_TIGHT_LINES), below(2))
        box.setFixedHeight(min(text, max(cap, below(None))))

    def _grid_height(self, rows: int | None = None) -> int:
        """The height of the grid's ``rows`` tallest rows of cards (None: all of them)."""
        heights = sorted((self._row_height(i) for i in range(self.n_rows)), reverse=True)
        heights = heights if rows is None else heights[:rows]
        return sum(heights) + max(len(heights) - 1, 0) * self._spacing() + 4

    def _gap(self) -> int:
        return max(self.layout().spacing(), 0)

    def _reading_text_height(self) -> int:
        """The reading's whole height (frame included) at the box's width."""
        box = self.reading_box
        width = max(200, box.viewport().width() or self.width())
        return max(self.reading.heightForWidth(width), 0) + 2 * box.frameWidth()

    def _reading_cap(self, lines: int = READING_LINES) -> int:
        """The reading's height when the cards need the room: ``lines`` lines at most."""
        cap = lines * self._line_pitch() + 12  # whole lines, the padding around
        return min(self._reading_text_height(), cap + 2 * self.reading_box.frameWidth())

    def _line_pitch(self) -> int:
        """The height of a line of the reading's rich text (a line more, less a line)."""
        probe = QLabel()
        probe.setFont(self.reading.font())
        probe.setTextFormat(Qt.RichText)
        probe.setText("x<br>x")
        two = probe.heightForWidth(1000)
        probe.setText("x")
        return max(two - probe.heightForWidth(1000), self.reading.fontMetrics().height())

    def resizeEvent(self, event):  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._fit_reading()

    def _reading_height(self) -> int:
        return self._reading_cap() if self.reading.text() else 0

    def preferred_height(self) -> int:
        """Height that shows every card without scrolling (legend and reading included)."""
        rows = [self._row_height(i) for i in range(self.n_rows)]
        grid = sum(rows) + max(len(rows) - 1, 0) * self._spacing() + 4
        return self.legend.sizeHint().height() + grid + self._reading_height() + 24

    def one_row_height(self) -> int:
        """Height that shows the legend, one row of cards and the reading."""
        return self.rows_height(1)

    def rows_height(self, rows: int) -> int:
        """Height that shows the legend, ``rows`` rows of cards (fewer if there are fewer) and
        the reading."""
        n = max(1, min(rows, self.n_rows))
        # the tallest rows: any two rows in sight, wherever the grid is scrolled
        heights = sorted((self._row_height(i) for i in range(self.n_rows)), reverse=True)
        grid = sum(heights[:n]) + n * self._spacing() + 4
        return self.legend.sizeHint().height() + grid + self._reading_height() + 24

    def _spacing(self) -> int:
        return max(self.grid.verticalSpacing(), 0)

    def _row_height(self, row: int) -> int:
        """The height of a row of cards at their width (their lines share columns on a
        wide card); before the cards are laid out, at the width the row will give them."""
        cards = [
            it.widget()
            for j in range(1, self.grid.columnCount())
            if (it := self.grid.itemAtPosition(row, j)) is not None
        ]
        if not cards:
            return 0
        n = max(self.grid.columnCount() - 1, 1)
        label = self.grid.itemAtPosition(row, 0)
        label_w = label.sizeHint().width() if label is not None else 0
        vp = self.scroll.viewport().width() or self.width()
        share = (vp - label_w - n * self.grid.horizontalSpacing() - 4) // n
        return max(
            c.heightForWidth(max(share, c.minimumSizeHint().width()))
            if c.hasHeightForWidth()
            else c.sizeHint().height()
            for c in cards
        )

    def set_agreement(self, result, resampled: bool = False) -> None:
        """Show the annotators' agreement (an :class:`~fairdesk.stats.agreement.
        AgreementResult`; None: none) beside the diacritic comparisons: a line per group
        under the cards, and in a diacritic comparison's reading its group's
        (:func:`fairdesk.presentation.agreement.comparison_agreement`)."""
        from ...presentation.agreement import agreement_line, is_diacritic

        dia = [c for c in (k.comparison for k in self.cards) if is_diacritic(c.metric)]
        self.agreed = result if dia else None
        self.resampled = resampled
        if self.agreed is None:
            self.agreement.setVisible(False)
            return
        lines = [f"Annotators' agreement ({', '.join(result.annotators)}), beside the "
                 f"diacritic comparisons: {agreement_line(result.overall)}"]  # fmt: skip
        lines += [f"{result.by} = {g.group}: {agreement_line(g)}" for g in result.groups]
        self.agreement.setText("\n".join(lines))
        self.agreement.setVisible(True)
        if self.selected is not None:
            self.show_reading(self.selected, reveal=False)

    def show_reading(self, c: Comparison, reveal: bool = True) -> None:
        """Show ``c``'s reading below the grid and select its card; ``reveal``: scroll it
        into view (a clicked card, never hidden by the reading it asked for)."""
        label = verdict_style(c.verdict or "")[0]
        flags = ", ".join(c.flags or ())
        card = next((k for k in self.cards if k.comparison is c), None)
        if card is not None:
            body = card.reading_text
        else:
            body = comparison_reading(c, self.run) if self.run is not None else ""
        body = body or reason_text(c.reason) or ""
        wf = without_flagged_text(c)
        if card is not None and card.plan_text:
            body = f"{body} {card.plan_text}"
        up = card.followup if card is not None else None
        self.reading.setText(
            f"<b>{esc(metric_short(c.metric))} · {esc(c.group)}</b> — <i>{esc(label)}"
            f"</i><br>{esc(body)}"
            + (f"<br><i>flags: {esc(flags)}</i>" if flags else "")
            + (f"<br><span style='color:#7c2d12'>{esc(wf)}</span>" if wf else "")
            + (f"<br><b>{esc(followup_sentence(up))}</b>" if up is not None else "")
            + (f"<br><i>{esc(self._agreement_of(c))}</i>" if self._agreement_of(c) else "")
            + "".join(f"<br><span style='color:#7c2d12'>{esc(w)}</span>" for w in self.warnings)
        )
        self.selected = c
        self._chosen = self._chosen or reveal
        self._fit_reading()
        self.reading_box.verticalScrollBar().setValue(0)
        for card in self.cards:
            on = card.comparison is c
            card.set_selected(on)
            if on and reveal:
                self.scroll.ensureWidgetVisible(card, 4, 4)

    def _agreement_of(self, c: Comparison) -> str:
        """The agreement beside ``c`` when it is a diacritic comparison ("" otherwise)."""
        from ...presentation.agreement import comparison_agreement, is_diacritic

        if self.agreed is None or not is_diacritic(c.metric):
            return ""
        return comparison_agreement(self.agreed, c.group, self.resampled)


def ask_agreement(cards: VerdictCards, ctx, run: AuditRun | None):
    """Compute, in a job, the annotators' agreement on ``run``'s dataset
    (:func:`fairdesk.jobs.agreement.run_agreement`) and show it beside the cards' diacritic
    comparisons when it arrives for the run still shown; returns the job (None: nothing to
    ask: no run, project or diacritic comparison)."""
    from ...jobs import tasks
    from ...presentation.agreement import is_diacritic, resampled_run
    from ..jobs import Job

    if run is None or ctx.folder is None or not run.dataset:
        return None
    if not any(is_diacritic(c.metric) for c in run.comparisons):
        return None
    job = Job(tasks.run_agreement_view, str(ctx.folder), run, name="annotators' agreement")

    def shown(result, run=run) -> None:
        if cards.run is run:  # still the run shown
            cards.set_agreement(result, resampled_run(run))

    job.signals.result.connect(shown)
    return ctx.jobs.submit(job, channel="run-agreement")


def without_flagged_text(c: Comparison) -> str:
    """The comparison recomputed without the hallucination-flagged items, in words (empty
    when nothing was flagged on either side): the one reader of
    ``Comparison.without_flagged``."""
    wf = c.without_flagged
    if wf is None:
        return ""
    n_g, n_r = wf.n_flagged_group or 0, wf.n_flagged_reference or 0
    if not (n_g or n_r) and wf.verdict is not None:
        return ""
    m = c.metric or ""
    left = f"Without the flagged items ({n_g} in {c.group}, {n_r} in {c.reference})"
    if wf.verdict is None:
        return f"{left}: not recomputed ({note_text(wf.reason) or 'not compared'})."
    same = wf.verdict == c.verdict
    what = verdict_style(wf.verdict)[0]
    gap = (
        f"gap {fmt_gap(m, wf.gap)} {fmt_ci(m, wf.ci_low, wf.ci_high)}" if wf.gap is not None else ""
    )
    turn = f"the verdict holds ({what})" if same else f"the verdict changes to {what}"
    return f"{left}: {gap + '; ' if gap else ''}{turn}."


def _most_severe(comps) -> Comparison | None:
    order = {k: i for i, k in enumerate(VERDICTS)}
    return min(
        comps,
        key=lambda c: (order.get(c.verdict, 99), -abs(c.gap or 0)),
        default=None,
    )
