"""Acoustic covariates on a synthetic signal: espeak-ng speech between known silences."""

import math

import numpy as np
import pytest

from fairdesk.core.acoustics import (
    asr_confidence,
    covariates,
    nonspeech_stretches,
    snr_db,
    speech_rate,
    speech_regions,
)
from fairdesk.metrics.hallucination import words_over_nonspeech
from tests.conftest import espeak

SR = 16000


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    return espeak("the quick brown fox jumps over the lazy dog", tmp_path_factory.mktemp("a"))


def padded(speech, lead=1.0, tail=2.0, noise=0.0, seed=0):
    x = np.concatenate(
        [np.zeros(int(lead * SR), np.float32), speech, np.zeros(int(tail * SR), np.float32)]
    )
    if noise:
        x = x + np.random.default_rng(seed).normal(0, noise, x.size).astype(np.float32)
    return x


def test_vad_finds_the_speech_between_the_silences(speech):
    x = padded(speech)
    regions = speech_regions(x)
    assert regions, "no speech found in espeak audio"
    start, end = regions[0][0], regions[-1][1]
    lead, dur_speech = 1.0, speech.size / SR
    # espeak pads a little silence itself; the VAD pads 30 ms: allow 0.3 s
    assert abs(start - lead) < 0.3 and abs(end - (lead + dur_speech)) < 0.3
    cov = covariates(x)
    assert cov.duration_s == pytest.approx(x.size / SR, abs=1e-3)
    # independent: the share from the regions themselves
    speech_s = sum(b - a for a, b in regions)
    assert cov.speech_s == pytest.approx(speech_s, abs=1e-3)
    assert cov.nonspeech_share == pytest.approx(1 - speech_s / cov.duration_s, abs=1e-3)
    assert cov.nonspeech_share > 3.0 / cov.duration_s - 0.1  # at least the 3 s of padding
    assert nonspeech_stretches(regions, cov.duration_s)[0] == (0.0, regions[0][0])


def test_snr_matches_the_planted_noise_level(speech):
    noise = 0.003
    x = padded(speech, noise=noise)
    regions = speech_regions(x)
    est = snr_db(x, regions)
    # independent: clean speech power inside the regions over the known noise variance
    clean = padded(speech)
    mask = np.zeros(x.size, bool)
    for a, b in regions:
        mask[int(a * SR) : int(b * SR)] = True
    truth = 10 * math.log10(np.mean(clean[mask].astype(float) ** 2) / noise**2)
    assert est == pytest.approx(truth, abs=1.0)
    # all speech (no non-speech frames): no estimate
    assert math.isnan(snr_db(x, [(0.0, x.size / SR)]))


def test_words_over_the_trailing_silence_are_found(speech):
    x = padded(speech, lead=0.5, tail=2.5)
    cov = covariates(x)
    end = cov.speech[-1][1]
    words = [
        {"text": "fox", "start": 1.0, "end": 1.3},
        {"text": "thank", "start": end + 0.5, "end": end + 0.8},
        {"text": "you", "start": end + 0.8, "end": end + 1.0},
    ]
    ev = words_over_nonspeech(words, cov.speech, cov.duration_s)
    assert [e["word"] for e in ev] == ["thank", "you"]
    assert ev[0]["nonspeech"] == [round(end, 3), round(cov.duration_s, 3)]


def test_rate_and_confidence():
    assert list(speech_rate([6, 4], [2.0, 0.0])[:1]) == [3.0]
    assert math.isnan(speech_rate([6, 4], [2.0, 0.0])[1])
    assert asr_confidence(0.8, [{"probability": 0.1}]) == 0.8
    assert asr_confidence(None, [{"probability": 0.2}, {"probability": 0.4}]) == pytest.approx(0.3)
    assert math.isnan(asr_confidence(None, []))
