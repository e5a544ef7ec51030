"""The main window's status bar: a long message (an export's folder, an error) is elided to
the bar's width instead of running off the window, its full text in the bar's tooltip."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QStatusBar, QWidget

#: QStatusBar draws its message from 6 px in and stops 12 px before the edge (or before the
#: first permanent widget).
_LEFT, _RIGHT = 6, 12


class FitStatusBar(QStatusBar):
    """A :class:`QStatusBar` whose temporary messages fit its width.

    :meth:`showMessage` keeps the full text (:meth:`full_message`, the tooltip) and shows it
    elided at the end where it is wider than the bar; it is re-elided when the window is
    resized, and cleared after ``timeout`` ms as Qt's own; :meth:`currentMessage` is the whole text, as in Qt."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._full = ""
        self._permanent: list[QWidget] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clearMessage)
        self.messageChanged.connect(self._changed)

    def full_message(self) -> str:
        """The whole text of the message shown ("" when none)."""
        return self._full

    def currentMessage(self) -> str:  # noqa: N802 - Qt's name
        """The whole message (what was asked to be shown), as Qt's own bar returns it."""
        return self._full or super().currentMessage()

    def shown_message(self) -> str:
        """The text drawn in the bar: the message, elided to the bar's width."""
        return super().currentMessage()

    def message_width(self) -> int:
        """The width the message is drawn in: up to the first visible permanent widget."""
        right = self.width() - _RIGHT
        for w in self._permanent:
            if w.isVisible() and w.parent() is self:
                right = min(right, w.x() - _RIGHT)
        return max(0, right - _LEFT)

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch)

    def showMessage(self, message: str, timeout: int = 0) -> None:  # noqa: N802 - Qt's name
        self._full = message or ""
        self._timer.stop()
        self._show()
        if timeout > 0 and self._full:
            self._timer.start(timeout)

    def _show(self) -> None:
        text = self.fontMetrics().elidedText(self._full, Qt.ElideRight, self.message_width())
        super().showMessage(text)
        self.setToolTip(self._full if text != self._full else "")

    def _changed(self, text: str) -> None:
        if not text and self._full:  # cleared (its timeout, or clearMessage())
            self._full = ""
            self._timer.stop()
            self.setToolTip("")

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self._full:
            self._show()
