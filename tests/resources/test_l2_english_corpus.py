"""Checks on the committed real-speech demo corpus (resources/demo/l2-english/l2_english.zip)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

HERE = Path(__file__).resolve().parents[2] / "resources" / "demo" / "l2-english"
ZIP_PATH = HERE / "l2_english.zip"
COLUMNS = ["path", "text", "speaker_id", "gender", "age", "age_group", "native_language"]


@pytest.fixture(scope="module")
def corpus():
    assert ZIP_PATH.is_file(), f"{ZIP_PATH} is missing; rebuild it with make_zip.py"
    with zipfile.ZipFile(ZIP_PATH) as zf:
        text = zf.read("metadata.csv").decode("utf-8")
        yield zf, text.splitlines()[0].split(","), list(csv.DictReader(io.StringIO(text)))


def test_attribution_travels_verbatim(corpus):
    zf, _, _ = corpus
    inside = zf.read("SOURCE.txt")
    assert inside == (HERE / "SOURCE.txt").read_bytes()
    assert b"speechocean762" in inside and b"Apache-2.0" in inside


def test_metadata_design(corpus):
    zf, header, rows = corpus
    assert header == COLUMNS
    assert len(rows) == 1250
    per_speaker = Counter(r["speaker_id"] for r in rows)
    assert len(per_speaker) == 125 and set(per_speaker.values()) == {10}
    assert len({r["text"] for r in rows}) == 1250  # every prompt distinct: unmatched design
    speakers = {r["speaker_id"]: r for r in rows}
    assert Counter(r["age_group"] for r in speakers.values()) == {
        "child": 52,
        "teen": 6,
        "adult": 67,
    }
    assert Counter(r["gender"] for r in speakers.values()) == {"female": 67, "male": 58}
    for r in rows:
        age = int(r["age"])
        want = "child" if age <= 12 else "teen" if age <= 17 else "adult"
        assert r["age_group"] == want, r
        assert r["native_language"] == "Mandarin" and r["text"].strip()
        assert r["speaker_id"] == speakers[r["speaker_id"]]["speaker_id"]
    names = set(zf.namelist())
    assert {r["path"] for r in rows} <= names
    assert len(names) == 1250 + 2  # the audio, metadata.csv and SOURCE.txt, nothing else


def test_audio_decodes(corpus):
    zf, _, rows = corpus
    for r in rows[::250]:
        x, sr = sf.read(io.BytesIO(zf.read(r["path"])), dtype="float32")
        assert sr in (16000, 48000) and x.ndim == 1
        assert 0.5 < len(x) / sr < 30 and np.abs(x).max() > 0.01
