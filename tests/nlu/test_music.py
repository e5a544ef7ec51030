"""The embedded music NLU on the demo's reference texts and on hand-made hypotheses."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import jiwer
import pytest

from fairdesk.nlu import NluResult, exact_match, get_nlu, parse_frame
from fairdesk.nlu.music import MusicNlu, default_artifact_path

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = ROOT / "resources" / "demo" / "prompts.jsonl"
TRAIN_SCRIPT = ROOT / "resources" / "nlu" / "train_music_nlu.py"


@pytest.fixture(scope="module")
def nlu() -> MusicNlu:
    return get_nlu("demo-music")


@pytest.fixture(scope="module")
def prompts() -> list[dict]:
    return [json.loads(line) for line in PROMPTS.read_text().splitlines() if line.strip()]


def _train_module():
    spec = importlib.util.spec_from_file_location("train_music_nlu", TRAIN_SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_artifact_is_small_json_built_from_the_current_prompts():
    path = default_artifact_path()
    assert path.stat().st_size < 400_000
    data = json.loads(path.read_text())
    assert data["format"] == "fairdesk-music-nlu"
    assert data["check"]["numpy_equals_sklearn"] is True
    current = hashlib.sha256(PROMPTS.read_bytes()).hexdigest()
    assert data["trained_from"]["prompts_sha256"] == current, (
        "resources/demo/prompts.jsonl changed since the music NLU was trained: rerun "
        "`.venv/bin/python resources/nlu/train_music_nlu.py`"
    )


def test_reference_texts_intent_accuracy_and_exact_match(nlu, prompts):
    results = nlu.parse([p["text"] for p in prompts])
    intent_acc = sum(r.intent == p["intent"] for p, r in zip(prompts, results, strict=True)) / len(
        prompts
    )
    em = sum(
        exact_match(p["intent"], p["slots"], r.intent, r.slots)
        for p, r in zip(prompts, results, strict=True)
    ) / len(prompts)
    assert intent_acc >= 0.98
    assert em >= 0.95
    assert all(0.0 < r.intent_confidence <= 1.0 for r in results)


def test_misheard_artist_fails_exact_match_while_wer_barely_moves(nlu):
    reference = "play thriller by michael jackson"
    hypothesis = "play thriller by michael jason"
    ref_labels = nlu.parse([reference])[0]
    assert ref_labels == NluResult(
        "PlayMusic",
        {"album": "thriller", "artist": "michael jackson"},
        ref_labels.intent_confidence,
    )
    hyp = nlu.parse([hypothesis])[0]
    assert hyp.intent == "PlayMusic"
    assert hyp.slots["artist"] == "michael jason"  # a wrong value, not a silent correction
    assert exact_match(ref_labels.intent, ref_labels.slots, hyp.intent, hyp.slots) == 0
    assert jiwer.wer(reference, hypothesis) == pytest.approx(1 / 5)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("hoppipolla by sigur ross", {"song": "hoppipolla", "artist": "sigur ross"}),
        ("play hotel californa", {"song": "hotel californa"}),
        ("play bob marly", {"artist": "bob marly"}),
        ("play my work out playlist", {"playlist": "work out"}),
    ],
)
def test_misrecognised_entities_yield_wrong_values_not_nothing(nlu, text, slots):
    r = nlu.parse([text])[0]
    assert r.intent == "PlayMusic"
    assert r.slots == slots


@pytest.mark.parametrize(
    "text", ["set the volume to seven", "Set the volume to 7.", "set the volume to SEVEN"]
)
def test_number_words_and_digits_give_the_same_volume(nlu, text):
    r = nlu.parse([text])[0]
    assert r.intent == "SetVolume"
    assert exact_match("SetVolume", {"volume": "seven"}, r.intent, r.slots)
    assert not exact_match("SetVolume", {"volume": "three"}, r.intent, r.slots)


def test_punctuation_and_case_do_not_matter(nlu):
    a, b = nlu.parse(["Play Rolling in the Deep by Adele!", "play rolling in the deep by adele"])
    assert (a.intent, a.slots) == (b.intent, b.slots)
    assert a.slots == {"song": "rolling in the deep", "artist": "adele"}


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("could you turn it up a little", "VolumeUp"),
        ("turn it down a bit", "VolumeDown"),
        ("pause please", "Pause"),
        ("skip this one", "Next"),
        ("go back to the last track", "Previous"),
        ("keep going", "Resume"),
        ("put on some songs by radiohead", "PlayMusic"),
    ],
)
def test_unseen_phrasings(nlu, text, intent):
    assert nlu.parse([text])[0].intent == intent


def test_empty_and_missing_texts(nlu):
    results = nlu.parse(["", None])
    assert len(results) == 2
    assert all(isinstance(r.intent, str) and isinstance(r.slots, dict) for r in results)
    assert nlu.parse([]) == []


def test_numpy_model_equals_sklearn_on_training_texts(tmp_path):
    mod = _train_module()
    report = mod.train(PROMPTS, tmp_path / "m.json", seed=0)
    assert report["bytes"] < 400_000
    prompts = mod.load_prompts(PROMPTS)
    from fairdesk.nlu.normalize import normalize_text

    rows = mod.training_rows(prompts, seed=0)
    texts = [normalize_text(r["text"]) for r in rows]
    model, clf, x = mod.fit(texts, [r["intent"] for r in rows])
    assert model.predict(texts) == clf.predict(x).tolist()
    assert abs(model.predict_proba(texts) - clf.predict_proba(x)).max() < 1e-9
    loaded = MusicNlu.load(tmp_path / "m.json")  # rounded coefficients, read back from JSON
    assert loaded.classifier.predict(texts) == clf.predict(x).tolist()
    assert abs(loaded.classifier.predict_proba(texts) - clf.predict_proba(x)).max() < 1e-3


def test_parse_frame_adds_hypothesis_columns(nlu):
    import pandas as pd

    frame = pd.DataFrame(
        {"hypothesis": ["pause the music", "play jolene by dolly parton"]}, index=[10, 11]
    )
    out = parse_frame(nlu, frame)
    assert list(out.index) == [10, 11]
    assert out["hyp_intent"].tolist() == ["Pause", "PlayMusic"]
    assert out.loc[11, "hyp_slots"] == {"song": "jolene", "artist": "dolly parton"}
    with pytest.raises(KeyError, match="no column"):
        parse_frame(nlu, frame, text_column="transcript")


def test_unknown_spec_is_refused():
    with pytest.raises(ValueError, match="unknown NLU spec"):
        get_nlu("bert")
    with pytest.raises(FileNotFoundError):
        get_nlu("hf:/nonexistent/folder")


def test_demo_nlu_needs_neither_torch_nor_sklearn():
    code = (
        "import sys; from fairdesk.nlu import get_nlu; "
        "get_nlu('demo-music').parse(['play purple rain by prince']); "
        "bad = [m for m in ('torch', 'transformers', 'sklearn') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
