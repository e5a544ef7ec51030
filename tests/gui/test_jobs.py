"""The job class: result, error, cancel, throttled progress, stale results, shutdown."""

from __future__ import annotations

import threading
import time

import pytest

from fairdesk.core.errors import FairdeskError
from fairdesk.core.progress import Cancelled
from fairdesk.gui.jobs import Job, JobRegistry


def _record(job):
    seen = {"started": 0, "result": [], "error": [], "cancelled": 0, "finished": 0, "progress": []}
    s = job.signals
    s.started.connect(lambda: seen.__setitem__("started", seen["started"] + 1))
    s.result.connect(seen["result"].append)
    s.error.connect(seen["error"].append)
    s.cancelled.connect(lambda: seen.__setitem__("cancelled", seen["cancelled"] + 1))
    s.finished.connect(lambda: seen.__setitem__("finished", seen["finished"] + 1))
    s.progress.connect(lambda f, m: seen["progress"].append((f, m)))
    return seen


@pytest.fixture
def registry(qapp):
    r = JobRegistry()
    yield r
    r.shutdown(5000)
    assert r.pool.activeThreadCount() == 0


def add(a, b, *, progress, cancelled):
    progress(0.5, "half")
    return a + b


def test_result_then_finished(qtbot, registry):
    job = Job(add, 2, 3, name="add")
    seen = _record(job)
    with qtbot.waitSignal(job.signals.finished, timeout=5000):
        registry.submit(job)
    assert seen["result"] == [5]
    assert seen["started"] == 1 and seen["finished"] == 1
    assert seen["error"] == [] and seen["cancelled"] == 0
    assert seen["progress"] == [(0.5, "half")]
    assert registry.wait(5000) and registry.live() == []


@pytest.mark.parametrize(
    "exc, expect",
    [
        (RuntimeError("boom"), "unexpected RuntimeError: boom"),
        (FairdeskError("data.csv, row 3: no text; add it"), "data.csv, row 3: no text; add it"),
    ],
)
def test_every_exception_reaches_error(qtbot, registry, exc, expect):
    def fail(*, progress, cancelled):
        raise exc

    job = Job(fail, name="fail")
    seen = _record(job)
    with qtbot.waitSignal(job.signals.error, timeout=5000) as blocker:
        registry.submit(job)
    qtbot.waitUntil(lambda: seen["finished"] == 1, timeout=5000)
    assert expect in blocker.args[0]
    assert seen["result"] == [] and seen["cancelled"] == 0


def test_cancel_stops_a_running_job_and_emits_no_result(qtbot, registry):
    entered = threading.Event()

    def loop(*, progress, cancelled):
        entered.set()
        while not cancelled():
            time.sleep(0.005)
        raise Cancelled("stopped")

    job = Job(loop)
    seen = _record(job)
    registry.submit(job)
    assert entered.wait(5)
    with qtbot.waitSignal(job.signals.cancelled, timeout=5000):
        job.cancel()
    qtbot.waitUntil(lambda: seen["finished"] == 1, timeout=5000)
    assert seen["result"] == [] and seen["error"] == []


def test_no_result_after_cancel_even_when_the_function_returns(qtbot, registry):
    def quick(*, progress, cancelled):
        return "value"

    job = Job(quick)
    seen = _record(job)
    registry.submit(job)
    job.cancel()  # before the result is delivered to the GUI thread
    qtbot.waitUntil(lambda: seen["finished"] == 1, timeout=5000)
    assert seen["result"] == [] and seen["cancelled"] == 1


def test_a_newer_request_on_the_same_channel_drops_the_stale_result(qtbot, registry):
    gate = threading.Event()

    def slow(tag, *, progress, cancelled):
        gate.wait(5)
        return tag  # ignores cancellation: its result must still be dropped

    old, new = Job(slow, "old", request="item-1"), Job(slow, "new", request="item-2")
    seen_old, seen_new = _record(old), _record(new)
    registry.submit(old, channel="player")
    registry.submit(new, channel="player")
    assert old.stale and not new.stale
    gate.set()
    qtbot.waitUntil(lambda: seen_old["finished"] == 1 and seen_new["finished"] == 1, timeout=5000)
    assert seen_old["result"] == [] and seen_new["result"] == ["new"]
    assert new.request == "item-2"


def test_progress_is_throttled_and_the_last_report_goes_through(qtbot, registry):
    def chatty(*, progress, cancelled):
        for i in range(2000):
            progress(i / 2000, f"{i}")
        progress(1.0, "done")
        return True

    job = Job(chatty, throttle=0.05)
    seen = _record(job)
    with qtbot.waitSignal(job.signals.finished, timeout=5000):
        registry.submit(job)
    assert 1 <= len(seen["progress"]) < 100
    assert seen["progress"][-1] == (1.0, "done")


def test_shutdown_cancels_and_waits_for_every_live_job(qtbot, registry):
    started = threading.Barrier(3)

    def loop(*, progress, cancelled):
        started.wait(5)
        while not cancelled():
            time.sleep(0.005)
        raise Cancelled("stopped")

    registry.pool.setMaxThreadCount(2)
    jobs = [registry.submit(Job(loop)) for _ in range(2)]
    started.wait(5)
    assert registry.pool.activeThreadCount() == 2
    assert registry.shutdown(5000)
    assert registry.pool.activeThreadCount() == 0
    assert all(not j.running for j in jobs)
