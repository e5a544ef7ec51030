"""Coded notes: the codec round-trips and every code of every area has its words."""

from __future__ import annotations

import importlib
import math

import pytest

from fairdesk.presentation.notices import AREAS, notice_text
from fairdesk.stats.notices import Notice, notice


def test_a_notice_round_trips_through_json():
    n = notice("x.y", k=3, level="child", values=[1.5, 2.0], missing=math.nan)
    data = n.to_json()
    assert data == {
        "code": "x.y",
        "args": {"k": 3, "level": "child", "values": [1.5, 2.0], "missing": None},
    }
    assert Notice.from_json(data) == Notice("x.y", {**data["args"]})
    assert n.area == "x"


def test_an_unknown_area_or_code_is_refused_by_name():
    with pytest.raises(KeyError, match="area 'nowhere'"):
        notice_text(notice("nowhere.thing"))


@pytest.mark.parametrize("area", sorted(AREAS))
def test_every_area_module_words_its_own_codes(area):
    texts = importlib.import_module(AREAS[area], "fairdesk.presentation").TEXTS
    assert texts, area
    assert all(code.startswith(area + ".") for code in texts), area
