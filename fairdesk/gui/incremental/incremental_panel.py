"""The Incremental tab: run a streaming policy on chosen items in the background, and browse
each item's add/revoke timeline (Whetten et al.'s Figure 1) while its audio plays.

Runs are the project's stored incremental runs (``fairdesk incremental`` or this tab;
:mod:`fairdesk.incremental.store`). For the chosen run the models × policies table is shown;
for the chosen item, model and policy the timeline: x is the time on the computation clock
when each prediction was shown (a diamond per update, on row -1), y the word position; an
added word is written in green to the right of its marker, a revoked one in red, struck out,
to the left of its marker. A grey bar on row -1 runs from each update's chunk arrival to its
prediction (Whetten et al.'s LAT is that time over the prediction's words); the red line follows
the player.
"""

from __future__ import annotations

import html
import time

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.audio_paths import audio_file
from ...incremental.result import IncrementalResult, ModelsTable
from ...incremental.result_parts import Timeline
from ...incremental.run import ALL_POLICIES
from ...presentation import count, fmt_stream_value, timeline_points
from ...presentation.incremental import row_name
from ..audio.player import AudioPlayer
from ..context import Context
from ..jobs import Job

MODELS = ("whisper-tiny.en", "pocketsphinx-en-us")
POLICY_CHOICES = ALL_POLICIES
#: Most word labels drawn per timeline (the markers are always all drawn).
MAX_LABELS = 600
ADD, REVOKE = "#2e7d32", "#c62828"


