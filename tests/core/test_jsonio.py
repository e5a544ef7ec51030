"""The one JSON cleaner (core.jsonio): NaN/±inf → None, numpy → Python, dataclasses → dicts;
the statistics' cleaners are this one."""

import json
import math
from dataclasses import dataclass

import numpy as np

from fairdesk.core.jsonio import json_number, jsonable


@dataclass
class _Pair:
    a: float
    b: tuple


def test_json_number_one_rule():
    assert json_number(None) is None
    assert json_number(np.bool_(True)) is True
    assert json_number(np.int64(7)) == 7 and type(json_number(np.int64(7))) is int
    assert json_number(np.float32(0.5)) == 0.5 and type(json_number(np.float32(0.5))) is float
    assert json_number(np.asarray(0.25)) == 0.25  # a 0-d array, as the diacritics table gives
    for bad in (math.nan, math.inf, -math.inf, np.float64("nan")):
        assert json_number(bad) is None


def test_jsonable_cleans_nested_data_into_text_json_can_write():
    data = {
        1: [np.nan, np.int64(3), (1.5, np.inf)],
        "pair": _Pair(np.float64(-np.inf), (np.array([1.0, np.nan]),)),
        "text": "a",
        "none": None,
    }
    out = jsonable(data)
    assert out == {
        "1": [None, 3, [1.5, None]],
        "pair": {"a": None, "b": [[1.0, None]]},
        "text": "a",
        "none": None,
    }
    assert json.loads(json.dumps(out, allow_nan=False)) == out


def test_the_statistics_use_the_one_cleaner():
    from fairdesk.core import jsonio
    from fairdesk.stats import results
    from fairdesk.stats.regression import results as reg_results

    assert results.jsonable is jsonio.jsonable
    assert reg_results._num is jsonio.json_number
