"""Fixtures for the model backends: real synthetic speech (espeak-ng) and test helpers."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

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
    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip(
            "espeak-ng is not installed: cannot synthesise test speech (apt install espeak-ng)"
        )
    import soundfile as sf
    import soxr

    out = []
    folder = tmp_path_factory.mktemp("speech")
    for i, text in enumerate(SENTENCES):
        path = folder / f"s{i}.wav"
        subprocess.run([exe, "-v", "en-us", "-w", str(path), text], check=True, capture_output=True)
        audio, sr = sf.read(str(path), dtype="float32", always_2d=False)
        audio = soxr.resample(audio, sr, 16000).astype(np.float32)
        out.append((audio, text))
    return out
