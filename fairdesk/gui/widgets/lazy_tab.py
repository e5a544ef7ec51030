"""A tab page that builds its panel the first time it is shown (or asked for), so the window
opens with only the first screen built: the other panels, their modules and their plots
cost nothing until the user goes there."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QVBoxLayout, QWidget


class LazyTab(QWidget):
    """A page holding the panel ``build()`` returns, built on first show or :meth:`panel`.

    ``built(panel)`` is called once, after the panel is in the page (connections, remembered
    state)."""

    def __init__(self, build: Callable[[], QWidget], built: Callable | None = None, parent=None):
        super().__init__(parent)
        self._build, self._built = build, built
        self._panel: QWidget | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)

    @property
    def is_built(self) -> bool:
        return self._panel is not None

    def panel(self) -> QWidget:
        """The panel, built now if it was not yet."""
        if self._panel is None:
            self._panel = self._build()
            self.layout().addWidget(self._panel)
            if self._built is not None:
                self._built(self._panel)
        return self._panel

    def showEvent(self, event):  # noqa: N802 - Qt API
        self.panel()
        super().showEvent(event)
