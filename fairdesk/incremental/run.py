"""Run the incremental evaluation over many items and policies, pool it, compare groups.

:func:`evaluate` streams every item through every policy (one backend, warmed up first so
model loading never counts as decode time) and returns one row per item × policy × stream
with the per-item statistic columns of :mod:`fairdesk.incremental.metrics`.
:func:`summarise` pools it per model, policy and stream; :func:`models_table` lays that out
as Whetten et al.'s Table 2; :func:`compare_by_group` runs :func:`fairdesk.stats.compare_groups`
per model, policy and stream.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fairdesk.constants import SAMPLE_RATE
from fairdesk.incremental.metrics import DEFAULT_COMPARED, INCREMENTAL_METRICS, item_stats, pooled
from fairdesk.incremental.native import NATIVE, supports_native
from fairdesk.incremental.result_parts import GroupComparisons, PolicySummary
from fairdesk.incremental.simulate import POLICIES, simulate
from fairdesk.incremental.timeline import timeline
from fairdesk.workers import usable_cores

if TYPE_CHECKING:
    from fairdesk.incremental.segment import Segment

__all__ = [
    "ALL_POLICIES",
    "COLUMN_ORDER",
    "POLICY_LABELS",
    "TABLE_ROWS",
    "Extras",
    "compare_by_group",
    "evaluate",
    "hardware",
    "models_table",
    "streams_of",
    "summarise",
    "warm_up",
]

#: Every policy name: the re-decoding ones and an engine's own partial results.
ALL_POLICIES = (*POLICIES, NATIVE)

#: Rows of the models × policies table (Whetten et al.'s Table 2 rows, both LATs, and RTF).
TABLE_ROWS = ("wer", "lat_seed001", "lat_pooled", "eo", "rps", "spr", "rtf")

#: Every policy in the column order of the table per model (``--policy all`` runs them so):
#: Whetten et al.'s sliding window (literal cut, snapped beside it), then concatenation, then
#: the policies beyond Whetten et al.
COLUMN_ORDER = (
    NATIVE,
    "sliding-literal",
    "sliding",
    "concatenation",
    "local-agreement",
    "local-agreement-norm",
)
#: The short name of each policy in the table's column labels (the views' heads through
#: :func:`fairdesk.presentation.incremental.policy_label`).
POLICY_LABELS = {
    NATIVE: "own partials",
    "sliding-literal": "sliding (literal)",
    "sliding": "sliding (snapped)",
    "concatenation": "Con.",
    "local-agreement": "local agr.",
    "local-agreement-norm": "local agr. (norm)",
}


def streams_of(policy: str) -> tuple[str, ...]:
    """The streams scored for a policy: local agreement has a displayed and a committed one."""
    return ("displayed", "committed") if policy.startswith("local-agreement") else ("displayed",)


@dataclass
class Extras:
    """What :func:`evaluate` gives besides the item rows.

    Attributes
    ----------
    logs : ``{(item id, policy): Simulation.to_dict()}`` when ``keep_logs``.
    timelines : one :func:`fairdesk.incremental.timeline.timeline` per item × policy (the
        displayed stream) with ``item`` (and ``model``) added, when ``timelines``.
    segments : with ``split``: one row per item × policy × stream × segment (``segment``,
        ``seg_start_s``, ``seg_end_s`` and the statistic columns; WER columns are NaN).
    """

    logs: dict = field(default_factory=dict)
    timelines: list = field(default_factory=list)
    segments: list = field(default_factory=list)


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
    usable = usable_cores()
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
    x = (
        audio[: SAMPLE_RATE * 2]
        if audio is not None and audio.size
        else np.zeros(SAMPLE_RATE, dtype=np.float32)
    )
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
    model: str | None = None,
    timelines: bool = False,
    split: bool = False,
    split_settings: dict | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[pd.DataFrame, list[dict], Extras]:
    """Stream every item through every policy.

    Parameters
    ----------
    backend : a warmed-up backend (see :func:`warm_up`).
    items : dicts (e.g. DataFrame rows) carrying ``reference_col`` and any metadata; every key
        is copied to the output rows.
    load_audio : item -> float32 mono 16 kHz samples.
    policies : policy names (:data:`ALL_POLICIES`; ``native`` needs a streaming engine).
    chunk_s : seconds per chunk.
    options : policy options by policy name, e.g. ``{"sliding": {"min_words": 5}}``.
    keep_logs : also return every simulation's update log.
    progress : called with (done, total, message).
    model : written to a ``model`` column when given.
    timelines : also return the add/revoke timeline of every item × policy.
    split : split each recording on silence first (:mod:`fairdesk.incremental.segment`);
        the item rows are then the joined streams, and per-segment rows are returned too.
    split_settings : Silero VAD settings for ``split``.
    cancelled : checked between items; when it returns True the run stops
        (:class:`fairdesk.core.progress.Cancelled`).

    Returns
    -------
    (frame, failures, extras)
        ``frame``: one row per item × policy × stream (columns ``policy``, ``stream``, the
        item's own columns and the statistic columns); ``failures``: ``{"item", "reason"}``
        for items whose audio could not be used; ``extras``: :class:`Extras`.
    """
    for p in policies:
        if p not in ALL_POLICIES:
            raise ValueError(f"unknown policy {p!r}; use one of {', '.join(ALL_POLICIES)}")
    if NATIVE in policies and not supports_native(backend):
        raise ValueError(
            f"model {model or getattr(backend, 'id', '?')!r} has no native "
            "streaming; policy 'native' needs an engine with partial results "
            "(pocketsphinx-en-us)"
        )
    options = options or {}
    items = list(items)
    rows: list[dict] = []
    failures: list[dict] = []
    extras = Extras()
    tag = {} if model is None else {"model": model}
    total = len(items) * len(policies)
    done = 0
    for item in items:
        key = item.get("id", len(rows))
        try:
            audio = load_audio(item)
        except Exception as exc:  # noqa: BLE001 - a bad file is a per-item failure (docs/METHODS.md, "Jobs and caching")
            failures.append({"item": key, "reason": str(exc)})
            done += len(policies)
            continue
        for policy in policies:
            if cancelled is not None and cancelled():
                from fairdesk.core.progress import Cancelled

                raise Cancelled("incremental run cancelled")
            opts = options.get(policy, {})
            segs: list[Segment] = []
            if split:
                from fairdesk.incremental.segment import simulate_segmented

                sim, segs = simulate_segmented(
                    backend, audio, policy, chunk_s, settings=split_settings, **opts
                )
            else:
                sim = simulate(backend, audio, policy, chunk_s, **opts)
            for stream in streams_of(policy):
                st = item_stats(sim, item.get(reference_col) or "", stream, language)
                rows.append(
                    {
                        **item,
                        **tag,
                        "policy": policy,
                        "stream": stream,
                        "n_segments": max(1, len(segs)),
                        **st,
                    }
                )
                for seg in segs:
                    ss = item_stats(seg.sim, "", stream, language)
                    for c in ("n_words", "n_sub", "n_del", "n_ins"):
                        ss[c] = float("nan")
                    extras.segments.append(
                        {
                            "id": key,
                            **tag,
                            "policy": policy,
                            "stream": stream,
                            "segment": seg.index,
                            "seg_start_s": seg.start_s,
                            "seg_end_s": seg.end_s,
                            **ss,
                        }
                    )
            if keep_logs:
                extras.logs[(key, policy)] = sim.to_dict()
            if timelines:
                extras.timelines.append({"item": key, **tag, **timeline(sim)})
            done += 1
            if progress:
                progress(done, total, f"{key} {policy}")
    return pd.DataFrame(rows), failures, extras


def _keys(frame: pd.DataFrame) -> list[str]:
    return (["model"] if "model" in frame.columns else []) + ["policy", "stream"]


def summarise(frame: pd.DataFrame) -> list[PolicySummary]:
    """Pooled metrics per (model,) policy and stream (in the order they appear)."""
    out: list[PolicySummary] = []
    if frame.empty:
        return out
    keys = _keys(frame)
    for vals, part in frame.groupby(keys, sort=False):
        out.append(PolicySummary.from_json({**dict(zip(keys, vals)), **pooled(part)}))
    return out


def models_table(summary: Sequence[PolicySummary], rows: Sequence[str] = TABLE_ROWS) -> dict:
    """Whetten et al.'s Table 2 from :func:`summarise` rows: one column per model × policy (the
    displayed stream; local agreement's committed stream as a column of its own).

    Returns
    -------
    dict
        ``{"rows": [metric ids], "columns": [{"model", "policy", "stream", "label"}],
        "values": {metric id: [value per column]}}`` (``spr`` is ``inf`` without revokes;
        JSON writers turn it into null).
    """

    def order(r: PolicySummary):
        p = r.policy
        return (
            p not in COLUMN_ORDER,
            COLUMN_ORDER.index(p) if p in COLUMN_ORDER else 0,
            r.stream != "displayed",
        )

    models = list(dict.fromkeys(r.model or "" for r in summary))
    cols: list[PolicySummary] = []
    for m in models:
        cols += sorted((r for r in summary if (r.model or "") == m), key=order)
    columns = []
    for r in cols:
        label = POLICY_LABELS.get(r.policy, r.policy)
        if r.stream != "displayed":
            label += ", " + r.stream
        columns.append(
            {
                "model": r.model or "",
                "policy": r.policy,
                "stream": r.stream,
                "label": ((r.model or "") + " " + label).strip(),
            }
        )
    return {
        "rows": list(rows),
        "columns": columns,
        "values": {m: [c.value(m) for c in cols] for m in rows},
    }


def compare_by_group(
    frame: pd.DataFrame,
    by: Sequence[str] | str,
    settings=None,
    metrics: Sequence[str] = DEFAULT_COMPARED,
    reference: str | None = None,
) -> list[GroupComparisons]:
    """:func:`fairdesk.stats.compare_groups` per (model,) policy and stream on the pooled
    metrics.

    Returns one :class:`~fairdesk.incremental.result_parts.GroupComparisons` per (model ×)
    policy × stream: ``model``, ``policy``, ``stream`` and the ``AuditResult`` (groups with
    their values, comparisons with CIs, p, verdicts, exclusions) as its stored JSON reads
    back.
    """
    from fairdesk.stats import compare_groups, slice_frame

    unknown = [m for m in metrics if m not in INCREMENTAL_METRICS]
    if unknown:
        raise ValueError(
            f"unknown incremental metric(s) {unknown}; use: {', '.join(INCREMENTAL_METRICS)}"
        )
    specs = [INCREMENTAL_METRICS[m] for m in metrics]
    out = []
    keys = _keys(frame)
    for vals, part in frame.groupby(keys, sort=False):
        sliced = slice_frame(
            part.reset_index(drop=True),
            by,
            include_missing=bool(getattr(settings, "include_missing", False)),
        )
        res = compare_groups(sliced, specs, settings, reference)
        out.append(GroupComparisons.from_json({**dict(zip(keys, vals)), **res.to_dict()}))
    return out
