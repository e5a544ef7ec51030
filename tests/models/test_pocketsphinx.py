"""pocketsphinx-en-us on one synthetic sentence."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.models import get_backend

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sphinx():
    pytest.importorskip("pocketsphinx")
    with get_backend("pocketsphinx-en-us") as b:
        yield b


def test_transcribes_one_clip(sphinx, speech):
    audio, _ = speech[1]
    (t,) = sphinx.transcribe([audio])
    assert t.text.strip()
    assert t.language == "en"
    assert t.words and " ".join(w.text for w in t.words) == t.text
    assert all("(" not in w.text and not w.text.startswith("<") for w in t.words)
    starts = [w.start for w in t.words]
    assert starts == sorted(starts)
    assert all(0 <= w.start < w.end <= audio.size / 16000 + 0.02 for w in t.words)
    assert 0.0 <= t.confidence <= 1.0


def test_empty_clip_and_unsupported(sphinx):
    assert sphinx.transcribe([np.zeros(0, np.float32)])[0].text == ""
    with pytest.raises(NotImplementedError, match="pocketsphinx-en-us"):
        sphinx.embed([np.zeros(1600, np.float32)])
    with pytest.raises(NotImplementedError, match="score"):
        sphinx.score(np.zeros(1600, np.float32), "hello")
    assert sphinx.capabilities == {"transcribe"}
    assert len(sphinx.fingerprint) == 64
    with pytest.raises(ValueError, match="CPU"):
        get_backend("pocketsphinx-en-us", device="cuda")
