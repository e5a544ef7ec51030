"""M4A/AAC input (seed 003's recordings are phone voice memos): decoded with PyAV."""

from __future__ import annotations

import av
import numpy as np
import pytest

from fairdesk.core.audio import load, probe
from fairdesk.core.errors import AudioError
from fairdesk.core.importers import import_dataset
from fairdesk.core.store import Project


def _signal(sr, seconds=1.5):
    t = np.arange(int(sr * seconds)) / sr
    # a chirp (100 Hz -> 3 kHz) under a slow envelope: no two lags look alike
    x = 0.4 * np.sin(2 * np.pi * (100 * t + (2900 / (2 * seconds)) * t**2))
    return (x * (0.6 + 0.4 * np.sin(2 * np.pi * 1.3 * t))).astype(np.float32)


def write_m4a(path, x, sr):
    """AAC in an MPEG-4 container, encoded by PyAV itself (FFmpeg's native AAC encoder)."""
    with av.open(str(path), "w", format="mp4") as c:
        st = c.add_stream("aac", rate=sr)
        st.layout = "mono"
        fr = av.AudioFrame.from_ndarray(x[None, :], format="flt", layout="mono")
        fr.sample_rate = sr
        for pkt in st.encode(fr):
            c.mux(pkt)
        for pkt in st.encode(None):
            c.mux(pkt)


def _best_corr(a, b, max_lag=4096):
    """Largest Pearson correlation of b against a over lags 0..max_lag (AAC priming delay)."""
    n = min(len(a), len(b) - max_lag)
    best = -1.0
    for lag in range(0, max_lag + 1, 1):
        seg = b[lag : lag + n]
        if len(seg) < n:
            break
        best = max(best, float(np.corrcoef(a[:n], seg)[0, 1]))
    return best


@pytest.mark.parametrize("sr", [16000, 44100])
def test_m4a_decodes_to_the_source(tmp_path, sr):
    x = _signal(sr)
    p = tmp_path / "take.m4a"
    write_m4a(p, x, sr)
    info = probe(p)
    assert info.sample_rate == sr and info.channels == 1
    assert abs(info.duration - len(x) / sr) < 0.2  # AAC adds a priming delay and padding
    a = load(p)  # at the working rate, 16 kHz
    assert abs(len(a.samples) / 16000 - len(x) / sr) < 0.2
    native = load(p, sample_rate=sr)  # the decoded samples against the source
    assert _best_corr(x, native.samples) > 0.99


def test_import_accepts_m4a(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    write_m4a(root / "09_monotone.m4a", _signal(16000), 16000)
    (root / "bad.m4a").write_bytes(b"\x00\x00\x00\x18ftypM4A garbage")
    (root / "manifest.csv").write_text(
        "id,path,text,speaker,category\n"
        "u9,09_monotone.m4a,O na-eri oji n'ututu,s1,tone\n"
        "u10,bad.m4a,O na-eri oji n'ututu,s1,tone\n",
        encoding="utf-8",
    )
    project = Project(tmp_path / "proj")
    rep = import_dataset(project, "seed003", root / "manifest.csv")
    assert rep.imported == 1
    (prob,) = rep.problems
    assert prob.row == 3 and "cannot decode" in prob.reason and "bad.m4a" in prob.reason


def test_corrupt_m4a_names_the_file(tmp_path):
    p = tmp_path / "x.m4a"
    p.write_bytes(b"not audio at all")
    with pytest.raises(AudioError, match="x.m4a.*cannot decode"):
        load(p)
