"""The item view: a run's items ranked worst first (``rank_failures``); for the selected one the
audio player, the reference-vs-hypothesis difference (down to tone marks inside words) and
the transcript annotation editor. The table's columns are in :mod:`.item_columns`, the
saliency overlay in :mod:`.item_saliency`.

Listening is driven from the keyboard anywhere in the view (see :attr:`ItemPanel.SHORTCUTS`);
the neighbouring items' audio is prefetched so that the next item shows at once.
"""

from __future__ import annotations

import html
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
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

from ...core.plurals import count
from ...core.run_items import prediction_words
from ...jobs.result import AuditRun
from ...presentation import fmt_value
from ..annotation.annotation_panel import AnnotationPanel
from ..audio.player import AudioPlayer
from ..context import Context
from ..widgets.fit_scroll import FitScrollArea
from ..widgets.table_model import FrameModel, fit_columns
from .diff_view import DiffView
from .item_columns import (
    ACOUSTIC,
    ALL,
    CAPS,
    HEADERS,
    PREFETCH,
    SHOWN,
    ElideDelegate,
    share_text_columns,
    shortcut,
    text_columns_minimum,
)
from .item_memory import RememberedItem
from .item_saliency import SaliencyMixin
from .item_systems import comparison_hypotheses, show_systems
from .pitfall_view import evidence_html, hallucination_labels


