"""The Regression tab of the results: logistic-regression tests of bias (docs/METHODS.md, "Regression") on
the shown run, run in the background and stored with the run.

Pick the outcome and the demographic variables (defaults from the run: its grouping columns,
exact match when the run has it, speakers as clusters) and press Run. The table shows each
level's odds ratio against the reference level with its CI, plain and speaker-clustered side
by side; beside them, the conclusions in words; below, when the audit ran with
``--model-based``, the mixed-effects Poisson rate ratios and whether they agree with the
bootstrap (:mod:`fairdesk.gui.results.model_based_view`). Every result is stored with the run
(``results`` table, kind ``regression``) and shown again when the run is reopened.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...jobs import regression_run as rr
from ...jobs.regression_result import RegressionRun
from ...presentation import fmt_estimate_ci, fmt_p, fmt_ratio
from ...presentation.regression_words import regression_conclusions
from ..context import Context
from ..jobs import Job
from ..widgets.theme import plain_tip
from .model_based_view import ModelBasedView

if TYPE_CHECKING:
    from ...jobs.result import AuditRun

#: Item columns that are never demographic variables.
NOT_VARIABLES = frozenset(
    {
        "id",
        "item_id",
        "path",
        "audio_path",
        "text",
        "reference",
        "hypothesis",
        "hyp",
        "ref",
        "content_id",
        "speaker_id",
        "group",
        "duration",
        "audio_hash",
        "intent",
        "slots",
        "words",
        "error",
        "reason",
        "confidence",
        "label",
        "prediction",
        "n_words",
        "n_sub",
        "n_del",
        "n_ins",
        "n_chars",
        "em",
        "correct",
    }
)
MAX_LEVELS = 30
HEADS = [
    "Variable",
    "Level (vs reference)",
    "OR",
    "95% CI",
    "p",
    "OR clustered",
    "95% CI clustered",
    "p clustered",
]


def candidate_columns(frame, metadata: set[str] | None = None) -> list[str]:
    """Columns of a run's items that can be regressed on: the dataset's metadata columns
    (when known; else any non-numeric column) with 2–30 levels."""
    out = []
    for c in frame.columns:
        if c in NOT_VARIABLES or str(c).startswith(("n_", "hyp_", "ref_")):
            continue
        if metadata is not None and c not in metadata:
            continue  # per-item statistics (c_sub, ...) are outcomes, not demographics
        if metadata is None and frame[c].dtype.kind in "iufcb":
            continue
        try:
            n = frame[c].dropna().astype(str).nunique()
        except (TypeError, ValueError):
            continue
        if 2 <= n <= MAX_LEVELS:
            out.append(str(c))
    return out


def odds_rows(result: dict) -> list[list[str]]:
    """Table rows: each level of each variable with its plain and clustered odds ratio."""

    def fmt_ci(lev):
        return fmt_estimate_ci(lev.get("ci_low"), lev.get("ci_high"))

    clustered = {
        u["variable"]: {lev["level"]: lev for lev in u.get("levels") or []}
        for u in ((result.get("clustered") or {}).get("univariate") or [])
    }
    rows = []
    for u in result.get("univariate") or []:
        var, ref = u["variable"], u.get("reference")
        if u.get("problem"):
            rows.append([var, f"(not fitted: {u['problem']})", "", "", "", "", "", ""])
            continue
        for lev in u.get("levels") or []:
            cl = clustered.get(var, {}).get(lev["level"])
            rows.append(
                [
                    var,
                    f"{lev['level']} vs {ref}",
                    fmt_ratio(lev.get("odds_ratio")),
                    fmt_ci(lev),
                    fmt_p(lev.get("p_value"), log10=lev.get("p_log10")),
                    fmt_ratio(cl.get("odds_ratio")) if cl else "–",
                    fmt_ci(cl) if cl else "–",
                    fmt_p(cl.get("p_value"), log10=cl.get("p_log10")) if cl else "–",
                ]
            )
    return rows


#: The result rows the Regression sub-tab keeps in sight (it gets the height for them).
SHOWN_ROWS = 4

#: The widest the variables' check boxes become on their line (more of them scroll).
MAX_VARIABLES_WIDTH = 360


class RegressionPanel(QWidget):
    """Regression of the run shown by the results pane.

    Signals
    -------
    done(object) : a regression finished and was stored (its
        :class:`~fairdesk.jobs.regression_result.RegressionRun`).
    """

    done = Signal(object)

    def __init__(self, ctx: Context, parent=None):
        super().__init__(parent)
        self.ctx = ctx
        self.run_id: int | None = None
        self.run: AuditRun | None = None
        self.job: Job | None = None
        self.shown: RegressionRun | None = None
        self.outcome = QComboBox()
        for key, what in rr.OUTCOMES.items():
            self.outcome.addItem(key, key)
            self.outcome.setItemData(self.outcome.count() - 1, plain_tip(what), Qt.ToolTipRole)
        self.variables = QListWidget()
        # one row of check boxes (more scroll): the result table under it gets the height
        self.variables.setMaximumHeight(self.variables.fontMetrics().height() + 16)
        self.variables.setFlow(QListWidget.LeftToRight)
        self.variables.setWrapping(True)
        self.variables.setSpacing(2)
        self.variables.setToolTip("the demographic variables (check one or more)")
        self.cluster = QComboBox()
        self.cluster.setToolTip("speaker column for the clustered models (none: plain only)")
        self.cluster.setSizeAdjustPolicy(QComboBox.AdjustToContents)  # "speaker_" was cut
        self.alpha = QDoubleSpinBox()
        self.alpha.setRange(0.001, 0.5)
        self.alpha.setDecimals(3)
        self.alpha.setSingleStep(0.01)
        self.alpha.setValue(0.05)
        self.run_btn = QPushButton("Run regression")
        self.run_btn.setObjectName("primary")
        self.run_btn.setToolTip(
            "fit the models in the background and store them with the run (Ctrl+Shift+R)"
        )
        self.history = QComboBox()
        self.history.setToolTip("regressions stored with this run")
        self.history.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.history.setMinimumContentsLength(26)
        self.status = QLabel("")
        self.status.setTextFormat(Qt.PlainText)
        self.status.setWordWrap(True)
        self.status.setObjectName("muted")
        self.table = QTableWidget(0, len(HEADS))
        self.table.setHorizontalHeaderLabels(HEADS)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        # rows as tall as their text: the table shows four at 1024x700 (30-px rows showed two)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 7)
        hdr = self.table.horizontalHeader()
        hdr.setSectionResizeMode(QHeaderView.ResizeToContents)
        # two result rows at least in sight with a horizontal scroll bar (at 1366x768 it
        # showed one; at 1024x700 the Results tab leaves its sub-tabs ~180 px, so more
        # would be cut at the bottom; a taller page shows more)
        self.table.setMinimumHeight(
            hdr.sizeHint().height()
            + 2 * self.table.verticalHeader().defaultSectionSize()
            + self.table.style().pixelMetric(QStyle.PM_ScrollBarExtent)
            + 2 * self.table.frameWidth()
        )
        self.conclusions = QPlainTextEdit()
        self.conclusions.setReadOnly(True)
        self.conclusions.setPlaceholderText("The conclusions, in words, appear here.")
        self.conclusions.setLineWrapMode(QPlainTextEdit.WidgetWidth)

        form = QGridLayout()
        form.setHorizontalSpacing(8)
        form.setVerticalSpacing(4)
        # one row, not four: at 1366x768 the result table under them showed one row, and
        # with a second row (the note and the stored regressions, now beside the table) a
        # run of three groups kept 1.7 rows of cards at 1024x700
        choices = QHBoxLayout()
        choices.setSpacing(8)
        for label, widget in (
            ("Outcome", self.outcome),
            ("Clusters", self.cluster),
            ("α", self.alpha),
            ("Variables", self.variables),
        ):
            choices.addWidget(QLabel(label))
            choices.addWidget(widget, 1 if widget is self.variables else 0)
        # each row its own widths: in one grid the button's column was as wide as the
        # stored list and squeezed the variables under the button at 1024 px
        choices.addWidget(self.run_btn)
        form.addLayout(choices, 0, 0)
        form.setColumnStretch(0, 1)
        # the stored regressions and the note on the run above the conclusions, beside the
        # table: the table keeps the height under the choices
        stored = QHBoxLayout()
        stored.addWidget(QLabel("Stored"))
        stored.addWidget(self.history, 1)
        side = QWidget()
        sv = QVBoxLayout(side)
        sv.setContentsMargins(0, 0, 0, 0)
        sv.setSpacing(4)
        sv.addLayout(stored)
        sv.addWidget(self.status)
        sv.addWidget(self.conclusions, 1)
        top = QWidget()
        tv = QVBoxLayout(top)
        tv.setContentsMargins(0, 0, 0, 0)
        tv.setSpacing(4)
        tv.addLayout(form)
        # odds ratios and the conclusions side by side: the table keeps the height
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(self.table)
        self.split.addWidget(side)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([700, 460])
        self.top = top
        lay = QVBoxLayout(self)
        # thin margins above and below: on a 700-px screen the cards above the sub-tabs keep
        # two rows beside the table's four
        lay.setContentsMargins(6, 2, 6, 2)
        lay.setSpacing(4)
        lay.addWidget(top)
        # the model-based result of the audit (docs/METHODS.md, "Model-based comparison (mixed-effects Poisson)"), under the logistic results
        self.model_view = ModelBasedView()
        self.vsplit = QSplitter(Qt.Vertical)
        self.vsplit.addWidget(self.split)
        self.vsplit.addWidget(self.model_view)
        self.vsplit.setStretchFactor(0, 1)
        self.vsplit.setStretchFactor(1, 1)
        lay.addWidget(self.vsplit, 1)
        self.run_btn.clicked.connect(self.start)
        self.history.activated.connect(self._history_picked)
        self._set_enabled()

    def rows_height(self, rows: int = SHOWN_ROWS) -> int:
        """The panel's height that shows the form and ``rows`` rows of the result table
        (with its header and horizontal scroll bar): the Results pane gives the Regression
        sub-tab this much when it is shown."""
        t = self.table
        m = self.layout().contentsMargins()
        table = (
            t.horizontalHeader().sizeHint().height()
            + rows * t.verticalHeader().defaultSectionSize()
            + t.style().pixelMetric(QStyle.PM_ScrollBarExtent)
            + 2 * t.frameWidth()
        )
        below = self.model_view.sizeHint().height() if self.model_view.isVisibleTo(self) else 0
        return (
            m.top() + m.bottom() + self.top.sizeHint().height() + self.layout().spacing()
            + table + below
        )  # fmt: skip

    # -- the run ----------------------------------------------------------------------
    def set_run(self, run_id: int | None, run: AuditRun | None) -> None:
        """Show run ``run_id`` (``run``: its :class:`~fairdesk.jobs.result.AuditRun`): its
        defaults and the newest stored regression."""
        self.run_id, self.run = run_id, run
        self.model_view.set_model_based(run.model_based if run is not None else None)
        self.variables.clear()
        self.cluster.clear()
        self.history.clear()
        self.show_payload(None)
        cols: list[str] = []
        all_cols: list[str] = []
        if run_id is not None and self.ctx.project is not None and run is not None:
            from ...core.runs import run_items_frame

            try:
                frame = run_items_frame(self.ctx.project, run_id)
            except ValueError as exc:
                self.status.setText(str(exc))
                frame = None
            if frame is not None:
                all_cols = [str(c) for c in frame.columns]
                cols = candidate_columns(frame, self._metadata_columns(run))
        default = rr.default_request(run, all_cols)
        for c in cols:
            it = QListWidgetItem(c)
            it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
            it.setCheckState(Qt.Checked if c in default["variables"] else Qt.Unchecked)
            self.variables.addItem(it)
        # the variables on one line where they fit (at 1024 px "age_group" wrapped out of
        # sight); a long list scrolls
        box = self.variables
        items = sum(
            box.sizeHintForIndex(box.model().index(k, 0)).width() + 2 * box.spacing()
            for k in range(box.count())
        )
        bar = box.style().pixelMetric(QStyle.PM_ScrollBarExtent)  # the layout reserves it
        one_line = items + 2 * box.frameWidth() + bar + 8
        box.setMinimumWidth(min(MAX_VARIABLES_WIDTH, one_line))
        self.cluster.addItem("(none)", None)
        for c in [c for c in all_cols if c in ("speaker_id",)] + cols:
            self.cluster.addItem(c, c)
        i = self.cluster.findData(default["cluster"])
        self.cluster.setCurrentIndex(max(i, 0))
        self.cluster.setMinimumWidth(self.cluster.sizeHint().width())  # never "speaker_"
        self.outcome.setCurrentIndex(max(0, self.outcome.findData(default["outcome"])))
        self._fill_history()
        self._set_enabled()

    def _metadata_columns(self, run: AuditRun) -> set[str] | None:
        """The metadata columns of the run's dataset (None when it is not in the project)."""
        p, name = self.ctx.project, run.dataset
        try:
            return p.metadata_columns(p.dataset(name))
        except Exception:  # noqa: BLE001 - a table audit or a dataset removed since
            return None

    def _fill_history(self, select_id: int | None = None) -> None:
        self.history.clear()
        if self.run_id is None or self.ctx.project is None:
            return
        stored = rr.stored_regressions(self.ctx.project, self.run_id)
        for s in stored:
            when = time.strftime("%H:%M %d %b", time.localtime(s.created_at))
            self.history.addItem(f"{s.outcome} ~ {' + '.join(s.variables)} · {when}", s)
        if stored:
            i = next((k for k, s in enumerate(stored) if s.result_id == select_id), 0)
            self.history.setCurrentIndex(i)
            self.show_payload(stored[i])
        elif self.run_id is not None:
            self.status.setText(
                "No regression stored with this run yet: choose the outcome "
                "and variables, then Run regression."
            )

    def _history_picked(self, index: int) -> None:
        self.show_payload(self.history.itemData(index))

    def request(self) -> dict:
        """The form as plain values."""
        vars_ = [
            self.variables.item(i).text()
            for i in range(self.variables.count())
            if self.variables.item(i).checkState() == Qt.Checked
        ]
        return {
            "outcome": self.outcome.currentData(),
            "variables": vars_,
            "cluster": self.cluster.currentData(),
            "alpha": float(self.alpha.value()),
        }

    def _set_enabled(self) -> None:
        busy = self.job is not None
        self.run_btn.setEnabled(not busy and self.run_id is not None)
        self.run_btn.setText("Running…" if busy else "Run regression")

    # -- running ------------------------------------------------------------------------
    def start(self) -> Job | None:
        if self.run_id is None or self.ctx.project is None or self.job is not None:
            return None
        req = self.request()
        if not req["variables"]:
            self.status.setText("Check at least one variable.")
            return None
        self.status.setText(f"fitting {req['outcome']} ~ {' + '.join(req['variables'])}…")
        job = Job(
            rr.regress_run,
            str(self.ctx.folder),
            self.run_id,
            req["outcome"],
            req["variables"],
            req["cluster"],
            req["alpha"],
            name="regression",
            request=(self.run_id, tuple(req["variables"])),
        )
        job.signals.result.connect(self._done)
        job.signals.error.connect(lambda m: self.status.setText(f"Regression failed: {m}"))
        job.signals.cancelled.connect(lambda: self.status.setText("Regression cancelled."))
        job.signals.finished.connect(self._finished)
        self.job = self.ctx.jobs.submit(job, channel="regression")
        self._set_enabled()
        return self.job

    def _done(self, out: RegressionRun) -> None:
        if out.run_id != self.run_id:
            return  # the user moved to another run meanwhile
        self._fill_history(select_id=out.result_id)
        self.show_payload(out)
        self.status.setText(f"Stored with run {self.run_id}.")
        self.done.emit(out)

    def _finished(self) -> None:
        self.job = None
        self._set_enabled()

    # -- rendering ------------------------------------------------------------------------
    def show_payload(self, payload: RegressionRun | None) -> None:
        self.shown = payload
        res = payload.result if payload is not None else {}
        rows = odds_rows(res) if payload is not None else []
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                it = QTableWidgetItem(v)  # item text is plain; user levels never render
                if j >= 2:
                    it.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(i, j, it)
        lines = regression_conclusions(payload) if payload is not None else []
        problems = payload.problems if payload is not None else []
        if problems:
            lines += ["", "Problems:"] + [f"- {p}" for p in problems]
        self.conclusions.setPlainText(
            "\n".join(f"• {t}" if t and not t.startswith(("-", "Problems")) else t for t in lines)
        )
        if payload is not None:
            cl = res.get("clustered") or {}
            self.status.setText(
                f"{_model_name(payload)} model of {payload.outcome} on "
                f"{', '.join(payload.variables)}; CIs at {1 - payload.alpha:.0%}"
                + (
                    f"; clustered by {cl.get('cluster')} ({cl.get('n_clusters', '?')} clusters, "
                    f"{cl.get('method')})"
                    if cl
                    else "; no clustering"
                )
            )

    def shutdown(self) -> None:
        if self.job is not None:
            self.job.cancel()


def _model_name(run: RegressionRun) -> str:
    """The fitted model as the status line names it: the mixed Poisson formula in words
    (from its decoded result), else the stored model name."""
    if run.family == "poisson-mixed":
        from ...presentation.regression_poisson_words import poisson_model_text
        from ...stats.regression.poisson_mixed_result import MixedPoissonResult

        return poisson_model_text(MixedPoissonResult.from_json(run.result))
    return str(run.result.get("model", "?"))
