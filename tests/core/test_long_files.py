"""Recordings of any length in bounded memory: a long file is probed and measured block by
block, with the hash, warnings and covariates a whole decode gives (METHODS: the acoustic
covariates of long recordings)."""

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core import acoustics, audio, spans
from tests.session_fixture import _utterances


def _speech(seconds: float, gap: float = 0.7) -> np.ndarray:
    """Real utterances with ``gap`` seconds of low noise between them, ``seconds`` long."""
    rng = np.random.default_rng(0)
    out, n = [], 0
    for _text, x in _utterances(1000):
        pad = (0.002 * rng.standard_normal(int(gap * 16000))).astype(np.float32)
        out += [pad, x]
        n += pad.size + x.size
        if n >= seconds * 16000:
            break
    return np.concatenate(out)[: int(seconds * 16000)]


def test_a_long_file_is_probed_block_by_block_with_the_whole_decode_s_hash(tmp_path, monkeypatch):
    x = _speech(20.0)
    stereo = np.stack([x, np.clip(3 * x, -1, 1)], axis=1)
    path = tmp_path / "long.wav"
    sf.write(str(path), stereo, 16000, subtype="FLOAT")
    whole = audio.probe(path)
    monkeypatch.setattr(audio, "PROBE_BLOCK", 4096)  # 20 s is now 79 blocks
    read = []
    real = audio._decode
    monkeypatch.setattr(audio, "_decode", lambda p: read.append(p) or real(p))
    blocks = audio.probe(path)
    assert read == []  # never decoded whole
    assert blocks == whole
    assert blocks.content_hash == audio.content_hash(audio.to_mono(stereo), 16000)


def test_blocks_of_a_file_join_into_what_load_gives(tmp_path):
    x = _speech(12.0)
    p16, p44 = tmp_path / "a16.wav", tmp_path / "a44.wav"
    sf.write(str(p16), x, 16000, subtype="FLOAT")
    sf.write(str(p44), audio.resample(x, 16000, 44100), 44100, subtype="FLOAT")
    for p, tol in ((p16, 0.0), (p44, 2e-3)):
        got = list(spans.iter_blocks(p, block_s=2.5))
        assert len(got) >= 4
        want = audio.load(p).samples
        joined = np.concatenate(got)
        assert abs(joined.size - want.size) <= 2
        n = min(joined.size, want.size)
        np.testing.assert_allclose(joined[:n], want[:n], atol=tol)
    one = list(spans.iter_blocks(p44))  # one block: exactly load()
    assert len(one) == 1 and np.array_equal(one[0], audio.load(p44).samples)
    part = np.concatenate(list(spans.iter_blocks(p16, 2.0, 9.0, block_s=2.0)))
    np.testing.assert_array_equal(part, spans.load(p16, start_s=2.0, end_s=9.0).samples)


def test_covariates_in_blocks_equal_the_whole_recording_s(tmp_path):
    pytest.importorskip("faster_whisper")
    x = _speech(30.0)
    whole = acoustics.covariates(x)
    one = acoustics.covariates_blocks([x])
    assert one == whole  # a recording of one block is covariates()
    blocks = [x[i : i + 7 * 16000] for i in range(0, x.size, 7 * 16000)]  # 5 blocks
    got = acoustics.covariates_blocks(blocks)
    assert got.duration_s == whole.duration_s
    # the SNR's frames are the whole signal's: with the same regions it is the same number
    assert got.snr_db == pytest.approx(acoustics.snr_db(x, got.speech), abs=1e-9)
    # the VAD hears the audio before each block again: its regions are the whole signal's
    # here (a region that starts 0.17 s before a block's edge among them), and so the SNR
    assert got.speech == whole.speech
    assert got.snr_db == pytest.approx(whole.snr_db, abs=1e-9)


def test_frame_powers_are_the_mean_square_of_every_frame():
    x = np.random.default_rng(2).standard_normal(16000).astype(np.float32)
    frame, hop = acoustics._FRAME, acoustics._HOP
    n = 1 + (x.size - frame) // hop
    want = np.array(
        [np.mean(x[k * hop : k * hop + frame].astype(np.float64) ** 2) for k in range(n)]
    )
    np.testing.assert_allclose(acoustics.frame_powers(x), want, rtol=1e-12)
