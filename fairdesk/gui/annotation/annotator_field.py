"""The annotator's name field of the Items view's annotation panel and the Record tab: one
name per window (:attr:`fairdesk.gui.context.Context.annotator`), asked once (no login-name
default), remembered with the panels' state, and the same in every field that shows it
(docs/METHODS.md, "References from several annotators": each annotator keeps their own
version of an item)."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit

from ..context import Context

__all__ = ["AnnotatorField", "NAME_FIRST"]

#: What an editor says while no annotator is named.
NAME_FIRST = "type your name in Annotator first: each annotator keeps their own version of an item"


class AnnotatorField(QLineEdit):
    """Who annotates: typing here sets the window's annotator (NFC, trimmed), which every
    other annotator field then shows; editors save their pending edit first
    (:attr:`Context.annotator_changing`), so it stays the previous annotator's."""

    def __init__(self, ctx: Context, parent=None):
        super().__init__(ctx.annotator, parent)
        self.ctx = ctx
        self.setPlaceholderText("your name")
        self.setMaximumWidth(160)
        self.setToolTip(
            "Your name: each annotator keeps their own version of an item; stored with "
            "every annotation you make, in the Items view and in the Record tab"
        )
        self.textChanged.connect(self._typed)
        ctx.annotator_changed.connect(self._shown)

    def _typed(self, text: str) -> None:
        self.ctx.set_annotator(text)

    def _shown(self, name: str) -> None:
        from ...core.versions import annotator_name

        if annotator_name(self.text()) != name:
            self.blockSignals(True)
            self.setText(name)
            self.blockSignals(False)