class ItemPanel(RememberedItem, SaliencyMixin, QWidget):
    """Ranked items of the selected run and the detail of one item.

    Signals
    -------
    item_shown(str) : the id of the item whose detail is shown.
    """

    item_shown = Signal(str)

    SHORTCUTS = [
        ("Space", "Play / pause the item (anywhere in Items, except while typing)"),
        ("J or ↓", "Next item"),
        ("K or ↑", "Previous item"),
        ("L", "Loop the selection on the waveform"),
        ("+ / − / 0", "Zoom the waveform in / out / whole file"),
        ("Click a word", "Play just that word (the strip under the waveform)"),
        *AnnotationPanel.SHORTCUTS,
    ]

    def __init__(self, ctx: Context, parent=None):
        super().__init__(parent)
        self.ctx = ctx
        self.run_id: int | None = None
        self.frame = None
        self.language = "en"
        self.normaliser = None  # the run's recorded WER normaliser (review.run_normaliser)
        self.dataset_set = None  # the run's datasets (core.dataset_sets.DatasetSet)
        self.report: dict | None = None
        self.run = AuditRun()  # the shown run's typed result (empty before one is shown)
        self._row: dict | None = None
        self._saliency_job = None
        self._items = None  # the dataset's items by key: db_id, audio_hash
        self._fields: dict[str, dict] = {}  # the same as dicts (a lookup per item shown)
        self._fitted: dict[str, int] = {}  # the columns' fitted widths (_share_text_columns)
        self._systems = None  # a comparison's systems: name → hypothesis by item id
        self._remembered: dict[str, dict] = {}  # RememberedItem's
        self._pending: tuple[int, str] | None = None

        self.run_label = QLabel("No run selected.")
        self.run_label.setObjectName("heading")
        self.run_label.setTextFormat(Qt.PlainText)
        self.run_label.setWordWrap(True)  # long counts wrap instead of widening the window
        self.group = QComboBox()
        self.group.setMinimumWidth(160)
        self.only_failing = QCheckBox("only items with errors")
        self.only_failing.setChecked(True)
        self.only_flagged = QCheckBox("only flagged")
        self.only_flagged.setToolTip(
            "only items with a hallucination flag (loop, runaway "
            "output, words over non-speech, unstable)"
        )
        self.acoustics = QCheckBox("acoustics")
        self.acoustics.setToolTip(
            "show each item's duration, non-speech share, SNR, speech rate and mean confidence"
        )
        self.count = QLabel()
        self.count.setObjectName("muted")
        self.model = FrameModel()
        self.model.decorations = {
            "Sal.": {"●": "saliency stored for this item and model"},
            "Text": {
                "ann.": "the run's reference was an annotation",
                "": "the run's reference was the imported text",
            },
            "Halluc.": {"": "no hallucination flag"},
        }
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.table.setSortingEnabled(True)
        self.table.setTextElideMode(Qt.ElideRight)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.viewport().installEventFilter(self)  # the transcripts share the width
        # the transcripts elide at the end, as the view does; a Python delegate is called
        # for every cell painted, so only the ids have one
        self._delegates = {"middle": ElideDelegate(Qt.ElideMiddle, self)}
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.run_label)
        row = QHBoxLayout()  # two rows: the list keeps its width on a 1366-pixel screen
        row.addWidget(self.group)
        row.addWidget(self.count)  # beside its filter, not against the saliency caption
        row.addStretch(1)
        lv.addLayout(row)
        row2 = QHBoxLayout()
        row2.addWidget(self.only_failing)
        row2.addWidget(self.only_flagged)
        row2.addWidget(self.acoustics)
        row2.addStretch(1)
        lv.addLayout(row2)
        lv.addWidget(self.table, 1)

        self.title = QLabel("Select an item.")
        self.title.setTextFormat(Qt.RichText)
        self.title.setWordWrap(True)
        self.player = AudioPlayer(ctx.jobs)
        self.player.message.connect(ctx.status)  # why nothing plays
        self.saliency_info = QLabel("")
        self.saliency_info.setObjectName("muted")
        self.saliency_info.setWordWrap(True)  # a narrow screen wraps the caption, never cuts it
        self.saliency_btn = QPushButton("Compute saliency")
        self.saliency_btn.setToolTip(
            "Occlusion saliency of the reference transcript under the "
            "run's model, with the reference word spans (runs in the "
            "background and is stored in the project)"
        )
        self.saliency_btn.setVisible(False)
        self.saliency_btn.clicked.connect(self.compute_saliency)
        srow = QHBoxLayout()
        srow.addWidget(self.saliency_info, 1)
        srow.addWidget(self.saliency_btn)
        self.diff = DiffView()
        self.evidence = QLabel("")
        self.evidence.setTextFormat(Qt.RichText)
        self.evidence.setWordWrap(True)
        self.evidence.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.evidence.setVisible(False)
        self.annotation = AnnotationPanel(ctx)
        self.rerun_note = QLabel("")
        self.rerun_note.setObjectName("muted")
        self.rerun_note.setWordWrap(True)
        self.annotation.saved.connect(lambda *_: self._note_rerun())
        bottom = QWidget()
        bv = QVBoxLayout(bottom)
        bv.setContentsMargins(0, 0, 0, 0)
        bv.addWidget(self.diff, 1)
        bv.addWidget(self.evidence)
        bv.addWidget(self.annotation)
        bv.addWidget(self.rerun_note)
        self.right = QSplitter(Qt.Vertical)
        top = QWidget()
        tv = QVBoxLayout(top)
        tv.setContentsMargins(0, 0, 0, 0)
        tv.addWidget(self.title)
        tv.addLayout(srow)
        tv.addWidget(self.player, 1)
        self.right.addWidget(top)
        self.right.addWidget(FitScrollArea(bottom))  # a small screen scrolls, never clips
        self.right.setSizes([380, 420])

        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(left)
        self.split.addWidget(self.right)
        self.split.setSizes([640, 780])
        lay = QVBoxLayout(self)
        lay.addWidget(self.split)

        self.group.currentIndexChanged.connect(self._refill)
        self.only_failing.toggled.connect(self._refill)
        self.only_flagged.toggled.connect(self._refill)
        self.acoustics.toggled.connect(self._show_acoustics)
        self.table.selectionModel().currentRowChanged.connect(self._selected)
        for key, slot in (
            ("Space", self.player.toggle),
            ("J", self.next_item),
            ("Down", self.next_item),
            ("K", self.previous_item),
            ("Up", self.previous_item),
            ("L", lambda: self.player.loop.toggle()),
            ("+", self.player.zoom_in),
            ("=", self.player.zoom_in),
            ("-", self.player.zoom_out),
            ("0", self.player.zoom_fit),
            ("Ctrl+E", lambda: self.annotation.editor.edit.setFocus()),
        ):
            shortcut(self, key, slot)
        self._pending_run: int | None = None
        ctx.run_selected.connect(self._run_selected)
        ctx.dataset_relinked.connect(self._relinked)
        if ctx.run_id is not None:
            self._run_selected(ctx.run_id)

    def _run_selected(self, run_id: int) -> None:
        # a hidden tab loads the run when it is first shown (launch stays quick)
        if self.isVisible():
            self.load_run(run_id)
        else:
            self._pending_run = int(run_id)

    def _relinked(self, name: str, root: str) -> None:
        """The run's dataset reads its audio from ``root`` now: play from there."""
        sets = self.dataset_set
        if self.run is not None and sets is not None and name in sets.names:
            from ...core.dataset_sets import DatasetSet

            self.dataset_set = DatasetSet(
                tuple(replace(d, root=Path(root)) if d.name == name else d for d in sets.datasets)
            )

    def showEvent(self, event):  # noqa: N802 - Qt API
        super().showEvent(event)
        if self._pending_run is not None:
            run_id, self._pending_run = self._pending_run, None
            self.load_run(run_id)

    # -- state -----------------------------------------------------------------------------
    def save_state(self, settings: dict | None = None) -> dict:
        out = dict(settings or {})
        out.update(
            {
                "split": list(self.split.sizes()),
                "right": list(self.right.sizes()),
                "only_failing": self.only_failing.isChecked(),
                "acoustics": self.acoustics.isChecked(),
                "speed": self.player.speed,
                "annotation": self.annotation.save_state({}),
                "selected": self._selected_items(),
            }
        )
        return out

    def restore_state(self, state: dict) -> None:
        for name in ("split", "right"):
            sizes = state.get(name)
            if isinstance(sizes, (list, tuple)) and all(isinstance(s, int) for s in sizes):
                getattr(self, name).setSizes(list(sizes))
        if "only_failing" in state:
            self.only_failing.setChecked(bool(state["only_failing"]))
        if "acoustics" in state:
            self.acoustics.setChecked(bool(state["acoustics"]))
        if state.get("speed"):
            self.player.set_speed(float(state["speed"]))
        if isinstance(state.get("annotation"), dict):
            self.annotation.restore_state(state["annotation"])
        self._restore_selected(state.get("selected"))

    # -- the run ---------------------------------------------------------------------------
    def load_run(self, run_id: int) -> None:
        """Rank the items of a finished run."""
        from ...core.runs import run_items_frame

        p = self.ctx.project
        try:
            df = run_items_frame(p, int(run_id))
            run = self.ctx.audit_run(int(run_id))  # decoded once, shared with the results
        except ValueError as exc:
            self.run_label.setText(str(exc))
            return
        self.run_id = int(run_id)
        self.run = run
        rs = run.run_settings
        self.language = (rs.language if rs is not None else None) or "en"
        from ...review import run_normaliser

        self.normaliser = run_normaliser(run)
        try:
            from ...core.dataset_sets import run_set, set_items

            self.dataset_set = run_set(p, run)  # every dataset of the run, items keyed by it
            items = set_items(p, self.dataset_set)
            self._items = items.set_index(items["id"].astype(str))[["db_id", "audio_hash"]]
        except Exception:  # noqa: BLE001 - a deleted dataset: no audio, the rest still shows
            self.dataset_set = None
            self._items = None
        self._fields = _first_by_key(self._items)
        self._systems = comparison_hypotheses(p, int(run_id))
        self.set_items(df)
        self._start_background_saliency()

    def set_items(self, df) -> None:
        """Rank and show the per-item rows of the run (``run_items_frame``)."""
        from ...review import rank_failures

        df = rank_failures(df).reset_index(drop=True)
        errs = sum(df[c].fillna(0) for c in ("n_sub", "n_del", "n_ins") if c in df.columns)
        df["errors"] = errs.astype(int) if hasattr(errs, "astype") else 0
        words = df["n_words"].clip(lower=1) if "n_words" in df.columns else 1
        df["wer"] = df["errors"] / words  # shown in percent (the column's format), sorted by value
        df["rank"] = range(1, len(df) + 1)
        df["saliency"] = self._saliency_flags(df)
        if "text_source" in df.columns:
            df["text_source"] = np.where(df["text_source"] == "annotation", "ann.", "")
        df["halluc"] = hallucination_labels(df)
        for c, digits in ACOUSTIC.items():
            if c in df.columns:
                df[c] = pd.to_numeric(df[c], errors="coerce").round(digits)
        self._flagged = (df["halluc"] != "").to_numpy()
        bad = (df["errors"] > 0).to_numpy().copy()
        if "em" in df.columns:
            bad |= (df["em"].fillna(1) == 0).to_numpy()
        self._bad = bad
        self._groups = df["group"].astype(str).to_numpy()  # for the group filter
        self.frame = df
        self._records: dict[int, dict] = {}  # rows as dicts, made when first shown
        self._reports: dict[int, dict] = {}  # their item reports, the same way
        n_flag = int(self._flagged.sum())
        self.run_label.setText(
            f"Run {self.run_id}: {int(bad.sum()):,} of "
            f"{count(len(df), 'item')} with errors"
            + (f", {n_flag:,} flagged as hallucinated" if n_flag else "")
        )
        self.only_flagged.setEnabled(bool(n_flag))
        if not n_flag:
            self.only_flagged.setChecked(False)
        self.group.blockSignals(True)
        self.group.clear()
        self.group.addItem(ALL, None)
        for g in sorted(df["group"].astype(str).unique()):
            self.group.addItem(g, g)
        self.group.blockSignals(False)
        cols = [c for c in SHOWN if c in df.columns]
        self.model.set_formats({HEADERS["wer"]: _fmt_wer})
        self.model.set_frame(df[cols].rename(columns=HEADERS))
        for c, name in enumerate(cols):
            middle = name in ("id", "speaker_id")
            self.table.setItemDelegateForColumn(c, self._delegates["middle"] if middle else None)
        for c, name in enumerate(cols):  # an empty Halluc. column when nothing is flagged:
            self.table.setColumnHidden(c, name == "halluc" and not n_flag)  # the texts get it
        self._refill(fit=True)
        self._show_acoustics()
        self._select_pending()

    def _show_acoustics(self, *_) -> None:
        cols = self.model.columns
        for c in ACOUSTIC:
            name = HEADERS[c]
            if name in cols:
                self.table.setColumnHidden(cols.index(name), not self.acoustics.isChecked())

    def _refill(self, *_, fit: bool = False):
        if self.frame is None:
            return
        g = self.group.currentData()
        self.model.set_masks(  # one relayout for the three
            {
                "group": None if g is None else self._groups == g,
                "failing": self._bad if self.only_failing.isChecked() else None,
                "flagged": self._flagged if self.only_flagged.isChecked() else None,
            }
        )
        if fit:
            fit_columns(self.table, CAPS, default_cap=70)
            cols = self.model.columns
            self._fitted = {c: self.table.columnWidth(i) for i, c in enumerate(cols)}
            # never so narrow that a transcript column is cut or pushed off to the right
            self.table.setMinimumWidth(text_columns_minimum(self.table, cols, self._fitted))
            self._share_text_columns()
        n = self.model.rowCount()
        self.count.setText(f"{n:,} shown")
        if n:
            if self.table.currentIndex().row() < 0:
                self.table.selectRow(0)
            else:
                self.table.scrollTo(self.table.currentIndex())
        else:
            self.show_item(None)

    def _share_text_columns(self) -> None:
        share_text_columns(self.table, self.model.columns, self._fitted)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if obj is self.table.viewport() and event.type() == QEvent.Resize:
            self._share_text_columns()
        return super().eventFilter(obj, event)

    def _selected(self, current, _previous) -> None:
        if not current.isValid():
            return
        src = self.model.source_row(current.row())
        self.show_item(dict(self._record(src)), report=self._report(src))
        # after the item is drawn: starting jobs is GUI-thread work too
        view_row = current.row()
        QTimer.singleShot(30, self, lambda: self._prefetch(view_row))

    def _record(self, src: int) -> dict:
        rec = self._records.get(src)
        if rec is None:
            rec = self._records[src] = self.frame.iloc[src].to_dict()
        return rec

    def _report(self, src: int) -> dict:
        """The item report of frame row ``src`` (made once: the neighbours' while one listens)."""
        from ...review import item_report

        rep = self._reports.get(src)
        if rep is None:
            rep = item_report(self._record(src), self.language, self.normaliser)
            self._reports[src] = rep
        return rep

    def select(self, index: int) -> None:
        self.table.selectRow(index)

    def next_item(self) -> None:
        self._step(1)

    def previous_item(self) -> None:
        self._step(-1)

    def _step(self, d: int) -> None:
        n = self.model.rowCount()
        if not n:
            return
        r = self.table.currentIndex().row()
        r = 0 if r < 0 else min(max(r + d, 0), n - 1)
        self.table.selectRow(r)

    def _path_of(self, view_row: int) -> tuple[str, tuple | None] | None:
        """``(audio path, span or None)`` of a row of the table (what the player loads)."""
        from ...core.spans import span_of

        if self.dataset_set is None or not 0 <= view_row < self.model.rowCount():
            return None
        rec = self._record(self.model.source_row(view_row))
        path = self.audio_file(rec)
        return (str(path), span_of(rec)) if path is not None else None

    @property
    def dataset_root(self) -> Path | None:
        """The audio root of the run's (first) dataset; None without one."""
        return None if self.dataset_set is None else Path(self.dataset_set.first.root)

    def audio_file(self, row) -> Path | None:
        """The audio file of an item row of the run (its own dataset's, for a run of several
        datasets); None without a dataset or a path."""
        if self.dataset_set is None:
            return None
        from ...core.dataset_sets import audio_file

        return audio_file(self.dataset_set, row)

    def _prefetch(self, view_row: int) -> None:
        order = [view_row + k * s for k in range(1, PREFETCH + 1) for s in (1, -1)]
        self.player.prefetch(self._path_of(r) for r in order)
        for r in (view_row + 1, view_row - 1):  # the alignments of the next and the previous
            if 0 <= r < self.model.rowCount():
                self._report(self.model.source_row(r))

    # -- one item --------------------------------------------------------------------------
    def show_item(self, row: dict | None, report: dict | None = None) -> None:
        """Show an item row of the run (None: no item), with its ``item_report`` when it was
        made already."""
        from ...review import item_report

        if row is None:
            self.report = None
            self._row = None
            self.title.setText("No item.")
            self.diff.set_report(None)
            self.diff.set_systems(None)
            self.saliency_info.setText("")
            self.saliency_btn.setVisible(False)
            self.annotation.set_item(None)
            self.rerun_note.setText("")
            self.evidence.setVisible(False)
            self.player.set_nonspeech(None, None)
            return
        self._row = row
        rep = report if report is not None else item_report(row, self.language, self.normaliser)
        self.report = rep
        self.title.setText(
            f"<b>{html.escape(str(rep['id']))}</b> · group <b>{html.escape(str(rep['group']))}"
            f"</b> · speaker {html.escape(str(rep.get('speaker_id')))} · "
            f"S {rep['substitutions']} · D {rep['deletions']} · I {rep['insertions']}"
        )
        self.diff.set_report(rep)
        show_systems(self.diff, self._systems, row, self.language, self.normaliser)
        path = self.audio_file(row)
        words = self._words(row)
        if path is not None:
            from ...core.spans import span_of

            self.player.load(path, row.get("duration"), span=span_of(row), words=words)
        else:
            self.player.set_words(words)
        key = str(row.get("id", row.get("item_id")))
        db_id = self._item_field(key, "db_id")
        self.annotation.set_item(None if db_id is None else int(db_id), key)
        self._note_rerun()
        self._show_pitfalls(row)
        self._show_saliency(row)
        self.item_shown.emit(str(rep["id"]))

    def _show_pitfalls(self, row: dict) -> None:
        """The hallucination evidence under the diff, the acoustic covariates, and the
        non-speech stretches shaded on the waveform."""
        from ...metrics.hallucination import ItemPitfalls, item_pitfalls

        try:
            pit = item_pitfalls(row)
        except (ValueError, TypeError, KeyError):  # a malformed stored cell: show nothing
            pit = ItemPitfalls()
        warns = (self.report or {}).get("audio_warnings") or []
        self.evidence.setText(evidence_html(pit, warns))
        self.evidence.setVisible(bool(self.evidence.text()))
        dur = pit.acoustics.get("duration_s") or row.get("duration")
        try:
            dur = float(dur) if dur is not None else None
        except (TypeError, ValueError):
            dur = None
        self.player.set_nonspeech(pit.speech_regions, dur)

    def _item_field(self, key: str, field: str):
        """The dataset's ``db_id`` or ``audio_hash`` of item ``key`` (the first item of that
        key; None when there is none or it is missing)."""
        v = self._fields.get(field, {}).get(key)
        return None if v is None or pd.isna(v) else v

    def _note_rerun(self) -> None:
        if self._row is None or self.annotation.item_db_id is None:
            self.rerun_note.setText("")
            return
        used = str(self._row.get("reference") or "")
        now = self.annotation.current_text()
        self.rerun_note.setText(
            ""
            if now == used
            else f"Run {self.run_id} used “{used}”; re-run the audit to use the annotation."
        )

    def _words(self, row: dict) -> list:
        """The hypothesis words with their times (when the model gave them), shown under the
        waveform for click-to-play."""
        ah = self._audio_hash(row)
        model_key = self.run.model_key
        if not (ah and model_key):
            return []
        stored = prediction_words(self.ctx.project, ah, model_key)
        if stored is None:
            return []
        try:
            return json.loads(stored) or []
        except ValueError:
            return []

    def _audio_hash(self, row: dict) -> str | None:
        v = self._item_field(str(row.get("id", row.get("item_id"))), "audio_hash")
        return None if v is None else str(v)


def _first_by_key(items) -> dict[str, dict]:
    """``{field: {key: value}}`` of an items frame indexed by key, the first row of a key."""
    if items is None:
        return {}
    first = items[~items.index.duplicated()]
    return {c: dict(zip(first.index, first[c].tolist())) for c in first.columns}


def _fmt_wer(value) -> str:
    """An item's WER as every view shows WER: in percent (``33.3%``)."""
    return fmt_value("wer", value)
