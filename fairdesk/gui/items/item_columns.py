"""The item table's columns (which are shown, their headers and width caps), the delegate that
elides long cells, and two small helpers the panels share (counted nouns, shortcuts)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QStyle, QStyledItemDelegate

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
#: Columns of numbers (their headers): fitted to their values, never elided to give the
#: transcripts room.
NUMBERS = frozenset(
    HEADERS[k]
    for k in ("rank", "errors", "n_words", "wer", "em", "duration_s", "nonspeech_share")
    + ("snr_db", "speech_rate", "asr_confidence")
)
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
#: The narrowest the reference and hypothesis columns become.
MIN_TEXT_WIDTH = 70
#: The narrowest the group column becomes so that the transcripts' headers show whole.
MIN_GROUP_WIDTH = 64
#: Room beside a header's text: its margins and the sort indicator.
HEADER_PAD = 26


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


def share_text_columns(table, cols: list[str], fitted: dict[str, int]) -> None:
    """Give the reference and the hypothesis equal shares of the width the columns before
    them leave (at least their headers' width, :data:`MIN_TEXT_WIDTH` at the least), so both
    show without scrolling sideways. On a narrow list the columns before them (fitted to
    ``fitted``, their widths by name) give up what the two lack, widest first: the group
    column down to :data:`MIN_GROUP_WIDTH`, the others down to their header's width (a
    Halluc. column of long flags took the room the transcripts needed at 1024 px); their
    texts are elided, whole in the cell's tooltip."""
    if "reference" not in cols or "hypothesis" not in cols:
        return
    ri, hi = cols.index("reference"), cols.index("hypothesis")
    need, widths, floors = _text_room(table, cols, fitted)
    width = table.viewport().width()
    shown = list(widths)
    lack = 2 * need - (width - sum(widths.values()))
    for c in sorted(shown, key=lambda c: floors[c] - widths[c]):  # the most to give first
        give = max(0, min(lack, widths[c] - floors[c]))
        widths[c] -= give
        lack -= give
    for c in shown:
        if table.columnWidth(c) != widths[c]:
            table.setColumnWidth(c, widths[c])
    each = max(MIN_TEXT_WIDTH, (width - sum(widths.values())) // 2)
    table.setColumnWidth(ri, each)
    table.setColumnWidth(hi, each)


def _text_room(table, cols: list[str], fitted: dict[str, int]):
    """The width each transcript column needs (its header whole), and the fitted widths and
    the narrowest widths of the shown columns before them (by column index)."""
    ri, hi = cols.index("reference"), cols.index("hypothesis")
    fm = table.horizontalHeader().fontMetrics()
    need = max(MIN_TEXT_WIDTH, *(fm.horizontalAdvance(cols[c]) + HEADER_PAD for c in (ri, hi)))
    shown = [c for c in range(ri) if not table.isColumnHidden(c)]
    widths = {c: fitted.get(cols[c], table.columnWidth(c)) for c in shown}
    floors = {
        c: MIN_GROUP_WIDTH
        if cols[c] == "group"
        else widths[c]
        if cols[c] in NUMBERS  # a number is never cut ("400.…" hid a WER of 400.0%)
        else min(widths[c], fm.horizontalAdvance(HEADERS.get(cols[c], cols[c])) + HEADER_PAD)
        for c in shown
    }
    return need, widths, floors


def text_columns_minimum(table, cols: list[str], fitted: dict[str, int]) -> int:
    """The narrowest the table may be so that :func:`share_text_columns` shows both
    transcripts with their headers whole, the columns before them at their narrowest (its
    frame, vertical header and scroll bar included); 0 without the two columns."""
    if "reference" not in cols or "hypothesis" not in cols:
        return 0
    need, _widths, floors = _text_room(table, cols, fitted)
    bar = table.style().pixelMetric(QStyle.PM_ScrollBarExtent)
    vh = table.verticalHeader()
    side = vh.width() if vh.isVisible() else 0
    return sum(floors.values()) + 2 * need + bar + side + 2 * table.frameWidth() + 2
