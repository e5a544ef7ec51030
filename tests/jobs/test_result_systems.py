"""The stored comparison of systems: a typed part that names each system's run and holds
the system and gap differences, and reads back from its JSON as it was written."""

import json
import math

import numpy as np
import pytest

from fairdesk.jobs.result_systems import KIND, from_json, system_comparison_run, to_json
from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.simulation import simulate_audit
from fairdesk.stats.system_results import GapDifference, SystemDifference
from fairdesk.stats.systems import compare_systems


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(4)
    a = simulate_audit(rng, {"adult": 0.0, "child": 0.8}, speakers_per_group=12)
    a["item_id"] = [f"i{i}" for i in range(len(a))]
    b = a.copy()
    b["n_sub"] = rng.binomial(b["n_sub"].to_numpy(), np.where(b["group"] == "child", 0.5, 1.0))
    b = b.drop(index=[2])
    wer = ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"])
    em = ratio_metric("em", "EM", ["em"], ["n_items"], higher_is_better=True, kind="proportion")
    return compare_systems(
        {"A": a, "B": b}, [wer, em], AuditSettings(n_bootstrap=200), reference="adult", audits=False
    )


def test_round_trip_through_json(result):
    run = system_comparison_run(result, {"A": 11, "B": 12})
    back = from_json(to_json(run))
    assert back == run
    assert back.kind == KIND and back.runs == {"A": 11, "B": 12}
    assert isinstance(back.differences[0], SystemDifference)
    assert isinstance(back.gap_differences[0], GapDifference)
    assert back.common.failed == {"A": (), "B": ("i2",)}
    assert back.settings == result.settings


def test_numbers_survive_and_nan_reads_as_none(result):
    run = from_json(json.loads(to_json(system_comparison_run(result))))
    g = run.gap_differences[0]
    src = result.gap_difference("B", g.metric, g.group)
    assert g.difference == src.difference and g.ci_low == src.ci_low
    assert g.p_adjusted == src.p_adjusted
    untested = [d for d in run.differences if d.verdict == "not_estimable"]
    for d in untested:
        assert d.p_value is None
    assert all(math.isnan(d.p_value) for d in result.differences if d.verdict == "not_estimable")


def test_other_kinds_are_refused():
    with pytest.raises(ValueError, match="kind 'audit', expected 'system_comparison'"):
        from_json({"kind": "audit"})
