"""Forced alignment of a reference text with whisper-tiny.en on synthetic speech."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import espeak

TEXT = "The quick brown fox jumps over the lazy dog."


@pytest.fixture(scope="module")
def fox(tmp_path_factory):
    return espeak(TEXT, tmp_path_factory.mktemp("align"), name="fox.wav")


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
