"""The results pane: a run selector, verdict cards, the group table, the comparisons, each
group's value with its CI, the disparity radar, the confusion matrices and the regression
tests of one stored run.

Every user-supplied string (dataset, group and model names, metadata in notes) reaches the
header as escaped text and the tables as plain item text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...jobs.result import AuditRun
from ...presentation import (
    MISSING_MARK,
    MISSING_STATUS,
    comparison_basis,
    comparison_sample,
    direction_word,
    fmt_bound,
    fmt_count,
    fmt_gap,
    fmt_number,
    fmt_p,
    fmt_percent,
    fmt_size,
    fmt_value,
    group_basis,
    metric_label,
    metric_short,
    missing_row_note,
    with_basis,
)
from ...presentation.estimability_words import reason_text
from ...presentation.plans import followup_title
from ..context import Context
from ..exports import ChartExportButton
from ..settings import restore_splitter
from ..widgets.table_model import FrameModel
from ..widgets.theme import esc, plain_tip, verdict_style
from .charts import GroupValuePlot
from .confusion_view import ConfusionView
from .phones_view import PhonesView
from .radar import RadarWidget
from .regression_panel import RegressionPanel
from .run_header import run_header
from .systems_view import SystemsView
from .verdict_cards import VerdictCards, ask_agreement

if TYPE_CHECKING:
    from ...stats.pitfall_types import DominantItem

#: The Audit panel's option that makes the items with no grouping value a tested group.
MISSING_OPTION = "'Include missing values as a group'"

#: Sub-tabs, in order (screenshots and the remembered state use the names).
#: The sub-tabs that a lazy panel (the main window's) draws when first shown for a run; the
#: cards, tables and header are filled at once.
DRAWN_ON_SHOW = ("values", "radar", "confusion", "phones", "regression")
SUBTABS = (
    "groups",
    "comparisons",
    "values",
    "systems",
    "radar",
    "confusion",
    "phones",
    "regression",
)

COMPARISON_COLUMNS = (
    "metric",
    "group",
    "reference",
    "value",
    "reference_value",
    "gap",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "mde",
    "effect_size",
    "verdict",
    "direction",
    "estimator",
    "design",
    "n_items",
    "reference_n_items",
    "n_speakers",
    "reference_n_speakers",
    "basis",
    "sample",
    "flags",
)


def dominated_text(dom: DominantItem, long: bool = False) -> str:
    """The ``wer_dominated_by`` flag of a group in words (docs/METHODS.md, "Audit pitfalls": one utterance carries
    more than a quarter of at least 20 word errors; ``GroupInfo.wer_dominated_by``)."""
    share = dom.share if dom.share is not None else 0
    short = f"one item carries {fmt_percent(share, 0)} of the WER errors: {dom.item}"
    if not long:
        return short
    wo = dom.wer_without_item
    return (
        f"One utterance ({dom.item}) holds {dom.errors} of the group's "
        f"{dom.group_errors} word errors ({fmt_percent(share, 0)}); the pooled "
        f"WER is {fmt_percent(dom.wer, 1)}, {fmt_percent(wo, 1) if wo is not None else '–'} "
        "without it. Listen to it in Items before trusting this group's WER."
    )


class ResultsPanel(QWidget):
    """Everything about one run; ``load_run`` shows a stored run, decoded once into its
    :class:`~fairdesk.jobs.result.AuditRun` (``Context.audit_run``); ``result`` is that run.

    Signals
    -------
    loaded(int) : a run was shown.
    """

    loaded = Signal(int)

    #: Keyboard shortcuts of this pane (collected by Help ▸ Keyboard shortcuts).
    SHORTCUTS = [
        ("Ctrl+PgDown", "Next view (groups, comparisons, values, radar, …)"),
        ("Ctrl+PgUp", "Previous view"),
        ("F5", "Reload the runs"),
        ("Ctrl+Shift+R", "Run the regression of the shown run"),
    ]

    def __init__(self, ctx: Context, parent=None, *, lazy: bool = False):
        super().__init__(parent)
        #: render a run selected while the tab is hidden when the tab is first shown
        self.lazy = lazy
        self._unrendered = False
        self._undrawn: set[str] = set()  # sub-tabs of DRAWN_ON_SHOW not drawn for the run
        self.ctx = ctx
        self.result: AuditRun | None = None
        self.followups: tuple = ()  # recording plans the shown run follows up
        self.run_id: int | None = None

        self.runs = QComboBox()
        self.runs.setMinimumWidth(260)
        self.runs.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.reload_btn = QPushButton("Reload")
        self.reload_btn.setToolTip("reload the runs (F5)")
        self.header = QLabel("No run yet: run an audit, or pick a stored run.")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.RichText)
        top = QHBoxLayout()
        lab = QLabel("Run")
        lab.setObjectName("heading")
        top.addWidget(lab)
        top.addWidget(self.runs, 1)
        top.addWidget(self.reload_btn)

        self.cards = VerdictCards()
        self.groups = QTableWidget()
        self.groups.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.groups.setAlternatingRowColors(True)
        self.groups.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.groups.verticalHeader().setVisible(False)
        self.comparisons_model = FrameModel()
        self.comparisons = QTableView()
        self.comparisons.setModel(self.comparisons_model)
        self.comparisons.setAlternatingRowColors(True)
        self.comparisons.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.comparisons.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.values = GroupValuePlot()
        self.radar = RadarWidget()
        self.confusion = ConfusionView()
        self.phones = PhonesView()  # word-position heatmap and phone confusions (docs/METHODS.md, "Word-position heatmap" and "Phone confusions")
        self.regression = RegressionPanel(ctx)
        self.systems = SystemsView()  # a comparison of systems with this run as baseline
        self.tabs = QTabWidget()
        self.tabs.addTab(self.groups, "Groups")
        self.tabs.addTab(self.comparisons, "Comparisons")
        values_scroll = QScrollArea()  # each plot keeps a readable height; the tab scrolls
        values_scroll.setWidgetResizable(True)
        values_scroll.setFrameShape(QScrollArea.NoFrame)
        values_scroll.setWidget(self.values)
        self.tabs.addTab(values_scroll, "Group values (95% CI)")
        self.tabs.addTab(self.systems, "Systems")
        self.tabs.addTab(self.radar, "Radar")
        self.tabs.addTab(self.confusion, "Confusion")
        self.tabs.addTab(self.phones, "Words && phones")
        self.tabs.addTab(self.regression, "Regression")
        self.chart_export = ChartExportButton()
        self.tabs.setCornerWidget(self.chart_export, Qt.TopRightCorner)
        self.chart_export.setVisible(False)
        self.tabs.currentChanged.connect(lambda _i: self._subtab_shown())
        self.tabs.currentChanged.connect(lambda _i: self._fit_split())
        for w in (self.radar, self.confusion):  # a right click offers the export too
            w.setContextMenuPolicy(Qt.CustomContextMenu)
            w.customContextMenuRequested.connect(
                lambda pos, w=w: self.chart_export.context_menu(w, pos)
            )

        self.split = split = QSplitter(Qt.Vertical)
        split.addWidget(self.cards)
        split.addWidget(self.tabs)
        # the sub-tabs scroll or shrink below their own minimum (308 px with the charts), so
        # the cards can have two rows on a 700-px screen
        self.tabs.setMinimumHeight(200)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        # narrow margins: on a 700-px screen every row counts (two rows of cards above the
        # Regression tab's four result rows)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.setSpacing(4)
        lay.addLayout(top)
        lay.addWidget(self.header)
        lay.addWidget(split, 1)

        for key, slot in (
            ("Ctrl+PgDown", lambda: self.step_tab(1)),
            ("Ctrl+PgUp", lambda: self.step_tab(-1)),
            ("F5", self.reload_runs),
            ("Ctrl+Shift+R", self.regression.start),
        ):
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
        self.runs.activated.connect(lambda i: self.ctx.select_run(self.runs.itemData(i)))
        self.reload_btn.clicked.connect(self.reload_runs)
        self.cards.plan_requested.connect(self.open_plan)
        self.plan_dialog = None
        ctx.runs_changed.connect(self.reload_runs)
        ctx.run_selected.connect(self.load_run)
        self.reload_runs()
        if ctx.run_id is not None and self.run_id is None:  # built after a run was chosen
            self.load_run(ctx.run_id)

    # -- runs ---------------------------------------------------------------------------
    def reload_runs(self) -> None:
        """List the stored runs again (F5); the next selection reads its run afresh."""
        self.ctx.forget_runs()
        runs = self.ctx.runs()
        self.runs.blockSignals(True)
        self.runs.clear()
        for r in runs:
            self.runs.addItem(r.label(), r.id)
        self.runs.blockSignals(False)
        if (
            self.run_id is not None
            and self.ctx.run_id is not None
            and self.runs.findData(self.run_id) >= 0
        ):
            self.runs.setCurrentIndex(self.runs.findData(self.run_id))
        elif runs and self.ctx.run_id is None:
            self.ctx.select_default_run()  # a project just opened: the run last shown
        elif not runs:
            self.show_result(None)

    def load_run(self, run_id: int) -> None:
        """Show a stored run (its typed result, decoded once per selection)."""
        try:
            run = self.ctx.audit_run(int(run_id))
        except ValueError as exc:
            self.header.setText(f"<span style='color:#c62828'>{esc(exc)}</span>")
            return
        self.run_id = int(run_id)
        i = self.runs.findData(self.run_id)
        if i < 0:
            self.reload_runs()
            i = self.runs.findData(self.run_id)
        self.runs.setCurrentIndex(i)
        if self.lazy and not self.isVisible():
            # the main window's hidden tab: decoded now (shared with the items), drawn on show
            self.result, self._unrendered = run, True
            self._chart_view()
        else:
            self.show_result(run)
        self.loaded.emit(self.run_id)

    def open_plan(self, cp, plan):
        """The plan of an underpowered card: sentence, sides and MDE-versus-speakers chart
        (:class:`~fairdesk.gui.results.plan_view.PlanDialog`), non-modal."""
        from .plan_view import PlanDialog

        by = tuple(self.result.by) if self.result is not None else ()
        dlg = PlanDialog(cp, plan, project=self.ctx.project, run_id=self.run_id, by=by,
                         jobs=self.ctx.jobs, parent=self)  # fmt: skip
        dlg.recording_planned.connect(self.ctx.recording_planned.emit)
        # the resampling plan replaced the stored estimate: read the run again (the cards)
        dlg.plan_replaced.connect(lambda _plan, r=self.run_id: self._replan(r))
        self.plan_dialog = dlg
        dlg.show()
        return dlg

    def _replan(self, run_id) -> None:
        if run_id is not None and run_id == self.run_id:
            self.ctx.forget_runs()
            self.load_run(run_id)

    # -- rendering ----------------------------------------------------------------------
    def show_result(self, run: AuditRun | None):
        """Show a run."""
        self.result, self._unrendered = run, False
        self.followups = self._followups(run)
        self.cards.set_result(run, followups=self.followups)
        self.agreement_job = ask_agreement(self.cards, self.ctx, run)  # beside DER/TER
        # the charts and the regression: now when shown (or eager panels), else on first show
        self._undrawn = set(DRAWN_ON_SHOW)
        current = SUBTABS[self.tabs.currentIndex()]
        for name in DRAWN_ON_SHOW:
            if not self.lazy or name == current:
                self._draw_subtab(name)
        self._show_systems(run)
        self._fill_groups(run)
        self._fill_comparisons(run)
        self._chart_view()
        self.header.setText(
            run_header(run) + _followup_note(self.followups)
            if run
            else "No run yet: run an audit, or pick a stored run."
        )
        self._fit_split()
        QTimer.singleShot(0, self._fit_split)  # again once the new cards are laid out

    def _followups(self, run) -> tuple:
        """The recording plans ``run`` follows up (its MDE beside each plan's prediction)."""
        from ...jobs.recording_plan import plan_followups

        if run is None or self.ctx.project is None:
            return ()
        return plan_followups(self.ctx.project, run)

    def _show_systems(self, run) -> None:
        """The comparison of systems stored with the shown run (its baseline), if any."""
        from ...jobs.system_run import latest_comparison

        cmp = latest_comparison(self.ctx.project, self.run_id) if run is not None else None
        self.systems.set_comparison(cmp)
        i = SUBTABS.index("systems")
        self.tabs.setTabText(i, f"Systems ({len(cmp.systems)})" if cmp else "Systems")
        self.tabs.setTabToolTip(
            i,
            "the systems compared with this run as baseline"
            if cmp
            else "no comparison of systems with this run as baseline",
        )

    def _draw_subtab(self, name: str) -> None:
        """Draw one of :data:`DRAWN_ON_SHOW` for the shown run (once per run)."""
        if name not in self._undrawn:
            return
        self._undrawn.discard(name)
        run = self.result
        if name == "regression":
            self.regression.set_run(self.run_id if run else None, run)
        else:
            getattr(self, name).set_result(run)

    def _subtab_shown(self) -> None:
        self._draw_subtab(SUBTABS[self.tabs.currentIndex()])
        self._chart_view()

    def _chart_view(self) -> None:
        self.chart_export.set_view(self.result, SUBTABS[self.tabs.currentIndex()])

    def step_tab(self, step: int) -> None:
        self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())

    def show_subtab(self, name: str) -> None:
        self.tabs.setCurrentIndex(SUBTABS.index(name))

    # -- remembered state -------------------------------------------------------------
    def save_state(self) -> dict:
        return {
            "subtab": SUBTABS[self.tabs.currentIndex()],
            "regression_split": [int(x) for x in self.regression.split.sizes()],
        }

    def restore_state(self, state: dict) -> None:
        if state.get("subtab") in SUBTABS:
            self.show_subtab(state["subtab"])
        restore_splitter(self.regression.split, state.get("regression_split"))

    def _fit_split(self) -> None:
        """Give the cards the height they need (at most 42% of the pane, or two rows of cards
        where the sub-tabs keep what they need, at least one row), the sub-tabs the rest."""
        total = self.split.height()
        if total < 200:
            return
        need = self.cards.preferred_height()
        room = total - self._subtab_need() - self.split.handleWidth()
        # two rows of cards where the sub-tab keeps its room (a 700-px laptop screen), else
        # what is left, one row at least
        two = max(self.cards.rows_height(2), int(total * 0.42))
        top = min(need, max(self.cards.one_row_height(), min(two, room)), total - 150)
        # the Systems view scrolls in its own area; only the Regression sub-tab asks for
        # more (four result rows): choosing a sub-tab never folds the cards away
        self.split.setSizes([top, total - top])
        QTimer.singleShot(0, self.cards.reveal)

    def _subtab_need(self) -> int:
        """The height the shown sub-tab keeps: 200 px (its minimum), the Regression's form
        and four result rows when it is shown."""
        base = self.tabs.minimumHeight()
        if SUBTABS[self.tabs.currentIndex()] != "regression":
            return base
        bar = self.tabs.tabBar().sizeHint().height()
        return max(base, bar + self.regression.rows_height() + 6)

    def showEvent(self, event):  # noqa: N802 - Qt API
        super().showEvent(event)
        if self._unrendered:
            self.show_result(self.result)
        self._fit_split()

    def resizeEvent(self, event):  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._fit_split()

    def _fill_groups(self, r: AuditRun | None) -> None:
        t = self.groups
        t.clear()
        if not r:
            t.setRowCount(0)
            t.setColumnCount(0)
            return
        metrics = list(r.tested_metrics) + list(r.descriptive_metrics)
        heads = ["Group", "Items", "Speakers"] + [metric_short(m) for m in metrics] + ["Status"]
        t.setColumnCount(len(heads))
        t.setHorizontalHeaderLabels(heads)
        for k, m in enumerate(metrics):
            t.horizontalHeaderItem(3 + k).setToolTip(plain_tip(metric_label(m)))
        groups = r.groups
        t.setRowCount(len(groups))
        ref = r.reference
        verdicts = {(c.group, c.metric): c.verdict for c in r.comparisons}
        directions = {(c.group, c.metric): c.direction for c in r.comparisons}
        bold = QFont(t.font())
        bold.setBold(True)
        for i, g in enumerate(groups):
            values = g.values or {}
            status = (
                "reference"
                if g.group == ref
                else f"excluded: {reason_text(g.reason)}"
                if g.excluded
                else f"{MISSING_STATUS}: no value, not a group"
                if g.missing
                else "compared"
            )
            dom = g.wer_dominated_by
            if dom:
                status += f" · {dominated_text(dom)}"
            name = f"{g.group} {MISSING_MARK}" if g.missing else g.group
            cells = [name, fmt_count(g.n_items or 0), fmt_count(g.n_speakers or 0)]
            # a diacritic metric's value with its basis E
            # (docs/METHODS.md, "When the diacritic metrics apply")
            cells += [with_basis(fmt_value(m, values.get(m)), group_basis(g, m)) for m in metrics]
            cells += [status]
            for j, v in enumerate(cells):
                it = QTableWidgetItem(v)
                if 0 < j < len(cells) - 1:
                    it.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if g.group == ref:
                    it.setFont(bold)
                if g.excluded:
                    it.setForeground(QBrush(QColor("#9aa1a9")))
                    it.setToolTip(plain_tip(reason_text(g.reason) or ""))
                if g.missing:  # described, not a group: no verdict colours
                    it.setForeground(QBrush(QColor("#5f6b7a")))
                    it.setToolTip(plain_tip(missing_row_note(g.group, g.n_items, MISSING_OPTION)))
                if dom and j == len(cells) - 1:
                    it.setForeground(QBrush(QColor("#b45309")))
                    it.setToolTip(plain_tip(dominated_text(dom, long=True)))
                if 3 <= j < 3 + len(metrics):
                    v_ = verdicts.get((g.group, metrics[j - 3]))
                    worse = directions.get((g.group, metrics[j - 3])) == "worse"
                    if worse and v_ in ("disparity_detected", "speaker_confounded"):
                        label, bg, fg = verdict_style(v_)
                        it.setBackground(QBrush(bg.lighter(170)))
                        it.setToolTip(plain_tip(label))
                t.setItem(i, j, it)
        hdr = t.horizontalHeader()
        hdr.setSectionResizeMode(QHeaderView.ResizeToContents)
        hdr.setSectionResizeMode(len(heads) - 1, QHeaderView.Stretch)

    def _fill_comparisons(self, r: AuditRun | None) -> None:
        import pandas as pd

        rows = []
        groups = {g.group: g for g in r.groups} if r is not None else {}
        rs = r.run_settings if r is not None else None
        per_group = rs.sample_per_group if rs is not None else None
        for c in r.comparisons if r is not None else ():
            row = {k: getattr(c, k, None) for k in COMPARISON_COLUMNS}
            # both sides' counts: a sampled metric's from its own sample, else the groups'
            ref = groups.get(c.reference)
            b = c.n_blocks
            if c.sample and b is not None:
                row["reference_n_items"] = b.reference_items
                row["reference_n_speakers"] = b.reference_speakers
            elif ref is not None:
                row["reference_n_items"] = ref.n_items
                row["reference_n_speakers"] = ref.n_speakers
            m = c.metric or ""
            for k in ("value", "reference_value"):
                row[k] = fmt_value(m, row[k])
            row["mde"] = fmt_size(m, row["mde"])  # a gap's size, in the gap's unit (pp)
            row["gap"] = fmt_gap(m, row["gap"])  # the card's unit: pp for rates
            for k in ("ci_low", "ci_high"):
                row[k] = fmt_bound(m, row[k])  # as the card: a bound near zero keeps its sign
            row["p_value"], row["p_adjusted"] = fmt_p(row["p_value"]), fmt_p(row["p_adjusted"])
            row["effect_size"] = fmt_number(row["effect_size"], 2)
            row["metric"] = metric_short(row["metric"])
            # as the card: worse/better only where the verdict found a gap
            row["direction"] = direction_word(c.verdict or "", c.direction, c.gap)
            row["verdict"] = verdict_style(row["verdict"] or "")[0]
            row["flags"] = ", ".join(row["flags"] or [])
            row["basis"] = comparison_basis(c)
            row["sample"] = comparison_sample(c, per_group)
            rows.append(row)
        self.comparisons_model.set_frame(
            pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS)) if rows else None
        )
        self.comparisons.resizeColumnsToContents()


def _followup_note(followups) -> str:
    """The header's line for the recording plans a run follows up: which comparisons' cards
    read against them (each card's reading gives the sentence)."""
    if not followups:
        return ""
    names = "; ".join(followup_title(f) for f in followups)
    return "<br>" + esc(f"Read against {names}: its card gives the MDE now beside the plan's.")
