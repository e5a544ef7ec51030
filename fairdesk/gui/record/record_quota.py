"""The Record tab's recording-plan box: the quota and progress per group of the project's
newest recording plan (:mod:`fairdesk.core.recording_plans`), refreshed as takes are
accepted; "Record a <group> speaker" gives the speaker form the plan's dataset and the
group's values and opens the plan's prompts."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import FairdeskError
from ...core.recording_plans import latest_plan, prompt_list_path, quota_progress
from ...presentation.labels import metric_short, short_group
from ...presentation.numbers import fmt_count, plural
from ...presentation.plans import per_side


def quota_text(q, utterances: int) -> str:
    """``child: 2 of 59 speakers, 0 complete (15 utterances each)``."""
    return (
        f"{short_group(q.group)}: {fmt_count(q.started)} of {fmt_count(q.quota)} speakers, "
        f"{fmt_count(q.complete)} complete ({utterances} {plural(utterances, 'utterance')} "
        "each)"
    )


def source_text(plan) -> str:
    """``Dataset “plan-b”, 1 utterance per speaker; prompts: … . For WER b vs a (run 1): 12
    speakers per side.``"""
    n = plan.utterances_per_speaker
    text = (
        f"Dataset “{plan.dataset}”, {n} {plural(n, 'utterance')} per speaker; prompts: "
        f"{plan.prompt_source}."
    )
    p = plan.prediction
    if p is not None:  # the comparison it settles, as every view names metrics and groups
        text += (
            f" For {metric_short(p.metric)} {short_group(p.group)} vs "
            f"{short_group(p.reference)} (run {p.run_id})"
        )
        # the plan's k*, as the card, the plan dialog, the report and fairdesk plan give it
        return text + (f": {per_side(p.k_star)}." if p.k_star is not None else ".")
    return text + (f" From {plan.source}." if plan.source else "")


class QuotaBox(QGroupBox):
    """Quota and progress of the newest recording plan (hidden without one).

    Parameters
    ----------
    panel : the :class:`~fairdesk.gui.record.record_panel.RecordPanel` it sits in (its form,
        prompt lists, ``take_accepted`` signal and context).
    """

    def __init__(self, panel, parent=None):
        super().__init__("Recording plan", parent)
        self.panel = panel
        self.plan = None
        self.progress = []
        self.source = QLabel("")
        self.source.setObjectName("muted")
        self.source.setWordWrap(True)
        self.source.setTextFormat(Qt.PlainText)
        self.rows = QWidget()
        self.grid = QGridLayout(self.rows)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setVerticalSpacing(2)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 6)
        lay.addWidget(self.source)
        lay.addWidget(self.rows)
        self.labels: list[QLabel] = []
        self.bars: list[QProgressBar] = []
        self.buttons: list[QPushButton] = []
        panel.take_accepted.connect(lambda _id: self.refresh())
        panel.ctx.project_changed.connect(self.reload)
        panel.ctx.recording_planned.connect(self.set_plan)
        self.reload()

    def reload(self) -> None:
        """Show the project's newest recording plan (hide the box without one)."""
        p = self.panel.ctx.project
        plan = None
        if p is not None:
            try:
                plan = latest_plan(p)
            except (FairdeskError, Exception):  # noqa: BLE001 - an old store: no plan box
                plan = None
        self.set_plan(plan, use=False)

    def set_plan(self, plan, use: bool = True) -> None:
        """Show ``plan``; ``use``: also start recording for its first group."""
        self.plan = plan
        while self.grid.count():
            w = self.grid.takeAt(0).widget()
            if w is not None:
                w.hide()
                w.setParent(None)
                w.deleteLater()
        self.labels, self.bars, self.buttons = [], [], []
        self.setVisible(plan is not None)
        if plan is None:
            return
        self.source.setText(source_text(plan))
        for i, g in enumerate(plan.groups):
            lab = QLabel("")
            lab.setTextFormat(Qt.PlainText)
            lab.setWordWrap(True)
            bar = QProgressBar()
            bar.setMaximum(max(1, g.speakers))
            bar.setMaximumHeight(12)
            bar.setTextVisible(False)
            btn = QPushButton(f"Record a speaker of {short_group(g.group)}")
            btn.setToolTip(
                "give the speaker form the plan's dataset and this group's values ("
                + ", ".join(f"{k} = {v}" for k, v in g.values.items())
                + ") and open the plan's prompts"
            )
            btn.clicked.connect(lambda _c=False, k=i: self.use_group(k))
            self.grid.addWidget(lab, 3 * i, 0)
            self.grid.addWidget(bar, 3 * i + 1, 0)
            self.grid.addWidget(btn, 3 * i + 2, 0, Qt.AlignLeft)
            self.labels.append(lab)
            self.bars.append(bar)
            self.buttons.append(btn)
        self.refresh()
        if use:
            self.use_group(0)

    def refresh(self) -> None:
        """Count the speakers recorded per group so far."""
        p = self.panel.ctx.project
        if self.plan is None or p is None:
            return
        self.progress = quota_progress(p, self.plan)
        for q, lab, bar in zip(self.progress, self.labels, self.bars):
            lab.setText(quota_text(q, self.plan.utterances_per_speaker))
            bar.setValue(min(q.started, bar.maximum()))

    def use_group(self, k: int) -> None:
        """Record for group ``k``: the plan's dataset, the group's values, its prompts."""
        plan, panel = self.plan, self.panel
        g = plan.groups[k]
        panel.form.dataset.setText(plan.dataset)
        panel.form.set_group_values(g.values)
        path = prompt_list_path(panel.ctx.project, plan)
        key = str(path)
        i = panel.list_combo.findData(key)
        if i >= 0:
            panel.list_combo.setCurrentIndex(i)
        else:
            panel.open_list(path)


__all__ = ["QuotaBox", "quota_text", "source_text"]
