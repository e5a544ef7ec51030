"""The one place to choose the audio output, for every player of the window (Items and
Record): a small dialog opened from the player's "No output…" button or File ▸ Audio
output…, and :func:`choose_output`, which the Record tab's output list calls too."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
)

from . import audio_worker


class _Outputs(QObject):
    """Announces a new default output (players that follow the default re-read it)."""

    changed = Signal()


_OUTPUTS: _Outputs | None = None


def outputs() -> _Outputs:
    global _OUTPUTS
    if _OUTPUTS is None:
        _OUTPUTS = _Outputs()
    return _OUTPUTS


def choose_output(device=None) -> audio_worker.OutputSink:
    """Play through ``device`` (an output index; None: the system default) from now on, in
    every player that follows the default; returns the new sink (probed: it may still be
    unavailable, with its reason)."""
    from ...recording.devices import set_default_output

    set_default_output(device)
    sink = audio_worker.SoundDeviceSink(device)
    audio_worker.set_default_sink(sink)
    outputs().changed.emit()
    return sink


class OutputPicker(QDialog):
    """Choose the output device (with a Rescan for one plugged in since the start)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Audio output")
        self.box = QComboBox()
        self.box.setMinimumContentsLength(24)
        self.box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.rescan_btn = QPushButton("Rescan")
        self.rescan_btn.setToolTip("look for audio devices again (after plugging one in)")
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.PlainText)
        self.note.setObjectName("muted")
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(QLabel("Play through"))
        row.addWidget(self.box, 1)
        row.addWidget(self.rescan_btn)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.note)
        lay.addWidget(buttons)
        self.rescan_btn.clicked.connect(lambda: self.fill(rescan=True))
        self.fill()

    def fill(self, rescan: bool = False) -> None:
        from ...recording.devices import query_devices

        devices, _msg = query_devices(rescan=rescan)
        outs = [d for d in devices if d.outputs]
        self.box.clear()
        if outs:
            self.box.addItem("System default output", None)
            for d in outs:
                self.box.addItem(d.label(), d.index)
        else:
            self.box.addItem("no output device", None)
        sink = audio_worker.default_sink()
        self.note.setText(
            "Items and Record play through the output chosen here (the Record tab's Output "
            "list is the same setting)."
            + ("" if outs else "\n\nNo output device found: connect one, then press Rescan.")
            + ("" if sink.available else f"\n\nNow: {sink.reason}")
        )

    def accept(self) -> None:
        choose_output(self.box.currentData())
        super().accept()
