"""The cache follows the audio (issue 44, point 6): a dataset relinked to a folder holding
other audio under the same file names is transcribed again, one relinked to an identical copy
is answered from the cache, and a file replaced in place is hashed and transcribed again."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.relink import relink_dataset
from fairdesk.jobs import AuditRequest, run_audit
from fairdesk.stats import AuditSettings
from tests.conftest import tone_project

SETTINGS = AuditSettings(n_bootstrap=200, min_items=2, min_speakers=1)
TEXT = "play the song"


class HearingBackend:
    """Hears the sentence in a tone and 'static' in noise (told apart by how many times the
    signal crosses zero); counts the clips it transcribed."""

    id = "fake-hearing"
    fingerprint = "v1"
    device = "cpu"
    capabilities = {"transcribe"}
    preferred_workers = 1

    def __init__(self):
        self.calls = 0

    def transcribe(self, audios):
        from fairdesk.models.base import Transcription

        self.calls += len(audios)
        out = []
        for a in audios:
            crossings = np.mean(np.abs(np.diff(np.sign(a))) > 0)
            text = "static" if crossings > 0.2 else TEXT
            out.append(Transcription(text=text, words=(), confidence=None, language="en"))
        return out


def _noise_over(folder):
    """Each WAV under ``folder`` replaced by white noise of the same length and rate."""
    rng = np.random.default_rng(7)
    for f in sorted(folder.rglob("*.wav")):
        info = sf.info(str(f))
        sf.write(str(f), rng.uniform(-0.3, 0.3, info.frames).astype(np.float32), info.samplerate)


def _wer(out) -> float:
    res = out.result.to_json()
    groups = [g for g in res["groups"]]
    n = sum(g["n_items"] for g in groups)
    return sum(g["values"]["wer"] * g["n_items"] for g in groups) / n


@pytest.fixture
def audited(tmp_path):
    p, root = tone_project(tmp_path, {"a": 0.5, "b": 0.7}, 2, 2, TEXT)
    be = HearingBackend()
    req = AuditRequest(dataset="d", model="fake", by=("accent",), settings=SETTINGS, nlu="none")
    first = run_audit(p, req, backend=be)
    assert be.calls == 8 and _wer(first) == 0.0
    yield p, root, be, req
    p.close()


def test_relinked_to_other_audio_under_the_same_names_is_transcribed_again(audited, tmp_path):
    p, root, be, req = audited
    noise = tmp_path / "noise"
    shutil.copytree(root, noise)
    _noise_over(noise)
    seen = []
    rep = relink_dataset(p, "d", noise, progress=lambda f, m: seen.append((f, m)))
    assert rep.items == 8 and rep.changed == 8
    assert seen[-1] == (1.0, "hashed 8/8 audio files")  # every file hashed, with progress
    again = run_audit(p, req, backend=be)
    assert not again.from_cache and be.calls == 16  # not answered from the cache
    assert _wer(again) == 1.0  # what a fresh audit of the noise says
    items = p.items(p.dataset("d"))
    assert items["audio_hash"].nunique() == 8


def test_relinked_to_an_identical_copy_is_answered_from_the_cache(audited, tmp_path):
    p, root, be, req = audited
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    hashes = list(p.items(p.dataset("d"))["audio_hash"])
    rep = relink_dataset(p, "d", copy)
    assert rep.items == 8 and rep.changed == 0
    assert list(p.items(p.dataset("d"))["audio_hash"]) == hashes
    again = run_audit(p, req, backend=be)
    assert again.from_cache and be.calls == 8
    # other statistics settings: a new run, its transcripts still from the cache
    other = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        settings=AuditSettings(n_bootstrap=300, min_items=2, min_speakers=1),
        nlu="none",
    )
    third = run_audit(p, other, backend=be)
    assert not third.from_cache and be.calls == 8


def test_a_file_replaced_in_place_is_hashed_and_transcribed_again(audited):
    p, root, be, req = audited
    f = root / "a" / "0_0.wav"
    info = sf.info(str(f))
    size = f.stat().st_size
    sf.write(
        str(f),
        np.random.default_rng(1).uniform(-0.3, 0.3, info.frames).astype(np.float32),
        info.samplerate,
    )
    assert f.stat().st_size == size  # same size: the modification time tells
    again = run_audit(p, req, backend=be)
    assert not again.from_cache and be.calls == 9
    assert _wer(again) == pytest.approx(1 / 8)
    row = p.conn.execute("SELECT size, mtime FROM items WHERE path='a/0_0.wav'").fetchone()
    assert (row["size"], row["mtime"]) == (size, f.stat().st_mtime)


def test_an_export_of_a_run_reads_the_hash_of_the_audio_there_now(audited):
    from fairdesk.reports.data import load_run

    p, root, be, req = audited
    out = run_audit(p, req, backend=be)  # the stored run (from the cache)
    before = dict(zip(p.items(p.dataset("d"))["id"], p.items(p.dataset("d"))["audio_hash"]))
    f = root / "b" / "1_1.wav"
    info = sf.info(str(f))
    noise = np.random.default_rng(2).uniform(-0.3, 0.3, info.frames).astype(np.float32)
    sf.write(str(f), noise, info.samplerate)
    d = load_run(p, out.run_id)
    rows = d.items.set_index("id")
    key = "b/1_1.wav"  # the item's id is its path (the manifest has no id column)
    changed = rows.loc[key, "audio_hash"]
    assert changed != before[key]  # keyed by the noise now: no alignment of the tone reused
    stored = dict(zip(p.items(p.dataset("d"))["id"], p.items(p.dataset("d"))["audio_hash"]))
    assert stored[key] == changed
    assert all(stored[k] == before[k] for k in stored if k != key)


def test_saliency_of_one_item_is_keyed_by_the_audio_there_now(audited):
    from fairdesk.core.audio import probe
    from fairdesk.core.rehash import current_hash

    p, root, _be, _req = audited
    f = root / "a" / "1_0.wav"
    old = p.items(p.dataset("d")).set_index("id").loc["a/1_0.wav", "audio_hash"]
    assert current_hash(p, old, f) == old  # unchanged: the same key
    info = sf.info(str(f))
    noise = np.random.default_rng(3).uniform(-0.3, 0.3, info.frames).astype(np.float32)
    sf.write(str(f), noise, info.samplerate)
    new = current_hash(p, old, f)
    assert new == probe(f).content_hash != old
    assert p.items(p.dataset("d")).set_index("id").loc["a/1_0.wav", "audio_hash"] == new
