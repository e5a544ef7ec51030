"""The results pane: a run selector, verdict cards, the group table, the comparisons, each
group's value with its CI, the disparity radar, the confusion matrices and the regression
tests of one stored run.

Every user-supplied string (dataset, group and model names, metadata in notes) reaches the
header as escaped text and the tables as plain item text."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..presentation import (
    count,
    fmt_gap,
    fmt_number,
    fmt_p,
    fmt_percent,
    fmt_value,
    metric_label,
    metric_short,
)
from .charts import GroupValuePlot
from .confusion_view import ConfusionView
from .context import Context
from .exports import ChartExportButton
from .phones_view import PhonesView
from .radar import RadarWidget
from .regression_panel import RegressionPanel
from .settings import restore_splitter
from .table_model import FrameModel
from .theme import esc, plain_tip, verdict_style
from .verdict_cards import VerdictCards

#: Sub-tabs, in order (screenshots and the remembered state use the names).
SUBTABS = ("groups", "comparisons", "values", "radar", "confusion", "phones", "regression")

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
    "n_speakers",
    "flags",
)


def dominated_text(dom: dict, long: bool = False) -> str:
    """The ``wer_dominated_by`` flag of a group in words (METHODS §2: one utterance carries
    more than a quarter of at least 20 word errors)."""
    short = f"one item carries {fmt_percent(dom.get('share', 0), 0)} of the WER errors: {dom.get('item')}"
    if not long:
        return short
    wo = dom.get("wer_without_item")
    return (
        f"One utterance ({dom.get('item')}) holds {dom.get('errors')} of the group's "
        f"{dom.get('group_errors')} word errors ({fmt_percent(dom.get('share', 0), 0)}); the pooled "
        f"WER is {fmt_percent(dom.get('wer'), 1)}, {fmt_percent(wo, 1) if wo is not None else '–'} "
        "without it. Listen to it in Items before trusting this group's WER."
    )


class ResultsPanel(QWidget):
    """Everything about one run; ``load_run`` reads the stored payload (``run_payload``).

    Signals
    -------
    loaded(int) : a run was shown.
    """

    loaded = Signal(int)

    #: Keyboard shortcuts of this pane (collected by Help ▸ Keyboard shortcuts).
    SHORTCUTS = [
        ("Ctrl+PgDown", "Results: next view (groups, comparisons, values, radar, …)"),
        ("Ctrl+PgUp", "Results: previous view"),
        ("F5", "Results: reload the runs"),
        ("Ctrl+Shift+R", "Results: run the regression of the shown run"),
    ]

    def __init__(self, ctx: Context, parent=None):
        super().__init__(parent)
        self.ctx = ctx
        self.result: dict | None = None
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
        self.phones = PhonesView()  # word-position heatmap and phone confusions (§7)
        self.regression = RegressionPanel(ctx)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.groups, "Groups")
        self.tabs.addTab(self.comparisons, "Comparisons")
        self.tabs.addTab(self.values, "Group values (95% CI)")
        self.tabs.addTab(self.radar, "Radar")
        self.tabs.addTab(self.confusion, "Confusion")
        self.tabs.addTab(self.phones, "Words && phones")
        self.tabs.addTab(self.regression, "Regression")
        self.chart_export = ChartExportButton()
        self.tabs.setCornerWidget(self.chart_export, Qt.TopRightCorner)
        self.chart_export.setVisible(False)
        self.tabs.currentChanged.connect(lambda _i: self._chart_view())
        for w in (self.radar, self.confusion):  # a right click offers the export too
            w.setContextMenuPolicy(Qt.CustomContextMenu)
            w.customContextMenuRequested.connect(
                lambda pos, w=w: self.chart_export.context_menu(w, pos)
            )

        self.split = split = QSplitter(Qt.Vertical)
        split.addWidget(self.cards)
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
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
        ctx.runs_changed.connect(self.reload_runs)
        ctx.run_selected.connect(self.load_run)
        self.reload_runs()

    # -- runs ---------------------------------------------------------------------------
    def reload_runs(self) -> None:
        runs = self.ctx.runs()
        self.runs.blockSignals(True)
        self.runs.clear()
        for r in runs:
            self.runs.addItem(r.label(), r.id)
        self.runs.blockSignals(False)
        if self.run_id is not None and self.runs.findData(self.run_id) >= 0:
            self.runs.setCurrentIndex(self.runs.findData(self.run_id))
        elif runs and self.run_id is None and self.ctx.run_id is None:
            self.ctx.select_run(runs[0].id)
        elif not runs:
            self.show_result(None)

    def load_run(self, run_id: int) -> None:
        """Show a stored run (its audit payload)."""
        from ..core.runs import run_payload

        try:
            payload = run_payload(self.ctx.project, int(run_id))
        except ValueError as exc:
            self.header.setText(f"<span style='color:#c62828'>{esc(exc)}</span>")
            return
        self.run_id = int(run_id)
        i = self.runs.findData(self.run_id)
        if i < 0:
            self.reload_runs()
            i = self.runs.findData(self.run_id)
        self.runs.setCurrentIndex(i)
        self.show_result(payload)
        self.loaded.emit(self.run_id)

    # -- rendering ----------------------------------------------------------------------
    def show_result(self, result: dict | None) -> None:
        self.result = result
        self.cards.set_result(result)
        self.values.set_result(result)
        self.radar.set_result(result)
        self.confusion.set_result(result)
        self.phones.set_result(result)
        self.regression.set_run(self.run_id if result else None, result)
        self._fill_groups(result)
        self._fill_comparisons(result)
        self._chart_view()
        self.header.setText(
            self._header(result) if result else "No run yet: run an audit, or pick a stored run."
        )
        self._fit_split()
        QTimer.singleShot(0, self._fit_split)  # again once the new cards are laid out

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
        """Give the cards the height they need (at most 42% of the pane, at least one row of
        cards), the tabs the rest."""
        total = self.split.height()
        if total < 200:
            return
        need = self.cards.preferred_height()
        top = min(need, max(int(total * 0.42), self.cards.one_row_height()), total - 150)
        self.split.setSizes([top, total - top])
        QTimer.singleShot(0, self.cards.reveal)

    def showEvent(self, event):  # noqa: N802 - Qt API
        super().showEvent(event)
        self._fit_split()

    def resizeEvent(self, event):  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._fit_split()

    @staticmethod
    def _header(r: dict) -> str:
        """The run's one-paragraph summary as rich text; every value from the data is
        escaped (a group named ``<img src=…>`` shows as that text)."""
        n = sum(g.get("n_items", 0) for g in r.get("groups") or [])
        bits = [
            f"<b>{esc(r.get('model', '?'))}</b> on <b>{esc(r.get('dataset', '?'))}</b>",
            f"by {esc(' × '.join(map(str, r.get('by') or [])))}",
            f"reference <b>{esc(r.get('reference'))}</b>",
            count(n, "item"),
            f"design {esc(r.get('design', '?'))}",
            f"{esc((r.get('settings') or {}).get('n_bootstrap', '?'))} resamples",
        ]
        if r.get("failures"):
            bits.append(f"<span style='color:#c62828'>{len(r['failures'])} failed items</span>")
        if r.get("excluded"):
            bits.append(
                f"<span style='color:#ef6c00'>{count(len(r['excluded']), 'group')} excluded</span>"
            )
        notes = [str(x) for x in r.get("notes") or []]
        rep = r.get("representation") or {}
        if rep.get("leakage") is not None:
            leak = rep["leakage"] or {}
            cases = ", ".join(
                f"{m}: {c.replace('_', ' ')}" for m, c in (rep.get("cases") or {}).items()
            )

            def num(v):
                return fmt_number(v, 3)

            notes.append(
                f"representation: silhouette {num(rep.get('silhouette'))}, leakage "
                f"{num(leak.get('leakage'))} (probe balanced accuracy "
                f"{num(leak.get('balanced_accuracy'))} vs chance {num(leak.get('chance'))}, "
                f"folds by {leak.get('split', '?')}); structure "
                f"{'yes' if rep.get('structure') else 'no'}" + (f" — {cases}" if cases else "")
            )
        elif rep.get("error"):
            notes.append(f"representation: {rep['error']}")
        ex = r.get("explain") or {}
        if ex:
            done = sum((ex.get("items_explained") or {}).values())
            notes.append(
                f"explain: {ex.get('method', '?')} saliency on {done} of "
                f"{ex.get('n_sampled', '?')} sampled items "
                f"({ex.get('per_group', '?')} per group); grounding lift tested "
                "per group"
            )
        text = " · ".join(bits)
        if notes:
            text += "<br><span style='color:#5f6b7a'>" + esc("; ".join(notes)) + "</span>"
        return text

    def _fill_groups(self, r: dict | None) -> None:
        t = self.groups
        t.clear()
        if not r:
            t.setRowCount(0)
            t.setColumnCount(0)
            return
        metrics = list(r.get("tested_metrics") or []) + list(r.get("descriptive_metrics") or [])
        heads = ["Group", "Items", "Speakers"] + [metric_short(m) for m in metrics] + ["Status"]
        t.setColumnCount(len(heads))
        t.setHorizontalHeaderLabels(heads)
        for k, m in enumerate(metrics):
            t.horizontalHeaderItem(3 + k).setToolTip(plain_tip(metric_label(m)))
        groups = r.get("groups") or []
        t.setRowCount(len(groups))
        ref = r.get("reference")
        verdicts = {(c["group"], c["metric"]): c.get("verdict") for c in r.get("comparisons") or []}
        directions = {
            (c["group"], c["metric"]): c.get("direction") for c in r.get("comparisons") or []
        }
        bold = QFont(t.font())
        bold.setBold(True)
        for i, g in enumerate(groups):
            values = g.get("values") or {}
            status = (
                "reference"
                if g["group"] == ref
                else f"excluded: {g.get('reason')}"
                if g.get("excluded")
                else "compared"
            )
            dom = g.get("wer_dominated_by")
            if dom:
                status += f" · {dominated_text(dom)}"
            cells = [g["group"], f"{g.get('n_items', 0):,}", f"{g.get('n_speakers', 0):,}"]
            cells += [fmt_value(m, values.get(m, g.get(m))) for m in metrics] + [status]
            for j, v in enumerate(cells):
                it = QTableWidgetItem(v)
                if 0 < j < len(cells) - 1:
                    it.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if g["group"] == ref:
                    it.setFont(bold)
                if g.get("excluded"):
                    it.setForeground(QBrush(QColor("#9aa1a9")))
                    it.setToolTip(plain_tip(g.get("reason")))
                if dom and j == len(cells) - 1:
                    it.setForeground(QBrush(QColor("#b45309")))
                    it.setToolTip(plain_tip(dominated_text(dom, long=True)))
                if 3 <= j < 3 + len(metrics):
                    v_ = verdicts.get((g["group"], metrics[j - 3]))
                    worse = directions.get((g["group"], metrics[j - 3])) == "worse"
                    if worse and v_ in ("disparity_detected", "speaker_confounded"):
                        label, bg, fg = verdict_style(v_)
                        it.setBackground(QBrush(bg.lighter(170)))
                        it.setToolTip(plain_tip(label))
                t.setItem(i, j, it)
        hdr = t.horizontalHeader()
        hdr.setSectionResizeMode(QHeaderView.ResizeToContents)
        hdr.setSectionResizeMode(len(heads) - 1, QHeaderView.Stretch)

    def _fill_comparisons(self, r: dict | None) -> None:
        import pandas as pd

        rows = []
        for c in (r or {}).get("comparisons") or []:
            row = {k: c.get(k) for k in COMPARISON_COLUMNS}
            m = c.get("metric", "")
            for k in ("value", "reference_value", "mde"):
                row[k] = fmt_value(m, row[k])
            for k in ("gap", "ci_low", "ci_high"):
                row[k] = fmt_gap(m, row[k])  # the card's unit: pp for rates
            row["p_value"], row["p_adjusted"] = fmt_p(row["p_value"]), fmt_p(row["p_adjusted"])
            row["effect_size"] = fmt_number(row["effect_size"], 2)
            row["metric"] = metric_short(row["metric"])
            row["verdict"] = verdict_style(row["verdict"] or "")[0]
            row["flags"] = ", ".join(row["flags"] or [])
            rows.append(row)
        self.comparisons_model.set_frame(
            pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS)) if rows else None
        )
        self.comparisons.resizeColumnsToContents()