class TimelineView(pg.PlotWidget):
    """The add/revoke timeline of one item × model × policy."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMenuEnabled(False)
        self.setMinimumHeight(110)  # the tab fits 1024x700 with the player below
        self.getPlotItem().getAxis("bottom").setLabel("s (computation clock)")
        self.getPlotItem().getAxis("left").setLabel("word")  # its position in the hypothesis
        self.getPlotItem().invertY(True)
        self.adds = pg.ScatterPlotItem(symbol="s", size=7, brush=pg.mkBrush(ADD), pen=None)
        self.revokes = pg.ScatterPlotItem(
            symbol="x", size=9, brush=pg.mkBrush(REVOKE), pen=pg.mkPen(REVOKE)
        )
        self.updates = pg.ScatterPlotItem(symbol="d", size=9, brush=pg.mkBrush("#1565c0"), pen=None)
        self.arrival = pg.PlotDataItem(pen=pg.mkPen("#9e9e9e", width=3), connect="pairs")
        for it in (self.arrival, self.updates, self.adds, self.revokes):
            self.addItem(it)
        self.cursor = pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen("#e53935", width=2))
        self.addItem(self.cursor)
        self.labels: list = []
        self.timeline: dict | None = None

    def set_timeline(self, tl: Timeline | None) -> None:
        for it in self.labels:
            self.removeItem(it)
        self.labels = []
        self.timeline = tl
        if not tl:
            for it in (self.adds, self.revokes, self.updates):
                it.setData([], [])
            self.arrival.setData([], [])
            return
        adds, revs = timeline_points(tl)
        self.adds.setData([a[0] for a in adds], [a[1] for a in adds])
        self.revokes.setData([r[0] for r in revs], [r[1] for r in revs])
        ev = tl.events
        self.updates.setData([float(e.shown_s) for e in ev], [-1.0] * len(ev))
        xs = [x for e in ev for x in (float(e.arrival_s), float(e.shown_s))]
        self.arrival.setData(xs, [-1.0] * len(xs))
        top = max([p[1] for p in adds + revs], default=0)
        step = max(1, (top + 1) // 12)  # at most a dozen word ticks
        self.getPlotItem().getAxis("left").setTicks(
            [[(-1.0, "updates")] + [(float(k), str(k + 1)) for k in range(0, top + 1, step)]]
        )
        for kind, pts in ((ADD, adds), (REVOKE, revs)):
            for t, y, text in pts[: MAX_LABELS // 2]:
                label = html.escape(text)
                if kind == REVOKE:
                    label = f"<s>{label}</s>"
                item = pg.TextItem(
                    html=f"<span style='color:{kind}'>{label}</span>",
                    anchor=(1, 0.5) if kind == REVOKE else (0, 0.5),
                )
                item.setPos(t, y)
                self.addItem(item)
                self.labels.append(item)
        self.autoRange()
        lo, hi = self.getPlotItem().getViewBox().viewRange()[0]
        self.setXRange(lo, hi + 0.2 * (hi - lo), padding=0)  # room for the last labels

    def set_cursor(self, seconds: float) -> None:
        self.cursor.setValue(float(seconds))


class IncrementalPanel(QWidget):
    """The Incremental tab (see the module docstring).

    Signals
    -------
    run_done(int) : a run started here was stored (its id).
    """

    run_done = Signal(int)

    def __init__(self, ctx: Context, parent=None, *, lazy: bool = False):
        super().__init__(parent)
        #: a hidden tab of the main window reads the project when it is first shown
        self.lazy = lazy
        self._stale = False
        self.ctx = ctx
        self.result: IncrementalResult | None = None
        self.job: Job | None = None
        self.roots: dict[str, object] = {}

        self.runs = QComboBox()
        self.runs.setMinimumContentsLength(24)
        self.runs.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.dataset = QComboBox()
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(MODELS)
        self.policy = QComboBox()
        self.policy.addItems(POLICY_CHOICES)
        self.chunk = QDoubleSpinBox()
        self.chunk.setRange(0.1, 10.0)
        self.chunk.setSingleStep(0.5)
        self.chunk.setValue(1.0)
        self.chunk.setSuffix(" s")
        self.run_btn = QPushButton("Run on selected items")
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setEnabled(False)
        self.status = QLabel("")
        self.status.setObjectName("muted")

        self.items = QListWidget()
        self.items.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.items.setToolTip(
            "Items of the dataset: select several to run on; the current one's timeline is shown"
        )
        self.stream = QComboBox()  # model × policy of the shown run
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setMaximumHeight(130)  # a few models × policies; the timeline gets the rest
        self.table.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Maximum)
        self.view = TimelineView()
        self.player = AudioPlayer(ctx.jobs)
        self.player.message.connect(ctx.status)
        self.legend = QLabel("")
        self.legend.setWordWrap(True)

        # the left column: the shown run, a new run's settings, the items to run it on
        # (one column rather than a row of ten controls: the tab fits a 1024-px screen)
        new = QGroupBox("New run")
        form = QFormLayout(new)
        form.addRow("Dataset", self.dataset)
        form.addRow("Model", self.model)
        form.addRow("Policy", self.policy)
        form.addRow("Chunk", self.chunk)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_btn)
        buttons.addWidget(self.cancel_btn)
        form.addRow(buttons)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("Run shown"))
        ll.addWidget(self.runs)
        ll.addWidget(new)
        ll.addWidget(QLabel("Items"))
        ll.addWidget(self.items, 1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.table)
        row = QHBoxLayout()
        row.addWidget(QLabel("Timeline of"))
        row.addWidget(self.stream, 1)
        rl.addLayout(row)
        rl.addWidget(self.legend)
        # the timeline over the player, the boundary the user's to move
        below = QSplitter(Qt.Vertical)
        below.setChildrenCollapsible(False)
        # an empty timeline is a message, not an axis of −400…400 "s (x0.001)"
        self.no_timeline = QLabel()
        self.no_timeline.setObjectName("muted")
        self.no_timeline.setAlignment(Qt.AlignCenter)
        self.no_timeline.setWordWrap(True)
        self.no_timeline.setMinimumHeight(self.view.minimumHeight())
        self.timeline_stack = QStackedWidget()
        self.timeline_stack.addWidget(self.no_timeline)
        self.timeline_stack.addWidget(self.view)
        self.no_timeline.setText(self._empty_text())
        below.addWidget(self.timeline_stack)
        below.addWidget(self.player)
        below.setStretchFactor(0, 3)
        below.setStretchFactor(1, 2)
        rl.addWidget(below, 1)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 4)
        split.setSizes([300, 900])

        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        lay.addWidget(self.status)

        self.runs.currentIndexChanged.connect(self._run_changed)
        self.dataset.currentIndexChanged.connect(self._fill_items)
        self.items.currentItemChanged.connect(lambda *_: self.show_timeline())
        self.stream.currentIndexChanged.connect(lambda *_: self.show_timeline())
        self.run_btn.clicked.connect(self.start)
        self.cancel_btn.clicked.connect(self.cancel)
        # the player's display timer moves its playhead first, then the timeline's cursor
        self.player.timer.timeout.connect(self.follow_player)
        ctx.project_changed.connect(self.reload)
        self.reload()

    def follow_player(self) -> None:
        """Move the timeline's cursor to the player's playhead."""
        self.view.set_cursor(self.player.position)

    # -- runs and items ------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read the datasets and the stored incremental runs."""
        from ...incremental.store import incremental_runs

        if self.lazy and not self.isVisible():
            self._stale = True
            return
        self._stale = False
        p = self.ctx.project
        self.dataset.blockSignals(True)
        self.dataset.clear()
        self.roots = {}
        if p is not None:
            for ds in p.datasets():
                self.dataset.addItem(ds.name)
                self.roots[ds.name] = ds.root
        self.dataset.blockSignals(False)
        self._fill_items()
        keep = self.runs.currentData()
        self.runs.blockSignals(True)
        self.runs.clear()
        for r in incremental_runs(p) if p is not None else []:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
            self.runs.addItem(
                f"run {r.id} · {' + '.join(r.models)} · {r.dataset or '?'} · {when}", r.id
            )
        self.runs.blockSignals(False)
        i = self.runs.findData(keep) if keep is not None else -1
        self.runs.setCurrentIndex(max(i, 0) if self.runs.count() else -1)
        self._run_changed()

    def _fill_items(self) -> None:
        self.items.clear()
        p, name = self.ctx.project, self.dataset.currentText()
        if p is None or not name:
            return
        frame = p.items(p.dataset(name))
        n = len(frame)
        durations = frame["duration"].tolist() if "duration" in frame else [None] * n
        texts = frame["text"].tolist() if "text" in frame else [None] * n
        from ...core.spans import item_spans

        for id_, path, duration, text, span in zip(
            frame["id"].tolist(),
            frame["path"].tolist(),
            durations,
            texts,
            item_spans(frame),
            strict=True,
        ):
            it = QListWidgetItem(str(id_))
            it.setData(
                Qt.UserRole,
                {"id": str(id_), "path": str(path), "duration": duration, "span": span},
            )
            it.setToolTip(str(text or ""))
            self.items.addItem(it)

    def select_run(self, run_id: int) -> None:
        i = self.runs.findData(int(run_id))
        if i >= 0:
            self.runs.setCurrentIndex(i)

    def _run_changed(self, *_):
        from ...incremental.store import load_incremental

        run_id = self.runs.currentData()
        self.result = None
        if run_id is not None:
            try:
                self.result = load_incremental(self.ctx.project, int(run_id))
            except ValueError as exc:
                self.status.setText(str(exc))
        res = self.result
        timelines = res.timelines if res is not None else ()
        if res is not None and res.dataset and self.dataset.findText(res.dataset) >= 0:
            self.dataset.setCurrentIndex(self.dataset.findText(res.dataset))
        self._fill_table(res.table if res is not None else ModelsTable())
        self.stream.blockSignals(True)
        self.stream.clear()
        seen = []
        for tl in timelines:
            key = (tl.model or "", tl.policy)
            if key not in seen:
                seen.append(key)
                self.stream.addItem(f"{key[0]} · {key[1]}", key)
        self.stream.blockSignals(False)
        have = {tl.item for tl in timelines}
        for i in range(self.items.count()):
            it = self.items.item(i)
            f = it.font()
            f.setBold(it.text() in have)
            it.setFont(f)
        if have and (
            self.items.currentItem() is None or self.items.currentItem().text() not in have
        ):
            match = self.items.findItems(sorted(have)[0], Qt.MatchExactly)
            if match:
                self.items.setCurrentItem(match[0])
        self.show_timeline()

    def _fill_table(self, table: ModelsTable) -> None:
        cols, rows = table.columns, table.rows
        self.table.clear()
        self.table.setColumnCount(len(cols))
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels([c.label for c in cols])
        self.table.setVerticalHeaderLabels([row_name(m) for m in rows])
        for i, m in enumerate(rows):
            for j, v in enumerate(table.values[m]):
                self.table.setItem(i, j, QTableWidgetItem(fmt_stream_value(m, v)))
        self.table.resizeColumnsToContents()

    # -- timeline ------------------------------------------------------------------------
    def current_timeline(self) -> Timeline | None:
        it = self.items.currentItem()
        key = self.stream.currentData()
        if it is None or key is None or not self.result:
            return None
        for tl in self.result.timelines:
            if str(tl.item) == it.text() and (tl.model or "", tl.policy) == key:
                return tl
        return None

    def _empty_text(self) -> str:
        """What the timeline's place says while there is no timeline to draw."""
        if not self.result:
            return (
                "No timeline to show: select items on the left and click "
                f"<b>{html.escape(self.run_btn.text())}</b>; the current item's words, as "
                "the model adds and revokes them, are drawn here."
            )
        return (
            "The shown run has no timeline of this item: select one it ran on, or run on this one."
        )

    def show_timeline(self) -> None:
        tl = self.current_timeline()
        self.view.set_timeline(tl)
        it = self.items.currentItem()
        self.timeline_stack.setCurrentWidget(self.view if tl is not None else self.no_timeline)
        if tl is None:
            self.legend.setText("No timeline for this item in the shown run." if it else "")
            self.no_timeline.setText(self._empty_text())
        else:
            adds, revs = timeline_points(tl)
            final = tl.final_text
            self.legend.setText(
                f"<b>{len(tl.events)}</b> updates, <span style='color:{ADD}'>"
                f"{count(len(adds), 'add')}</span>, <span style='color:{REVOKE}'>{count(len(revs), 'revoke')}"
                f"</span>; final: {html.escape(final)}"
            )
        if it is not None:
            meta = it.data(Qt.UserRole) or {}
            root = self.roots.get(self.dataset.currentText())
            if root is not None and meta.get("path"):
                dur = meta.get("duration")
                self.player.load(
                    audio_file(root, meta["path"]),
                    float(dur) if isinstance(dur, (int, float)) else None,
                    span=meta.get("span"),
                )

    # -- running ---------------------------------------------------------------------------
    def selected_ids(self) -> list[str]:
        return [it.text() for it in self.items.selectedItems()]

    def start(self) -> Job | None:
        """Run the chosen model and policy on the selected items in the background."""
        from ...incremental.job import run_incremental

        ids = self.selected_ids()
        if self.ctx.project is None or not ids:
            self.status.setText("Select one or more items first.")
            return None
        self.job = Job(
            run_incremental,
            str(self.ctx.project.folder),
            self.dataset.currentText(),
            [self.model.currentText().strip()],
            [self.policy.currentText()],
            float(self.chunk.value()),
            item_ids=ids,
            threads=2,
            name="incremental run",
        )
        self.job.signals.progress.connect(lambda f, m: self.status.setText(f"{100 * f:.0f}% {m}"))
        self.job.signals.result.connect(self._done)
        self.job.signals.error.connect(lambda m: self.status.setText(f"failed: {m}"))
        self.job.signals.cancelled.connect(lambda: self.status.setText("cancelled"))
        self.job.signals.finished.connect(self._finished)
        self.run_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.status.setText(f"running {self.policy.currentText()} on {count(len(ids), 'item')}…")
        return self.ctx.jobs.submit(self.job, channel="incremental")

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def _finished(self) -> None:
        self.run_btn.setEnabled(True)
        self.cancel_btn.setEnabled(False)

    def _done(self, res: IncrementalResult) -> None:
        if res.run_id is None:  # every item failed: nothing to show or store
            why = "; ".join(f"{f.item}: {f.reason}" for f in res.failures[:3])
            self.status.setText(f"no item gave a result, nothing stored ({why})")
            return
        self.status.setText(f"stored as run {res.run_id}")
        self.reload()
        self.select_run(res.run_id)
        self.run_done.emit(int(res.run_id))

    def showEvent(self, event):  # noqa: N802 - Qt API
        super().showEvent(event)
        if self._stale:
            self.reload()
