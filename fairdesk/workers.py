"""How many cores fairdesk may use, and the environment variables that cap it."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity; the machine's count elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def workers_from_env(name: str, cap: int = 8) -> int:
    """Workers for one kind of work: the whole number in environment variable ``name`` when
    set (1 = none in parallel), else the usable cores, at most ``cap``.

    Raises
    ------
    ValueError
        When the variable is set to something other than a whole number (the message says
        what to set).
    """
    env = os.environ.get(name, "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(
                f"{name}={env!r} is not a whole number; set it to the number of workers "
                "(1 runs this work in one)."
            ) from None
    return max(1, min(cap, usable_cores()))
