"""Checks on the committed demo corpus (resources/demo/demo_corpus.zip)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections import defaultdict
from pathlib import Path

import pytest
import soundfile as sf

ZIP_PATH = Path(__file__).resolve().parents[2] / "resources" / "demo" / "demo_corpus.zip"
PROMPTS_PATH = ZIP_PATH.with_name("prompts.jsonl")
COLUMNS = [
    "file_name",
    "text",
    "speaker_id",
    "content_id",
    "accent",
    "gender",
    "age_band",
    "voice",
    "pitch",
    "rate",
    "intent",
    "slots",
]


@pytest.fixture(scope="module")
def corpus():
    assert ZIP_PATH.is_file(), (
        f"{ZIP_PATH} is missing; regenerate it with `.venv/bin/python resources/demo/make_demo.py`."
    )
    with zipfile.ZipFile(ZIP_PATH) as zf:
        text = zf.read("metadata.csv").decode("utf-8")
        rows = list(csv.DictReader(io.StringIO(text)))
        names = set(zf.namelist())
        header = text.splitlines()[0].split(",")
        yield zf, header, rows, names


def test_metadata_columns(corpus):
    _, header, rows, _ = corpus
    assert header == COLUMNS
    assert rows
    for row in rows:
        assert all(row[c] != "" for c in COLUMNS if c != "slots")
        slots = json.loads(row["slots"])
        for value in slots.values():
            assert f" {value} " in f" {row['text']} ", row


def test_design_accents_speakers_genders(corpus):
    _, _, rows, _ = corpus
    speakers_by_accent = defaultdict(set)
    genders_by_accent = defaultdict(set)
    for row in rows:
        speakers_by_accent[row["accent"]].add(row["speaker_id"])
        genders_by_accent[row["accent"]].add(row["gender"])
    assert len(speakers_by_accent) >= 6
    for accent, spk in speakers_by_accent.items():
        assert len(spk) >= 6, accent
        assert len(spk) == 10, accent
        assert genders_by_accent[accent] == {"female", "male"}, accent
    # one speaker belongs to one accent and has one gender / age band
    per_speaker = defaultdict(set)
    for row in rows:
        per_speaker[row["speaker_id"]].add((row["accent"], row["gender"], row["age_band"]))
    assert all(len(v) == 1 for v in per_speaker.values())


def test_matched_design(corpus):
    _, _, rows, _ = corpus
    prompts = [json.loads(x) for x in PROMPTS_PATH.read_text("utf-8").splitlines() if x.strip()]
    expected = {p["content_id"] for p in prompts}
    assert len(expected) >= 32
    by_speaker = defaultdict(list)
    for row in rows:
        by_speaker[row["speaker_id"]].append(row["content_id"])
    for speaker, ids in by_speaker.items():
        assert len(ids) == len(set(ids)), speaker
        assert set(ids) == expected, speaker


def test_files_exist(corpus):
    _, _, rows, names = corpus
    listed = {row["file_name"] for row in rows}
    assert len(listed) == len(rows)
    assert listed <= names
    for row in rows:
        sid = row["speaker_id"]
        assert row["file_name"] == f"audio/{sid}/{sid}_{row['content_id']}.ogg"


def test_sampled_files_decode(corpus):
    zf, _, rows, _ = corpus
    for row in (rows[0], rows[len(rows) // 2], rows[-1]):
        audio, sr = sf.read(io.BytesIO(zf.read(row["file_name"])))
        assert sr == 16000
        assert audio.ndim == 1
        assert 0.5 * sr < len(audio) < 6 * sr
        assert abs(audio).max() > 0.01
