"""The Audit panel's choices of models and what it remembers per project (mixins of
:class:`fairdesk.gui.audit.audit_panel.AuditPanel`): the model and the second system, each from the
installed models or a file or folder chosen in a dialog (the second never the first), and the
dataset, grouping, reference and second system of each project."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QFileDialog

from ..widgets.theme import plain_tip

PICK = {
    "predictions:<file>": "Predictions file…",
    "hf:<folder>": "Hugging Face folder…",
    "ct2:<folder>": "CTranslate2 Whisper folder…",
}


def _short_id(model_id: str) -> str:
    """A model id for a combo box: a long path keeps its end (``predictions:…/b.csv``)."""
    if len(model_id) <= 60:
        return model_id
    head, _, rest = model_id.partition(":")
    return f"{head}:…{rest[-50:]}"


class ModelChoices:
    """The model and Compare with boxes of the Audit panel (``self.model``,
    ``self.compare``; ``self._compare_extra``: second systems added by :meth:`set_compare`)."""

    def _fill_models(self) -> None:
        from ...models import list_models

        self.model.clear()
        m: QStandardItemModel = self.model.model()
        for info in list_models():
            text = PICK.get(info.id, info.id)
            self.model.addItem(text, info.id)
            item = m.item(self.model.count() - 1)
            tip = info.description if info.available else f"unavailable: {info.reason}"
            item.setToolTip(tip)
            if not info.available:
                item.setEnabled(False)
        for i in range(self.model.count()):
            if m.item(i).isEnabled() and "<" not in self.model.itemData(i):
                self.model.setCurrentIndex(i)
                break
        self._fill_compare()

    def _fill_compare(self, *_) -> None:
        """The second systems on offer: every available model but the one chosen above."""
        from ...models import list_models

        chosen = self.model.currentData()
        old = self.compare.currentData()
        self.compare.blockSignals(True)
        self.compare.clear()
        self.compare.addItem("(no second system)", None)
        for info in list_models():
            if info.available and "<" not in info.id and info.id != chosen:
                self.compare.addItem(PICK.get(info.id, info.id), info.id)
        for info in list_models():  # a file or folder, chosen in a dialog
            if info.available and "<" in info.id:
                self.compare.addItem(PICK.get(info.id, info.id), info.id)
        for mid in self._compare_extra:
            if mid != chosen:
                self.compare.addItem(_short_id(mid), mid)
                self.compare.setItemData(self.compare.count() - 1, plain_tip(mid), Qt.ToolTipRole)
        i = self.compare.findData(old) if old else 0
        self.compare.setCurrentIndex(max(i, 0))
        self.compare.blockSignals(False)

    def set_model(self, model_id: str) -> None:
        """Select ``model_id`` (adding it, e.g. ``predictions:/path.csv``)."""
        i = self.model.findData(model_id)
        if i < 0:
            self.model.insertItem(0, _short_id(model_id), model_id)
            self.model.setItemData(0, plain_tip(model_id), Qt.ToolTipRole)
            i = 0
        self.model.setCurrentIndex(i)

    def set_compare(self, model_id: str | None) -> None:
        """Compare with ``model_id`` (adding it, e.g. ``predictions:/path.csv``); None: no
        second system."""
        if model_id is not None and model_id not in self._compare_extra:
            if self.compare.findData(model_id) < 0 and model_id != self.model.currentData():
                self._compare_extra.append(model_id)
                self._fill_compare()
        self.compare.setCurrentIndex(max(self.compare.findData(model_id), 0))

    def _compare_activated(self, index: int) -> None:
        """A second system from a file or folder: asked for in a dialog; cancelled, none."""
        mid = self.compare.itemData(index)
        if not mid or "<" not in mid:
            return
        chosen = self._ask_path(mid)
        if chosen:
            self.set_compare(chosen)
        else:
            self.compare.setCurrentIndex(0)

    def _ask_path(self, mid: str) -> str | None:
        """``prefix:path`` for a pick entry (``predictions:<file>`` …), asked in a dialog."""
        prefix = mid.split(":", 1)[0]
        if prefix == "predictions":
            path, _ = QFileDialog.getOpenFileName(
                self, "Predictions file", "", "Predictions (*.csv *.tsv *.jsonl *.ndjson)"
            )
        else:
            path = QFileDialog.getExistingDirectory(self, f"{PICK[mid]}")
        return f"{prefix}:{path}" if path else None

    def _model_activated(self, index: int) -> None:
        mid = self.model.itemData(index)
        if not mid or "<" not in mid:
            return
        chosen = self._ask_path(mid)
        if chosen:
            self.set_model(chosen)


class ProjectChoices:
    """The Audit panel's choices remembered per project folder (``self._projects``)."""

    #: The projects whose choices are remembered (the most recent ones).
    MAX_PROJECTS = 32

    def _project_state(self) -> dict:
        """The choices that belong to the open project: its dataset, the second system and
        the reference group (another project has other datasets and groups)."""
        return {
            "dataset": self.dataset.currentText(),
            "compare": self.compare.currentData(),
            "by1": self.by1.currentText(),
            "by2": self.by2.currentText(),
            "reference": self.reference.currentData(),
        }

    def _project_states(self) -> dict:
        """Every remembered project's choices, the open one's as they are now (the most
        recent last)."""
        states = dict(self._projects)
        if self.ctx.folder is not None:
            states.pop(str(self.ctx.folder), None)
            states[str(self.ctx.folder)] = self._project_state()
        return dict(list(states.items())[-self.MAX_PROJECTS :])

    def _restore_project(self) -> None:
        """Apply the open project's remembered choices (:meth:`_project_state`)."""
        state = self._projects.get(str(self.ctx.folder)) if self.ctx.folder else None
        if not isinstance(state, dict):
            return
        name = state.get("dataset")
        if isinstance(name, str) and self.dataset.findText(name) >= 0:
            self.dataset.setCurrentText(name)
        for box, key in ((self.by1, "by1"), (self.by2, "by2")):
            v = state.get(key)
            if isinstance(v, str) and box.findText(v) >= 0:
                box.setCurrentText(v)
        other = state.get("compare")
        if isinstance(other, str) and other:
            if self.compare.findData(other) >= 0 or other.startswith(
                ("predictions:", "hf:", "ct2:")
            ):
                self.set_compare(other)
        elif other is None:
            self.compare.setCurrentIndex(0)
        ref = state.get("reference")
        i = self.reference.findData(ref) if isinstance(ref, str) else 0
        if i >= 0:
            self.reference.setCurrentIndex(i)
