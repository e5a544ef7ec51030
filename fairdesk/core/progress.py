"""Progress reporting with items done/total and an ETA, throttled."""

from __future__ import annotations

import time
from collections.abc import Callable

from .errors import Cancelled

__all__ = ["Cancelled", "Progress", "ProgressFn"]

ProgressFn = Callable[[float, str], None]


class Progress:
    """Maps stage-local progress onto the whole job and adds an ETA to the message.

    Parameters
    ----------
    callback : ``progress(fraction, message)`` or None.
    cancelled : ``cancelled() -> bool`` or None.
    min_interval : seconds between two reports (the last one always goes through).
    """

    def __init__(
        self,
        callback: ProgressFn | None = None,
        cancelled: Callable[[], bool] | None = None,
        min_interval: float = 0.2,
    ):
        self.callback = callback
        self.cancelled = cancelled or (lambda: False)
        self.min_interval = min_interval
        self._last = 0.0
        self._span = (0.0, 1.0)

    def stage(self, start: float, end: float, message: str) -> None:
        self._span = (start, end)
        self.report(0.0, message, force=True)

    def report(self, local: float, message: str, force: bool = False) -> None:
        if self.callback is None:
            return
        now = time.monotonic()
        if not force and now - self._last < self.min_interval:
            return
        self._last = now
        a, b = self._span
        self.callback(a + (b - a) * max(0.0, min(1.0, local)), message)

    def items(self, done: int, total: int, started: float, what: str) -> None:
        elapsed = time.monotonic() - started
        eta = ""
        if done and total > done:
            eta = f", ETA {elapsed / done * (total - done):.0f} s"
        self.report(done / max(1, total), f"{what} {done}/{total}{eta}", force=done == total)

    def check(self) -> None:
        if self.cancelled():
            raise Cancelled("cancelled by the user")
