"""Transcript editing with a tone-mark palette.

:func:`apply_mark` is the pure rule (tested without Qt): put a combining mark on the letter
before the cursor and return NFC text. Tone marks (grave, acute, macron) replace one another
on a letter, because a syllable carries one tone; the dot below combines with any of them;
pressing a mark the letter already has takes it off.

:class:`TranscriptEditor` is a line edit with the palette that asks to be saved after every
edit (debounced) and when it loses focus.
"""

from __future__ import annotations

import unicodedata

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
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
    base, marks = d[: i], list(d[i:])
    if mark in marks:
        marks.remove(mark)
    else:
        if mark in TONES:
            marks = [m for m in marks if m not in TONES]
        marks.append(mark)
    new_before = unicodedata.normalize("NFC", base + "".join(marks))
    new_text = unicodedata.normalize("NFC", new_before + after)
    return new_text, min(len(new_before), len(new_text))


class TranscriptEditor(QWidget):
    """A transcript line with the tone-mark palette.

    Signals
    -------
    save_requested(str) : the NFC text, after an edit settles (debounced) or on focus-out.
    """

    save_requested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.edit = QLineEdit()
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
        row.addSpacing(12)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        row.addWidget(self.status, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.edit)
        lay.addLayout(row)

        self._loading = False
        self._saved = ""
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(SAVE_DELAY_MS)
        self.timer.timeout.connect(self.flush)
        self.edit.textEdited.connect(lambda _t: self._changed())
        self.edit.editingFinished.connect(self.flush)  # Return and focus-out

    def set_text(self, text: str, enabled: bool = True, note: str = "") -> None:
        """Show ``text`` (not a user edit: nothing is saved)."""
        self.timer.stop()
        self._loading = True
        self.edit.setText(text)
        self._loading = False
        self._saved = unicodedata.normalize("NFC", text)
        self.setEnabled(enabled)
        self.status.setText(note)

    def text(self) -> str:
        return unicodedata.normalize("NFC", self.edit.text())

    def _changed(self) -> None:
        if not self._loading:
            self.status.setText("editing…")
            self.timer.start()

    def insert_mark(self, mark: str) -> None:
        if not self.isEnabled():
            return
        out = apply_mark(self.edit.text(), self.edit.cursorPosition(), mark)
        if out is None:
            self.status.setText("put the cursor just after a letter, then press a mark")
            return
        text, pos = out
        self.edit.setText(text)
        self.edit.setCursorPosition(pos)
        self.edit.setFocus()
        self._changed()

    def flush(self) -> None:
        """Save now if the text differs from what was saved last."""
        self.timer.stop()
        t = self.text()
        if self.isEnabled() and t != self._saved:
            if self.edit.text() != t:  # typed decomposed: show the NFC form
                pos = self.edit.cursorPosition()
                self.edit.setText(t)
                self.edit.setCursorPosition(min(pos, len(t)))
            self.save_requested.emit(t)

    def mark_saved(self, text: str, note: str) -> None:
        self._saved = text
        self.status.setText(note)

    @property
    def pending(self) -> bool:
        return self.timer.isActive()
