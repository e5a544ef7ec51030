"""A verdict card calls a group "worse" or "better" only when its verdict found a gap; an
untested or non-significant gap is only "higher" or "lower" (issue: "▼ worse" beside a +4.4 pp
gap that is not significant)."""

from __future__ import annotations

import math

import pytest


@pytest.mark.parametrize(
    ("verdict", "direction", "gap", "word"),
    [
        ("disparity_detected", "worse", 0.12, " ▼ worse"),
        ("speaker_confounded", "better", -0.08, " ▲ better"),
        ("significant_but_small", "worse", 0.02, " ▼ worse"),
        ("inconclusive_underpowered", "worse", 0.047, " ▲ higher"),
        ("inconclusive_underpowered", "better", -0.127, " ▼ lower"),
        ("no_disparity_detected", "better", -0.01, " ▼ lower"),
        # accuracy: higher is better, so a lower value is "worse" but reads "lower" here
        ("no_disparity_detected", "worse", -0.02, " ▼ lower"),
        ("inconclusive_underpowered", "equal", 0.0, ""),
        ("inconclusive_underpowered", "worse", math.nan, ""),
    ],
)
def test_direction_word(verdict, direction, gap, word):
    from fairdesk.gui.results.verdict_cards import _direction_word

    assert _direction_word(verdict, direction, gap) == word
