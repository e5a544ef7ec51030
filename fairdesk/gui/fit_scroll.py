"""A scroll area for small screens that gives its widget the viewport's size and scrolls only
below the widget's minimum size.

``QScrollArea.setWidgetResizable(True)`` sizes a widget whose layout has height-for-width (any
word-wrapped label) to its *preferred* height, so a panel of plots scrolls even on a large
screen; this one uses the *minimum* height instead.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFrame, QScrollArea


class FitScrollArea(QScrollArea):
    """Scroll ``widget`` only when the viewport is smaller than its minimum size."""

    def __init__(self, widget=None, parent=None, horizontal: bool = False):
        super().__init__(parent)
        self.setWidgetResizable(False)
        self.setFrameShape(QFrame.NoFrame)
        if not horizontal:
            self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.viewport().installEventFilter(self)
        self.setStyleSheet("QScrollArea { background: transparent; }")
        self.viewport().setAutoFillBackground(False)  # the page's colour shows through
        if widget is not None:
            self.set_widget(widget)

    def set_widget(self, widget) -> None:
        self.setWidget(widget)
        widget.setAutoFillBackground(False)
        widget.installEventFilter(self)
        self.fit()

    def fit(self) -> None:
        w = self.widget()
        if w is None:
            return
        vp = self.viewport().size()
        m = w.minimumSizeHint().expandedTo(w.minimumSize())
        width = (
            vp.width()
            if self.horizontalScrollBarPolicy() == Qt.ScrollBarAlwaysOff
            else max(vp.width(), m.width())
        )
        w.resize(width, max(vp.height(), m.height()))

    def minimumSizeHint(self):  # noqa: N802 - Qt API
        s = super().minimumSizeHint()
        w = self.widget()
        if w is not None and self.horizontalScrollBarPolicy() == Qt.ScrollBarAlwaysOff:
            s.setWidth(
                max(
                    s.width(),
                    w.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width(),
                )
            )
        return s

    def eventFilter(self, obj, event):  # noqa: N802 - Qt API
        if event.type() in (QEvent.Resize, QEvent.LayoutRequest) and (
            obj is self.viewport() or obj is self.widget()
        ):
            if obj is self.viewport() or event.type() == QEvent.LayoutRequest:
                self.fit()
        return super().eventFilter(obj, event)
