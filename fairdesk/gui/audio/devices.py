"""Audio device pickers: the input (microphone, or a file played as the microphone) and the
output used for playback, with a rescan.

:class:`DeviceBox` is the widget of the Record tab; the listing itself is plain code in
:mod:`fairdesk.recording.devices` (:func:`~fairdesk.recording.devices.query_devices`). The
chosen output becomes sounddevice's default output, which every player of the window uses;
the chosen input is passed to the recorder's stream.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from ...recording.devices import Device, query_devices, set_default_output

FILE_INPUT = "file"


class DeviceBox(QWidget):
    """Input and output pickers with a Rescan button.

    The input is a device index (None: the system default) or the file in :attr:`input_file`.

    Signals
    -------
    changed : the input or output choice changed.
    """

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.devices: list[Device] = []
        self.message = ""
        self.input_file: str | None = None
        self.input = QComboBox()
        self.input.setToolTip("where takes are recorded from")
        self.output = QComboBox()
        self.output.setToolTip("where takes and items are played")
        for box in (self.input, self.output):
            box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(12)
            # the whole choice in the tooltip, where a narrow column still cuts it
            box.currentTextChanged.connect(lambda t, b=box: b.setToolTip(self._tip(b, t)))
        self.rescan_btn = QPushButton("Rescan")
        self.rescan_btn.setToolTip("look for audio devices again (after plugging one in)")
        self.file_btn = QPushButton("File…")
        self.file_btn.setToolTip("record from an audio file played as the microphone")
        self.note = QLabel("")
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.PlainText)
        g = QGridLayout(self)
        g.setContentsMargins(0, 0, 0, 0)
        # each picker on a row of its own, the whole width of the column ("File: take.wa"
        # and "no output de" were cut beside their labels and buttons at 1366 px)
        g.addWidget(QLabel("Input"), 0, 0)
        g.addWidget(self.file_btn, 0, 1, Qt.AlignRight)
        g.addWidget(self.input, 1, 0, 1, 2)
        g.addWidget(QLabel("Output"), 2, 0)
        g.addWidget(self.rescan_btn, 2, 1, Qt.AlignRight)
        g.addWidget(self.output, 3, 0, 1, 2)
        g.addWidget(self.note, 4, 0, 1, 2)
        g.setColumnStretch(0, 1)
        self.rescan_btn.clicked.connect(lambda: self.rescan(True))
        self.file_btn.clicked.connect(self.choose_file)
        self.input.activated.connect(lambda _i: self._input_activated())
        self.output.activated.connect(lambda _i: self._output_activated())

    def _tip(self, box: QComboBox, text: str) -> str:
        if box is self.input:
            purpose = "where takes are recorded from"
            if self.input_file and text.startswith("File: "):
                text = f"the file {self.input_file}"
        else:
            purpose = "where takes and items are played"
        return f"{text}: {purpose}" if text else purpose

    # -- listing ----------------------------------------------------------------------
    def rescan(self, reinit: bool = False) -> None:
        """List the devices again (``reinit``: make PortAudio look for new ones)."""
        keep_in, keep_out = self.input_choice(), self.output_choice()
        self.devices, self.message = query_devices(rescan=reinit)
        self._fill(keep_in, keep_out)
        self.changed.emit()

    def _fill(self, keep_in, keep_out) -> None:
        self.input.blockSignals(True)
        self.output.blockSignals(True)
        self.input.clear()
        self.output.clear()
        ins = [d for d in self.devices if d.inputs]
        outs = [d for d in self.devices if d.outputs]
        if ins:
            self.input.addItem("System default input", None)
        for d in ins:
            self.input.addItem(d.label(), d.index)
        if self.input_file:
            self.input.addItem(f"File: {Path(self.input_file).name}", FILE_INPUT)
            self.input.setItemData(self.input.count() - 1, self.input_file, Qt.ToolTipRole)
        if not ins and not self.input_file:
            self.input.addItem("no input device", None)
        if outs:
            self.output.addItem("System default output", None)
        else:
            self.output.addItem("no output device", None)
        for d in outs:
            self.output.addItem(d.label(), d.index)
        self._select(self.input, keep_in)
        self._select(self.output, keep_out)
        self.input.blockSignals(False)
        self.output.blockSignals(False)
        for box in (self.input, self.output):  # filled with signals blocked
            box.setToolTip(self._tip(box, box.currentText()))
        note = self.message
        if self.input_choice() == FILE_INPUT:
            note = f"Recording from the file {self.input_file} (played as the microphone)."
        self.note.setText(note)
        self.note.setVisible(bool(note))

    @staticmethod
    def _select(box: QComboBox, value) -> None:
        i = box.findData(value) if value is not None else -1
        if i < 0 and value is not None:  # a device that vanished: the default
            i = 0
        box.setCurrentIndex(max(i, 0))

    # -- choices ------------------------------------------------------------------------
    def input_choice(self):
        """A device index, None (system default) or :data:`FILE_INPUT`."""
        return self.input.currentData() if self.input.count() else None

    def output_choice(self):
        return self.output.currentData() if self.output.count() else None

    def has_input(self) -> bool:
        return self.input_choice() == FILE_INPUT or any(d.inputs for d in self.devices)

    def set_input_file(self, path: str | None) -> None:
        """Use ``path`` as the input (None: back to the devices)."""
        self.input_file = str(path) if path else None
        self._fill(FILE_INPUT if path else None, self.output_choice())
        self.changed.emit()

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Record from an audio file", "", "Audio (*.wav *.flac *.ogg *.mp3)"
        )
        if path:
            self.set_input_file(path)

    def _input_activated(self) -> None:
        self._fill(self.input_choice(), self.output_choice())
        self.changed.emit()

    def _output_activated(self) -> None:
        from .output_picker import choose_output

        choose_output(self.output_choice())  # every player, Items' too
        self.changed.emit()

    # -- remembered state ---------------------------------------------------------------
    def save_state(self) -> dict:
        def name(index):
            d = next((d for d in self.devices if d.index == index), None)
            return None if d is None else d.name

        inp = self.input_choice()
        return {
            "input": "file" if inp == FILE_INPUT else name(inp),
            "output": name(self.output_choice()),
            "input_file": self.input_file,
        }

    def restore_state(self, state: dict) -> None:
        """Select the remembered devices by name (indices change between sessions)."""

        def index(name):
            d = next((d for d in self.devices if d.name == name), None)
            return None if d is None else d.index

        f = state.get("input_file")
        if f and Path(f).is_file():
            self.input_file = str(f)
        inp = (
            FILE_INPUT
            if state.get("input") == "file" and self.input_file
            else index(state.get("input"))
        )
        out = index(state.get("output"))
        self._fill(inp, out)
        if out is not None:
            set_default_output(out)
        self.changed.emit()
