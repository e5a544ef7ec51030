"""The audit panel: choose a model, the grouping and the statistics settings; run the
four-stage audit in the background with progress, ETA and cancel."""

from __future__ import annotations

import html
import re
import time
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...jobs import tasks
from ...presentation import RunSpec, count, datasets_label, run_name
from ..context import Context
from ..jobs import Job
from ..settings import restore_splitter
from ..widgets.fit_scroll import FitScrollArea
from ..widgets.theme import mono_font
from .audit_choices import PICK, ModelChoices, ProjectChoices
from .audit_filters import MAX_VALUES, FilterRows
from .audit_options import (
    add_option_widgets,
    fill_reference_texts,
    statistics_box,
    supports_model_based,
)
from .dataset_picker import DatasetPicker
from .refusal_view import FILTERS_FIELD, SAMPLE_FIELD, RefusalView
from .run_history import RunHistory

NONE = "(none)"
LARGEST = "(largest group)"
_ETA = re.compile(r"ETA\s+(\d+(?:\.\d+)?)\s*s")


def eta_text(fraction: float, message: str, elapsed: float) -> str:
    """Remaining time: from the job's message when it says it, else extrapolated."""
    m = _ETA.search(message or "")
    if m:
        secs = float(m.group(1))
    elif fraction >= 0.05 and elapsed >= 2.0 and fraction < 1.0:
        secs = elapsed / fraction * (1.0 - fraction)
    else:
        return "estimating…" if fraction < 1.0 else ""
    if secs >= 90:
        return f"about {secs / 60:.0f} min left"
    return f"about {secs:.0f} s left"


