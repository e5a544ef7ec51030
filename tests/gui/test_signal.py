"""The pure signal processing behind the player (fairdesk/core/signal.py), and the parsing
of the alignment text the difference view colours."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.core.progress import Cancelled
from fairdesk.gui.items.diff_view import parse_alignment
from fairdesk.recording.signal import envelope, spectrogram


def test_envelope_is_min_and_max_per_bin():
    x = np.array([0, 1, -2, 3, -4, 5, 0], dtype=np.float32)
    env = envelope(x, n_bins=3, sample_rate=1)
    # bins of ceil(7/3) = 3 samples: [0 1 -2] [3 -4 5] [0 (padded with 0)]
    assert env.lo.tolist() == [-2, -4, 0] and env.hi.tolist() == [1, 5, 0]
    assert np.allclose(env.times, [1.5, 4.5, 7.0])
    assert envelope(np.zeros(0)).lo.size == 0


@pytest.mark.parametrize("freq", [500.0, 2000.0, 6000.0])
def test_spectrogram_peaks_at_the_tone_with_full_scale_reference(freq):
    sr = 16000
    t = np.arange(sr) / sr
    x = (0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32)
    s = spectrogram(x, sr, n_fft=512, hop=160)
    assert s.db.shape == (1 + (sr - 512) // 160, 257)
    k = int(np.argmax(s.db.mean(axis=0)))
    assert abs(s.freqs[k] - freq) <= sr / 512
    # amplitude 0.5 → about -6 dBFS at the peak (Hann window, scaled to unit gain)
    assert -8.0 < s.db.max() < -5.0
    assert s.db.min() >= s.db.max() - 80.0 - 1e-3


def test_spectrogram_reports_progress_and_stops_when_cancelled():
    x = np.random.default_rng(0).standard_normal(16000 * 5).astype(np.float32)
    seen = []
    spectrogram(x, progress=lambda f, m: seen.append(f), chunk_frames=100)
    assert seen[-1] == 1.0 and len(seen) == 5
    with pytest.raises(Cancelled):
        spectrogram(x, cancelled=lambda: True)


def test_parse_alignment_reads_item_report_columns_and_operations():
    from fairdesk.review import item_report

    rep = item_report(
        {
            "reference": "play hotel california by the eagles",
            "hypothesis": "play a hotel in califormia by eagles",
        }
    )
    assert parse_alignment(rep["alignment"]) == [
        ("play", "play", ""),
        ("", "a", "I"),
        ("hotel", "hotel", ""),
        ("", "in", "I"),
        ("california", "califormia", "S"),
        ("by", "by", ""),
        ("the", "", "D"),
        ("eagles", "eagles", ""),
    ]
    assert parse_alignment("") == []
