"""Run the incremental evaluation over many items and policies, pool it, compare groups.

:func:`evaluate` streams every item through every policy (one backend, warmed up first so
model loading never counts as decode time) and returns one row per item × policy × stream
with the per-item statistic columns of :mod:`fairdesk.incremental.metrics`.
:func:`summarise` pools it per policy and stream; :func:`compare_by_group` runs
:func:`fairdesk.stats.compare_groups` per policy and stream.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from fairdesk.constants import SAMPLE_RATE
from fairdesk.incremental.metrics import DEFAULT_COMPARED, INCREMENTAL_METRICS, item_stats, pooled
from fairdesk.incremental.simulate import POLICIES, simulate

__all__ = [
    "compare_by_group",
    "evaluate",
    "hardware",
    "streams_of",
    "summarise",
    "warm_up",
]


def streams_of(policy: str) -> tuple[str, ...]:
    """The streams scored for a policy: local agreement has a displayed and a committed one."""
    return ("displayed", "committed") if policy == "local-agreement" else ("displayed",)


def hardware(threads: int | None = None) -> dict:
    """The machine the timings come from."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    load = None
    if hasattr(os, "getloadavg"):
        try:
            load = round(os.getloadavg()[0], 2)
        except OSError:
            pass
    return {
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "usable_cpus": usable,
        "decoder_threads": threads,
        "load_average_1min_at_start": load,
        "machine": platform.machine(),
        "python": platform.python_version(),
    }


def warm_up(backend, audio: np.ndarray | None = None) -> float:
    """Decode once so that loading and first-call costs stay out of the timings; returns the
    seconds it took (reported as ``warm_up_s``, never as decode time)."""
    t0 = time.perf_counter()
    x = audio[: SAMPLE_RATE * 2] if audio is not None and audio.size else np.zeros(
        SAMPLE_RATE, dtype=np.float32)
    backend.transcribe([np.asarray(x, dtype=np.float32)])
    return time.perf_counter() - t0


def evaluate(
    backend,
    items: Iterable[dict],
    load_audio: Callable[[dict], np.ndarray],
    policies: Sequence[str] = ("concatenation",),
    chunk_s: float = 1.0,
    *,
    reference_col: str = "text",
    language: str = "en",
    options: dict | None = None,
    keep_logs: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> tuple[pd.DataFrame, list[dict], dict]:
    """Stream every item through every policy.

    Parameters
    ----------
    backend : a warmed-up backend (see :func:`warm_up`).
    items : dicts (e.g. DataFrame rows) carrying ``reference_col`` and any metadata; every key
        is copied to the output rows.
    load_audio : item -> float32 mono 16 kHz samples.
    policies : policy names (:data:`~fairdesk.incremental.simulate.POLICIES`).
    chunk_s : seconds per chunk.
    options : policy options by policy name, e.g. ``{"sliding": {"min_words": 5}}``.
    keep_logs : also return every simulation's update log.
    progress : called with (done, total, message).

    Returns
    -------
    (frame, failures, logs)
        ``frame``: one row per item × policy × stream (columns ``policy``, ``stream``, the
        item's own columns and the statistic columns); ``failures``: ``{"item", "reason"}``
        for items whose audio could not be used; ``logs``: ``{(item id, policy): dict}``
        when ``keep_logs``.
    """
    for p in policies:
        if p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}; use one of {', '.join(POLICIES)}")
    options = options or {}
    items = list(items)
    rows, failures, logs = [], [], {}
    total = len(items) * len(policies)
    done = 0
    for item in items:
        key = item.get("id", len(rows))
        try:
            audio = load_audio(item)
        except Exception as exc:  # noqa: BLE001 - a bad file is a per-item failure (§8)
            failures.append({"item": key, "reason": str(exc)})
            done += len(policies)
            continue
        for policy in policies:
            sim = simulate(backend, audio, policy, chunk_s, **options.get(policy, {}))
            for stream in streams_of(policy):
                st = item_stats(sim, item.get(reference_col) or "", stream, language)
                rows.append({**item, "policy": policy, "stream": stream, **st})
            if keep_logs:
                logs[(key, policy)] = sim.to_dict()
            done += 1
            if progress:
                progress(done, total, f"{key} {policy}")
    return pd.DataFrame(rows), failures, logs


def summarise(frame: pd.DataFrame) -> list[dict]:
    """Pooled metrics per policy and stream (in the order they appear)."""
    out = []
    if frame.empty:
        return out
    for (policy, stream), part in frame.groupby(["policy", "stream"], sort=False):
        out.append({"policy": policy, "stream": stream, **pooled(part)})
    return out


def compare_by_group(
    frame: pd.DataFrame,
    by: Sequence[str] | str,
    settings=None,
    metrics: Sequence[str] = DEFAULT_COMPARED,
    reference: str | None = None,
) -> list[dict]:
    """:func:`fairdesk.stats.compare_groups` per policy and stream on the pooled metrics.

    Returns one dict per policy × stream: ``policy``, ``stream`` and the ``AuditResult``'s
    ``to_dict()`` (groups with their values, comparisons with CIs, p, verdicts, exclusions).
    """
    from fairdesk.stats import compare_groups, slice_frame

    unknown = [m for m in metrics if m not in INCREMENTAL_METRICS]
    if unknown:
        raise ValueError(
            f"unknown incremental metric(s) {unknown}; use: {', '.join(INCREMENTAL_METRICS)}"
        )
    specs = [INCREMENTAL_METRICS[m] for m in metrics]
    out = []
    for (policy, stream), part in frame.groupby(["policy", "stream"], sort=False):
        sliced = slice_frame(part.reset_index(drop=True), by)
        res = compare_groups(sliced, specs, settings, reference)
        out.append({"policy": policy, "stream": stream, **res.to_dict()})
    return out
