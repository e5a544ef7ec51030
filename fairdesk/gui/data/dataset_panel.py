"""The dataset browser: open a project or the demo, list datasets with their group counts,
and browse a dataset's items with a text filter and per-column filters."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.audio_paths import audio_file
from ...jobs import tasks
from ...presentation import count, plural
from ..annotation.annotation_panel import AnnotationPanel
from ..context import Context
from ..items.item_columns import shortcut
from ..jobs import Job
from ..widgets.fit_scroll import FitScrollArea
from ..widgets.table_model import FrameModel, fit_columns
from ..widgets.theme import esc
from .dataset_roots import AudioRootsMixin

if TYPE_CHECKING:
    from ..audio.player import AudioPlayer

#: Item columns not worth a table column.
HIDDEN = ("db_id", "audio_hash", "sample_rate", "channels")
#: A metadata column gets a filter box when it has at most this many values.
MAX_FILTER_VALUES = 40
ALL = "(all)"


def segment_column(frame) -> list[str]:
    """Where each item lies in its recording (``03:12.50–03:14.10``; – for a whole file),
    with hours on every row when a recording runs past an hour, so the column sorts."""
    from ...core.spans import item_spans
    from ...presentation import fmt_segment

    spans = item_spans(frame)
    hours = any(s is not None and s[1] >= 3600 for s in spans)
    return [fmt_segment(None, None) if s is None else fmt_segment(*s, hours=hours) for s in spans]


#: The fewest pixels the items table keeps when an item's player and editor open (5 rows).
TABLE_MIN_HEIGHT = 150


class DatasetPanel(AudioRootsMixin, QWidget):
    """Datasets of the open project and the items of the selected one.

    Signals
    -------
    dataset_selected(str) : the dataset shown.
    """

    dataset_selected = Signal(str)

    SHORTCUTS = [
        ("Space", "Play / pause the selected item (except while typing)"),
        ("J / K", "Next / previous item"),
        *AnnotationPanel.SHORTCUTS,
    ]

    def __init__(self, ctx: Context, parent=None, *, deferred: bool = False):
        super().__init__(parent)
        self.ctx = ctx
        # the main window's first screen: the first dataset's table is read in a job, so the
        # window is drawn before pandas and the items are loaded
        self._defer = deferred
        self.load_job: Job | None = None
        self._summary: dict | None = None
        self._frame = None  # the dataset's items (all columns), rows as in the model
        self._root: Path | None = None
        self._filters: dict[str, QComboBox] = {}
        self.relink_error = ""  # why the last relink was refused

        self.open_btn = QPushButton("Open project…")
        self.demo_btn = QPushButton("Open demo…")
        self.import_btn = QPushButton("Import dataset…")
        self.project_label = QLabel("no project open")
        self.project_label.setObjectName("muted")
        self.busy = QProgressBar()
        self.busy.setMaximumWidth(220)
        self.busy.hide()
        top = QHBoxLayout()
        for w in (self.open_btn, self.demo_btn, self.import_btn):
            top.addWidget(w)
        top.addSpacing(12)
        top.addWidget(self.project_label, 1)
        top.addWidget(self.busy)

        # left: datasets and their groups
        self.datasets = QListWidget()
        self.datasets.setMaximumHeight(130)
        self.summary_label = QLabel()
        self.summary_label.setWordWrap(True)
        # where the audio is read from (a copied project may still name the original's)
        self.audio_label = QLabel()
        self.audio_label.setWordWrap(True)
        self.audio_label.setTextFormat(Qt.RichText)
        self.relink_btn = QPushButton("Relink audio folder…")
        self.relink_btn.setToolTip(
            "The dataset's audio has moved (a copied or moved project): choose the folder "
            "that holds it now; every file is checked before the project is changed"
        )
        self.relink_btn.clicked.connect(lambda: self.relink())
        self.agreement_btn = QPushButton("Annotators' agreement…")
        self.agreement_btn.setToolTip(
            "How far the annotators' versions of this dataset agree: tone marks (raw, Cohen's "
            "κ, Krippendorff's α), WER, DER and TER with 95% intervals, and the items where "
            "they disagree most"
        )
        self.agreement_btn.clicked.connect(lambda: self.show_agreement())
        self.agreement_view = QPlainTextEdit()
        self.agreement_view.setReadOnly(True)
        self.agreement_view.setVisible(False)
        self.agreement_view.setMaximumHeight(220)
        self.groups = QTreeWidget()
        self.groups.setHeaderLabels(["Column / value", "Items", "Speakers"])
        self.groups.setAlternatingRowColors(True)
        self.groups.setRootIsDecorated(True)
        self.groups.header().setSectionResizeMode(0, QHeaderView.Stretch)
        self.groups.header().setStretchLastSection(False)
        self.groups.setToolTip("Double-click a value to filter the items by it")
        left = QWidget()
        left.setMinimumWidth(300)
        left.setMaximumWidth(480)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        h = QLabel("Datasets")
        h.setObjectName("heading")
        lv.addWidget(h)
        lv.addWidget(self.datasets)
        lv.addWidget(self.summary_label)
        audio_row = QHBoxLayout()
        audio_row.addWidget(self.audio_label, 1)
        audio_row.addWidget(self.relink_btn, 0, Qt.AlignTop)
        lv.addLayout(audio_row)
        lv.addWidget(self.agreement_btn)
        lv.addWidget(self.agreement_view)
        lv.addWidget(self.groups, 1)

        # right: items
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter items (id, text, speaker, any column)…")
        self.search.setClearButtonEnabled(True)
        self.filter_row = QHBoxLayout()
        self.filter_row.setSpacing(6)
        self.count_label = QLabel()
        self.count_label.setObjectName("muted")
        self.model = FrameModel()
        self.proxy = self.model  # the model sorts and filters itself (vectorised)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        self.table.setSortingEnabled(True)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setTextElideMode(Qt.ElideRight)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.horizontalHeader().setHighlightSections(False)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        h = QLabel("Items")
        h.setObjectName("heading")
        head = QHBoxLayout()
        head.addWidget(h)
        head.addStretch(1)
        head.addWidget(self.count_label)
        rv.addLayout(head)
        rv.addWidget(self.search)
        rv.addLayout(self.filter_row)
        # the player and the annotation editor are built when an item is first selected
        self.player: AudioPlayer | None = None
        self.annotation: AnnotationPanel | None = None
        self._annotation_state: dict = {}
        self._detail_fitted = False  # the detail's height given once (_fit_detail)
        detail = QWidget()
        self._detail = QVBoxLayout(detail)
        self._detail.setContentsMargins(0, 0, 0, 0)
        self._hint = QLabel("Select an item to listen to it and annotate its transcript.")
        self._hint.setObjectName("muted")
        self._hint.setAlignment(Qt.AlignCenter)
        self._detail.addWidget(self._hint, 1)
        self.vsplit = QSplitter(Qt.Vertical)
        self.vsplit.addWidget(self.table)
        self.vsplit.addWidget(FitScrollArea(detail))  # a small screen scrolls, never clips
        self.vsplit.setSizes([420, 380])
        rv.addWidget(self.vsplit, 1)

        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([330, 900])
        self.split = split
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(split, 1)
        self.table.selectionModel().currentRowChanged.connect(self._row_selected)
        for key, slot in (
            ("Space", lambda: self.player and self.player.toggle()),
            ("J", lambda: self._step(1)),
            ("K", lambda: self._step(-1)),
        ):
            shortcut(self, key, slot)

        self.open_btn.clicked.connect(self.choose_project)
        self.demo_btn.clicked.connect(self.choose_demo)
        self.import_btn.clicked.connect(self.import_dialog)
        self.datasets.currentItemChanged.connect(self._dataset_changed)
        self.search.textChanged.connect(self._search)
        self.groups.itemDoubleClicked.connect(self._group_clicked)
        ctx.project_changed.connect(self.reload)
        self.reload()

    # -- project ------------------------------------------------------------------------
    def choose_project(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Open or create a fairdesk project folder")
        if d:
            self.ctx.open_project(d)

    def choose_demo(self) -> None:
        d = QFileDialog.getExistingDirectory(
            self,
            "Folder for the demo project (it will hold 2,340 utterances, ~60 MB)",
            str(Path.home()),
        )
        if d:
            self.open_demo(d)

    def open_demo(self, folder) -> Job:
        """Create (or reopen) the demo project in ``folder`` in the background."""
        job = Job(tasks.open_demo, str(folder), name="open demo")
        self._busy(True, "importing the demo corpus…")
        job.signals.progress.connect(lambda f, m: self.busy.setValue(int(f * 100)))
        job.signals.result.connect(lambda folder: self.ctx.open_project(folder))
        job.signals.error.connect(lambda msg: QMessageBox.warning(self, "Demo", msg))
        job.signals.finished.connect(lambda: self._busy(False))
        return self.ctx.jobs.submit(job, channel="project")

    def _busy(self, on: bool, text: str = "") -> None:
        self.busy.setVisible(on)
        self.busy.setValue(0)
        for b in (self.open_btn, self.demo_btn, self.import_btn):
            b.setEnabled(not on)
        if text:
            self.ctx.status.emit(text)

    def import_dialog(self):
        from .import_dialog import ImportDialog

        if self.ctx.project is None:
            QMessageBox.information(self, "Import", "Open or create a project folder first.")
            return None
        if self.ctx.read_only:
            QMessageBox.information(self, "Import", self.ctx.read_only_tip().capitalize() + ".")
            return None
        dlg = ImportDialog(self.ctx, self)
        dlg.show()
        return dlg

    # -- datasets -------------------------------------------------------------------
    def reload(self) -> None:
        p = self.ctx.project
        self.import_btn.setEnabled(p is not None and not p.read_only)
        self.import_btn.setToolTip(self.ctx.read_only_tip() if self.ctx.read_only else "")
        self.project_label.setText(str(p.folder) if p else "no project open")
        current = self.current_dataset()
        self.datasets.blockSignals(True)
        self.datasets.clear()
        names = []
        if p is not None:
            for ds in p.datasets():
                n = p.item_count(ds)
                it = QListWidgetItem(f"{ds.name}    ({count(n, 'item')}, {ds.format})")
                it.setData(Qt.UserRole, ds.name)
                self.datasets.addItem(it)
                names.append(ds.name)
        self.datasets.blockSignals(False)
        if names:
            self.select_dataset(current if current in names else names[0])
        else:
            self._show(None)

    def show_agreement(self) -> Job | None:
        """Compute the annotators' agreement of the shown dataset in a job and show its
        words (:func:`fairdesk.presentation.agreement.agreement_lines`)."""
        name = self.current_dataset()
        if name is None or self.ctx.folder is None:
            return None
        self.agreement_view.setVisible(True)
        self.agreement_view.setPlainText(f"computing the annotators' agreement on {name}…")
        job = Job(tasks.agreement_view, str(self.ctx.folder), name, name="annotators' agreement")

        def shown(result, name=name) -> None:
            from ...presentation.agreement import agreement_lines

            self.agreement_view.setPlainText("\n".join(agreement_lines(result, name)))

        job.signals.result.connect(shown)
        job.signals.error.connect(
            lambda msg: self.agreement_view.setPlainText(msg.splitlines()[0] if msg else "")
        )
        return self.ctx.jobs.submit(job, channel="agreement")

    def current_dataset(self) -> str | None:
        it = self.datasets.currentItem()
        return it.data(Qt.UserRole) if it else None

    def select_dataset(self, name: str) -> None:
        for i in range(self.datasets.count()):
            if self.datasets.item(i).data(Qt.UserRole) == name:
                if self.datasets.currentRow() == i:
                    self._show(name)
                else:
                    self.datasets.setCurrentRow(i)
                return

    def _dataset_changed(self, cur, _prev) -> None:
        self._show(cur.data(Qt.UserRole) if cur else None)

    def _show(self, name: str | None) -> None:
        p = self.ctx.project
        self.groups.clear()
        self._clear_filters()
        if p is None or name is None:
            self._summary = None
            self.summary_label.setText(
                "No dataset. Import one, or open the demo."
                if p is not None
                else "Open a project folder."
            )
            self.model.set_frame(None)
            self._frame = None
            self.audio_label.clear()
            self.relink_btn.hide()
            if self.annotation is not None:
                self.annotation.set_item(None)
            self._update_count()
            return
        ds = p.dataset(name)
        if self._defer:
            self._defer = False
            self._load_in_job(ds)
            return
        view = tasks.read_dataset_view(p, ds)
        self._fill(ds, view["summary"], view["frame"])

    def _load_in_job(self, ds) -> None:
        """Read the dataset's summary and items in a job; fill the views when it is done
        (dropped if another dataset or project is shown by then)."""
        self.summary_label.setText(f"reading {esc(ds.name)}…")
        self.model.set_frame(None)
        self._frame = None
        folder = self.ctx.folder
        job = Job(tasks.dataset_view, str(folder), ds.name, name="read the dataset")
        job.signals.result.connect(
            lambda out, f=folder, d=ds: self._loaded(f, d, out["summary"], out["frame"])
        )
        job.signals.error.connect(
            lambda msg: self.summary_label.setText(
                f"<span style='color:#c62828'>{esc(msg.splitlines()[0])}</span>"
            )
        )
        self.load_job = self.ctx.jobs.submit(job, channel="dataset-view")

    def _loaded(self, folder, ds, s: dict, frame) -> None:
        if folder != self.ctx.folder or self.current_dataset() != ds.name:
            return  # another project or dataset is shown now
        self._fill(ds, s, frame)

    def _fill(self, ds, s: dict, frame) -> None:
        """Show a dataset: its summary, column values and items (``annotation`` added)."""
        name = ds.name
        self._summary = s
        extra = (
            f" · <span style='color:#c62828'>{s['problems']} import problems</span>"
            if s["problems"]
            else ""
        )
        self.summary_label.setText(
            f"<b>{s['items']:,}</b> {plural(s['items'], 'item')} · <b>{s['speakers']:,}</b> "
            f"{plural(s['speakers'], 'speaker')} · "
            f"<b>{s['hours']:.2f}</b> h · {s['format']} · language {s['language']}{extra}"
        )
        for col, values in sorted(s["columns"].items()):
            top = QTreeWidgetItem([f"{col}  ({count(len(values), 'value')})", "", ""])
            f = top.font(0)
            f.setBold(True)
            top.setFont(0, f)
            self.groups.addTopLevelItem(top)
            top.setFirstColumnSpanned(True)  # "age_group (3 value…" was cut at the Items column
            top.setToolTip(0, top.text(0))
            if len(values) > MAX_FILTER_VALUES:
                continue
            for v, c in sorted(values.items()):
                child = QTreeWidgetItem([v, f"{c['items']:,}", f"{c['speakers']:,}"])
                child.setData(0, Qt.UserRole, (col, v))
                child.setTextAlignment(1, Qt.AlignRight | Qt.AlignVCenter)
                child.setTextAlignment(2, Qt.AlignRight | Qt.AlignVCenter)
                top.addChild(child)
            top.setExpanded(len(values) <= 8)
        self.groups.resizeColumnToContents(1)
        self.groups.resizeColumnToContents(2)
        self._frame, self._root = frame, ds.root
        self._show_audio_root(ds)
        shown = frame
        if "start_s" in frame.columns:  # segments of longer recordings: where each lies
            shown = frame.assign(segment=segment_column(frame))
        cols = [
            c
            for c in ("id", "text", "annotation", "speaker_id", "duration", "segment", "content_id")
            if c in shown.columns
        ]
        cols += [
            c
            for c in shown.columns
            if c not in cols and c not in HIDDEN and c not in ("path", "start_s", "end_s")
        ]
        self.model.set_frame(shown[cols].copy())
        for col, values in sorted(s["columns"].items()):
            structured = any(str(v).startswith(("{", "[")) for v in values)
            if 2 <= len(values) <= MAX_FILTER_VALUES and col in cols and not structured:
                self._add_filter(col, sorted(values), cols.index(col))
        self.filter_row.addStretch(1)
        self._fit_columns()
        self._update_count()
        self.dataset_selected.emit(name)

    def _fit_columns(self) -> None:
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        fit_columns(
            self.table, {"text": 340, "annotation": 300, "id": 260}, default_cap=200, minimum=60
        )

    def _clear_filters(self) -> None:
        while self.filter_row.count():
            it = self.filter_row.takeAt(0)
            if it.widget():
                it.widget().deleteLater()
        self._filters.clear()
        self.model.clear_column_filters()

    # -- one item: listen and annotate --------------------------------------------------
    def save_state(self, settings: dict | None = None) -> dict:
        out = dict(settings or {})
        out.update(
            {
                "split": list(self.split.sizes()),
                "vsplit": list(self.vsplit.sizes()),
                "annotation": self.annotation.save_state({})
                if self.annotation
                else dict(self._annotation_state),
            }
        )
        return out

    def restore_state(self, state: dict) -> None:
        for name in ("split", "vsplit"):
            sizes = state.get(name)
            if isinstance(sizes, (list, tuple)) and all(isinstance(s, int) for s in sizes):
                getattr(self, name).setSizes(list(sizes))
        if isinstance(state.get("annotation"), dict):
            self._annotation_state = dict(state["annotation"])
            if self.annotation is not None:
                self.annotation.restore_state(self._annotation_state)

    def _step(self, d: int) -> None:
        n = self.model.rowCount()
        if n:
            r = self.table.currentIndex().row()
            self.table.selectRow(0 if r < 0 else min(max(r + d, 0), n - 1))

    def current_item(self) -> dict | None:
        """The selected item's row of the dataset frame (with ``db_id`` and ``path``)."""
        r = self.table.currentIndex().row()
        if r < 0 or self._frame is None:
            return None
        return self._frame.iloc[self.model.source_row(r)].to_dict()

    def _path(self, view_row: int) -> tuple[str, tuple | None] | None:
        """``(audio path, span or None)`` of a row of the table (what the player loads)."""
        from ...core.spans import span_of

        if self._frame is None or self._root is None or not 0 <= view_row < self.model.rowCount():
            return None
        row = self._frame.iloc[self.model.source_row(view_row)]
        return str(audio_file(self._root, row["path"])), span_of(row)

    def _row_selected(self, current, _prev) -> None:
        if not current.isValid() or self._frame is None:
            return
        row = self._frame.iloc[self.model.source_row(current.row())]
        src = self._path(current.row())
        if src:
            self.ensure_detail().load(src[0], span=src[1])
            self.player.prefetch(self._path(current.row() + d) for d in (1, -1, 2))
        self.ensure_detail()
        self.annotation.set_item(int(row["db_id"]), str(row["id"]))

    def ensure_detail(self) -> AudioPlayer:
        """The player (and annotation editor), built on first use; returns the player."""
        if self.player is None:
            from ..audio.player import AudioPlayer  # pyqtgraph: loaded when an item is first shown

            self.player = AudioPlayer(self.ctx.jobs)
            self.player.message.connect(self.ctx.status)
            self.annotation = AnnotationPanel(self.ctx)
            self.annotation.restore_state(self._annotation_state)
            self.annotation.saved.connect(self._annotated)
            self._hint.hide()
            self._detail.addWidget(self.player, 1)
            self._detail.addWidget(self.annotation)
        if not self._detail_fitted:
            QTimer.singleShot(0, self._fit_detail)  # once its widgets are laid out
        return self.player

    def _fit_detail(self) -> None:
        """Give the player and the transcript editor the height they need (at 768 px they
        had to be scrolled), the table keeping :data:`TABLE_MIN_HEIGHT` at least."""
        sizes = self.vsplit.sizes()
        total = sum(sizes)
        if total <= 0 or len(sizes) != 2 or not self.isVisible():
            return  # not laid out yet: on the first item shown
        self._detail_fitted = True  # once: a height the user drags to is kept
        want = self.vsplit.widget(1).widget().minimumSizeHint().height() + 4
        detail = max(sizes[1], min(want, total - TABLE_MIN_HEIGHT))
        if detail != sizes[1]:
            self.vsplit.setSizes([total - detail, detail])

    def _annotated(self, db_id: int, text: str) -> None:
        """Show the new transcript in the table's annotation column."""
        if self._frame is None or "annotation" not in self.model.columns:
            return
        hit = np.flatnonzero(self._frame["db_id"].to_numpy() == db_id)
        for r in hit:
            self._frame.loc[self._frame.index[r], "annotation"] = text
            self.model.set_value(int(r), "annotation", text)

    def _add_filter(self, col: str, values: list[str], index: int) -> None:
        box = QComboBox()
        box.addItem(f"{col}: {ALL}", None)
        for v in values:
            box.addItem(f"{col}: {v}", v)
        box.setToolTip(f"Show only items with this {col}")
        box.currentIndexChanged.connect(
            lambda _i, b=box, c=index: self._column_filter(c, b.currentData())
        )
        self.filter_row.addWidget(box)
        self._filters[col] = box

    def set_filter(self, column: str, value: str | None) -> None:
        """Filter the items on a metadata column (None: all)."""
        box = self._filters.get(column)
        if box is None:
            return
        i = box.findData(value) if value is not None else 0
        box.setCurrentIndex(max(0, i))

    def _column_filter(self, index: int, value) -> None:
        self.proxy.set_column_filter(index, value)
        self._update_count()

    def _search(self, text: str) -> None:
        self.proxy.set_text(text)
        self._update_count()

    def _group_clicked(self, item, _col) -> None:
        data = item.data(0, Qt.UserRole)
        if data:
            self.set_filter(*data)

    def _update_count(self) -> None:
        self.count_label.setText(
            f"{self.model.rowCount():,} of {count(self.model.source_rows(), 'item')}"
        )

    def visible_rows(self) -> int:
        return self.model.rowCount()
