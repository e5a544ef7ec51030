"""Shared simulated frames for the regression tests (known truth, fixed seeds)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest


def confounded_frame(seed: int = 1, n: int = 4000) -> pd.DataFrame:
    """Gender imbalanced across regions; only region affects the outcome."""
    rng = np.random.default_rng(seed)
    regions = np.array(["north", "south", "east", "west"])
    female_share = {"north": 0.2, "south": 0.4, "east": 0.6, "west": 0.8}
    effect = {"north": 0.0, "south": -0.5, "east": -1.0, "west": -1.5}
    region = rng.choice(regions, n)
    share = np.array([female_share[r] for r in region])
    gender = np.where(rng.random(n) < share, "female", "male")
    age = rng.choice(["18-29", "30-44", "60+"], n, p=[0.5, 0.3, 0.2])
    logit = 1.0 + np.array([effect[r] for r in region])
    em = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    speaker = rng.integers(0, 200, n).astype(str)
    return pd.DataFrame(
        {"em": em, "gender": gender, "region": region, "age": age, "speaker_id": speaker}
    )


def clustered_null_frame(
    rng: np.random.Generator, n_speakers: int = 40, n_utts: int = 30, speaker_sd: float = 1.0
) -> pd.DataFrame:
    """Speaker random effects on the logit; a speaker-level binary variable with no effect."""
    speaker = np.repeat(np.arange(n_speakers), n_utts)
    level = np.repeat(rng.permutation(np.arange(n_speakers) % 2), n_utts)
    u = rng.normal(0.0, speaker_sd, n_speakers)[speaker]
    em = (rng.random(speaker.size) < 1 / (1 + np.exp(-(0.5 + u)))).astype(int)
    return pd.DataFrame(
        {"em": em, "group": np.where(level == 1, "b", "a"), "speaker_id": speaker.astype(str)}
    )


@pytest.fixture(scope="session")
def confounded() -> pd.DataFrame:
    return confounded_frame()


def small_frame_data(n: int = 900) -> pd.DataFrame:
    """A modest frame with a 3-level and a 4-level variable, a weak age effect and speakers
    (a fresh copy each call; the ``small_frame`` fixture is shared and read-only)."""
    rng = np.random.default_rng(7)
    age = rng.choice(["18-29", "30-44", "60+"], n, p=[0.3, 0.45, 0.25])
    accent = rng.choice(["us", "uk", "in", "ng"], n)
    speaker = rng.integers(0, 60, n).astype(str)
    logit = 0.6 - 0.5 * (age == "60+") + 0.3 * (accent == "uk") - 0.4 * (accent == "ng")
    em = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    words = rng.integers(3, 12, n)
    errors = rng.binomial(words, 1 / (1 + np.exp(logit + 1.0)))
    return pd.DataFrame(
        {
            "em": em,
            "age": age,
            "accent": accent,
            "speaker_id": speaker,
            "n_words": words,
            "n_errors": errors,
        }
    )


@pytest.fixture(scope="session")
def small_frame() -> pd.DataFrame:
    return small_frame_data()


@pytest.fixture(scope="session")
def make_clustered_null():
    """The simulator of :func:`clustered_null_frame`, as a fixture (no cross-test imports)."""
    return clustered_null_frame


#: The odds of the outcome per level of ``underflow_frame`` (reference Asian, odds 0.25):
#: odds ratios 3.12, 3.52 and 1.21, as in the dialect corpus where two p-values underflowed.
UNDERFLOW_ODDS = {"Asian": 0.25, "Inland-North": 0.78, "Mid-Atlantic": 0.88, "Southern": 0.3025}


def underflow_frame(n: int = 20_000, n_speakers: int = 100) -> pd.DataFrame:
    """A huge, clean effect: ``n`` utterances per level of ``dialectal_region`` with exactly
    the outcome share of :data:`UNDERFLOW_ODDS` (shuffled; 4 × ``n`` rows), so the Wald z of
    Inland-North and Mid-Atlantic is above 50 and their p-values, and the LR test's,
    underflow to 0.0 in statsmodels; Southern's does not (p ≈ 5e-15). ``gender`` and the
    speakers (``n_speakers`` per level) carry no effect; ``n_words`` / ``n_errors``: 10 words
    per utterance with error rates 10 / 30 / 35 / 12% per level (a binomial outcome whose
    p-values underflow too)."""
    rng = np.random.default_rng(28)
    rates = {"Asian": 0.10, "Inland-North": 0.30, "Mid-Atlantic": 0.35, "Southern": 0.12}
    parts = []
    for lev, odds in UNDERFLOW_ODDS.items():
        k = int(round(n * odds / (1 + odds)))
        y = rng.permutation(np.r_[np.ones(k, int), np.zeros(n - k, int)])
        parts.append(
            pd.DataFrame(
                {
                    "dialectal_region": lev,
                    "recognised": y,
                    "gender": rng.permutation(np.arange(n) % 2 == 0),
                    "speaker_id": [f"{lev}-{i % n_speakers}" for i in range(n)],
                    "n_words": 10,
                    "n_errors": rng.binomial(10, rates[lev], n),
                }
            )
        )
    out = pd.concat(parts, ignore_index=True)
    out["gender"] = np.where(out["gender"], "f", "m")
    return out


def normal_tail_log10(z: float) -> float:
    """log10 of 2·Φ(−|z|) from the asymptotic (Mills ratio) series, for |z| > 20: independent
    of scipy."""
    z = abs(z)
    series = 1 - 1 / z**2 + 3 / z**4 - 15 / z**6 + 105 / z**8
    ln = math.log(2) - z * z / 2 - math.log(z) - 0.5 * math.log(2 * math.pi) + math.log(series)
    return ln / math.log(10)


def chi2_df3_tail_log10(x: float) -> float:
    """log10 of P(χ²₃ ≥ x) = erfc(√(x/2)) + √(2x/π)·e^{−x/2}, with erfc's asymptotic series,
    for large x: independent of scipy."""
    t = math.sqrt(x / 2)
    erfc_scaled = (1 - 1 / (2 * t**2) + 3 / (4 * t**4) - 15 / (8 * t**6)) / (t * math.sqrt(math.pi))
    return (-x / 2 + math.log(erfc_scaled + math.sqrt(2 * x / math.pi))) / math.log(10)


def words(note) -> str | None:
    """A coded note in words (fairdesk.presentation.notices.notice_text); None stays None."""
    from fairdesk.presentation.notices import notice_text

    return None if note is None else notice_text(note)


def texts(notes) -> list[str]:
    """Coded notes in words, in order."""
    from fairdesk.presentation.notices import notice_texts

    return notice_texts(notes)


def S(text: str):  # noqa: N802 - a note written as its sentence
    """A note that is its sentence (``stored.sentence``): hand-made results in tests."""
    from fairdesk.stats.notices import Notice

    return Notice("stored.sentence", {"text": text})
