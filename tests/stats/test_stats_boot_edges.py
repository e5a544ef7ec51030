"""Edges of the resampling engine that a whole audit reaches only by chance: a comparison
with exactly two defined replicate gaps, a pooled block SD exactly at the floor, content
design without content ids, a slimmed pair bootstrap, content sharing among no rows."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import norm as scipy_norm
from scipy.stats import t as scipy_t

import fairdesk.stats.comparison as comparison
from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats import AuditSettings
from fairdesk.stats.bootstrap import Side, bootstrap_pair, content_design
from fairdesk.stats.formulas import MDE_FACTOR, bootstrap_p, pooled_sd
from fairdesk.stats.groupci import shares_content

W = ratio_metric("wer", "WER", ["n_sub"], ["n_words"])
G = np.array([[1.0, 4.0], [2.0, 4.0], [0.0, 4.0]])  # group items: (n_sub, n_words)
R = np.array([[1.0, 4.0], [0.0, 4.0], [0.0, 4.0]])


def _pending(group_reps, reference_reps):
    pb = SimpleNamespace(
        group_reps=group_reps,
        reference_reps=reference_reps,
        n_group_speakers=3,
        n_reference_speakers=3,
        group_blocks=G,
        reference_blocks=R,
    )
    rows = np.arange(3)
    return comparison.pending_one(
        W,
        [0, 1],
        "g",
        SimpleNamespace(stats=G),
        SimpleNamespace(stats=R),
        rows,
        rows,
        pb,
        "speaker",
        "unmatched",
        None,
        False,
        AuditSettings(),
    )


def test_two_defined_replicate_gaps_still_give_an_interval():
    # 200 replicates; only the first two have words on the group side (the rest 0/0)
    g = np.zeros((200, 2))
    g[0], g[1] = [3.0, 12.0], [6.0, 12.0]
    r = np.tile([1.0, 12.0], (200, 1))
    pc = _pending(g, r)
    # the speaker scheme's deviations scaled by √(k/(k−1)) · t_{.975, k−1} / z_{.975}
    # (METHODS §3; 3 speakers a side, the default)
    f = math.sqrt(3 / 2) * scipy_t.ppf(0.975, 2) / scipy_norm.ppf(0.975)
    gaps = np.array([3 / 12, 3 / 12 + f * (6 / 12 - 3 / 12)]) - 1 / 12
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
    monkeypatch.setattr(comparison, "pooled_sd", lambda a, b: comparison.MIN_SD)
    assert math.isnan(_pending(g, r).effect_size)  # at the floor: undefined
    above = math.nextafter(comparison.MIN_SD, 1.0)
    monkeypatch.setattr(comparison, "pooled_sd", lambda a, b: above)
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
    ref = Side(X[::-1].copy(), speakers=np.repeat([3, 4, 5], 4), contents=np.tile([0, 1, 2, 3], 3))
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


def test_content_major_is_float32_only_where_exact():
    from fairdesk.stats.bootstrap import _F32_EXACT, _content_major

    T = np.arange(12.0).reshape(2, 3, 2)  # S=2, C=3, K=2: whole numbers, small
    M = _content_major(T)
    assert M.dtype == np.float32 and M.shape == (3, 4)
    np.testing.assert_array_equal(M, T.transpose(1, 0, 2).reshape(3, 4))
    half = _content_major(T + 0.5)  # not whole numbers
    assert half.dtype == np.float64 and half.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(half, (T + 0.5).transpose(1, 0, 2).reshape(3, 4))
    # C · max|T| must stay below 2^24: at the bound exactly, float64
    big = np.zeros((1, 2, 1))
    big[0, 0, 0] = _F32_EXACT / 2
    assert _content_major(big).dtype == np.float64
    big[0, 0, 0] = _F32_EXACT / 2 - 1
    assert _content_major(big).dtype == np.float32
    big[0, 0, 0] = -_F32_EXACT  # the bound is on |T|
    assert _content_major(big).dtype == np.float64
    assert _content_major(np.zeros((0, 2, 1))).dtype == np.float64  # nothing to convert


def test_shared_contents_without_ids_and_with_missing_or_mixed_ids():
    from fairdesk.stats.bootstrap import shared_contents

    x = np.ones((3, 1))
    ids = Side(x, contents=np.array(["a", "b", "c"], dtype=object))
    for g, r in ((Side(x), ids), (ids, Side(x)), (Side(x), Side(x))):
        got = shared_contents(g, r)
        assert got.dtype == object and got.shape == (0,)
    # integer codes on one side, labels with a missing one on the other: compared as labels
    codes = Side(x, contents=np.array([0, 1, 2]))
    labels = Side(x, contents=np.array([2, None, 0], dtype=object))
    for g, r in ((codes, labels), (labels, codes)):
        got = shared_contents(g, r)
        assert got.dtype == object and got.tolist() == [0, 2]
    # numbers and text among the ids stay what they are
    mixed = Side(x, contents=np.array([3, "x", "y"], dtype=object))
    got = shared_contents(mixed, Side(x, contents=np.array(["x", 3, "z"], dtype=object)))
    assert got.dtype == object and got.tolist() == [3, "x"]
    assert [type(v) for v in got] == [int, str]
    # integer codes on both sides (negative = missing): int64 ids
    got = shared_contents(
        Side(x, contents=np.array([0, -1, 2])), Side(x, contents=np.array([2, 0, -1]))
    )
    assert got.dtype == np.int64 and got.tolist() == [0, 2]


def test_group_value_replicates_in_several_chunks(monkeypatch):
    """The replicate loop run in chunks of 7 gives all 20 replicates, each the sums of a
    draw of the group's speakers."""
    import fairdesk.stats.groupci as groupci
    from fairdesk.stats.groupci import bootstrap_value

    monkeypatch.setattr(groupci, "_chunk", lambda n_rep, width: 7)
    X = np.c_[np.arange(6.0), np.full(6, 4.0)]
    spk = np.array([0, 0, 1, 1, 2, 2])
    vb = bootstrap_value(X, [np.arange(6)], spk, None, "speaker", 20, np.random.default_rng(0))
    assert vb.reps.shape == (20, 2)
    np.testing.assert_array_equal(vb.reps[:, 1], np.full(20, 24.0))  # 3 draws of 2 items
    per_speaker = np.array([1.0, 5.0, 9.0])  # each speaker's error sum
    for row in vb.reps[:, 0]:  # a sum of three speakers' sums, drawn with replacement
        assert any(
            row == per_speaker[[a, b, c]].sum()
            for a in range(3)
            for b in range(3)
            for c in range(3)
        )
