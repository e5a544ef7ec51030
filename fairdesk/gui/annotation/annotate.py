"""Transcript editing with a tone-mark palette.

:func:`apply_mark` is the pure rule (tested without Qt): put a combining mark on the letter
before the cursor and return NFC text. Tone marks (grave, acute, macron) replace one another
on a letter, because a syllable carries one tone; the dot below combines with any of them;
pressing a mark the letter already has takes it off.

:class:`TranscriptEditor` is a line edit with the palette that asks to be saved after every
edit (debounced) and when it loses focus; every edit, typed or from the palette, is one step of
a ``QUndoStack`` (``QLineEdit.setText`` would wipe the line edit's own history).
"""

from __future__ import annotations

import time
import unicodedata

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut, QUndoCommand, QUndoStack
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

GRAVE, ACUTE, MACRON, DOT_BELOW = "\u0300", "\u0301", "\u0304", "\u0323"
#: (mark, button label, tooltip) in palette order.
MARKS = (
    (GRAVE, "à", "low tone: grave accent (U+0300) on the letter before the cursor"),
    (ACUTE, "á", "high tone: acute accent (U+0301) on the letter before the cursor"),
    (MACRON, "ā", "mid tone / downstep: macron (U+0304) on the letter before the cursor"),
    (DOT_BELOW, "ạ", "dot below (U+0323): ẹ ị ọ ụ ṣ, on the letter before the cursor"),
)
TONES = frozenset({GRAVE, ACUTE, MACRON})
#: Debounce of the save after typing (ms); the brief asks for at most 0.5 s.
SAVE_DELAY_MS = 400
#: Typed characters closer than this (seconds) are one undo step.
MERGE_S = 1.0


def apply_mark(text: str, pos: int, mark: str) -> tuple[str, int] | None:
    """Put ``mark`` on the letter just before ``pos`` (a cursor position in ``text``).

    Returns
    -------
    (text, pos) or None
        The NFC text and the cursor after the marked letter; None when there is no letter
        before the cursor.
    """
    before, after = text[:pos], text[pos:]
    d = unicodedata.normalize("NFD", before)
    i = len(d)
    while i > 0 and unicodedata.combining(d[i - 1]):
        i -= 1
    if i == 0 or not unicodedata.category(d[i - 1]).startswith("L"):
        return None
    base, marks = d[:i], list(d[i:])
    if mark in marks:
        marks.remove(mark)
    else:
        if mark in TONES:
            marks = [m for m in marks if m not in TONES]
        marks.append(mark)
    new_before = unicodedata.normalize("NFC", base + "".join(marks))
    new_text = unicodedata.normalize("NFC", new_before + after)
    return new_text, min(len(new_before), len(new_text))


class _Line(QLineEdit):
    """A line edit whose undo and redo keys drive the editor's QUndoStack (the line edit's
    own history is bypassed: palette marks and typing share one history)."""

    def __init__(self, stack: QUndoStack, parent=None):
        super().__init__(parent)
        self.stack = stack

    def keyPressEvent(self, ev):  # noqa: N802 - Qt API
        if ev.matches(QKeySequence.Undo):
            self.stack.undo()
            return
        if ev.matches(QKeySequence.Redo):
            self.stack.redo()
            return
        super().keyPressEvent(ev)


class _Edit(QUndoCommand):
    """One edit of the transcript: the text and cursor before and after.

    Typing is pushed after the line edit has changed, so the first ``redo`` does nothing;
    consecutive typed characters within :data:`MERGE_S` seconds merge into one step.
    """

    TYPING = 1

    def __init__(
        self,
        editor: TranscriptEditor,
        before: tuple[str, int],
        after: tuple[str, int],
        text: str,
        typed: bool,
    ):
        super().__init__(text)
        self.editor, self.before, self.after, self.typed = editor, before, after, typed
        self._first = typed
        self.t = time.monotonic()

    def id(self) -> int:  # noqa: A003 - Qt API
        return self.TYPING if self.typed else -1

    def mergeWith(self, other) -> bool:  # noqa: N802 - Qt API
        if not (self.typed and other.typed) or other.t - self.t > MERGE_S:
            return False
        self.after, self.t = other.after, other.t
        return True

    def redo(self) -> None:
        if self._first:
            self._first = False
            return
        self.editor._apply(*self.after)

    def undo(self) -> None:
        self.editor._apply(*self.before)


