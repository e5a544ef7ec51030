"""Shared fixtures: small audio trees built by the tests themselves."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def tone(seconds=0.5, sr=16000, freq=220.0, channels=1, amp=0.3):
    t = np.arange(int(seconds * sr)) / sr
    x = (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)
    if channels > 1:
        x = np.stack([x * (1 + 0.1 * c) for c in range(channels)], axis=1)
    return x


def write_wav(path, seconds=0.5, sr=16000, channels=1, freq=220.0, fmt=None, subtype=None):
    import soundfile as sf

    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), tone(seconds, sr, freq, channels), sr, format=fmt, subtype=subtype)
    return path


@pytest.fixture
def wav_factory(tmp_path):
    def make(rel, **kw):
        return write_wav(tmp_path / rel, **kw)

    return make
