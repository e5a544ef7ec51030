"""The two-system simulation of docs/METHODS.md, "Validation": equal gaps on the pooled-WER
scale, shared speakers and sentences, correlated utterance effects."""

import numpy as np
import pytest

from fairdesk.stats.system_simulation import equal_gap_effect, simulate_two_systems, true_wer


def test_equal_gap_effect_keeps_the_gap_on_the_wer_scale():
    gap = true_wer(0.6) - true_wer(0.0)
    e = equal_gap_effect(gap, -0.4)
    assert true_wer(e) - true_wer(-0.4) == pytest.approx(gap, abs=1e-4)
    # at a lower error rate the same WER gap needs a larger logit difference
    assert e - (-0.4) > 0.6


@pytest.mark.parametrize("design", ["matched", "unmatched"])
def test_both_systems_hear_the_same_items(design):
    a, b = simulate_two_systems(
        np.random.default_rng(0),
        {"x": 0.0, "y": 0.5},
        {"y": -0.5},
        design=design,
        speakers_per_group=10,
    )
    for col in ("item_id", "group", "speaker_id", "content_id", "n_words"):
        assert a[col].equals(b[col])
    ea = (a.n_sub + a.n_del + a.n_ins) / a.n_words
    eb = (b.n_sub + b.n_del + b.n_ins) / b.n_words
    assert np.corrcoef(ea, eb)[0, 1] > 0.2  # shared speaker, sentence and correlated u
    assert eb[b.group == "y"].mean() < ea[a.group == "y"].mean()
