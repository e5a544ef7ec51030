"""Occlusion saliency on stand-in backends whose score depends on known time regions."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.core.errors import Cancelled
from fairdesk.explain import grounding_lift, occlusion
from fairdesk.explain.saliency import method_key, n_frames, occlusion_windows

SR = 16000


class RegionBackend:
    """score = 10 · mean energy of the samples in [lo, hi) seconds: only that region counts."""

    id = "fake-region"
    capabilities = {"score"}

    def __init__(self, lo=0.8, hi=1.0):
        self.lo, self.hi = int(lo * SR), int(hi * SR)
        self.calls = []

    def score_many(self, audios, texts):
        self.calls.append(len(audios))
        return [
            10.0 * float(np.sum(a[self.lo : self.hi].astype(np.float64) ** 2)) / SR for a in audios
        ]


def clip(seconds=2.0, amp=0.5):
    return np.full(int(seconds * SR), amp, dtype=np.float32)


def test_occlusion_peaks_exactly_on_the_region_and_lift_matches_hand_computation():
    be = RegionBackend(0.8, 1.0)
    sal = occlusion(be, clip(), "anything", window_s=0.1, frame_s=0.01, batch_size=8)
    assert sal.curve.shape == (200,) and sal.frame_s == 0.01
    # 20 windows + the unmasked clip, scored in batches of 8
    assert be.calls == [8, 8, 5] and sal.meta["n_scored"] == 21
    inside = np.zeros(200, bool)
    inside[80:100] = True
    drop = 10.0 * (0.5**2) * 0.1  # one 0.1 s window of the region masked
    np.testing.assert_allclose(sal.curve[inside], drop, rtol=1e-6)
    assert np.all(sal.curve[~inside] == 0.0)
    assert sal.score == pytest.approx(10.0 * 0.25 * 0.2)
    # target = the word spans (0.7, 0.9) and (0.9, 1.0): 30 frames, 20 of them salient
    lift = grounding_lift(sal.curve, sal.frame_s, [(0.7, 0.9), (0.9, 1.0)])
    assert lift == pytest.approx((20 * drop / 30) / (20 * drop / 200))
    assert lift == pytest.approx(200 / 30)


def test_batched_equals_one_window_at_a_time_and_is_deterministic():
    be = RegionBackend(0.33, 0.61)
    a = np.random.default_rng(1).standard_normal(int(1.23 * SR)).astype(np.float32) * 0.1
    batched = occlusion(be, a, "x", batch_size=16)
    single = occlusion(be, a, "x", batch_size=1)
    np.testing.assert_allclose(batched.curve, single.curve, rtol=1e-6, atol=1e-9)
    assert batched.curve.size == n_frames(a.size, 0.01) == 123
    again = occlusion(be, a, "x", batch_size=16)
    np.testing.assert_array_equal(batched.curve, again.curve)
    # noise mask: seeded, so deterministic too; the curve still sits on the region
    n1 = occlusion(be, a, "x", mask="noise")
    n2 = occlusion(be, a, "x", mask="noise")
    np.testing.assert_array_equal(n1.curve, n2.curve)
    assert n1.curve.argmax() in range(33, 61)


def test_overlapping_windows_average_and_windows_cover_the_clip():
    wins = occlusion_windows(int(0.35 * SR), 0.1, 0.05)
    assert wins[0] == (0, 1600) and wins[-1][1] == int(0.35 * SR)
    assert all(b[0] - a[0] == 800 for a, b in zip(wins, wins[1:]))
    with pytest.raises(ValueError, match="may not exceed"):
        occlusion_windows(16000, 0.1, 0.2)
    be = RegionBackend(0.8, 1.0)
    sal = occlusion(be, clip(), "x", window_s=0.1, stride_s=0.05)
    # frames inside the region are covered by two windows, both overlapping it
    assert sal.curve[85:95].min() > 0 and np.all(sal.curve[:70] == 0)
    assert sal.curve.argmax() in range(80, 100)
    assert sal.key == method_key(
        "occlusion", frame_s=0.01, window_s=0.1, stride_s=0.05, mask="zero"
    )


def test_cancelled_between_batches():
    be = RegionBackend()
    with pytest.raises(Cancelled):
        occlusion(be, clip(), "x", batch_size=4, cancelled=lambda: len(be.calls) >= 2)
    assert be.calls == [4, 4]


def test_plain_score_backend_and_bad_input():
    class ScoreOnly:
        def score(self, audio, text):
            return float(np.sum(audio[:1600] ** 2))

    sal = occlusion(ScoreOnly(), clip(0.5), "x")
    assert sal.curve.size == 50 and sal.curve[:10].min() > 0 and np.all(sal.curve[10:] == 0)
    with pytest.raises(ValueError):
        occlusion(ScoreOnly(), np.zeros(0, np.float32), "x")
    with pytest.raises(ValueError, match="mask"):
        occlusion(ScoreOnly(), clip(0.5), "x", mask="pink")


class SlowRegionBackend(RegionBackend):
    """RegionBackend whose calls take a varying time, so that concurrent calls finish out of
    order; it records how many ran at once."""

    def __init__(self, lo, hi):
        super().__init__(lo, hi)
        import threading

        self._lock = threading.Lock()
        self.now = self.most = 0

    def score_many(self, audios, texts):
        import time

        with self._lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.002 * (len(self.calls) % 3))
        try:
            return super().score_many(audios, texts)
        finally:
            with self._lock:
                self.now -= 1


def test_concurrent_workers_give_the_same_curve_and_progress_and_cancel():
    a = np.random.default_rng(2).standard_normal(int(1.57 * SR)).astype(np.float32) * 0.1
    single = occlusion(RegionBackend(0.21, 0.93), a, "x", batch_size=1)
    be = SlowRegionBackend(0.21, 0.93)
    seen = []
    par = occlusion(be, a, "x", batch_size=1, workers=3, progress=lambda f, m: seen.append(m))
    np.testing.assert_array_equal(par.curve, single.curve)
    assert par.score == single.score and par.meta == single.meta
    assert 1 < be.most <= 3 and len(be.calls) == 17
    assert seen == [f"occlusion {k}/17" for k in range(1, 18)]
    # a cancel stops the submissions; the scorings already running finish
    be = SlowRegionBackend(0.21, 0.93)
    with pytest.raises(Cancelled):
        occlusion(be, a, "x", batch_size=1, workers=3, cancelled=lambda: len(be.calls) >= 4)
    assert 4 <= len(be.calls) <= 4 + 3
