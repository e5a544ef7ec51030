"""The verdict card's line layout (gui/widgets/card_columns.py): as many columns as the width holds,
the tallest column as short as it can be, the lines' order kept; one column packs lines side
by side where they fit. Sizes below are fixed, so every split is worked out by hand."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QWidget

#: (width, height) of five lines, as a card's gap, CI, values, verdict and plan button.
LINES = [(60, 20), (150, 16), (160, 16), (150, 16), (200, 22)]


def _card(qtbot, sizes=LINES):
    from fairdesk.gui.widgets.card_columns import ColumnsLayout

    host = QWidget()
    qtbot.addWidget(host)
    lay = ColumnsLayout(host)  # 16 px between columns and between lines side by side
    lay.setContentsMargins(0, 0, 0, 0)
    labels = []
    for k, (w, h) in enumerate(sizes):
        lab = QLabel(f"line {k}")
        lab.setFixedSize(w, h)
        lay.addWidget(lab)
        labels.append(lab)
    return host, lay, labels


def _layout(qtbot, host, lay, width):
    host.resize(width, lay.heightForWidth(width))
    host.show()
    qtbot.wait(10)
    lay.setGeometry(host.rect())
    return [(lab.x(), lab.y()) for lab in host.findChildren(QLabel)]


@pytest.mark.parametrize(
    ("width", "height", "where"),
    [
        # one column: 0 and 1 side by side (60 + 16 + 150 <= 250), the rest a line each
        (250, 20 + 16 + 16 + 22, [(0, 0), (76, 4), (0, 20), (0, 36), (0, 52)]),
        # two columns: [0 1 2] [3 4] (160 + 16 + 200 = 376), 52 tall; [0 1] [2 3 4] is 54
        (400, 52, [(0, 0), (0, 20), (0, 36), (176, 0), (176, 16)]),
        # three: [0 1] [2 3] [4] (150 + 160 + 200 + 32 = 542), 36 tall
        (600, 36, [(0, 0), (0, 20), (166, 0), (166, 16), (342, 0)]),
    ],
)
def test_lines_take_as_many_columns_as_the_width_holds(qtbot, width, height, where):
    host, lay, labels = _card(qtbot)
    assert lay.heightForWidth(width) == height
    _layout(qtbot, host, lay, width)
    assert [(lab.x(), lab.y()) for lab in labels] == where
    for a in labels:  # nothing overlaps, nothing leaves the card
        assert host.rect().contains(a.geometry())
        assert not any(a.geometry().intersects(b.geometry()) for b in labels if b is not a)


def test_the_minimum_is_one_column_of_the_widest_line_and_hidden_lines_take_no_room(qtbot):
    host, lay, labels = _card(qtbot)
    assert lay.minimumSize().width() == 200
    labels[4].hide()  # a card without a plan button
    # two columns at 400: [0 1] [2 3] (150 + 16 + 160), 36 tall; three need 60+150+160+32
    assert lay.heightForWidth(400) == 36
    assert lay.minimumSize().width() == 160


def test_cards_sharing_their_widths_set_their_lines_alike(qtbot):
    """A card whose plan button is 30 px narrower takes two columns at 250 px where its
    peer keeps one; given the peer's widths it takes the same split."""
    narrow = [*LINES[:4], (170, 22)]
    wide_host, wide_lay, _ = _card(qtbot)
    host, lay, labels = _card(qtbot, narrow)
    width = 250  # [0] [1 2 3 4]: 60 + 16 + 200 = 276 > 250; 60 + 16 + 170 = 246
    assert wide_lay.heightForWidth(width) == 74  # one column, 0 and 1 side by side
    assert lay.heightForWidth(width) == 16 * 3 + 22  # [0] [1 2 3 4]
    lay.shared_widths = [max(a, b) for a, b in zip(lay.line_widths(), wide_lay.line_widths())]
    lay.invalidate()
    assert lay.heightForWidth(width) == 74
    _layout(qtbot, host, lay, width)
    assert labels[1].y() == 4 and labels[4].x() == 0  # as the peer: one column
