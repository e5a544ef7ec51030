"""faster-whisper's log-mel features of a long clip, computed in blocks (bounded memory):
the same features as faster-whisper's own whole-clip computation."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.models import whisper_ct2

fe_module = pytest.importorskip("faster_whisper.feature_extractor")


def _clip(seconds, seed=3):
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * 16000)) / 16000
    x = 0.2 * np.sin(2 * np.pi * (150 * t + 3 * t**2)) * (1 + np.sin(0.7 * t))
    x[int(10 * 16000) : int(12 * 16000)] = 0.0  # a silence: the floor (max - 8) binds there
    return (x + 0.01 * rng.standard_normal(t.size)).astype(np.float32)


@pytest.mark.parametrize("seconds", [20.0, 61.0, 137.3])
@pytest.mark.parametrize("chunk_length", [None, 30])
def test_block_features_equal_the_whole_clip_features(seconds, chunk_length):
    x = _clip(seconds)
    ref = fe_module.FeatureExtractor()
    bound = fe_module.FeatureExtractor()
    whisper_ct2.bound_features(bound)
    whisper_ct2.bound_features(bound)  # twice: still the one subclass
    assert type(bound).__mro__[1] is fe_module.FeatureExtractor
    want = ref(x, chunk_length=chunk_length)
    got = bound(x, chunk_length=chunk_length)
    assert got.shape == want.shape and got.dtype == want.dtype
    # the same per-frame FFTs and mel products; only a BLAS kernel's order could differ
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    assert (bound.n_samples, bound.nb_max_frames) == (ref.n_samples, ref.nb_max_frames)
    short = x[:16000]  # a clip up to a block: faster-whisper's own code, unchanged
    np.testing.assert_array_equal(bound(short), ref(short))
