"""The overdispersion check at its thresholds, on counts whose Pearson χ² is exact.

With fitted means of 1 (or 2, 1/2) and integer counts, every Pearson term is a dyadic number,
so χ² and χ²/df land exactly on the thresholds (6/5 is the double 1.2, 5/6 the double 1/1.2).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from fairdesk.presentation.notices import notice_text
from fairdesk.stats.regression.poisson_mixed_report import _overdispersion, _pearson


def _check(y, mu, p, mu0, p0, alpha=0.05):
    data = SimpleNamespace(y=np.asarray(y, float))
    model = SimpleNamespace(fit=SimpleNamespace(mu=np.asarray(mu, float), beta=np.zeros(p)))
    glm = SimpleNamespace(mu=np.asarray(mu0, float), beta=np.zeros(p0))
    # the check as the report writes it: numbers, and its reading in words
    return _overdispersion(data, model, alpha, glm).to_json(notice_text)


def _poisson_reading(ratio):
    return (
        "Given each speaker's rate, the errors vary as a Poisson count should (Pearson "
        f"χ²/df = {ratio:.2f})."
    )


def _speaker_sentence(ratio0):
    return (
        f" Without the speaker term χ²/df would be {ratio0:.2f}: the speaker intercept "
        "accounts for the extra variation between speakers."
    )


def test_pearson_statistic_and_its_degrees_of_freedom():
    y, mu = np.array([3.0, 2, 1, 0]), np.array([1.0, 2, 1, 0.5])
    chi2, df, ratio = _pearson(y, mu, 2)
    assert (chi2, df, ratio) == (4.0 + 0.0 + 0.0 + 0.5, 2, 2.25)
    # never fewer than 1 degree of freedom
    assert _pearson(y, mu, 3) == (4.5, 1, 4.5)
    assert _pearson(y, mu, 4) == (4.5, 1, 4.5)
    assert _pearson(y, mu, 9) == (4.5, 1, 4.5)


def test_ratio_exactly_at_the_threshold_is_not_overdispersion():
    # χ² = 6 on 7 - (1 + 1) = 5 df: χ²/df is the double 1.2, and p = 0.31 < alpha = 0.5
    y = [3, 2, 1, 1, 1, 1, 0]
    o = _check(y, np.ones(7), 1, np.ones(7), 1, alpha=0.5)
    assert (o["pearson_chi2"], o["df"], o["ratio"]) == (6.0, 5, 1.2)
    assert o["p_value"] == pytest.approx(stats.chi2.sf(6.0, 5), rel=1e-12)
    assert o["p_value"] < 0.5
    assert o["overdispersed"] is False
    assert o["ratio_without_speaker"] == 1.0  # 6 on 7 - 1 df
    assert o["reading"] == _poisson_reading(1.2)


def test_p_value_exactly_at_alpha_is_not_overdispersion():
    # χ² = 10 on 5 df: χ²/df = 2 > 1.2, p = 0.075
    y = [3, 3, 1, 1, 1, 0, 0]
    p = float(stats.chi2.sf(10.0, 5))
    at = _check(y, np.ones(7), 1, np.ones(7), 1, alpha=p)
    assert at["p_value"] == p and at["ratio"] == 2.0
    assert at["overdispersed"] is False
    assert at["reading"] == _poisson_reading(2.0)
    above = _check(y, np.ones(7), 1, np.ones(7), 1, alpha=float(np.nextafter(p, 1.0)))
    assert above["overdispersed"] is True
    assert above["reading"].startswith(
        "Errors vary more between utterances than a Poisson count allows, even given each "
        f"speaker's rate (Pearson χ²/df = 2.00, p = {p:.3f}): bursts of errors"
    )


def test_large_ratio_without_significance_is_not_overdispersion():
    # χ²/df = 2 but p = 0.075 > alpha = 0.05: too few utterances to call it
    o = _check([3, 3, 1, 1, 1, 0, 0], np.ones(7), 1, np.ones(7), 1)
    assert o["overdispersed"] is False and o["ratio"] == 2.0 and o["p_value"] > 0.05


def test_ratio_exactly_one_over_the_threshold_is_not_underdispersion():
    # χ² = 5 on 8 - 2 = 6 df: χ²/df is the double 1/1.2
    o = _check([3, 0, 1, 1, 1, 1, 1, 1], np.ones(8), 1, np.ones(8), 1)
    assert o["ratio"] == 1 / 1.2
    assert o["reading"] == _poisson_reading(5 / 6)
    below = _check([2, 0, 1, 1, 1, 1, 1, 1], np.ones(8), 1, np.ones(8), 1)  # χ² = 2
    assert below["reading"] == (
        "Errors vary less than a Poisson count given each speaker's rate (Pearson χ²/df = "
        "0.33); the intervals are, if anything, conservative."
    )


def test_speaker_sentence_needs_ratio_without_speaker_above_the_threshold():
    # with the speaker term χ² = 0.5 (ratio 0.1); without it exactly 1.2 (6 on 5 df) or 1.0
    y = [3, 2, 1, 1, 1, 1, 0]
    mu = [3, 2, 1, 1, 1, 1, 0.5]
    at = _check(y, mu, 1, np.ones(7), 2)
    assert (at["ratio"], at["ratio_without_speaker"]) == (0.1, 1.2)
    assert at["reading"].endswith("conservative.")
    low = _check(y, mu, 1, np.ones(7), 1)
    assert (low["ratio"], low["ratio_without_speaker"]) == (0.1, 1.0)
    assert low["reading"].endswith("conservative.")
    above = _check(y, mu, 1, [1, 1, 1, 1, 1, 1, 2], 2)  # χ² = 7 on 5 df
    assert above["reading"].endswith("conservative." + _speaker_sentence(1.4))


def test_speaker_sentence_needs_a_drop_of_more_than_a_tenth():
    # with the speaker term χ²/df = 7/5 = 1.4; without it 7.5/5 = 1.5 = 1.4 + 0.1 exactly
    y = [3, 2, 2, 2, 1, 1, 1]
    same = _check(y, np.ones(7), 1, [1, 1, 1, 1, 2, 1, 1], 2)
    assert (same["ratio"], same["ratio_without_speaker"]) == (1.4, 1.5)
    assert same["reading"] == _poisson_reading(1.4)
    more = _check(y, np.ones(7), 1, [1, 1, 1, 1, 2, 2, 1], 2)  # 8 / 5 = 1.6
    assert more["reading"] == _poisson_reading(1.4) + _speaker_sentence(1.6)
