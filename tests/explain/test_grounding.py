"""Grounding lift edge cases, phone-error grounding against sklearn, the energy VAD."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from fairdesk.explain import (
    energy_vad,
    explain_sample,
    frames_in_regions,
    grounding_lift,
    phone_error_grounding,
)


def test_uniform_saliency_has_lift_one():
    assert grounding_lift(np.ones(100), 0.01, [(0.2, 0.5)]) == pytest.approx(1.0)
    assert grounding_lift(np.full(100, 3.0), 0.01, [(0.0, 1.0)]) == pytest.approx(1.0)


def test_all_saliency_in_target_gives_total_over_target_frames():
    s = np.zeros(100)
    s[20:30] = np.arange(1, 11)  # uneven inside the target
    # target = frames 10..39 (30 frames): lift = n / n_target
    assert grounding_lift(s, 0.01, [(0.1, 0.4)]) == pytest.approx(100 / 30)


def test_negative_saliency_is_clipped_and_undefined_cases_are_nan():
    s = np.zeros(100)
    s[:50] = -5.0  # evidence against the text: clipped to 0
    s[60:70] = 1.0
    assert grounding_lift(s, 0.01, [(0.6, 0.7)]) == pytest.approx(10.0)
    assert math.isnan(grounding_lift(-np.ones(10), 0.01, [(0.0, 0.05)]))
    assert math.isnan(grounding_lift(np.zeros(10), 0.01, [(0.0, 0.05)]))
    assert math.isnan(grounding_lift(np.ones(10), 0.01, []))
    assert math.isnan(grounding_lift(np.ones(10), 0.01, [(0.3, 0.3)]))  # no frame inside
    assert frames_in_regions(10, 0.01, [(0.02, 0.05), (0.08, 0.2)]).nonzero()[0].tolist() == [
        2,
        3,
        4,
        8,
        9,
    ]


def test_phone_error_grounding_equals_sklearn():
    rng = np.random.default_rng(3)
    sal = rng.standard_normal(300)
    flags = np.zeros(300, bool)
    flags[100:130] = True
    sal[100:130] += 1.5
    speech = np.zeros(300, bool)
    speech[50:250] = True
    out = phone_error_grounding(sal, flags, speech)
    assert out["auroc"] == pytest.approx(roc_auc_score(flags, sal), abs=1e-12)
    assert out["ap"] == pytest.approx(average_precision_score(flags, sal), abs=1e-12)
    assert out["auroc_speech"] == pytest.approx(roc_auc_score(flags[speech], sal[speech]))
    assert out["ap_speech"] == pytest.approx(average_precision_score(flags[speech], sal[speech]))
    assert out["n_flagged"] == 30 and out["n_speech"] == 200 and out["n_flagged_speech"] == 30
    none = phone_error_grounding(sal, np.zeros(300, bool))
    assert math.isnan(none["auroc"]) and "auroc_speech" not in none
    with pytest.raises(ValueError):
        phone_error_grounding(sal, flags[:10])


def test_energy_vad_on_tone_then_silence():
    sr = 16000
    t = np.arange(sr) / sr
    x = np.concatenate([0.3 * np.sin(2 * np.pi * 220 * t), np.zeros(sr)]).astype(np.float32)
    x[sr:] += 1e-5 * np.random.default_rng(0).standard_normal(sr).astype(np.float32)
    v = energy_vad(x, 0.01)
    assert v.shape == (200,)
    assert v[:100].all() and not v[100:].any()
    # a short pause inside the tone is bridged by the hangover, a long one is not
    y = x.copy()
    y[4000:4800] = 0.0  # 50 ms
    y[8000:12000] = 0.0  # 250 ms
    v = energy_vad(y, 0.01)
    assert v[25:30].all() and not v[55:70].any()


def test_explain_sample_is_speaker_balanced():
    import pandas as pd

    rows = [
        {"group": g, "speaker_id": f"{g}{s}", "content_id": f"c{c}"}
        for g in "ab"
        for s in range(4)
        for c in range(6)
    ]
    frame = pd.DataFrame(rows)
    sample = explain_sample(frame, 8, seed=0)
    assert sample.groupby("group").size().tolist() == [8, 8]
    assert sample.groupby("group")["speaker_id"].nunique().tolist() == [4, 4]
    assert sample.groupby("speaker_id").size().max() == 2
