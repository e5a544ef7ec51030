"""Background work: one ``QRunnable`` job class on a ``QThreadPool``, and a registry of live jobs.

A job wraps a pure function that takes ``progress(fraction, message)`` and ``cancelled()``
keyword callbacks (the audit, an import, a spectrogram). Only signals cross threads: the
worker emits private signals that are delivered, queued, to the signals object living in the
GUI thread, which re-emits the public ones after two checks made on the GUI thread itself:

- a job cancelled before its result is delivered emits ``cancelled``, never ``result``;
- a job superseded by a newer request of the same ``channel`` (see :meth:`JobRegistry.submit`)
  is stale: its result is dropped.

Signals, in order: ``started``, ``progress``* (throttled), ``partial``*, then exactly one of
``result`` / ``error`` / ``cancelled``, then ``finished``.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
import traceback
import weakref
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from ..core.errors import FairdeskError
from ..core.progress import Cancelled

log = logging.getLogger("fairdesk.gui.jobs")

_ids = itertools.count(1)


class JobSignals(QObject):
    """Signals of one job; lives in the GUI thread."""

    started = Signal()
    progress = Signal(float, str)
    partial = Signal(object)
    result = Signal(object)
    error = Signal(str)
    cancelled = Signal()
    finished = Signal()

    # Emitted from the worker thread; queued to the slots below (this object's thread).
    _w_started = Signal()
    _w_progress = Signal(float, str)
    _w_partial = Signal(object)
    _w_done = Signal(str, object)

    def __init__(self, job: Job):
        super().__init__()
        self._job = job
        self._w_started.connect(self._on_started)
        self._w_progress.connect(self._on_progress)
        self._w_partial.connect(self._on_partial)
        self._w_done.connect(self._on_done)

    @Slot()
    def _on_started(self):
        self.started.emit()

    @Slot(float, str)
    def _on_progress(self, fraction, message):
        if not self._job.dropped:
            self.progress.emit(fraction, message)

    @Slot(object)
    def _on_partial(self, value):
        if not self._job.dropped:
            self.partial.emit(value)

    @Slot(str, object)
    def _on_done(self, kind, value):
        job = self._job
        if kind == "result" and job.cancel_requested:
            kind = "cancelled"
        if kind == "result" and job.stale:
            log.debug("job %s (%s): stale result dropped", job.id, job.name)
        elif kind == "result":
            self.result.emit(value)
        elif kind == "error":
            self.error.emit(value)
        else:
            self.cancelled.emit()
        job.delivered = True
        self.finished.emit()


class Job(QRunnable):
    """Run ``fn(*args, progress=..., cancelled=..., **kwargs)`` on a pool thread.

    Parameters
    ----------
    fn : a pure function taking ``progress`` and ``cancelled`` keyword callbacks. It may
        raise :class:`fairdesk.core.progress.Cancelled` when it sees ``cancelled()``.
    *args, **kwargs : passed to ``fn``; plain values only (no widgets, no open connections).
    name : for logs and the error text.
    request : a tag of the request (item id, run id, view range ...), kept for the receiver.
    throttle : least seconds between two progress signals (the first and the last go through).
    """

    def __init__(
        self,
        fn: Callable,
        *args,
        name: str | None = None,
        request=None,
        throttle: float = 0.1,
        **kwargs,
    ):
        super().__init__()
        self.setAutoDelete(False)
        self.id = next(_ids)
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.name = name or getattr(fn, "__name__", "job")
        self.request = request
        self.channel: str | None = None
        self.throttle = throttle
        self.signals = JobSignals(self)
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._last_progress = 0.0
        self.stale = False  # set on the GUI thread when a newer request replaced this one
        #: Work the user did not ask for (precomputing): it starts at the pool's lowest
        #: priority and is cancelled when a request on any channel is submitted.
        self.background = False
        self.delivered = False
        #: The exception behind ``error`` (set before it is emitted), for a receiver that
        #: shows a typed error's fields (a refusal's table) rather than its text.
        self.exception: BaseException | None = None

    # -- called from the GUI thread -----------------------------------------------------
    def cancel(self) -> None:
        """Ask the job to stop; it will emit ``cancelled`` (never ``result``)."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    @property
    def dropped(self) -> bool:
        return self.stale or self._cancel.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until ``run`` has returned (not until its signals are delivered)."""
        return self._done.wait(timeout)

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    # -- called from the worker thread --------------------------------------------------
    def _progress(self, fraction: float, message: str = "") -> None:
        now = time.monotonic()
        if fraction < 1.0 and self._last_progress and now - self._last_progress < self.throttle:
            return
        self._last_progress = now
        self.signals._w_progress.emit(float(fraction), str(message))

    def emit_partial(self, value) -> None:
        """For functions that produce partial results (pass ``partial=job.emit_partial``)."""
        self.signals._w_partial.emit(value)

    def run(self) -> None:  # fixed: subclasses do not override it
        sig = self.signals
        try:
            sig._w_started.emit()
            if self._cancel.is_set():
                raise Cancelled("cancelled before it started")
            value = self.fn(
                *self.args, progress=self._progress, cancelled=self._cancel.is_set, **self.kwargs
            )
        except Cancelled:
            sig._w_done.emit("cancelled", None)
        except Exception as exc:  # noqa: BLE001 - every failure reaches the error signal
            if self._cancel.is_set():
                sig._w_done.emit("cancelled", None)
            else:
                self.exception = exc
                sig._w_done.emit("error", _describe(exc, self.name))
        else:
            sig._w_done.emit("cancelled" if self._cancel.is_set() else "result", value)
        finally:
            self._done.set()


def _describe(exc: BaseException, name: str) -> str:
    """The message the user sees; unexpected errors are also logged with their traceback."""
    if isinstance(exc, (FairdeskError, ValueError, OSError)):
        log.warning("%s failed: %s", name, exc)
        return str(exc) or type(exc).__name__
    log.error(
        "%s failed with an unexpected error:\n%s", name, "".join(traceback.format_exception(exc))
    )
    return f"{name}: unexpected {type(exc).__name__}: {exc}"


class JobRegistry(QObject):
    """Live jobs of a window, on its own pool; cancels and waits for them on close.

    Parameters
    ----------
    max_threads : pool size (the audit itself runs its own inference threads).
    """

    #: Every registry alive, so that tests can check no pool thread is left running.
    instances: weakref.WeakSet = weakref.WeakSet()

    def __init__(self, parent: QObject | None = None, max_threads: int = 2):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self._live: dict[int, Job] = {}
        self._latest: dict[str, Job] = {}
        JobRegistry.instances.add(self)

    def submit(self, job: Job, channel: str | None = None) -> Job:
        """Start ``job``. A job on the same ``channel`` still running is cancelled and its
        result dropped as stale (one live request per view). A request on a channel also
        cancels every live background job (:attr:`Job.background`), which yields to it;
        a background job starts at the pool's lowest priority."""
        if channel is not None and not job.background:
            for other in self._live.values():
                if other.background:
                    other.stale = True
                    other.cancel()
        if channel is not None:
            job.channel = channel
            old = self._latest.get(channel)
            if old is not None and old is not job:
                old.stale = True
                old.cancel()
            self._latest[channel] = job
        self._live[job.id] = job
        job.signals.finished.connect(lambda j=job: self._forget(j))
        self.pool.start(job, -100 if job.background else 0)
        return job

    def _forget(self, job: Job) -> None:
        self._live.pop(job.id, None)
        if job.channel and self._latest.get(job.channel) is job:
            del self._latest[job.channel]

    def live(self) -> list[Job]:
        return list(self._live.values())

    def busy(self, channel: str) -> bool:
        return channel in self._latest

    def requests_running(self) -> bool:
        """Whether a job that was requested on a channel (not a background one) is live."""
        return any(j.channel is not None and not j.background for j in self._live.values())

    def cancel_all(self) -> None:
        for job in list(self._live.values()):
            job.cancel()

    def wait(self, timeout_ms: int = 30000) -> bool:
        """Wait for every pool thread to finish its job (signals may still be queued)."""
        return self.pool.waitForDone(timeout_ms)

    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Cancel every live job, drop those not started, and wait for the pool; returns
        whether it emptied."""
        self.cancel_all()
        self.pool.clear()  # queued jobs never start
        ok = self.wait(timeout_ms)
        if not ok:
            log.warning(
                "%d background jobs did not stop within %.1f s; they stop after their current step",
                len(self._live),
                timeout_ms / 1000,
            )
        return ok
