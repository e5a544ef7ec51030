"""The item table's columns (which are shown, their headers and width caps), the delegate that
elides long cells, and two small helpers the panels share (counted nouns, shortcuts)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QStyledItemDelegate

ALL = "(all groups)"
HEADERS = {
    "rank": "#",
    "errors": "Err.",
    "n_words": "Words",
    "wer": "WER",
    "em": "EM",
    "speaker_id": "speaker",
    "saliency": "Sal.",
    "text_source": "Text",
    "halluc": "Halluc.",
    "duration_s": "Dur. s",
    "nonspeech_share": "Non-sp.",
    "snr_db": "SNR dB",
    "speech_rate": "Words/s",
    "asr_confidence": "Conf.",
}
#: The acoustic covariates of each item (docs/METHODS.md, "Audit pitfalls"), hidden until "acoustics" is checked.
ACOUSTIC = {
    "duration_s": 2,
    "nonspeech_share": 2,
    "snr_db": 1,
    "speech_rate": 2,
    "asr_confidence": 2,
}
SHOWN = (
    "rank",
    "group",
    "errors",
    "wer",
    "halluc",
    "reference",
    "hypothesis",
    "saliency",
    "text_source",
    "n_words",
    "em",
    *ACOUSTIC,
    "id",
    "speaker_id",
)
CAPS = {
    "reference": 200,
    "hypothesis": 200,
    "id": 200,
    "speaker": 120,
    "group": 110,
    "Halluc.": 110,
}
#: Neighbours prefetched on each side of the shown item.
PREFETCH = 2


class ElideDelegate(QStyledItemDelegate):
    """Elides a column's text at the end (transcripts) or in the middle (ids)."""

    def __init__(self, mode, parent=None):
        super().__init__(parent)
        self.mode = mode

    def initStyleOption(self, option, index):  # noqa: N802 - Qt API
        super().initStyleOption(option, index)
        option.textElideMode = self.mode


def shortcut(widget, key, slot) -> QShortcut:
    sc = QShortcut(QKeySequence(key), widget)
    sc.setContext(Qt.WidgetWithChildrenShortcut)
    sc.activated.connect(slot)
    return sc
