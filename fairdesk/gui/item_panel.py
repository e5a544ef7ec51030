"""The item view: a run's failing utterances ranked worst first (``rank_failures``); for the
selected one the audio player and the reference-vs-hypothesis difference."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from .context import Context
from .diff_view import DiffView
from .player import AudioPlayer
from .table_model import FrameFilter, FrameModel

ALL = "(all groups)"
HEADERS = {"rank": "#", "errors": "Err.", "n_words": "Words", "wer": "WER", "em": "EM",
           "speaker_id": "speaker"}
SHOWN = ("rank", "group", "errors", "n_words", "wer", "em", "reference", "hypothesis", "id",
         "speaker_id")


class ItemPanel(QWidget):
    """Ranked failures of the selected run and the detail of one item.

    Signals
    -------
    item_shown(str) : the id of the item whose detail is shown.
    """

    item_shown = Signal(str)

    def __init__(self, ctx: Context, parent=None):
        super().__init__(parent)
        self.ctx = ctx
        self.run_id: int | None = None
        self.frame = None
        self.language = "en"
        self.dataset_root: Path | None = None
        self.report: dict | None = None
        self.payload: dict = {}
        self._row: dict | None = None
        self._saliency_job = None

        self.run_label = QLabel("No run selected.")
        self.run_label.setObjectName("heading")
        self.group = QComboBox()
        self.group.setMinimumWidth(160)
        self.only_failing = QCheckBox("only items with errors")
        self.only_failing.setChecked(True)
        self.count = QLabel()
        self.count.setObjectName("muted")
        self.model = FrameModel()
        self.proxy = FrameFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        self.table.setSortingEnabled(True)
        self.table.setTextElideMode(Qt.ElideMiddle)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.run_label)
        row = QHBoxLayout()
        row.addWidget(self.group)
        row.addWidget(self.only_failing)
        row.addStretch(1)
        row.addWidget(self.count)
        lv.addLayout(row)
        lv.addWidget(self.table, 1)

        self.title = QLabel("Select an item.")
        self.title.setTextFormat(Qt.RichText)
        self.title.setWordWrap(True)
        self.player = AudioPlayer(ctx.jobs)
        self.saliency_info = QLabel("")
        self.saliency_info.setObjectName("muted")
        self.saliency_btn = QPushButton("Compute saliency")
        self.saliency_btn.setToolTip("Occlusion saliency of the reference transcript under the "
                                     "run's model, with the reference word spans (runs in the "
                                     "background and is stored in the project)")
        self.saliency_btn.setVisible(False)
        self.saliency_btn.clicked.connect(self.compute_saliency)
        srow = QHBoxLayout()
        srow.addWidget(self.saliency_info, 1)
        srow.addWidget(self.saliency_btn)
        self.diff = DiffView()
        right = QSplitter(Qt.Vertical)
        top = QWidget()
        tv = QVBoxLayout(top)
        tv.setContentsMargins(0, 0, 0, 0)
        tv.addWidget(self.title)
        tv.addLayout(srow)
        tv.addWidget(self.player, 1)
        right.addWidget(top)
        right.addWidget(self.diff)
        right.setSizes([420, 330])

        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([730, 690])
        lay = QVBoxLayout(self)
        lay.addWidget(split)

        self.group.currentIndexChanged.connect(self._refill)
        self.only_failing.toggled.connect(self._refill)
        self.table.selectionModel().currentRowChanged.connect(self._selected)
        ctx.run_selected.connect(self.load_run)
        if ctx.run_id is not None:
            self.load_run(ctx.run_id)

    def load_run(self, run_id: int) -> None:
        """Rank the items of a finished run."""
        from ..jobs.cache import run_items_frame, run_payload
        from ..review import rank_failures

        p = self.ctx.project
        try:
            df = run_items_frame(p, int(run_id))
            payload = run_payload(p, int(run_id))
        except ValueError as exc:
            self.run_label.setText(str(exc))
            return
        self.run_id = int(run_id)
        self.payload = payload
        self.language = (payload.get("settings") or {}).get("language", "en")
        try:
            self.dataset_root = p.dataset(payload.get("dataset")).root
        except Exception:  # noqa: BLE001 - a deleted dataset: no audio, the rest still shows
            self.dataset_root = None
        df = rank_failures(df).reset_index(drop=True)
        errs = sum(df[c].fillna(0) for c in ("n_sub", "n_del", "n_ins") if c in df.columns)
        df["errors"] = errs.astype(int) if hasattr(errs, "astype") else 0
        words = df["n_words"].clip(lower=1) if "n_words" in df.columns else 1
        df["wer"] = (df["errors"] / words).round(3)
        df["rank"] = range(1, len(df) + 1)
        self.frame = df
        n_fail = int(((df["errors"] > 0) | (df.get("em", 1) == 0)).sum())
        self.run_label.setText(f"Run {run_id}: {n_fail:,} of {len(df):,} items with errors")
        self.group.blockSignals(True)
        self.group.clear()
        self.group.addItem(ALL, None)
        for g in sorted(df["group"].astype(str).unique()):
            self.group.addItem(g, g)
        self.group.blockSignals(False)
        self._refill()

    def _refill(self, *_):
        if self.frame is None:
            return
        df = self.frame
        g = self.group.currentData()
        if g is not None:
            df = df[df["group"].astype(str) == g]
        if self.only_failing.isChecked():
            bad = df["errors"] > 0
            if "em" in df.columns:
                bad |= df["em"].fillna(1) == 0
            df = df[bad]
        self._rows = df.reset_index(drop=True)
        cols = [c for c in SHOWN if c in df.columns]
        self.model.set_frame(self._rows[cols].rename(columns=HEADERS))
        hdr = self.table.horizontalHeader()
        hdr.setSectionResizeMode(QHeaderView.Interactive)
        self.table.resizeColumnsToContents()
        for c, name in enumerate(cols):
            width = {"reference": 190, "hypothesis": 190, "id": 200, "speaker_id": 120,
                     "group": 120, "rank": 44}.get(name, 60)
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), width) if width > 100
                                      else width)
        self.count.setText(f"{len(self._rows):,} shown")
        if len(self._rows):
            self.table.selectRow(0)
        else:
            self.show_item(None)

    def _selected(self, current, _previous) -> None:
        if not current.isValid():
            return
        src = self.proxy.mapToSource(current)
        self.show_item(self._rows.iloc[src.row()].to_dict())

    def select(self, index: int) -> None:
        self.table.selectRow(index)

    def show_item(self, row: dict | None) -> None:
        from ..review import item_report

        if row is None:
            self.report = None
            self._row = None
            self.title.setText("No item.")
            self.diff.set_report(None)
            self.saliency_info.setText("")
            self.saliency_btn.setVisible(False)
            return
        self._row = row
        rep = item_report(row, self.language)
        self.report = rep
        self.title.setText(
            f"<b>{html.escape(str(rep['id']))}</b> · group <b>{html.escape(str(rep['group']))}"
            f"</b> · speaker {html.escape(str(rep.get('speaker_id')))} · "
            f"S {rep['substitutions']} · D {rep['deletions']} · I {rep['insertions']}")
        self.diff.set_report(rep)
        if self.dataset_root is not None and row.get("path"):
            self.player.load(self.dataset_root / str(row["path"]), row.get("duration"))
        self._show_saliency(row)
        self.item_shown.emit(str(rep["id"]))

    # -- saliency (explain stage) ----------------------------------------------------------
    def _audio_hash(self, row: dict) -> str | None:
        p = self.ctx.project
        try:
            ds = p.dataset(self.payload.get("dataset"))
        except Exception:  # noqa: BLE001 - a deleted dataset: no saliency lookup
            return None
        r = p.conn.execute("SELECT audio_hash FROM items WHERE dataset_id=? AND item_key=?",
                           (ds.id, str(row.get("id", row.get("item_id"))))).fetchone()
        return None if r is None else str(r[0])

    def _show_saliency(self, row: dict) -> None:
        """Overlay the stored saliency of the item for the run's model, or offer to compute it."""
        from ..explain.stage import saliency_for_item

        model_key = self.payload.get("model_key")
        ah = self._audio_hash(row)
        hit = None
        if ah and model_key:
            hit = saliency_for_item(self.ctx.project, ah, model_key,
                                    row.get("reference") or row.get("text"))
        if hit is not None:
            self.player.set_saliency(hit.curve, hit.frame_s, hit.meta.get("words") or ())
            self.saliency_info.setText(f"saliency: {hit.key.method.split(':')[0]} "
                                       f"({hit.curve.size} frames of {hit.frame_s * 1000:.0f} ms)"
                                       "; shaded: reference words")
            self.saliency_btn.setVisible(False)
            return
        self.saliency_info.setText("no saliency for this item and model")
        model = str(self.payload.get("model") or "")
        can = bool(ah) and self.dataset_root is not None and not model.startswith(
            "predictions:")
        self.saliency_btn.setVisible(True)
        self.saliency_btn.setEnabled(can)
        if not can:
            self.saliency_btn.setToolTip("Saliency needs the run's model and the audio: "
                                         "imported predictions have no model to ask")

    def compute_saliency(self):
        """Run occlusion for the shown item in a background job; draws it when done."""
        from . import tasks
        from .jobs import Job

        row = self._row
        if row is None or self.dataset_root is None:
            return None
        ah = self._audio_hash(row)
        text = row.get("reference") or row.get("text") or ""
        item = str(row.get("id", row.get("item_id")))
        job = Job(tasks.saliency, self.ctx.folder, self.payload.get("model"),
                  str(self.dataset_root / str(row["path"])), ah, text,
                  device=self.payload.get("device") or "auto", name="saliency", request=item)
        job.signals.progress.connect(
            lambda f, m: self.saliency_info.setText(f"computing saliency… {100 * f:.0f}%"))
        job.signals.result.connect(lambda out, it=item: self._saliency_done(it, out))
        job.signals.error.connect(lambda msg: self._saliency_failed(msg))
        self.saliency_btn.setEnabled(False)
        self.saliency_info.setText("computing saliency…")
        self._saliency_job = self.ctx.jobs.submit(job, channel="saliency")
        return self._saliency_job

    def _saliency_done(self, item: str, out: dict) -> None:
        if self._row is None or str(self._row.get("id", self._row.get("item_id"))) != item:
            return  # another item is shown now; the curve is stored for later
        self.player.set_saliency(out["curve"], out["frame_s"], out["words"])
        self.saliency_btn.setVisible(False)
        self.saliency_info.setText(f"saliency: occlusion ({len(out['curve'])} frames); "
                                   "shaded: reference words")

    def _saliency_failed(self, message: str) -> None:
        self.saliency_btn.setEnabled(True)
        self.saliency_info.setText(f"<span style='color:#c62828'>saliency failed: "
                                   f"{html.escape(message)}</span>")
