"""Annotating an item's transcript: the tone-mark editor (saved as you type, on focus-out and
on Ctrl+S, with undo/redo), the original text, the annotator's name and the item's history.

Each save is an annotation ``kind="transcript"`` with time and annotator
(:meth:`fairdesk.core.store.Project.save_transcript`); the imported text stays in the item.
Each annotator keeps their own version
(docs/METHODS.md, "References from several annotators"): the editor asks for the annotator's name once (remembered, no login-name
default) and opens on that annotator's version, else on the imported text, with the other
annotators' versions hidden until adjudication (independent annotation). Audits take the
latest version by default (``--reference-text``).
"""

from __future__ import annotations

import time
import uuid

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..context import Context
from .annotate import TranscriptEditor
from .annotator_field import NAME_FIRST, AnnotatorField


class AnnotationPanel(QWidget):
    """The transcript annotation of one item.

    Signals
    -------
    saved(int, str) : a transcript of an item (db id) was stored.
    """

    saved = Signal(int, str)

    SHORTCUTS = [
        ("Ctrl+S", "Save the transcript now (it is also saved as you type)"),
        ("Ctrl+Z", "Undo the last edit of the transcript"),
        ("Ctrl+Shift+Z", "Redo"),
        ("Alt+1 … Alt+4", "Grave, acute, macron, dot below on the letter before the cursor"),
        ("Ctrl+E", "Edit the transcript (focus the editor)"),
    ]

    def __init__(self, ctx: Context, parent=None):
        super().__init__(parent)
        self.ctx = ctx
        self.item_db_id: int | None = None
        self.item_key: str | None = None
        self.session = ""
        self.history: list[dict] = []

        self.heading = QLabel("Transcript")
        self.heading.setObjectName("heading")
        self.original = QLabel("")
        self.original.setTextFormat(Qt.PlainText)
        self.original.setObjectName("muted")
        self.original.setWordWrap(True)
        self.original.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.annotator = AnnotatorField(ctx)
        ctx.annotator_changing.connect(self._annotator_changing)
        ctx.annotator_changed.connect(self._annotator_changed)
        self.editor = TranscriptEditor()
        self.editor.edit.setPlaceholderText("the transcript as spoken, with its tone marks")
        self.editor.save_requested.connect(self._save)
        self.history_btn = QToolButton()
        self.history_btn.setText("History")
        self.history_btn.setCheckable(True)
        self.history_btn.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.history_btn.setArrowType(Qt.RightArrow)
        self.history_btn.toggled.connect(self._toggle_history)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["When", "Annotator", "Source", "Transcript"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.header().setSectionResizeMode(3, QHeaderView.Stretch)
        self.tree.setMaximumHeight(130)
        self.tree.setVisible(False)
        self.tree.setToolTip("Double-click an entry to put its text back in the editor (undoable)")
        self.tree.itemDoubleClicked.connect(self._restore_entry)
        # adjudication: every annotator's version, shown only when asked for (independent
        # annotation until then), one picked or the editor's text kept as the merged one
        self.versions_btn = QToolButton()
        self.versions_btn.setText("Adjudicate")
        self.versions_btn.setCheckable(True)
        self.versions_btn.setToolTip(
            "Show every annotator's version of this item and store the adjudicated one"
        )
        self.versions_btn.toggled.connect(self._toggle_versions)
        self.versions = QTreeWidget()
        self.versions.setHeaderLabels(["Annotator", "Version", "Marks differing"])
        self.versions.setRootIsDecorated(False)
        self.versions.header().setSectionResizeMode(1, QHeaderView.Stretch)
        self.versions.setMaximumHeight(110)
        # never squeezed to its header on a small screen (the bottom scrolls instead)
        self.versions.setMinimumHeight(72)
        self.adjudicator = QLineEdit()
        self.adjudicator.setPlaceholderText("adjudicator's name")
        self.adjudicator.setMaximumWidth(160)
        self.pick_btn = QPushButton("Adopt selected version")
        self.pick_btn.clicked.connect(self._adopt_selected)
        self.merge_btn = QPushButton("Adopt the editor's text")
        self.merge_btn.setToolTip("Store the text in the editor as the merged, adjudicated version")
        self.merge_btn.clicked.connect(self._adopt_editor)
        self.adjudication_note = QLabel("")
        self.adjudication_note.setObjectName("muted")
        self.adjudication_note.setWordWrap(True)
        self.adjudication = QWidget()
        adj = QVBoxLayout(self.adjudication)
        adj.setContentsMargins(0, 0, 0, 0)
        adj.addWidget(self.versions)
        row = QHBoxLayout()
        row.addWidget(QLabel("Adjudicator:"))
        row.addWidget(self.adjudicator)
        row.addWidget(self.pick_btn)
        row.addWidget(self.merge_btn)
        row.addStretch(1)
        adj.addLayout(row)
        adj.addWidget(self.adjudication_note)
        self.adjudication.setVisible(False)

        head = QHBoxLayout()
        head.addWidget(self.heading)
        head.addStretch(1)
        head.addWidget(QLabel("Annotator:"))
        head.addWidget(self.annotator)
        orig = QHBoxLayout()
        orig.addWidget(QLabel("Original:"))
        orig.addWidget(self.original, 1)
        orig.addWidget(self.history_btn)
        orig.addWidget(self.versions_btn)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addLayout(head)
        lay.addLayout(orig)
        lay.addWidget(self.editor)
        lay.addWidget(self.tree)
        lay.addWidget(self.adjudication)

        sc = QShortcut(QKeySequence.Save, self)
        sc.setContext(Qt.WidgetWithChildrenShortcut)
        sc.activated.connect(self.save_now)
        self.set_item(None)

    # -- state ---------------------------------------------------------------------------
    def save_state(self, settings: dict | None = None) -> dict:
        """Plain values to remember (the annotator's name, whether the history is open)."""
        out = dict(settings or {})
        out.update(
            {
                "annotator": self.annotator.text().strip(),
                "history_open": self.history_btn.isChecked(),
            }
        )
        return out

    def restore_state(self, state: dict) -> None:
        if state.get("annotator"):
            self.annotator.setText(str(state["annotator"]))
        self.history_btn.setChecked(bool(state.get("history_open", False)))

    def _annotator_changing(self) -> None:
        if self.editor.pending:  # the last edit is the previous annotator's
            self.editor.flush()

    def _annotator_changed(self, _name: str) -> None:
        self.set_item(self.item_db_id, self.item_key)  # this annotator's own version

    # -- the item ------------------------------------------------------------------------
    def set_item(self, item_db_id: int | None, item_key: str | None = None) -> None:
        """Edit the transcript of the item ``item_db_id`` (None: nothing to edit)."""
        if self.editor.pending:
            self.editor.flush()  # the previous item's last edit is saved first
        self.item_db_id = None if item_db_id is None else int(item_db_id)
        self.item_key = item_key
        self.session = uuid.uuid4().hex
        p = self.ctx.project
        if self.item_db_id is None or p is None:
            self.history = []
            self.original.setText("")
            self.editor.set_text("", enabled=False, note="select an item to annotate it")
            self._fill_history()
            return
        self.history = p.transcript_history(self.item_db_id)
        if not self.history:
            self.editor.set_text("", enabled=False, note="this item is no longer in the project")
            self._fill_history()
            return
        self.original.setText(self.history[0]["text"])
        self._fill_history()
        self._fill_versions()
        if not self.ctx.annotator:
            self.editor.set_text(
                self.history[0]["text"],
                enabled=False,
                note=NAME_FIRST,
            )
            return
        iv = p.transcript_versions([self.item_db_id]).get(self.item_db_id)
        own = iv.version(self.ctx.annotator) if iv is not None else None
        others = [v for v in (iv.versions if iv is not None else ()) if v is not own]
        hidden = (
            ""
            if not others
            else "; 1 other annotator's version hidden until adjudication"
            if len(others) == 1
            else f"; {len(others)} other annotators' versions hidden until adjudication"
        )
        if own is not None:
            note = f"your version, saved {_ago(own.created_at)}{hidden}"
            text = own.text
        else:
            note = f"not annotated by you yet: starts from the imported text{hidden}"
            text = self.history[0]["text"]
        self.editor.set_text(text, note=note)

    def current_text(self) -> str:
        return self.editor.text()

    def save_now(self) -> None:
        """Ctrl+S: save a pending edit at once."""
        self.editor.flush()
        if not self.editor.pending and self.item_db_id is not None:
            self.editor.status.setText(self.editor.status.text() or "saved")

    def _save(self, text: str) -> None:
        p = self.ctx.project
        if p is None or self.item_db_id is None:
            return
        if not text.strip():
            self.editor.status.setText("an empty transcript is not saved; type what was said")
            return
        try:
            ann = p.save_transcript(self.item_db_id, text, self.ctx.annotator, session=self.session)
        except Exception as exc:  # noqa: BLE001 - the message is shown; the text stays
            self.editor.status.setText(f"not saved: {exc}")
            return
        self.editor.mark_saved(
            text, f"saved {time.strftime('%H:%M:%S')}" + ("" if ann is not None else " (unchanged)")
        )
        self.history = p.transcript_history(self.item_db_id)
        self._fill_history()
        self.saved.emit(self.item_db_id, text)

    # -- adjudication --------------------------------------------------------------------
    def _toggle_versions(self, on: bool) -> None:
        self.adjudication.setVisible(on)
        self._fill_versions()

    def _fill_versions(self) -> None:
        """Every annotator's version, the marks where each differs from the first, and the
        item's adjudication (only while the adjudication view is open)."""
        self.versions.clear()
        p = self.ctx.project
        if p is None or self.item_db_id is None or not self.versions_btn.isChecked():
            self.adjudication_note.setText("")
            return
        from ...stats.agreement import mark_units

        iv = p.transcript_versions([self.item_db_id]).get(self.item_db_id)
        vs = iv.versions if iv is not None else ()
        texts = tuple(v.text for v in vs)
        units = mark_units(texts) if len(vs) > 1 else []
        for k, v in enumerate(vs):
            differ = sum(1 for u in units if u[k] is not None and u[0] is not None and u[k] != u[0])
            it = QTreeWidgetItem([v.annotator, v.text, str(differ) if k else "—"])
            it.setData(0, Qt.UserRole, v.text)
            if differ:
                it.setForeground(1, QBrush(QColor("#c62828")))
            self.versions.addTopLevelItem(it)
        self.versions.resizeColumnToContents(0)
        adj = iv.adjudication if iv is not None else None
        if adj is not None:
            self.adjudication_note.setText(
                f"adjudicated by {adj.adjudicator} {_ago(adj.created_at)}: {adj.text}"
            )
        elif iv is not None and iv.disagree:
            self.adjudication_note.setText(
                "the versions disagree: pick one, or edit a merged text and adopt it"
            )
        else:
            self.adjudication_note.setText(
                "no disagreement to adjudicate" if vs else "no annotator's version yet"
            )

    def _adjudicate(self, text: str) -> None:
        p = self.ctx.project
        if p is None or self.item_db_id is None:
            return
        from ...core.errors import FairdeskError

        try:
            p.adjudicate(self.item_db_id, text, self.adjudicator.text())
        except FairdeskError as exc:
            self.adjudication_note.setText(f"not stored: {exc}")
            return
        self.history = p.transcript_history(self.item_db_id)
        self._fill_history()
        self._fill_versions()
        self.saved.emit(self.item_db_id, text)

    def _adopt_selected(self) -> None:
        it = self.versions.currentItem()
        if it is None:
            self.adjudication_note.setText("select the version to adopt first")
            return
        self._adjudicate(str(it.data(0, Qt.UserRole)))

    def _adopt_editor(self) -> None:
        self._adjudicate(self.editor.text())

    # -- history -------------------------------------------------------------------------
    def _toggle_history(self, on: bool) -> None:
        self.history_btn.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        self.tree.setVisible(on)

    def _own_history(self) -> list[dict]:
        """The imported text and this annotator's own entries (the others' stay hidden
        until adjudication: independent annotation)."""
        from ...core.versions import said_annotator

        me = said_annotator(self.ctx.annotator)
        return [
            h
            for h in self.history
            if h["annotation_id"] is None
            or (self.ctx.annotator and said_annotator(h["annotator"]) == me)
        ]

    def _fill_history(self) -> None:
        self.tree.clear()
        shown = self._own_history()
        for h in reversed(shown):
            when = (
                "imported"
                if h["created_at"] is None
                else time.strftime("%Y-%m-%d %H:%M", time.localtime(h["updated_at"]))
            )
            it = QTreeWidgetItem([when, h["annotator"], h["source"], h["text"]])
            it.setData(0, Qt.UserRole, h["text"])
            self.tree.addTopLevelItem(it)
        for c in range(3):
            self.tree.resizeColumnToContents(c)
        self.history_btn.setText(f"History ({max(0, len(shown) - 1)})")

    def _restore_entry(self, item, _col) -> None:
        text = item.data(0, Qt.UserRole)
        if text is None or not self.editor.isEnabled():
            return
        ed = self.editor
        from .annotate import _Edit

        before = (ed.edit.text(), ed.edit.cursorPosition())
        ed.undo_stack.push(_Edit(ed, before, (text, len(text)), "restore", typed=False))


def _ago(t) -> str:
    if not t:
        return ""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(float(t)))
