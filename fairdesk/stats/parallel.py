"""Running independent pieces of the statistics side by side on the machine's cores.

The bootstrap of one comparison (or one group's interval) is numpy work that releases the
GIL in its heavy parts (random draws, casts, BLAS products), so threads share the cores
without copying the data. Every piece has its own generator, derived from the seed and its
name, so the numbers are the same whatever the number of threads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from fairdesk.workers import workers_from_env

T = TypeVar("T")
R = TypeVar("R")

#: Environment variable capping the statistics threads (1 = run in the calling thread).
THREADS_ENV = "FAIRDESK_STATS_THREADS"


def stats_threads() -> int:
    """Threads for the statistics: ``FAIRDESK_STATS_THREADS`` when set, else the cores this
    process may use (at most 8)."""
    return workers_from_env(THREADS_ENV)


def parallel_map(fn: Callable[[T], R], items: Iterable[T], threads: int | None = None) -> list[R]:
    """``[fn(x) for x in items]``, computed on up to ``threads`` threads, in input order.

    An exception raised by ``fn`` surfaces for the first failing item in input order, as
    in the loop.
    """
    items = list(items)
    n = stats_threads() if threads is None else max(1, threads)
    if n == 1 or len(items) < 2:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(
        max_workers=min(n, len(items)), thread_name_prefix="fairdesk-stats"
    ) as pool:
        return list(pool.map(fn, items))
