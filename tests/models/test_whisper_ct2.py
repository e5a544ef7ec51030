"""whisper-tiny.en (faster-whisper / CTranslate2) on real synthetic speech."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.models import get_backend

from .conftest import normalise

pytestmark = pytest.mark.slow

UNRELATED = "Bananas grow in warm countries near the equator."


@pytest.fixture(scope="module")
def whisper():
    pytest.importorskip("faster_whisper")
    with get_backend("whisper-tiny.en", device="cpu", cpu_threads=2) as b:
        yield b


def test_transcribes_english_speech(whisper, speech):
    # The model runs and says something on each clip; its accuracy on 3 clips is not a test
    # (int8 kernels differ by CPU): WER numbers are tested against jiwer elsewhere.
    audios = [a for a, _ in speech]
    out = whisper.transcribe(audios)
    assert len(out) == len(audios)
    assert all(normalise(t.text) for t in out), [t.text for t in out]
    for t, a in zip(out, audios, strict=True):
        assert t.language == "en"
        assert 0.0 < t.confidence <= 1.0
        assert t.words, t
        duration = a.size / 16000
        starts = [w.start for w in t.words]
        assert starts == sorted(starts)
        for w in t.words:
            assert 0.0 <= w.start <= w.end <= duration + 1e-6, (w, duration)
            assert 0.0 <= w.probability <= 1.0


def test_sequential_strategy_agrees(whisper, speech):
    audio, _ = speech[1]
    with get_backend("whisper-tiny.en", device="cpu", cpu_threads=2, strategy="sequential") as seq:
        batched = normalise(whisper.transcribe([audio])[0].text)
        # Sequential decoding may append a phrase hallucinated on the trailing silence.
        assert normalise(seq.transcribe([audio])[0].text).startswith(batched)
        assert seq.fingerprint != whisper.fingerprint  # strategy is a decoding setting


def test_embed_shape_and_padding_exclusion(whisper, speech):
    audios = [a for a, _ in speech]
    emb = whisper.embed(audios)
    assert emb.shape == (3, 384) and emb.dtype == np.float32
    assert np.all(np.isfinite(emb))
    # One clip alone equals the same clip in a batch.
    alone = whisper.embed([audios[2]])[0]
    np.testing.assert_allclose(alone, emb[2], atol=1e-4)


def test_score_prefers_the_right_text(whisper, speech):
    audio, text = speech[0]
    right = whisper.score(audio, text)
    wrong = whisper.score(audio, UNRELATED)
    assert np.isfinite(right) and right < 0
    assert right > wrong
    assert whisper.score_many([audio, audio], [text, UNRELATED]) == pytest.approx(
        [right, wrong], abs=1e-3
    )


def test_empty_and_invalid_audio(whisper):
    assert whisper.transcribe([np.zeros(0, np.float32)])[0].text == ""
    with pytest.raises(ValueError, match="item 0"):
        whisper.embed([np.zeros(0, np.float32)])
    with pytest.raises(ValueError, match="mono"):
        whisper.transcribe([np.zeros((2, 100), np.float32)])
    with pytest.raises(ValueError, match="empty"):
        whisper.score(np.zeros(1600, np.float32), "  ")
    with pytest.raises(NotImplementedError, match="whisper-tiny.en"):
        whisper.classify([np.zeros(1600, np.float32)])


def test_fingerprint_is_stable(whisper):
    fp = whisper.fingerprint
    assert len(fp) == 64 and fp == whisper.fingerprint
    assert whisper.settings["compute_type"] == "int8" and whisper.device == "cpu"


def test_sampled_decodes(whisper, speech):
    audio, _text = speech[0]
    a, b = whisper.transcribe_sampled([audio, audio], temperature=1.0)
    assert a.text.strip() and b.text.strip()
    # clean speech passes the checks at temperature 0: the fallback schedule never samples
    c, d = whisper.transcribe_sampled([audio, audio])
    assert c.text == d.text
    with pytest.raises(ValueError, match="temperature > 0"):
        whisper.transcribe_sampled([audio], temperature=0.0)


def test_the_cpu_batch_keeps_batch_times_beam_small_and_leaves_results_alone(whisper, speech):
    from fairdesk.models.whisper_ct2 import CPU_BATCH_BEAMS

    # each clip of a batch holds beam copies of the cross-attention cache: on the CPU the
    # default keeps batch × beam <= CPU_BATCH_BEAMS (2 at the default beam 5)
    assert whisper._batch_size == CPU_BATCH_BEAMS // 5 == 2
    with get_backend("whisper-tiny.en", device="cpu", beam_size=1) as greedy:
        assert greedy._batch_size == 8
    with get_backend("whisper-tiny.en", device="cpu", batch_size=5) as asked:
        assert asked._batch_size == 5
        # the batch size is not part of the model's identity: the cache stays valid
        assert asked.fingerprint == whisper.fingerprint
        clips = [a for a, _text in speech] * 2  # batches of 5 + 1 here, 2 + 2 + 2 there
        assert [t.text for t in asked.transcribe(clips)] == [
            t.text for t in whisper.transcribe(clips)
        ]


def test_the_loaded_model_computes_long_features_in_blocks(whisper):
    from faster_whisper.feature_extractor import FeatureExtractor

    from fairdesk.models.whisper_features import _block_features_class

    fe = whisper._model.feature_extractor
    assert isinstance(fe, FeatureExtractor) and type(fe) is _block_features_class(FeatureExtractor)


def test_load_and_warm_leave_scores_unchanged(whisper, speech):
    audio, text = speech[2]
    before = whisper.score(audio, text)
    with get_backend("whisper-tiny.en", device="cpu", cpu_threads=2) as other:
        other.load()
        other.warm()
        assert other.score(audio, text) == pytest.approx(before, abs=1e-6)
