"""Forced alignment of a reference text with whisper-tiny.en on synthetic speech."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

TEXT = "The quick brown fox jumps over the lazy dog."


@pytest.fixture(scope="module")
def fox(tmp_path_factory):
    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip("espeak-ng is not installed: cannot synthesise test speech "
                    "(apt install espeak-ng)")
    import soundfile as sf
    import soxr

    path = tmp_path_factory.mktemp("align") / "fox.wav"
    subprocess.run([exe, "-v", "en-us", "-w", str(path), TEXT], check=True, capture_output=True)
    a, sr = sf.read(str(path), dtype="float32", always_2d=False)
    return soxr.resample(a, sr, 16000).astype(np.float32)


def test_word_spans_are_monotone_and_inside_the_clip(fox):
    pytest.importorskip("faster_whisper")
    from fairdesk.explain.alignment import WhisperAligner

    al = WhisperAligner(cpu_threads=2)
    words = al.align(fox, TEXT)
    duration = fox.size / 16000
    assert [w.word for w in words] == TEXT.split()  # the final "." joins "dog"
    starts = [w.start for w in words]
    assert starts == sorted(starts)
    assert all(0.0 <= w.start <= w.end <= duration for w in words)
    assert all(a.end <= b.start + 0.02 for a, b in zip(words, words[1:]))
    assert words[-1].end > 0.6 * duration  # spread over the clip, not piled at the start
    assert al.key.startswith("whisper-tiny.en@")
    assert al.align(fox, "   ") == []
    with pytest.raises(ValueError, match="30 s"):
        al.align(np.zeros(31 * 16000, np.float32), TEXT)
