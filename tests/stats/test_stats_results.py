"""The result objects' JSON form and lookups (hand-built results)."""

import pytest

from fairdesk.stats import AuditSettings


def test_exclusion_to_dict():
    from fairdesk.stats.notices import Notice, notice
    from fairdesk.stats.results import Exclusion

    note = notice("minimums.excluded", short=(("min_items", 3, 30),))
    assert Exclusion("scot", note).to_dict() == {
        "group": "scot",
        "reason": {"code": "minimums.excluded", "args": {"short": [["min_items", 3, 30]]}},
    }
    # a reason an older run stored as its sentence is written back as stored
    stored = Notice("stored.sentence", {"text": "3 items < min_items 30"})
    assert Exclusion("scot", stored).to_dict() == {
        "group": "scot",
        "reason": "3 items < min_items 30",
    }


def test_audit_result_to_dict_keys_and_missing_comparison():
    from fairdesk.stats.bootstrap_plan import BootstrapPlan
    from fairdesk.stats.notices import Notice
    from fairdesk.stats.results import AuditResult, Exclusion

    boot = {"requested": 2000, "used": 4000, "raised": True, "capped": False}
    why = Notice("stored.sentence", {"text": "r"})
    plan = BootstrapPlan.from_json(boot)
    res = AuditResult((), {}, (), (Exclusion("x", why),), "us", "matched", AuditSettings(), plan)
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
            "bootstrap_raise": boot,
        },
        "bootstrap": boot,
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
