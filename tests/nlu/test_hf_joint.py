"""A user's JointBERT-style model: a tiny random one built offline by the test."""

from __future__ import annotations

import json

import pytest

from fairdesk.nlu import get_nlu
from fairdesk.nlu.hf_joint import HfJointNlu, decode_bio

WORDS = ["play", "thriller", "by", "michael", "jackson", "pause", "the", "music", "set",
         "volume", "to", "seven"]  # fmt: skip
INTENTS = ["PlayMusic", "Pause", "SetVolume"]
TAGS = ["O", "B-artist", "I-artist", "B-song", "I-song", "B-volume"]


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        (
            ["O", "B-song", "O", "B-artist", "I-artist"],
            {"song": "thriller", "artist": "michael jackson"},
        ),
        (
            ["O", "I-song", "O", "I-artist", "I-artist"],
            {"song": "thriller", "artist": "michael jackson"},
        ),
        (
            ["O", "B-song", "I-artist", "I-artist", "O"],
            {"song": "thriller", "artist": "by michael"},
        ),
        (["O", "song", "O", "artist", "artist"], {"song": "thriller", "artist": "michael jackson"}),
        (["O", "B-song", "O", "B-song", "O"], {"song": "thriller"}),
        (["O"] * 5, {}),
    ],
)
def test_decode_bio(tags, expected):
    text = "play thriller by michael jackson"
    spans, pos = [], 0
    for word, tag in zip(text.split(), tags, strict=True):
        start = text.index(word, pos)
        spans.append((start, start + len(word), tag))
        pos = start + len(word)
    assert decode_bio(spans, text) == expected


def test_folder_checks_happen_before_torch(tmp_path):
    (tmp_path / "intent").mkdir()
    with pytest.raises(FileNotFoundError, match="intent/config.json is missing"):
        HfJointNlu(tmp_path)
    for sub in ("intent", "slots"):
        (tmp_path / sub).mkdir(exist_ok=True)
        (tmp_path / sub / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match="no .safetensors weights"):
        HfJointNlu(tmp_path)


@pytest.fixture(scope="module")
def tiny_joint_model(tmp_path_factory):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("tiny-jointbert")
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tok = transformers.BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    vocab.unlink()
    tok.save_pretrained(str(folder))
    torch.manual_seed(0)
    common = dict(
        vocab_size=len(WORDS) + 5,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    intent_cfg = transformers.BertConfig(
        **common, id2label=dict(enumerate(INTENTS)), label2id={k: i for i, k in enumerate(INTENTS)}
    )
    slot_cfg = transformers.BertConfig(
        **common, id2label=dict(enumerate(TAGS)), label2id={k: i for i, k in enumerate(TAGS)}
    )
    transformers.BertForSequenceClassification(intent_cfg).save_pretrained(str(folder / "intent"))
    transformers.BertForTokenClassification(slot_cfg).save_pretrained(str(folder / "slots"))
    for sub in ("intent", "slots"):
        assert (folder / sub / "model.safetensors").is_file()
        assert not list((folder / sub).glob("*.bin"))
    return folder


def test_tiny_random_model_returns_well_formed_results(tiny_joint_model):
    nlu = get_nlu(f"hf:{tiny_joint_model}")
    assert isinstance(nlu, HfJointNlu)
    assert nlu.id == f"hf:{tiny_joint_model.name}"
    texts = ["Play Thriller by Michael Jackson.", "pause the music", "", "set volume to seven"]
    results = nlu.parse(texts)
    assert len(results) == len(texts)
    slot_names = {t.split("-", 1)[1] for t in TAGS if t != "O"}
    for r, text in zip(results, texts, strict=True):
        assert r.intent in INTENTS
        assert 0.0 <= r.intent_confidence <= 1.0
        assert set(r.slots) <= slot_names
        for value in r.slots.values():
            assert value and value in text.lower()
    assert nlu.intents == INTENTS
    # deterministic: same folder, same answers
    assert get_nlu(f"hf:{tiny_joint_model}").parse(texts) == results


def test_fingerprint_changes_with_the_weights(tiny_joint_model, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(tiny_joint_model, copy)
    a = HfJointNlu(copy).fingerprint
    (copy / "fairdesk_nlu.json").write_text(json.dumps({"batch_size": 1}))
    assert HfJointNlu(copy).fingerprint != a
    assert HfJointNlu(copy).parse(["pause the music"])[0].intent in INTENTS
