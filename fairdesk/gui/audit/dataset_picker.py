"""The Audit panel's "Audit with" button: further datasets of the project audited with the
chosen one as one set (a pilot and its new recordings; :mod:`fairdesk.core.dataset_sets`)."""

from __future__ import annotations

from PySide6.QtWidgets import QMenu, QPushButton, QSizePolicy

NONE_TEXT = "no other dataset"


class DatasetPicker(QPushButton):
    """A button whose menu checks the datasets to audit with the panel's dataset; its text
    names them (``session-1, session-2``) or says there are none."""

    def __init__(self, parent=None):
        super().__init__(parent)
        # as wide as the form's combos and read like one, so a name is never cut
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setStyleSheet("QPushButton { text-align: left; padding: 3px 6px; }")
        self.setToolTip(
            "audit further datasets together with the one above, as one set (e.g. a pilot "
            "and the recordings made from its plan): items are keyed by dataset and every "
            "dataset needs the grouping columns"
        )
        self.menu_ = QMenu(self)
        self.setMenu(self.menu_)
        self.menu_.triggered.connect(lambda _a: self._show())
        self._show()

    def set_names(self, names, exclude: str | None) -> None:
        """Offer ``names`` less ``exclude`` (the panel's dataset), keeping the checks made."""
        kept = set(self.chosen())
        self.menu_.clear()
        for n in names:
            if n == exclude:
                continue
            act = self.menu_.addAction(n)
            act.setCheckable(True)
            act.setChecked(n in kept)
        self.setEnabled(bool(self.menu_.actions()))
        self._show()

    def chosen(self) -> list[str]:
        """The checked datasets, in the project's order."""
        return [a.text() for a in self.menu_.actions() if a.isChecked()]

    def set_chosen(self, names) -> None:
        want = set(names or ())
        for a in self.menu_.actions():
            a.setChecked(a.text() in want)
        self._show()

    def _show(self) -> None:
        chosen = self.chosen()
        self.setText(", ".join(chosen) if chosen else NONE_TEXT)


__all__ = ["DatasetPicker"]
