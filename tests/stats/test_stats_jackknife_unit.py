"""The speaker jackknife's arithmetic (METHODS.md §3): each leave-one-speaker-out's bootstrap
p recomputed by hand with loops, and the flip rule at its boundaries."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats import AuditSettings
from fairdesk.stats.jackknife import jackknife_flips, jackknife_tests

WER = ratio_metric("wer", "WER", ["e"], ["n"])


def _p_by_hand(gap, rep_gaps):
    kept = [r for r in rep_gaps if math.isfinite(r)]
    exceed = sum(1 for r in kept if abs(r - gap) >= abs(gap))
    return (1 + exceed) / (len(kept) + 1)


def test_jackknife_p_gap_and_value_by_hand():
    rng = np.random.default_rng(0)
    J, B = 4, 50
    # statistics: (other, errors, words); the metric reads columns 1 and 2
    point = np.column_stack([np.zeros(J), [30.0, 36.0, 33.0, 40.0], [100.0] * J])
    reps = np.stack(
        [
            np.column_stack([np.zeros(B), rng.integers(15, 50, B).astype(float), np.full(B, 100.0)])
            for _ in range(J)
        ]
    )
    reps[1, :7, 2] = 0.0  # undefined replicates (zero words) of the second leave-one-out
    reps[2, 3, 1] = 30.0  # a replicate gap exactly |gap| away from the gap: counts
    jk = SimpleNamespace(point=point, reps=reps)
    ref_reps = 0.25 + rng.normal(0, 0.01, B)
    p, gap, value = jackknife_tests(jk, WER, [1, 2], ref_reps, 0.3)
    np.testing.assert_allclose(value, [0.30, 0.36, 0.33, 0.40])
    np.testing.assert_allclose(gap, [0.0, 0.06, 0.03, 0.10], atol=1e-12)
    for j in range(J):
        with np.errstate(divide="ignore", invalid="ignore"):
            rep_values = reps[j, :, 1] / reps[j, :, 2]
        assert p[j] == pytest.approx(_p_by_hand(gap[j], rep_values - ref_reps)), j
    assert p[0] == 1.0  # a zero gap: every replicate is at least as far


def test_exact_tie_counts_as_exceeding():
    jk = SimpleNamespace(
        point=np.array([[2.0, 10.0]]), reps=np.array([[[4.0, 10.0], [2.0, 10.0], [3.0, 10.0]]])
    )
    p, gap, _ = jackknife_tests(jk, WER, [0, 1], np.zeros(3), 0.0)
    # gap 0.2; replicate gaps 0.4 (|0.2| >= 0.2: counts), 0.2 (0), 0.3 (0.1)
    assert gap[0] == pytest.approx(0.2) and p[0] == pytest.approx((1 + 1) / (3 + 1))


def _flips(p, gap, value, multiplier=1.0, practical=False, ref=0.3):
    jack = (np.array(p, dtype=float), np.array(gap, dtype=float), np.array(value, dtype=float))
    return jackknife_flips(jack, WER, ref, multiplier, practical, AuditSettings())


def test_flip_rule_at_its_boundaries():
    assert not _flips([0.001, 0.002], [0.1, 0.12], [0.4, 0.42])
    # multiplier × p equal to alpha is not significant: a flip
    assert _flips([0.001, 0.025], [0.1, 0.12], [0.4, 0.42], multiplier=2.0)
    assert not _flips([0.001, 0.0249], [0.1, 0.12], [0.4, 0.42], multiplier=2.0)
    # an undefined leave-one-out gap is a flip, whatever its p
    assert _flips([0.001, 0.001], [0.1, math.nan], [0.4, math.nan])
    # practical results also flip when a leave-one-out is no longer practical
    assert _flips([0.001, 0.001], [0.1, 0.04], [0.4, 0.34], practical=True)
    assert not _flips([0.001, 0.001], [0.1, 0.04], [0.4, 0.34], practical=False)
    assert not _flips([0.001, 0.001], [0.1, 0.06], [0.4, 0.36], practical=True)
