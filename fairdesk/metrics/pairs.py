"""Scoring many distinct (reference, hypothesis) pairs in worker processes.

Normalising and aligning text is Python work that holds the GIL, so a large table (hundreds
of thousands of distinct pairs) is scored in chunks by worker processes, one per usable
core, with joblib's loky processes (started clean, never a fork of a process that may run
Qt threads, and without re-running the caller's main script); each chunk's columns come back
in order, so the result is the same as scoring in one process.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import pandas as pd

from fairdesk.workers import workers_from_env

#: Environment variable capping the scoring processes (1 = score in this process).
SCORE_ENV = "FAIRDESK_SCORE_PROCESSES"
#: Fewest distinct pairs worth starting worker processes for (a start costs ~1 s).
MIN_PARALLEL_PAIRS = 20_000


def score_pairs(
    pairs: pd.DataFrame, score: Callable[..., dict[str, np.ndarray]], *args
) -> dict[str, np.ndarray]:
    """``score(pairs, *args)``, split over worker processes when the table is large.

    Parameters
    ----------
    pairs : one row per distinct pair (``reference``, ``hypothesis``).
    score : a module-level function returning equal-length columns for its rows.
    args : its other arguments (picklable: a normaliser given by name, not a callable).
    """
    n = workers_from_env(SCORE_ENV)
    if (
        n < 2
        or len(pairs) < MIN_PARALLEL_PAIRS
        or getattr(sys, "frozen", False)
        or any(callable(a) for a in args)
    ):
        return score(pairs, *args)
    bounds = np.linspace(0, len(pairs), 4 * n + 1).astype(int)
    chunks = [
        pairs.iloc[a:b].reset_index(drop=True) for a, b in zip(bounds[:-1], bounds[1:]) if b > a
    ]
    from joblib import Parallel, delayed

    parts = Parallel(n_jobs=n, backend="loky")(delayed(score)(c, *args) for c in chunks)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
