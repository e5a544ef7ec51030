"""A scroll area for small screens that gives its widget the viewport's size and scrolls only
below the widget's minimum size.

``QScrollArea.setWidgetResizable(True)`` sizes a widget whose layout has height-for-width (any
word-wrapped label) to its *preferred* height, so a panel of plots scrolls even on a large
screen; this one uses the *minimum* height instead.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QBoxLayout, QFrame, QScrollArea


def _stacked_height(lay, width: int) -> int:
    """The height a vertical box layout takes at ``width``: a box layout in height-for-width
    mode gives each wrapping item its height for the width (not its minimum) and the others
    their minimum, which can exceed ``minimumHeightForWidth``; 0 for other layouts."""
    if not isinstance(lay, QBoxLayout) or lay.direction() not in (
        QBoxLayout.TopToBottom,
        QBoxLayout.BottomToTop,
    ):
        return 0
    m = lay.contentsMargins()
    inner = width - m.left() - m.right()
    total, shown = m.top() + m.bottom(), 0
    for i in range(lay.count()):
        item = lay.itemAt(i)
        if item.isEmpty():
            continue
        h = item.minimumSize().height()
        if item.hasHeightForWidth():
            h = max(h, item.heightForWidth(inner))
        total += h
        shown += 1
    return total + max(0, shown - 1) * max(0, lay.spacing())


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
        height = m.height()
        lay = w.layout()
        if lay is not None and lay.hasHeightForWidth():
            # wrapped labels need more height at this width than the minimum hint says; the
            # layout then squeezed the other boxes below their minimum (the Record tab's
            # spectrogram ticks were drawn over its control row)
            height = max(height, lay.minimumHeightForWidth(width), _stacked_height(lay, width))
        w.resize(width, max(vp.height(), height))

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


class WheelScrollsPage(QObject):
    """On a plot inside a scrolled page, the mouse wheel scrolls the page instead of zooming
    the plot (the Record tab: a wheel over the take's waveform zoomed it to 1.20–1.245 s).

    Installed on a ``pyqtgraph`` plot widget's viewport by :func:`wheel_scrolls_page`; the
    wheel event goes to the vertical scroll bar of the nearest scroll area around the plot
    (nothing happens where there is none)."""

    def __init__(self, plot):
        super().__init__(plot)
        self.plot = plot
        plot.viewport().installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt API
        if event.type() != QEvent.Wheel:
            return False
        area = self.plot.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is not None:
            QApplication.sendEvent(area.verticalScrollBar(), event)
        return True  # never the plot's zoom


def wheel_scrolls_page(*plots) -> None:
    """Make the wheel over each of ``plots`` scroll the page (:class:`WheelScrollsPage`)."""
    for plot in plots:
        WheelScrollsPage(plot)
