"""The NLU's held-out set shares nothing with what its trainer sees (issue 21)."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

from fairdesk.nlu.normalize import normalize_text

ROOT = Path(__file__).resolve().parents[2]
NLU = ROOT / "resources" / "nlu"


def _module(name):
    spec = importlib.util.spec_from_file_location(name, NLU / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def train():
    return _module("train_music_nlu")


@pytest.fixture(scope="module")
def heldout():
    return _module("heldout_music_nlu")


@pytest.fixture(scope="module")
def training_texts(train):
    seed = json.loads((NLU / "music_nlu.json").read_text())["trained_from"]["seed"]
    prompts = train.load_prompts(ROOT / "resources" / "demo" / "prompts.jsonl")
    rows = train.training_rows(prompts, seed=seed)
    # every seed's paraphrases too: the templates' texts, whatever entities were drawn
    for s in range(20):
        rows += train.paraphrases(prompts, seed=s)
    return prompts, {normalize_text(r["text"]) for r in rows}


def test_heldout_texts_are_disjoint_from_training_texts(heldout, training_texts):
    _prompts, texts = training_texts
    rows = heldout.heldout_rows()
    assert len(rows) >= 100
    held = {normalize_text(r["text"]) for r in rows}
    assert len(held) == len(rows)  # no duplicates
    assert held.isdisjoint(texts), sorted(held & texts)


def test_heldout_entities_templates_and_verbs_are_not_the_trainers(heldout, train, training_texts):
    prompts, _ = training_texts
    gaz = train.gazetteer(prompts)
    trained_entities = {v for vals in gaz.values() for v in vals}
    trained_entities |= {normalize_text(v) for vals in train.UNSEEN.values() for v in vals}
    held_entities = {normalize_text(v) for vals in heldout.HELDOUT_ENTITIES.values() for v in vals}
    assert held_entities.isdisjoint(trained_entities), held_entities & trained_entities
    # no held-out entity is a whole-word part of a trained one, or the reverse
    for h in held_entities:
        for t in trained_entities:
            assert not re.search(rf"\b{re.escape(h)}\b", t), (h, t)
            assert not re.search(rf"\b{re.escape(t)}\b", h), (h, t)
    assert set(heldout.HELDOUT_VERBS).isdisjoint(train.VERBS)
    assert set(heldout.HELDOUT_PLAY_TEMPLATES).isdisjoint(train.PLAY_TEMPLATES)
    for intent, templates in heldout.HELDOUT_OTHER.items():
        assert set(templates).isdisjoint(train.OTHER_TEMPLATES.get(intent, ())), intent
    assert {s for s, _ in heldout.HELDOUT_LEVELS}.isdisjoint(train.NUMBERS)
    levels = {label for _, label in heldout.HELDOUT_LEVELS}
    assert levels.isdisjoint(gaz.get("volume", []))


def test_heldout_uses_its_own_seed_and_is_deterministic(heldout):
    seed = json.loads((NLU / "music_nlu.json").read_text())["trained_from"]["seed"]
    assert heldout.HELDOUT_SEED != seed
    assert heldout.heldout_rows() == heldout.heldout_rows()
    for r in heldout.heldout_rows():
        assert r["intent"] and isinstance(r["slots"], dict)
        for value in r["slots"].values():  # every labelled value is in the text it labels
            assert value in r["text"] or r["intent"] == "SetVolume"
