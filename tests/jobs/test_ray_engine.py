"""The Ray engine of the infer stage: same answers as local, a dying worker, cancel."""

import re
import time

import pytest

from fairdesk.jobs import AuditRequest, Cancelled, run_audit
from fairdesk.jobs.engines import DIE_HOOK_ENV
from fairdesk.stats import AuditSettings
from tests.conftest import tone_project
from tests.jobs.conftest import ray_tone_project

ray = pytest.importorskip("ray")


class ToneBackend:
    """Deterministic stand-in: the text depends on the clip's samples (length and pitch), so
    a shipped or re-read clip that differed would give another hypothesis."""

    id = "fake-tone"
    fingerprint = "v1"
    device = "cpu"
    capabilities = {"transcribe"}
    preferred_workers = 2

    def __init__(self, delay: float = 0.0, fingerprint: str = "v1"):
        self.delay = delay
        self.fingerprint = fingerprint  # another one: nothing cached under it yet

    def transcribe(self, audios):
        import numpy as np

        from fairdesk.models.base import Transcription

        out = []
        for a in audios:
            time.sleep(self.delay)
            crossings = int(np.sum(np.diff(np.signbit(a).astype(np.int8)) != 0))
            words = "play the song" if len(a) < 0.6 * 16000 else "play song"
            if crossings % 3 == 0:
                words += " now"
            out.append(Transcription(text=words, words=(), confidence=None, language="en"))
        return out


SETTINGS = AuditSettings(n_bootstrap=400, min_items=20, min_speakers=5)


@pytest.fixture
def project(tmp_path):
    return ray_tone_project(tmp_path)


def _req(**kw):
    return AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        settings=SETTINGS,
        metrics=("wer",),
        nlu="none",
        shard_size=4,
        **kw,
    )


def _items(out):
    f = out.frame
    cols = ["hypothesis", "n_sub", "n_del", "n_ins", "n_words"]
    return {i: tuple(r) for i, r in zip(f["item_id"], f[cols].itertuples(index=False))}


def _same_stats(a, b):
    strip = ("timings", "run_id", "settings", "acoustics", "model_key")
    # bridge: typed consumer pending
    return {k: v for k, v in a.result.to_json().items() if k not in strip} == {
        # bridge: typed consumer pending
        k: v
        for k, v in b.result.to_json().items()
        if k not in strip
    }


@pytest.mark.parametrize("transport", ["bytes", "path"])
def test_ray_matches_local_item_by_item(ray_local, project, transport):
    local = run_audit(project, _req(), backend=ToneBackend(), use_result_cache=False)
    remote = run_audit(
        project,
        _req(engine="ray", audio_transport=transport, workers=2),
        backend=ToneBackend(fingerprint="v2"),
        use_result_cache=False,
    )
    assert remote.result.to_json()["counts"]["n_inferred"] == 60  # bridge: typed consumer pending
    assert _items(remote) == _items(local)
    assert remote.failures == local.failures and len(local.failures) == 1
    assert _same_stats(local, remote)
    assert remote.result.to_json()["settings"]["engine"] == "ray"  # bridge: typed consumer pending


def test_resume_uses_the_cache_before_dispatch(ray_local, project):
    run_audit(project, _req(), backend=ToneBackend(), use_result_cache=False)
    again = run_audit(project, _req(engine="ray"), backend=ToneBackend(), use_result_cache=False)
    assert (
        # bridge: typed consumer pending
        again.result.to_json()["counts"]["n_cached"] == 59
    )  # the corrupt file is tried again only
    assert again.result.to_json()["counts"]["n_inferred"] == 1  # bridge: typed consumer pending


def test_a_worker_dying_mid_shard_loses_nothing(ray_local, project, tmp_path, monkeypatch):
    marker = tmp_path / "died"
    monkeypatch.setenv(DIE_HOOK_ENV, f"6:{marker}")
    local = run_audit(project, _req(), backend=ToneBackend(), use_result_cache=False)
    remote = run_audit(
        project,
        _req(engine="ray", workers=2),
        backend=ToneBackend(fingerprint="v2"),
        use_result_cache=False,
    )
    assert marker.exists()  # a worker did die (os._exit) on its 6th item
    assert _items(remote) == _items(local)
    assert remote.result.to_json()["counts"]["n_inferred"] == 60  # bridge: typed consumer pending
    n = project.conn.execute(
        "SELECT COUNT(*) FROM run_items WHERE run_id=?", (remote.run_id,)
    ).fetchone()[0]
    assert n == 60


def test_cancel_leaves_nothing_running_and_resumes(ray_local, project):
    seen = []

    def progress(frac, msg):
        seen.append(msg)

    def cancelled():  # once some shard but not every one is in (progress is throttled, so
        # the first count reported may be any multiple of the shard size)
        done = [re.match(r"transcribed (\d+)/(\d+)", m) for m in seen]
        return any(d and 8 <= int(d[1]) < int(d[2]) for d in done)

    req = _req(engine="ray", workers=2)
    with pytest.raises(Cancelled):
        run_audit(
            project,
            req,
            backend=ToneBackend(delay=0.05),
            progress=progress,
            cancelled=cancelled,
            use_result_cache=False,
        )
    # every task cancelled and every actor killed: all cluster resources free again
    deadline = time.monotonic() + 20
    while (
        time.monotonic() < deadline
        and ray.available_resources().get("CPU", 0) < ray.cluster_resources()["CPU"]
    ):
        time.sleep(0.2)
    assert ray.available_resources().get("CPU", 0) == ray.cluster_resources()["CPU"]
    status = project.conn.execute("SELECT status FROM runs ORDER BY id DESC").fetchone()[0]
    assert status == "cancelled"
    kept = project.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]
    assert 8 <= kept < 60
    out = run_audit(project, req, backend=ToneBackend(), use_result_cache=False)
    assert out.result.to_json()["counts"]["n_cached"] == kept  # bridge: typed consumer pending
    assert len(out.frame) == 59


@pytest.mark.slow
def test_whisper_on_ray_gives_the_local_hypotheses(ray_local, tmp_path):
    """The actor loads whisper-tiny.en itself, with the driver's CTranslate2 thread count."""
    p, _root = tone_project(tmp_path, {"a": 0.5, "b": 0.7}, 3, 2, "play the song")
    settings = AuditSettings(n_bootstrap=200, min_items=1, min_speakers=1)
    req = AuditRequest(
        dataset="d",
        model="whisper-tiny.en",
        by=("accent",),
        nlu="none",
        settings=settings,
        metrics=("wer",),
        device="cpu",
    )
    local = run_audit(p, req, use_result_cache=False)
    with p.transaction() as c:
        c.execute("DELETE FROM run_items")
        c.execute("DELETE FROM predictions")
    remote = run_audit(p, AuditRequest(**{**req.__dict__, "engine": "ray"}), use_result_cache=False)
    assert remote.result.to_json()["counts"]["n_inferred"] == 12  # bridge: typed consumer pending
    assert _items(remote) == _items(local)
