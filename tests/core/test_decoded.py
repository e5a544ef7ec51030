"""A compressed session (M4A/AAC, read through PyAV) is decoded once for all its segments:
the decoded-audio cache (fairdesk.core.decoded) holds it as PCM, spans are read by seeking."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from fairdesk.core import audio as audio_io
from fairdesk.core import decoded, spans
from fairdesk.core.errors import AudioError

av = pytest.importorskip("av")

SR = 16000
SEGMENTS = [(0.25, 1.5), (2.0, 3.75), (4.1, 6.0), (6.0, 8.5), (9.0, 11.2), (12.5, 14.9)]


def _session(seconds=15.0, sr=SR):
    """Noise under a chirp: no two stretches alike, so a wrong offset shows."""
    rng = np.random.default_rng(7)
    t = np.arange(int(sr * seconds)) / sr
    x = 0.3 * np.sin(2 * np.pi * (100 * t + 60 * t**2)) + 0.05 * rng.standard_normal(t.size)
    return x.astype(np.float32)


def write_m4a(path, x, sr=SR):
    """AAC in an MPEG-4 container, encoded by PyAV (FFmpeg's native AAC encoder)."""
    with av.open(str(path), "w", format="mp4") as c:
        st = c.add_stream("aac", rate=sr)
        st.layout = "mono"
        for i in range(0, x.size, sr):  # one second per frame, as a recorder writes
            fr = av.AudioFrame.from_ndarray(x[None, i : i + sr], format="flt", layout="mono")
            fr.sample_rate = sr
            for pkt in st.encode(fr):
                c.mux(pkt)
        for pkt in st.encode(None):
            c.mux(pkt)
    return path


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("FAIRDESK_CACHE", str(folder))
    monkeypatch.setattr(decoded, "_TOUCHED", set())
    return folder / "decoded"


@pytest.fixture
def decodes(monkeypatch):
    """Counts the decoder's runs (each call of audio.av_blocks decodes the file from its start)."""
    calls = []
    real = audio_io.av_blocks

    def counting(p, sf_error=None):
        calls.append(str(p))
        return real(p, sf_error)

    monkeypatch.setattr(audio_io, "av_blocks", counting)
    return calls


@pytest.mark.parametrize("name", ["session.m4a", "session.wav"])
def test_a_compressed_session_is_decoded_once_for_all_its_segments(tmp_path, cache, decodes, name):
    # session.wav: AAC in MP4 under a WAV name; libsndfile refuses it, FFmpeg reads it
    p = write_m4a(tmp_path / name, _session())
    whole, sr = audio_io._decode_av(p, None)  # the direct decode, the reference
    decodes.clear()
    for start, end in SEGMENTS:
        data, got_sr, dur = spans.read_span(p, start, end)
        first, stop = spans.span_frames(start, end, sr)
        assert got_sr == sr and dur == whole.shape[0] / sr
        np.testing.assert_array_equal(data, whole[first:stop])  # same decoder: exact
    assert decodes == [str(p)]  # one decode for six segments
    entries = list(cache.iterdir())
    assert [e.name for e in entries] == [f"{spans.file_hash(p)}-{decoded.VERSION}.w64"]
    # later reads (another segment, the duration, a span at the working rate) reuse it
    a = spans.load_span(p, 3.0, 5.0)
    assert spans.file_seconds(p) == whole.shape[0] / sr
    assert len(decodes) == 1
    expect = audio_io.resample(audio_io.to_mono(whole[48000:80000]), sr, 16000)
    np.testing.assert_array_equal(a.samples, expect)


def test_blocks_of_a_compressed_span_come_from_the_decoded_file(tmp_path, cache, decodes):
    p = write_m4a(tmp_path / "s.m4a", _session())
    whole, sr = audio_io._decode_av(p, None)
    decodes.clear()
    got = [np.concatenate(list(spans.iter_blocks(p, a, b, block_s=0.5))) for a, b in SEGMENTS]
    assert len(decodes) == 1
    for (a, b), g in zip(SEGMENTS, got):
        first, stop = spans.span_frames(a, b, sr)
        np.testing.assert_array_equal(g, whole[first:stop, 0])


def test_an_edited_recording_gets_a_new_entry_and_stale_ones_are_removed(tmp_path, cache, decodes):
    p = write_m4a(tmp_path / "s.m4a", _session())
    spans.read_span(p, 1.0, 2.0)
    old = next(cache.iterdir())
    month_ago = time.time() - 30 * 86400
    os.utime(old, (month_ago, month_ago))  # unused for a month
    write_m4a(p, _session()[::-1].copy())  # the recording replaced: other bytes
    data, sr, _ = spans.read_span(p, 1.0, 2.0)
    whole, _ = audio_io._decode_av(p, None)
    np.testing.assert_array_equal(data, whole[sr : 2 * sr])
    assert len(decodes) == 3  # one per version of the file, and the reference
    assert [e.name for e in cache.iterdir()] == [f"{spans.file_hash(p)}-{decoded.VERSION}.w64"]


def test_without_a_writable_cache_spans_are_decoded_from_the_file(tmp_path, monkeypatch, decodes):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("FAIRDESK_CACHE", str(blocker))  # decoded/ cannot be made under a file
    p = write_m4a(tmp_path / "s.m4a", _session())
    whole, sr = audio_io._decode_av(p, None)
    for start, end in SEGMENTS[:3]:
        first, stop = spans.span_frames(start, end, sr)
        np.testing.assert_array_equal(spans.read_span(p, start, end)[0], whole[first:stop])
    assert len(decodes) == 1 + 3 * 2  # each span: a failed cache write, then a direct decode


def test_an_undecodable_file_is_refused_and_leaves_no_entry(tmp_path, cache):
    p = tmp_path / "broken.m4a"
    p.write_bytes(b"\x00\x00\x00\x18ftypmp42" + os.urandom(4000))
    with pytest.raises(AudioError, match="cannot decode audio"):
        spans.read_span(p, 0.0, 1.0)
    assert not cache.exists() or list(cache.iterdir()) == []
    p2 = write_m4a(tmp_path / "ok.m4a", _session(seconds=2.0))
    with pytest.raises(AudioError, match="starts after the end of the file"):
        spans.read_span(p2, 5.0, 6.0)


def test_a_long_compressed_recording_is_read_in_blocks_from_its_decoded_file(
    tmp_path, cache, decodes, monkeypatch
):
    monkeypatch.setattr(spans, "LONG_BYTES", 0)  # every file counts as long
    p = write_m4a(tmp_path / "s.m4a", _session())
    whole, sr = audio_io._decode_av(p, None)
    decodes.clear()
    blocks = list(spans.iter_blocks(p, block_s=4.0))
    assert max(b.size for b in blocks) <= 4 * sr  # never the whole recording at once
    np.testing.assert_array_equal(np.concatenate(blocks), whole[:, 0])
    list(spans.iter_blocks(p, block_s=4.0))
    assert len(decodes) == 1
