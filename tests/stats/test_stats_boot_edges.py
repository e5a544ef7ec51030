"""Edges of the resampling engine that a whole audit reaches only by chance: a comparison
with exactly two defined replicate gaps, a pooled block SD exactly at the floor, content
design without content ids, a slimmed pair bootstrap, content sharing among no rows."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

import fairdesk.stats.compare as compare
from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats import AuditSettings
from fairdesk.stats.bootstrap import Side, bootstrap_pair, content_design
from fairdesk.stats.formulas import MDE_FACTOR, bootstrap_p, pooled_sd
from fairdesk.stats.groupci import shares_content

W = ratio_metric("wer", "WER", ["n_sub"], ["n_words"])
G = np.array([[1.0, 4.0], [2.0, 4.0], [0.0, 4.0]])  # group items: (n_sub, n_words)
R = np.array([[1.0, 4.0], [0.0, 4.0], [0.0, 4.0]])


def _pending(group_reps, reference_reps):
    pb = SimpleNamespace(group_reps=group_reps, reference_reps=reference_reps,
                         n_group_speakers=3, n_reference_speakers=3,
                         group_blocks=G, reference_blocks=R)
    rows = np.arange(3)
    return compare._pending_one(W, [0, 1], "g", SimpleNamespace(stats=G),
                                SimpleNamespace(stats=R), rows, rows, pb, "speaker",
                                "unmatched", None, False, AuditSettings())


def test_two_defined_replicate_gaps_still_give_an_interval():
    # 200 replicates; only the first two have words on the group side (the rest 0/0)
    g = np.zeros((200, 2))
    g[0], g[1] = [3.0, 12.0], [6.0, 12.0]
    r = np.tile([1.0, 12.0], (200, 1))
    pc = _pending(g, r)
    gaps = np.array([3 / 12 - 1 / 12, 6 / 12 - 1 / 12])
    assert pc.status == "test" and pc.n_invalid == 198
    assert (pc.ci_low, pc.ci_high) == pytest.approx(tuple(np.percentile(gaps, [2.5, 97.5])))
    assert pc.mde == pytest.approx(MDE_FACTOR * float(np.std(gaps, ddof=1)))
    assert pc.gap == pytest.approx(3 / 12 - 1 / 12)
    assert pc.p_value == bootstrap_p(pc.gap, np.r_[gaps, np.full(198, np.nan)])


def test_effect_size_needs_a_pooled_sd_above_the_floor(monkeypatch):
    rng = np.random.default_rng(0)
    g = np.c_[rng.integers(0, 6, 200), np.full(200, 12.0)]
    r = np.c_[rng.integers(0, 3, 200), np.full(200, 12.0)]
    sd = pooled_sd(G[:, 0] / G[:, 1], R[:, 0] / R[:, 1])
    assert _pending(g, r).effect_size == pytest.approx((3 / 12 - 1 / 12) / sd)
    monkeypatch.setattr(compare, "pooled_sd", lambda a, b: compare._MIN_SD)
    assert math.isnan(_pending(g, r).effect_size)  # at the floor: undefined
    above = math.nextafter(compare._MIN_SD, 1.0)
    monkeypatch.setattr(compare, "pooled_sd", lambda a, b: above)
    assert _pending(g, r).effect_size == pytest.approx((3 / 12 - 1 / 12) / above)


def test_content_design_without_content_ids():
    with_ids = Side(np.ones((3, 2)), contents=np.array(["a", "b", "c"]))
    without = Side(np.ones((3, 2)))
    for group, ref in ((with_ids, without), (without, without)):
        design, n_shared, coverage = content_design(group, ref)
        assert (design, n_shared, coverage) == ("unmatched", 0, 0.0)
        assert type(n_shared) is int and type(coverage) is float


def test_slim_drops_what_only_the_jackknife_needs():
    rng = np.random.default_rng(1)
    X = np.c_[rng.integers(0, 4, 12), np.full(12, 5.0)]
    side = Side(X, speakers=np.repeat([0, 1, 2], 4), contents=np.tile([0, 1, 2, 3], 3))
    ref = Side(X[::-1].copy(), speakers=np.repeat([3, 4, 5], 4),
               contents=np.tile([0, 1, 2, 3], 3))
    for keep in ("keep_totals", "keep_counts"):
        pb = bootstrap_pair(side, ref, "two_way", 50, np.random.default_rng(1), **{keep: True})
        kept = pb._totals if keep == "keep_totals" else pb._content_counts
        assert kept is not None
        slim = pb.slim()
        assert slim._totals is None and slim._content_counts is None
        np.testing.assert_array_equal(slim.group_reps, pb.group_reps)
        np.testing.assert_array_equal(slim.reference_reps, pb.reference_reps)


def test_content_sharing_among_no_rows():
    c = np.array([0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
    g = np.array([0] * 5 + [1] * 5)
    assert shares_content(c, g, 1)
    assert shares_content(c, g, 1, rows=np.array([], dtype=np.int64)) is False
