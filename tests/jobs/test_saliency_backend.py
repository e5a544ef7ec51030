"""The saliency jobs' kept-loaded backend (fairdesk.jobs.tasks.saliency_backend)."""

from __future__ import annotations

import importlib.util
import threading

import pytest

import fairdesk.models as models
from fairdesk.jobs import tasks


class Fake:
    def __init__(self, shareable):
        self.shareable = shareable
        self._closed = False
        self.loads = self.warms = 0

    def load(self):
        self.loads += 1

    def warm(self):
        self.warms += 1

    def close(self):
        self._closed = True


@pytest.fixture
def made(monkeypatch):
    out = []

    def get_backend(model, device="auto"):
        out.append(Fake(shareable=not model.startswith("plain")))
        return out[-1]

    monkeypatch.setattr(models, "get_backend", get_backend)
    tasks.release_saliency_backends()
    yield out
    tasks.release_saliency_backends()


def test_a_shareable_backend_is_loaded_once_and_kept(made):
    a, owned = tasks.saliency_backend("m1", "cpu")
    assert not owned and a.loads == 1 and a.warms == 0
    b, owned = tasks.saliency_backend("m1", "cpu")
    assert b is a and not owned and len(made) == 1 and a.loads == 1
    # another model replaces it, only one is kept; the first is not closed under a job
    # that may still use it
    c, _ = tasks.saliency_backend("m2", "cpu", warm=True)
    assert c is not a and not a._closed and c.warms == 1 and a.warms == 0
    assert tasks.saliency_backend("m1", "cpu")[0] not in (a, c) and len(made) == 3
    c, _ = tasks.saliency_backend("m2", "cpu")
    assert len(made) == 4
    # a closed one is not handed out again
    c.close()
    d, _ = tasks.saliency_backend("m2", "cpu")
    assert d is not c and len(made) == 5
    tasks.release_saliency_backends()
    assert d._closed


def test_a_backend_that_is_not_shareable_is_the_callers(made):
    a, owned = tasks.saliency_backend("plain", "cpu")
    b, owned_b = tasks.saliency_backend("plain", "cpu")
    assert owned and owned_b and a is not b and a.loads == 0


def test_two_threads_get_one_load(made):
    got = []
    threads = [
        threading.Thread(target=lambda: got.append(tasks.saliency_backend("m1", "cpu")[0]))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and all(g is made[0] for g in got) and made[0].loads == 1


def test_the_saliency_backend_is_set_up_for_concurrent_scorings(monkeypatch):
    asked = []

    def get_backend(model, device="auto", **settings):
        asked.append(settings)
        return Fake(shareable=True)

    monkeypatch.setattr(models, "get_backend", get_backend)
    monkeypatch.setattr(models, "scoring_settings", lambda m, d: {"num_workers": 3})
    tasks.release_saliency_backends()
    tasks.saliency_backend("whisper-tiny.en", "cpu")
    assert asked == [{"num_workers": 3}]
    tasks.release_saliency_backends()


def test_scoring_settings_one_single_thread_worker_per_core_on_the_cpu(monkeypatch):
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert models.scoring_settings("plain", "cpu") == {}
    if importlib.util.find_spec("ctranslate2") is None:
        pytest.skip("ctranslate2 not installed")
    assert models.scoring_settings("whisper-tiny.en", "cpu") == {"cpu_threads": 1, "num_workers": 2}
    assert models.scoring_settings("ct2:/x", "cpu")["num_workers"] == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert models.scoring_settings("whisper-tiny.en", "cpu") == {"cpu_threads": 4, "num_workers": 4}