class TranscriptEditor(QWidget):
    """A transcript line with the tone-mark palette and an undo history.

    Every edit (typed characters, pasted text, palette marks, typed combining marks) is a
    step of :attr:`undo_stack`; Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo and redo it.

    Signals
    -------
    save_requested(str) : the NFC text, after an edit settles (debounced), on focus-out and
        on :meth:`flush` (Ctrl+S).
    """

    save_requested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.edit = _Line(self.undo_stack)
        f = QFont(self.edit.font())
        f.setPointSize(16)
        self.edit.setFont(f)
        self.edit.setPlaceholderText("the transcript of the accepted take")
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        row.setSpacing(4)
        row.addWidget(QLabel("Tone marks:"))
        for n, (mark, label, tip) in enumerate(MARKS, start=1):
            b = QPushButton(label)
            b.setFocusPolicy(Qt.NoFocus)  # the line edit keeps its cursor and focus
            b.setToolTip(f"{tip}  (Alt+{n})")
            b.setMinimumWidth(44)
            bf = QFont(b.font())
            bf.setPointSize(13)
            b.setFont(bf)
            b.clicked.connect(lambda _=False, m=mark: self.insert_mark(m))
            sc = QShortcut(QKeySequence(f"Alt+{n}"), self.edit)
            sc.setContext(Qt.WidgetShortcut)
            sc.activated.connect(lambda m=mark: self.insert_mark(m))
            self.buttons[mark] = b
            row.addWidget(b)
        row.addSpacing(8)
        self.undo_btn = QPushButton("Undo")
        self.undo_btn.setToolTip("Undo (Ctrl+Z)")
        self.redo_btn = QPushButton("Redo")
        self.redo_btn.setToolTip("Redo (Ctrl+Shift+Z)")
        for b, slot, sig in (
            (self.undo_btn, self.undo_stack.undo, self.undo_stack.canUndoChanged),
            (self.redo_btn, self.undo_stack.redo, self.undo_stack.canRedoChanged),
        ):
            b.setFocusPolicy(Qt.NoFocus)
            b.setEnabled(False)
            b.clicked.connect(slot)
            sig.connect(b.setEnabled)
            row.addWidget(b)
        row.addStretch(1)
        # on its own line under the palette, the editor's whole width: beside the buttons it
        # had a third of it at 1366 px and its second line was cut
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setTextFormat(Qt.PlainText)
        self.status.setWordWrap(True)  # wraps on a narrow window instead of widening it
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.edit)
        lay.addLayout(row)
        lay.addWidget(self.status)

        self._loading = False
        self._saved = ""
        self._saved_note = ""
        self._shown = ("", 0)  # text and cursor after the last recorded step
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(SAVE_DELAY_MS)
        self.timer.timeout.connect(self.flush)
        self.edit.textEdited.connect(self._typed)
        self.edit.cursorPositionChanged.connect(self._cursor_moved)
        self.edit.editingFinished.connect(self.flush)  # Return and focus-out

    def set_text(self, text: str, enabled: bool = True, note: str = "") -> None:
        """Show ``text`` (not a user edit: nothing is saved; the undo history restarts)."""
        self.timer.stop()
        self._loading = True
        self.edit.setText(text)
        self._loading = False
        self.undo_stack.clear()
        self._shown = (text, self.edit.cursorPosition())
        self._saved = unicodedata.normalize("NFC", text)
        self._saved_note = note
        self.setEnabled(enabled)
        self.status.setText(note)

    def text(self) -> str:
        return unicodedata.normalize("NFC", self.edit.text())

    def _cursor_moved(self, _old, new) -> None:
        if not self._loading and self.edit.text() == self._shown[0]:
            self._shown = (self._shown[0], new)

    def _typed(self, text: str) -> None:
        if self._loading:
            return
        before = self._shown
        after = (text, self.edit.cursorPosition())
        self._shown = after
        self.undo_stack.push(_Edit(self, before, after, "typing", typed=True))
        self._changed()

    def _apply(self, text: str, pos: int) -> None:
        """Show a state of the history (undo/redo/mark) without recording a new step."""
        self._loading = True
        self.edit.setText(text)
        self.edit.setCursorPosition(min(pos, len(text)))
        self._loading = False
        self._shown = (text, min(pos, len(text)))
        self._changed()

    def _changed(self) -> None:
        if not self._loading:
            self.status.setText("editing…")
            self.timer.start()

    def insert_mark(self, mark: str) -> None:
        """Put ``mark`` on the letter before the cursor, as one undoable step."""
        if not self.isEnabled():
            return
        out = apply_mark(self.edit.text(), self.edit.cursorPosition(), mark)
        if out is None:
            self.status.setText("put the cursor just after a letter, then press a mark")
            return
        before = (self.edit.text(), self.edit.cursorPosition())
        name = dict((m, label) for m, label, _ in MARKS).get(mark, mark)
        self.undo_stack.push(_Edit(self, before, out, f"mark {name}", typed=False))
        self.edit.setFocus()

    def flush(self) -> None:
        """Save now if the text differs from what was saved last."""
        self.timer.stop()
        t = self.text()
        if self.isEnabled() and t != self._saved:
            if self.edit.text() != t:  # typed decomposed: show the NFC form
                pos = self.edit.cursorPosition()
                self._loading = True
                self.edit.setText(t)
                self.edit.setCursorPosition(min(pos, len(t)))
                self._loading = False
                self._shown = (t, min(pos, len(t)))
            self.save_requested.emit(t)
        elif self.status.text() == "editing…":  # back to what is stored: nothing to save
            self.status.setText(self._saved_note)

    def mark_saved(self, text: str, note: str) -> None:
        self._saved = text
        self._saved_note = note
        self.status.setText(note)

    @property
    def pending(self) -> bool:
        return self.timer.isActive()
