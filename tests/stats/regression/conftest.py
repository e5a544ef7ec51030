"""Shared simulated frames for the regression tests (known truth, fixed seeds)."""

from __future__ import annotations

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
