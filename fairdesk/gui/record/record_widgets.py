"""Parts of the Record tab: the input level meter and the speaker form (collapsible, with
remembered values)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...recording import recorder as rec

#: Speaker form fields: (metadata key, label, placeholder).
SPEAKER_FIELDS = (
    ("accent", "Accent", "e.g. owerri, lagos, scottish"),
    ("dialect", "Dialect", "e.g. Central Igbo"),
    ("gender", "Gender", ""),
    ("age", "Age", "years"),
    ("first_language", "First language", "e.g. ig"),
)
GENDERS = ("", "female", "male", "non-binary", "prefer not to say")


class LevelMeter(QWidget):
    """Horizontal input meter: RMS bar on a -60..0 dBFS scale and a peak tick; red when the
    peak reaches full scale (clipping)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.level = rec.Level()
        self.setMinimumSize(100, 16)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setToolTip("input level (RMS bar, peak tick; red: clipping)")

    def set_level(self, level: rec.Level) -> None:
        self.level = level
        self.update()

    @staticmethod
    def _x(value: float, width: int) -> float:
        db = 20 * np.log10(max(value, 1e-6))
        return width * min(1.0, max(0.0, (db + 60.0) / 60.0))

    def paintEvent(self, _ev):  # noqa: N802 - Qt API
        p = QPainter(self)
        w, h = self.width(), self.height()
        p.fillRect(0, 0, w, h, QColor("#e9ecf0"))
        clip = self.level.peak >= 0.99
        x = self._x(self.level.rms, w)
        p.fillRect(QRectF(0, 2, x, h - 4), QColor("#c62828" if clip else "#2e7d32"))
        px = self._x(self.level.peak, w)
        p.fillRect(QRectF(max(0.0, px - 2), 0, 2, h), QColor("#c62828" if clip else "#1b5e20"))
        p.setPen(QColor("#b8bfc8"))
        for db in (-40, -20, -6):
            t = w * (db + 60) / 60.0
            p.drawLine(int(t), 0, int(t), h)
        p.end()


class SpeakerForm(QWidget):
    """Dataset, speaker id and the speaker's metadata; the fields fold away under a header
    button (a one-line summary shows instead) so the tab fits a small screen.

    Signals
    -------
    changed : any field was edited.
    """

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.toggle = QToolButton()
        self.toggle.setText("Speaker")
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.DownArrow)
        self.toggle.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.toggle.setToolTip("show or fold the speaker form")
        self.toggle.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.dataset = QLineEdit("field")
        self.dataset.setToolTip(
            "dataset the accepted takes go into (folder recordings/<dataset> of the project)"
        )
        self.speaker_id = QLineEdit()
        self.speaker_id.setPlaceholderText("required, e.g. spk01")
        self.meta: dict[str, QWidget] = {}
        # grouping values a recording plan gives every new speaker of a group whose column
        # has no field here (e.g. age_group=child): kept and shown, added to the metadata
        self.extra: dict[str, str] = {}
        self.extra_label = QLabel("")
        self.extra_label.setObjectName("muted")
        self.extra_label.setTextFormat(Qt.PlainText)
        self.extra_label.setWordWrap(True)
        self.extra_label.hide()
        self.body = QWidget()
        form = QFormLayout(self.body)
        form.setContentsMargins(4, 0, 4, 0)
        form.addRow("Dataset", self.dataset)
        form.addRow("Speaker id", self.speaker_id)
        for key, label, hint in SPEAKER_FIELDS:
            if key == "gender":
                w = QComboBox()
                w.setEditable(True)
                w.addItems(GENDERS)
                w.currentTextChanged.connect(lambda _t: self._edited())
            else:
                w = QLineEdit()
                w.setPlaceholderText(hint)
                w.textChanged.connect(lambda _t: self._edited())
            self.meta[key] = w
            form.addRow(label, w)
        form.addRow(self.extra_label)
        self.dataset.textChanged.connect(lambda _t: self._edited())
        self.speaker_id.textChanged.connect(lambda _t: self._edited())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.toggle)
        lay.addWidget(self.body)
        self.toggle.toggled.connect(self.set_expanded)

    def set_expanded(self, on: bool) -> None:
        self.toggle.blockSignals(True)
        self.toggle.setChecked(on)
        self.toggle.blockSignals(False)
        self.toggle.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        self.body.setVisible(on)
        self._summary()

    def _edited(self) -> None:
        self._summary()
        self.changed.emit()

    def _summary(self) -> None:
        if self.body.isVisibleTo(self):
            self.toggle.setText("Speaker")
            return
        v = self.values()
        bits = [v["speaker_id"] or "no speaker id"] + [str(x) for k, x in v["metadata"].items()]
        text = "Speaker: " + " · ".join(bits)
        self.toggle.setText(text if len(text) <= 60 else text[:59] + "…")

    def values(self) -> dict:
        """``{"dataset", "speaker_id", "metadata"}`` (empty fields left out of metadata; a
        numeric age as an int)."""
        meta = {}
        for key, w in self.meta.items():
            v = (w.currentText() if isinstance(w, QComboBox) else w.text()).strip()
            if key == "age" and v.isdigit():
                meta[key] = int(v)
            elif v:
                meta[key] = v
        meta.update(self.extra)
        return {
            "dataset": self.dataset.text().strip(),
            "speaker_id": self.speaker_id.text().strip(),
            "metadata": meta,
        }

    def set_group_values(self, values: dict) -> None:
        """Give the speaker a group's values (a recording plan's quota): a column with a
        field fills it; any other is kept in :attr:`extra` and shown under the fields."""
        self.extra = {}
        for k, v in (values or {}).items():
            w = self.meta.get(k)
            if isinstance(w, QComboBox):
                w.setCurrentText(str(v))
            elif w is not None:
                w.setText(str(v))
            else:
                self.extra[str(k)] = str(v)
        text = ", ".join(f"{k} = {v}" for k, v in self.extra.items())
        self.extra_label.setText(f"Group: {text}" if text else "")
        self.extra_label.setVisible(bool(text))
        self._edited()

    def set_enabled_fields(self, on: bool) -> None:
        for w in (self.dataset, self.speaker_id, *self.meta.values()):
            w.setEnabled(on)

    # -- remembered state ---------------------------------------------------------------
    def save_state(self) -> dict:
        raw = {
            k: (w.currentText() if isinstance(w, QComboBox) else w.text())
            for k, w in self.meta.items()
        }
        return {
            "dataset": self.dataset.text(),
            "speaker_id": self.speaker_id.text(),
            "metadata": raw,
            "expanded": self.body.isVisibleTo(self),
        }

    def restore_state(self, state: dict) -> None:
        if state.get("dataset"):
            self.dataset.setText(str(state["dataset"]))
        if "speaker_id" in state:
            self.speaker_id.setText(str(state.get("speaker_id") or ""))
        for k, v in (state.get("metadata") or {}).items():
            w = self.meta.get(k)
            if isinstance(w, QComboBox):
                w.setCurrentText(str(v))
            elif w is not None:
                w.setText(str(v))
        if "expanded" in state:
            self.set_expanded(bool(state["expanded"]))