class AuditPanel(ModelChoices, ProjectChoices, QWidget):
    """Audit settings and the run/cancel controls.

    Signals
    -------
    run_done(int) : the id of the finished run (a new one, or the cached one it matched).
    show_run(int) : the user asked to see a stored run (double-click in the history).
    """

    run_done = Signal(int)
    show_run = Signal(int)

    #: Keyboard shortcuts of this panel (collected by Help ▸ Keyboard shortcuts).
    SHORTCUTS = [
        ("Ctrl+Return", "Run the audit"),
        ("Esc", "Cancel the running audit"),
    ]

    def __init__(self, ctx: Context, parent=None):
        super().__init__(parent)
        self.ctx = ctx
        self.job: Job | None = None
        self._t0 = 0.0
        self.last_result: dict | None = None
        self.last_error: str | None = None
        # the choices remembered per project folder (:meth:`_project_state`)
        self._projects: dict[str, dict] = {}
        self._folder: str | None = None  # the project the form was filled for
        self._compare_extra: list[str] = []  # second systems added by set_compare

        self.dataset = QComboBox()
        self.with_datasets = DatasetPicker()
        self.model = QComboBox()
        self.model.setMinimumWidth(320)
        self.compare = QComboBox()  # a second system, audited on the same items and compared
        self.compare.setToolTip(
            "audit a second model on the same items and compare the two (the model above is "
            "the baseline); the comparison shows in Results ▸ Systems"
        )
        self.by1 = QComboBox()
        self.by2 = QComboBox()
        self.reference = QComboBox()
        self.filters = FilterRows()
        self.sample = QSpinBox()
        self.sample.setRange(0, 100000)
        self.sample.setSpecialValueText("all items")
        self.sample.setSuffix(" per group")
        self.device = QComboBox()
        self.device.addItems(["auto", "cpu", "cuda"])
        add_option_widgets(self)

        what = QGroupBox("What to audit")
        f1 = QFormLayout(what)
        f1.addRow("Dataset", self.dataset)
        f1.addRow("Audit with", self.with_datasets)
        f1.addRow("Model", self.model)
        f1.addRow("Compare with", self.compare)
        by = QHBoxLayout()
        by.addWidget(self.by1, 1)
        by.addWidget(QLabel("×"))
        by.addWidget(self.by2, 1)
        f1.addRow("Group by", by)
        f1.addRow("Reference group", self.reference)
        f1.addRow("References", self.reference_text)
        f1.addRow("", self.include_missing)
        f1.addRow(FILTERS_FIELD, self.filters)
        f1.addRow(SAMPLE_FIELD, self.sample)
        f1.addRow("Device", self.device)
        f1.addRow("Also", self.representation)
        f1.addRow("", self.explain)
        if supports_model_based():
            f1.addRow("", self.model_based)
        f1.addRow("Explain sample", self.explain_n)
        stats, f2 = statistics_box(self)
        for f in (f1, f2):
            f.setLabelAlignment(Qt.AlignRight)

        self.run_btn = QPushButton("Run audit")
        self.run_btn.setObjectName("primary")
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setFormat("%p%")
        self.stage = QLabel("Ready.")
        self.stage.setWordWrap(True)
        self.stage.setTextFormat(Qt.RichText)  # messages are escaped (see _error)
        self.refusal = RefusalView()
        self.refusal.use_minimums.connect(self._use_minimums)
        self.eta = QLabel("")
        self.eta.setObjectName("muted")
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setFont(mono_font(9))
        self.log.setMaximumBlockCount(2000)
        self.log.setPlaceholderText(
            "What each run started here did: its stages, notes, failed items and errors."
        )

        self.history = RunHistory(ctx)
        self.history.open_run.connect(self._open_run)

        run_box = QGroupBox("Run")
        rv = QVBoxLayout(run_box)
        btns = QHBoxLayout()
        btns.addWidget(self.run_btn)
        btns.addWidget(self.cancel_btn)
        btns.addStretch(1)
        btns.addWidget(self.eta)
        rv.addLayout(btns)
        rv.addWidget(self.progress)
        rv.addWidget(self.stage)
        rv.addWidget(self.refusal)
        rv.addWidget(self.log, 1)
        hist_box = QGroupBox("Runs in this project")
        hv = QVBoxLayout(hist_box)
        hv.addWidget(self.history)
        self.split = right = QSplitter(Qt.Vertical)
        right.addWidget(run_box)
        right.addWidget(hist_box)
        right.setSizes([380, 420])

        left = QVBoxLayout()
        left.addWidget(what)
        left.addWidget(stats)
        self.help = QLabel(
            "Every gap is tested against the reference group with a bootstrap 95% confidence "
            "interval (resampling speakers and sentences when the design allows), "
            "Holm-adjusted p-values and a minimum detectable effect. Imported predictions "
            "(CSV/JSONL keyed by item id or path) audit a system run elsewhere."
        )
        self.help.setWordWrap(True)
        self.help.setObjectName("muted")
        left.addWidget(self.help)
        left.addStretch(1)
        lw = QWidget()
        lw.setLayout(left)
        lw.setMaximumWidth(560)
        lw.setMinimumWidth(360)
        left_scroll = FitScrollArea(lw)  # a small screen scrolls the settings, never clips
        left_scroll.setMaximumWidth(580)
        left_scroll.setMinimumWidth(380)
        lw = left_scroll
        lay = QHBoxLayout(self)
        lay.addWidget(lw, 0)
        lay.addWidget(right, 1)

        self._fill_models()
        self.model.currentIndexChanged.connect(self._fill_compare)
        self.model.activated.connect(self._model_activated)
        self.compare.activated.connect(self._compare_activated)
        self.dataset.currentTextChanged.connect(self._dataset_changed)
        self.by1.currentTextChanged.connect(self._fill_references)
        self.by2.currentTextChanged.connect(self._fill_references)
        self.run_btn.clicked.connect(self.start)
        self.cancel_btn.clicked.connect(self.cancel)
        self.run_btn.setToolTip("run the audit in the background (Ctrl+Return here, F9 anywhere)")
        self.cancel_btn.setToolTip("cancel after the current shard (Esc here, Shift+F9 anywhere)")
        for key, slot in (
            ("Ctrl+Return", self._run_key),
            ("Ctrl+Enter", self._run_key),
            ("Esc", self.cancel),
        ):
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
        ctx.project_changed.connect(self.reload)
        ctx.runs_changed.connect(self._fill_history)
        self.reload()

    def _run_key(self) -> None:
        if self.run_btn.isEnabled():
            self.start()

    # -- remembered state ----------------------------------------------------------------
    def save_state(self) -> dict:
        """The form's choices as plain values."""
        return {
            "with_datasets": self.with_datasets.chosen(),
            "model": self.model.currentData(),
            "by1": self.by1.currentText(),
            "by2": self.by2.currentText(),
            "sample": self.sample.value(),
            "device": self.device.currentText(),
            "n_bootstrap": self.n_boot.value(),
            "alpha": self.alpha.value(),
            "min_items": self.min_items.value(),
            "min_speakers": self.min_speakers.value(),
            "include_missing": self.include_missing.isChecked(),
            "small_cluster_scaling": self.scaling.isChecked(),
            "explain_per_group": self.explain_n.value(),
            "filters": self.filters.pairs(),
            "reference_text": self.reference_text.currentData(),
            "split": [int(x) for x in self.split.sizes()],
            "projects": self._project_states(),
        }

    def restore_state(self, state: dict) -> None:
        if not state:
            return
        # the dataset, grouping, reference and second system are the project's own
        # (:meth:`_restore_project`): another project's "demo" is not this one's choice
        if isinstance(state.get("with_datasets"), list):
            self.with_datasets.set_chosen(state["with_datasets"])
        m = state.get("model")
        if isinstance(m, str) and m and "<" not in m:
            if not m.startswith(("predictions:", "hf:", "ct2:")) or self.model.findData(m) >= 0:
                if self.model.findData(m) >= 0:
                    self.model.setCurrentIndex(self.model.findData(m))
            else:
                self.set_model(m)
        for box, key in ((self.by1, "by1"), (self.by2, "by2"), (self.device, "device")):
            v = state.get(key)
            if isinstance(v, str) and box.findText(v) >= 0:
                box.setCurrentText(v)
        for spin, key in (
            (self.sample, "sample"),
            (self.n_boot, "n_bootstrap"),
            (self.min_items, "min_items"),
            (self.min_speakers, "min_speakers"),
            (self.explain_n, "explain_per_group"),
        ):
            if isinstance(state.get(key), int):
                spin.setValue(state[key])
        if isinstance(state.get("include_missing"), bool):
            self.include_missing.setChecked(state["include_missing"])
        if isinstance(state.get("small_cluster_scaling"), bool):
            self.scaling.setChecked(state["small_cluster_scaling"])
        if self.reference_text.findData(state.get("reference_text")) >= 0:
            self.reference_text.setCurrentIndex(
                self.reference_text.findData(state.get("reference_text"))
            )
        if isinstance(state.get("alpha"), (int, float)):
            self.alpha.setValue(float(state["alpha"]))
        if isinstance(state.get("filters"), list):
            self.filters.clear()
            for pair in state["filters"]:
                if isinstance(pair, list) and len(pair) == 2:
                    self.filters.add_row(str(pair[0]), str(pair[1]))
        restore_splitter(self.split, state.get("split"))
        if isinstance(state.get("projects"), dict):
            self._projects = dict(state["projects"])
        self._restore_project()

    # -- run history ----------------------------------------------------------------------
    def _fill_history(self) -> None:
        self.history.fill()

    def _open_run(self, rid: int) -> None:
        self.ctx.select_run(rid)
        self.show_run.emit(rid)

    # -- choices ------------------------------------------------------------------------
    def reload(self) -> None:
        p = self.ctx.project
        folder = str(self.ctx.folder) if self.ctx.folder is not None else None
        if self._folder is not None and folder != self._folder:  # another project opens:
            self._projects[self._folder] = self._project_state()  # keep the one left
        same = folder == self._folder
        cur = self.dataset.currentText() if same else ""
        self._folder = folder
        self.dataset.blockSignals(True)
        self.dataset.clear()
        if p is not None:
            self.dataset.addItems([d.name for d in p.datasets()])
        self.dataset.blockSignals(False)
        if not cur:  # a project just opened: the dataset it last audited
            cur = next((r.dataset for r in self.ctx.runs() if r.dataset), "")
        if cur and self.dataset.findText(cur) >= 0:
            self.dataset.setCurrentText(cur)
        self._dataset_changed(self.dataset.currentText())
        if not same:
            self._restore_project()
        self.run_btn.setEnabled(p is not None and self.dataset.count() > 0 and not p.read_only)
        self.run_btn.setToolTip(self.ctx.read_only_tip() if self.ctx.read_only else "")
        self._fill_history()

    def _dataset_changed(self, name: str) -> None:
        from ...jobs.agreement import dataset_annotators

        p = self.ctx.project
        self.with_datasets.set_names([d.name for d in p.datasets()] if p else [], name)
        self._columns: dict[str, dict] = {}
        every: dict[str, dict] = {}
        if name and self.ctx.project is not None:
            s = self.ctx.project.dataset_summary(self.ctx.project.dataset(name))
            every = s["columns"]
            self._columns = {k: v for k, v in every.items() if 2 <= len(v) <= 200}
        self.filters.set_columns({k: v for k, v in every.items() if len(v) <= MAX_VALUES})
        fill_reference_texts(self, dataset_annotators(p, name) if name and p else [])
        cols = sorted(self._columns)
        for box, extra in ((self.by1, []), (self.by2, [NONE])):
            box.blockSignals(True)
            old = box.currentText()
            box.clear()
            box.addItems(extra + cols)
            if old and box.findText(old) >= 0:
                box.setCurrentText(old)
            box.blockSignals(False)
        if self.by1.currentText() not in cols and cols:
            pref = next((c for c in ("accent", "dialect", "gender") if c in cols), cols[0])
            self.by1.setCurrentText(pref)
        self._fill_references()

    def _fill_references(self, *_):
        a, b = self.by1.currentText(), self.by2.currentText()
        labels: list[str] = []
        if a in self._columns:
            va = sorted(self._columns[a])
            if b in self._columns and b != a:
                labels = self._pairs(a, b)
            else:
                labels = va
        old = self.reference.currentText()
        self.reference.clear()
        self.reference.addItem(LARGEST, None)
        for lab in labels:
            self.reference.addItem(lab, lab)
        if old and self.reference.findText(old) >= 0:
            self.reference.setCurrentText(old)

    def _pairs(self, a: str, b: str) -> list[str]:
        """Group labels of two keys as the slicer writes them (``a=x × b=y``), present ones."""
        p = self.ctx.project
        items = p.items(p.dataset(self.dataset.currentText()))
        if a not in items.columns or b not in items.columns:
            return []
        pairs = items[[a, b]].astype(str).drop_duplicates().sort_values([a, b])
        return [f"{a}={x} × {b}={y}" for x, y in pairs.itertuples(index=False)]

    # -- running ------------------------------------------------------------------------
    def request(self):
        """The :class:`AuditRequest` the form describes (plain values only; ValueError
        when a filter is on a grouping column, as ``fairdesk audit`` refuses it)."""
        from ...jobs.audit import AuditRequest
        from ...jobs.request import request_filters
        from ...stats.settings import AuditSettings

        by = [self.by1.currentText()]
        if self.by2.currentText() not in (NONE, "", by[0]):
            by.append(self.by2.currentText())
        settings = AuditSettings(
            n_bootstrap=self.n_boot.value(),
            alpha=self.alpha.value(),
            min_items=self.min_items.value(),
            min_speakers=self.min_speakers.value(),
            include_missing=self.include_missing.isChecked(),
            small_cluster_scaling=self.scaling.isChecked(),
        )
        extra = {"model_based": self.model_based.isChecked()} if supports_model_based() else {}
        return AuditRequest(
            dataset=self.dataset.currentText(),
            more_datasets=tuple(self.with_datasets.chosen()),
            model=self.model.currentData(),
            by=tuple(by),
            filters=request_filters(self.filters.filters(), by),
            reference=self.reference.currentData(),
            reference_text=self.reference_text.currentData() or "latest",
            sample=self.sample.value() or None,
            device=self.device.currentText(),
            representation=self.representation.isChecked(),
            explain=self.explain.isChecked(),
            explain_per_group=self.explain_n.value(),
            settings=settings,
            **extra,
        )

    def start(self) -> Job | None:
        mid = self.model.currentData()
        if not mid or "<" in mid:
            self._log(f"choose a {PICK.get(mid, 'model')} first")
            self.stage.setText(html.escape("Choose a model first."))
            return None
        try:
            req = self.request()
        except ValueError as exc:
            self.stage.setText(html.escape(str(exc)))
            return None
        self.last_result, self.last_error = None, None
        self.refusal.clear()
        self.stage.setVisible(True)
        self._t0 = time.monotonic()
        self.progress.setValue(0)
        self.eta.setText("")
        self.stage.setText(html.escape("starting…"))
        names = datasets_label(req.dataset_names)
        spec = RunSpec(req.by, req.filters, req.sample, req.settings, req.model, names)
        self._log(f"audit {run_name(replace(spec, reference=req.reference))}")
        other = self.compare.currentData()
        if (
            other and "<" not in other and other != req.model
        ):  # two systems on the same items, then compared
            self._log(f"and {other}, compared with {req.model} on the same items")
            models = [req.model, other]
            job = Job(
                tasks.audit_systems, str(self.ctx.folder), req, models, name="audit", request=req
            )
        else:
            job = Job(tasks.audit, str(self.ctx.folder), req, name="audit", request=req)
        job.signals.progress.connect(self._progress)
        job.signals.result.connect(self._result)
        job.signals.error.connect(self._error)
        job.signals.cancelled.connect(self._cancelled)
        job.signals.finished.connect(self._finished)
        self.run_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.job = self.ctx.jobs.submit(job, channel="audit")
        return self.job

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.cancel_btn.setEnabled(False)
            self.stage.setText(html.escape("cancelling after the current shard…"))

    def _progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(round(fraction * 1000)))
        self.stage.setText(html.escape(message))
        self.eta.setText(eta_text(fraction, message, time.monotonic() - self._t0))

    def _result(self, out: dict) -> None:
        """A finished audit job (``{"run_id", "result", "from_cache"}`` of
        ``jobs.tasks.audit``; its ``result`` the run's AuditRun)."""
        self.last_result = out
        res = out["result"]
        secs = time.monotonic() - self._t0
        how = "answered from the cache" if out.get("from_cache") else f"finished in {secs:.1f} s"
        n = sum(g.n_items or 0 for g in res.groups)
        self.stage.setText(
            html.escape(
                f"Run {out['run_id']} {how}: {count(n, 'item')}, "
                f"{count(len(res.comparisons), 'comparison')}, "
                f"{count(len(res.failures), 'failed item')}."
            )
        )
        self.progress.setValue(1000)
        self._log(html.unescape(self.stage.text()))
        from ...presentation.warnings import run_notes

        for note in run_notes(res):
            self._log(f"note: {note}")
        if out.get("systems"):
            self._log(f"systems compared (Results ▸ Systems): {', '.join(out['systems'])}")
        for f in res.failures[:20]:
            self._log(f"failed: {f.item}: {f.reason}")
        self._fill_history()
        self.ctx.run_finished(int(out["run_id"]))
        self.run_done.emit(int(out["run_id"]))

    def _error(self, message: str) -> None:
        from ...stats.minimums import MinimumsRefused

        self.last_error = message
        exc = self.job.exception if self.job is not None else None
        if isinstance(exc, MinimumsRefused):
            from ...presentation.minimums_words import shortfall_text

            self.last_error = shortfall_text(exc.shortfall)  # the command line's text
            self.stage.setText("")
            self.stage.setVisible(False)  # the refusal's own headline says it
            req = self.job.request
            self.refusal.show_refusal(exc.shortfall, sample=req.sample, filtered=bool(req.filters))
            n_ex, n_all = len(exc.shortfall.excluded), len(exc.shortfall.rows)
            self._log(f"refused: the minimums exclude {n_ex} of {count(n_all, 'group')}")
            return
        self.stage.setText(
            f"<span style='color:#c62828'><b>Audit failed:</b> {html.escape(message)}</span>"
        )
        self._log(f"error: {message}")

    def _use_minimums(self, items: int, speakers: int) -> None:
        self.min_items.setValue(items)
        self.min_speakers.setValue(speakers)
        self.refusal.clear()
        self.stage.setVisible(True)
        self.stage.setText(
            html.escape(f"Minimums set to {items} items and {speakers} speakers; run again.")
        )

    def _cancelled(self) -> None:
        self.stage.setText(
            html.escape("Cancelled. Finished predictions are cached; a rerun resumes.")
        )
        self._log("cancelled")

    def _finished(self) -> None:
        self.job = None
        self._fill_history()
        self.run_btn.setEnabled(not self.ctx.read_only)
        self.cancel_btn.setEnabled(False)
        self.eta.setText("")

    def _log(self, text: str) -> None:
        self.log.appendPlainText(time.strftime("%H:%M:%S  ") + text)
