"""The plan of an underpowered comparison (docs/METHODS.md, "Recording plan"): its sentence, the
sides table and the MDE-versus-speakers chart (pyqtgraph: the plan's curve, the target gap,
the pilot's speakers and k*), opened from a verdict card; "Plan a recording session…" stores
a recording plan (:mod:`fairdesk.jobs.recording_plan`) that the Record tab fills.

Wording and numbers come from :mod:`fairdesk.presentation.plans` (the one formatter).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import FairdeskError
from ...presentation.plans import (
    SIDE_COLUMNS,
    crosscheck,
    curve_data,
    is_estimate,
    plan_sentence,
    plan_title,
    side_rows,
    unreached_tip,
)
from ...recording.session import safe_name

pg.setConfigOptions(antialias=True, background="w", foreground="#222222")


class MdeChart(pg.PlotWidget):
    """MDE(k) of one comparison plan on the cards' scale: the dense curve as the line, the
    plan's table points as markers, the pilot's point (the card's MDE), the target
    (dashed), the pilot's speakers (dotted) and k* (a star). ``data`` is what it draws
    (:func:`fairdesk.presentation.plans.curve_data`)."""

    def __init__(self, cp, plan, parent=None):
        super().__init__(parent)
        self.data = d = curve_data(cp, plan)
        p = self.getPlotItem()
        p.setMenuEnabled(False)
        p.hideButtons()
        p.showGrid(x=True, y=True, alpha=0.2)
        p.setLabel("bottom", d.x_label)
        p.setLabel("left", d.y_label)
        p.addLegend(offset=(-10, 10), labelTextSize="8pt")
        self.line = p.plot(list(d.line_k), list(d.line_mde), pen=pg.mkPen("#0072B2", width=2),
                           name="MDE(k)")  # fmt: skip
        self.curve = p.plot(list(d.k), list(d.mde), pen=None, symbol="o", symbolSize=6,
                            symbolBrush="#0072B2", symbolPen="#0072B2")  # fmt: skip
        self.target = pg.InfiniteLine(
            pos=d.target, angle=0, pen=pg.mkPen("#b71c1c", width=1.4, style=Qt.DashLine),
            label="target", labelOpts={"position": 0.9, "color": "#b71c1c"},
        )  # fmt: skip
        p.addItem(self.target)
        self.pilot = self.pilot_point = None
        if d.k_pilot is not None:
            self.pilot = pg.InfiniteLine(
                pos=d.k_pilot, angle=90, pen=pg.mkPen("#222222", width=1, style=Qt.DotLine),
                label="pilot", labelOpts={"position": 0.92, "color": "#222222"},
            )  # fmt: skip
            p.addItem(self.pilot)
            if d.pilot_mde is not None:
                self.pilot_point = p.plot([d.k_pilot], [d.pilot_mde], pen=None,
                                          symbol="s", symbolSize=9, symbolBrush="#222222",
                                          name="pilot (the card's MDE)")  # fmt: skip
        self.floor = None
        if d.floor is not None:
            self.floor = pg.InfiniteLine(
                pos=d.floor, angle=0, pen=pg.mkPen("#6d4c41", width=1, style=Qt.DashDotLine),
                label="content floor", labelOpts={"position": 0.75, "color": "#6d4c41"},
            )  # fmt: skip
            p.addItem(self.floor)
        self.k_star = None
        if d.k_star_mde is not None:
            self.k_star = p.plot([d.k_star], [d.k_star_mde], pen=None, symbol="star",
                                 symbolSize=16, symbolBrush="#D55E00",
                                 name=f"k* = {d.k_star}")  # fmt: skip
        ys = [*d.line_mde, *d.mde, d.target]
        if d.pilot_mde is not None:
            ys.append(d.pilot_mde)
        p.setYRange(0, max(ys or [1]) * 1.1)
        self.setMinimumSize(420, 240)


class PlanDialog(QDialog):
    """One comparison plan: the sentence (and the closed form beside it), the sides and the
    chart; a button that plans a recording session from it. Where the run stored only the
    closed-form estimate (runs audited before the audit made the resampling plan), "Make
    the resampling plan" makes it in a job, stores it with the run and shows it in place
    of the estimate.

    Signals
    -------
    recording_planned(object) : the stored :class:`~fairdesk.core.recording_plans.RecordingPlan`.
    plan_replaced(object) : the resampling :class:`~fairdesk.stats.planning_types.Plan` that
        replaced the estimate (the cards show it once the run is read again).
    """

    recording_planned = Signal(object)
    plan_replaced = Signal(object)

    def __init__(self, cp, plan, *, project=None, run_id=None, by=None, jobs=None, parent=None):
        super().__init__(parent)
        self.project, self.run_id, self.by, self.jobs = project, run_id, by, jobs
        self.body = None
        self.job = None
        self.recording_plan = None
        self.record_btn = QPushButton("Plan a recording session…")
        # clicked(bool) would arrive as the dataset name: call with no arguments
        self.record_btn.clicked.connect(lambda: self.plan_session())
        self.resample_btn = QPushButton("Make the resampling plan")
        self.resample_btn.setToolTip(
            "this is the closed form's quick estimate: resample the pilot's speakers (as "
            "fairdesk plan does) and show that plan instead, in every view"
        )
        self.resample_btn.clicked.connect(lambda: self.make_resampling_plan())
        close = QPushButton("Close")
        close.clicked.connect(lambda: self.accept())
        buttons = QHBoxLayout()
        buttons.addWidget(self.record_btn)
        buttons.addWidget(self.resample_btn)
        buttons.addStretch(1)
        buttons.addWidget(close)
        self.outer = QVBoxLayout(self)
        self.outer.addLayout(buttons)
        self.show_plan(cp, plan)
        self.resize(720, 560)

    def show_plan(self, cp, plan) -> None:
        """Show ``cp`` of ``plan`` (replacing what the dialog showed)."""
        self.cp, self.plan = cp, plan
        self.setWindowTitle(f"Recording plan · {plan_title(cp)}")
        if self.body is not None:
            self.body.hide()
            self.body.setParent(None)
            self.body.deleteLater()
        self.body = body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 0, 0)
        self.sentence = QLabel(plan_sentence(cp, plan))
        self.sentence.setWordWrap(True)
        self.sentence.setTextFormat(Qt.PlainText)
        self.sentence.setTextInteractionFlags(Qt.TextSelectableByMouse)
        # the closed form beside the resampling plan, as a cross-check (never in its place)
        self.crosscheck = QLabel(crosscheck(cp) or "")
        self.crosscheck.setTextFormat(Qt.PlainText)
        self.crosscheck.setObjectName("muted")
        self.crosscheck.setVisible(bool(self.crosscheck.text()))
        rows = side_rows(cp)
        self.sides = QTableWidget(len(rows), len(SIDE_COLUMNS))
        self.sides.setHorizontalHeaderLabels(list(SIDE_COLUMNS))
        self.sides.verticalHeader().setVisible(False)
        self.sides.setEditTriggers(QAbstractItemView.NoEditTriggers)
        for i, r in enumerate(rows):
            for j, v in enumerate(r):
                it = QTableWidgetItem(v)
                if j:
                    it.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.sides.setItem(i, j, it)
        self.sides.resizeColumnsToContents()
        # the whole table, no scroll bars: the dialog is as wide as its columns
        self.sides.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.sides.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        frame = 2 * self.sides.frameWidth()
        self.sides.setMinimumWidth(
            frame + sum(self.sides.columnWidth(j) for j in range(len(SIDE_COLUMNS)))
        )
        self.sides.setFixedHeight(
            frame + self.sides.horizontalHeader().sizeHint().height()
            + sum(self.sides.rowHeight(i) for i in range(len(rows)))
        )  # fmt: skip
        self.chart = MdeChart(cp, plan)
        # plain text, never HTML: an entity would show as itself ("pilot&#x27;s")
        self.caption = caption = QLabel(self.chart.data.caption)
        caption.setTextFormat(Qt.PlainText)
        caption.setWordWrap(True)
        caption.setObjectName("muted")
        lay.addWidget(self.sentence)
        lay.addWidget(self.crosscheck)
        lay.addWidget(self.sides)
        lay.addWidget(self.chart, 1)
        lay.addWidget(caption)
        self.outer.insertWidget(0, body, 1)
        where = self.project is not None and self.run_id is not None
        self.record_btn.setEnabled(bool(cp.reachable and where))
        self.record_btn.setToolTip(
            "store a recording plan in the project: the groups to fill, speakers per group, "
            "the prompts and utterances per speaker; the Record tab shows its quota"
            if cp.reachable
            else unreached_tip(cp)
        )
        estimate = is_estimate(cp)
        self.resample_btn.setVisible(estimate)
        self.resample_btn.setEnabled(bool(estimate and where and self.jobs is not None))

    def make_resampling_plan(self):
        """Make the run's resampling plan in a job (``fairdesk plan`` with its defaults,
        stored with the run) and show it in place of the closed-form estimate."""
        from ...jobs import tasks
        from ..jobs import Job

        if self.jobs is None or self.project is None or self.run_id is None:
            return None
        self.resample_btn.setEnabled(False)
        self.resample_btn.setText("Resampling the pilot's speakers…")
        job = Job(tasks.resampling_plan, str(self.project.folder), int(self.run_id),
                  name="make the resampling plan")  # fmt: skip
        job.signals.result.connect(self._replaced)
        job.signals.error.connect(self._not_replaced)
        self.job = self.jobs.submit(job, channel=f"plan-{self.run_id}")
        return self.job

    def _replaced(self, plan) -> None:
        self.resample_btn.setText("Make the resampling plan")
        key = (self.cp.metric, self.cp.group)
        cp = next((c for c in plan.comparisons if (c.metric, c.group) == key), None)
        if cp is None:  # cannot happen for a stored run's own comparison; say so if it does
            self._not_replaced(f"the resampling plan has no {plan_title(self.cp)}")
            return
        self.show_plan(cp, plan)
        self.plan_replaced.emit(plan)

    def _not_replaced(self, message: str) -> None:
        self.resample_btn.setText("Make the resampling plan")
        self.resample_btn.setEnabled(True)
        QMessageBox.warning(self, "Make the resampling plan", message)

    def default_dataset(self) -> str:
        return safe_name(f"plan-{self.cp.group}-{self.cp.reference}", "dataset name")

    def plan_session(self, dataset: str | None = None, prompt_list=None):
        """Store the recording plan (asks for the dataset name, and for an unmatched design
        the prompt list, unless given). Returns it, or None (cancelled or refused)."""
        from ...jobs.recording_plan import SHARED_DESIGNS, make_recording_plan

        if dataset is None:
            dataset, ok = QInputDialog.getText(
                self, "Plan a recording session", "Dataset the new recordings go into:",
                text=self.default_dataset(),
            )  # fmt: skip
            if not ok or not dataset.strip():
                return None
        if self.cp.design not in SHARED_DESIGNS and prompt_list is None:
            prompt_list = self._pick_list()
            if prompt_list is None:
                return None
        try:
            rp = make_recording_plan(
                self.project, self.run_id, self.plan, self.cp, dataset.strip(),
                prompt_list=prompt_list, by=self.by,
            )  # fmt: skip
        except FairdeskError as exc:
            QMessageBox.warning(self, "Plan a recording session", str(exc))
            return None
        self.recording_plan = rp
        self.recording_planned.emit(rp)
        return rp

    def _pick_list(self):
        from ...recording.prompts import builtin_lists, load_prompts

        lists = builtin_lists()
        if not lists:
            QMessageBox.warning(self, "Plan a recording session", "no prompt lists found")
            return None
        name, ok = QInputDialog.getItem(
            self, "Plan a recording session",
            "Unmatched design: prompt list of new sentences for the new speakers:",
            list(lists), 0, False,
        )  # fmt: skip
        return load_prompts(lists[name]) if ok else None


__all__ = ["MdeChart", "PlanDialog"]
