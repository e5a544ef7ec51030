"""The result objects' JSON form and lookups (hand-built results)."""

import math

import pytest

from fairdesk.stats import AuditSettings


def test_exclusion_to_dict():
    from fairdesk.stats.results import Exclusion

    assert Exclusion("scot", "3 items < min_items 30").to_dict() == {
        "group": "scot",
        "reason": "3 items < min_items 30",
    }


def test_audit_result_to_dict_keys_and_missing_comparison():
    from fairdesk.stats.results import AuditResult, Exclusion

    boot = {"requested": 2000, "used": 4000, "raised": True, "capped": False, "ratio": math.nan}
    res = AuditResult((), {}, (), (Exclusion("x", "r"),), "us", "matched", AuditSettings(), boot)
    d = res.to_dict()
    assert d == {
        "comparisons": [],
        "summary": {},
        "groups": [],
        "excluded": [{"group": "x", "reason": "r"}],
        "reference": "us",
        "design": "matched",
        "settings": {
            **AuditSettings().to_dict(),
            "n_bootstrap_used": 4000,
            "bootstrap_raise": {**boot, "ratio": None},
        },
        "bootstrap": {**boot, "ratio": None},
    }
    plain = AuditResult((), {}, (), (), None, None, AuditSettings()).to_dict()
    assert plain["settings"] == AuditSettings().to_dict() and plain["bootstrap"] is None
    with pytest.raises(KeyError) as e:
        res.comparison("wer", "scot")
    assert e.value.args == ("No comparison for metric 'wer' and group 'scot'.",)


def test_jsonable_numpy_and_booleans():
    import numpy as np

    from fairdesk.stats.results import jsonable

    assert jsonable(np.array([1.5, np.nan, np.inf])) == [1.5, None, None]
    assert jsonable(np.array([[1, 2]])) == [[1, 2]]
    for t in (True, np.bool_(True)):
        assert jsonable(t) is True
    assert jsonable(np.bool_(False)) is False
    assert jsonable({1: (np.int64(3), np.float32(0.5))}) == {"1": [3, 0.5]}
