"""Progress reporting with items done/total and an ETA, throttled."""

from __future__ import annotations

import time
from collections.abc import Callable

from .errors import Cancelled

__all__ = ["Cancelled", "Progress", "ProgressFn"]

ProgressFn = Callable[[float, str], None]


class Progress:
    """Maps stage-local progress onto the whole job and adds an ETA to the message.

    The reported fraction only goes forward. Stages are laid out in order: a stage that
    starts before the end of the previous one (or ends before it starts, or leaves [0, 1])
    is refused with :class:`ValueError`, since its fractions would move the bar back. Within
    a stage, a step that restarts its count (``local`` smaller than before) is held at the
    furthest fraction reported so far.

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
        self._stage_end = 0.0  # the end of the latest stage (the next starts there or later)
        self._furthest = 0.0  # the furthest fraction reported

    def stage(self, start: float, end: float, message: str) -> None:
        """Begin a stage that covers ``[start, end]`` of the whole job.

        Raises
        ------
        ValueError
            ``start > end``, outside [0, 1], or ``start`` before the previous stage's end.
        """
        if not 0.0 <= start <= end <= 1.0:
            raise ValueError(f"stage {message!r}: [{start}, {end}] is not a range within [0, 1]")
        if start < self._stage_end - 1e-12:
            raise ValueError(
                f"stage {message!r} starts at {start}, before the previous stage's end "
                f"{self._stage_end}: the progress bar would go back"
            )
        self._span = (start, end)
        self._stage_end = end
        self.report(0.0, message, force=True)

    def report(self, local: float, message: str, force: bool = False) -> None:
        if self.callback is None:
            return
        now = time.monotonic()
        if not force and now - self._last < self.min_interval:
            return
        self._last = now
        a, b = self._span
        self._furthest = max(self._furthest, a + (b - a) * max(0.0, min(1.0, local)))
        self.callback(self._furthest, message)

    def items(self, done: int, total: int, started: float, what: str) -> None:
        elapsed = time.monotonic() - started
        eta = ""
        if done and total > done:
            eta = f", ETA {elapsed / done * (total - done):.0f} s"
        self.report(done / max(1, total), f"{what} {done}/{total}{eta}", force=done == total)

    def check(self) -> None:
        if self.cancelled():
            raise Cancelled("cancelled by the user")
