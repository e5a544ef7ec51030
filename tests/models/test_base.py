"""The backend interface, the registry and the shared helpers (no model loaded)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from fairdesk.models import CAPABILITIES, Backend, ModelInfo, get_backend, list_models
from fairdesk.models.base import as_audio_batch, make_fingerprint, weights_digest


class Echo(Backend):
    capabilities = frozenset({"transcribe"})

    @property
    def id(self):
        return "echo"

    @property
    def fingerprint(self):
        return "0"


def test_unsupported_capabilities_name_the_model():
    b = Echo()
    for call in (lambda: b.embed([]), lambda: b.score(np.zeros(1), "x"), lambda: b.classify([])):
        with pytest.raises(
            NotImplementedError, match=r"model 'echo' does not support .* supports: transcribe"
        ):
            call()
    with pytest.raises(NotImplementedError, match="score"):
        b.score_many([np.zeros(1)], ["x"])
    assert b.supports("transcribe") and not b.supports("embed")
    assert Echo.capabilities <= CAPABILITIES
    with b as same:
        assert same is b


def test_audio_batch_validation():
    out = as_audio_batch([np.zeros(4, np.float64), np.array([16384, -32768], np.int16)])
    assert [a.dtype for a in out] == [np.float32, np.float32]
    np.testing.assert_allclose(out[1], [0.5, -1.0])
    with pytest.raises(TypeError, match=r"pass \[audio\]"):
        as_audio_batch(np.zeros(10, np.float32))
    with pytest.raises(ValueError, match="item 1 .* mono"):
        as_audio_batch([np.zeros(3), np.zeros((3, 2))])
    with pytest.raises(ValueError, match="item 0 contains NaN"):
        as_audio_batch([np.array([0.0, np.nan])])


def test_weights_digest_reads_edges_and_ignores_mtime(tmp_path):
    big = tmp_path / "w.bin"
    data = bytearray(np.random.default_rng(0).integers(0, 256, 5 << 20, dtype=np.uint8).tobytes())
    big.write_bytes(data)
    (tmp_path / "config.json").write_text("{}")
    d1 = weights_digest([big, tmp_path / "config.json"])
    import os

    os.utime(big, (1, 1))
    assert weights_digest([tmp_path / "config.json", big]) == d1  # order and mtime do not matter
    data[-1] ^= 1
    big.write_bytes(data)
    assert weights_digest([big, tmp_path / "config.json"]) != d1
    assert make_fingerprint("m", d1, {"a": 1, "b": 2}, {}) == make_fingerprint(
        "m", d1, {"b": 2, "a": 1}, {}
    )
    assert make_fingerprint("m", d1, {"a": 1}, {}) != make_fingerprint("m", d1, {"a": 2}, {})


def test_registry_errors():
    with pytest.raises(ValueError, match="unknown model id 'nope'.*whisper-tiny.en"):
        get_backend("nope")
    with pytest.raises(ValueError, match="needs a path"):
        get_backend("predictions:  ")


def test_list_models_is_cheap_and_complete():
    infos = list_models()
    assert all(isinstance(i, ModelInfo) for i in infos)
    ids = [i.id for i in infos]
    assert ids[:2] == ["whisper-tiny.en", "pocketsphinx-en-us"]
    assert {"hf:<folder>", "predictions:<file>", "ct2:<folder>"} <= set(ids)
    assert all(i.available == (i.reason == "") for i in infos)
    code = (
        "import sys, fairdesk.models as m\n"
        "m.list_models()\n"
        "heavy = [x for x in ('torch', 'transformers', 'ctranslate2', 'faster_whisper', 'pocketsphinx')"
        " if x in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
