"""Fixtures for the model backends: real synthetic speech (espeak-ng) and test helpers."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.conftest import espeak

SENTENCES = (
    "The quick brown fox jumps over the lazy dog.",
    "Please call Stella and ask her to bring these things.",
    "I would like a cup of coffee with milk.",
)


def normalise(text: str) -> str:
    """Lower case, punctuation to spaces (apostrophes kept), single spaces."""
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).split())


@pytest.fixture(scope="session")
def speech(tmp_path_factory) -> list[tuple[np.ndarray, str]]:
    """Three short English sentences spoken by espeak-ng, float32 mono 16 kHz."""
    folder = tmp_path_factory.mktemp("speech")
    return [(espeak(text, folder, name=f"s{i}.wav"), text) for i, text in enumerate(SENTENCES)]
