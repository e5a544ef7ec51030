"""The common item set of a comparison of systems (docs/METHODS.md, "Common items and paired replicates"), and
the per-item matrices the paired replicates resample: every system's statistics side by
side, one row per common item, so that one draw of units scores every system."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.resampled import resampled_columns
from fairdesk.stats.system_results import CommonItems


@dataclass(frozen=True)
class SystemItems:
    """Every system's statistics on the common items.

    Attributes
    ----------
    systems : names, baseline first.
    meta : the baseline frame's rows of the common items (group, speaker, content, ...).
    item_ids : the common item ids, in ``meta``'s order.
    stacked : ``(n_items, n_systems × K)`` resampled statistics, system ``j`` in columns
        ``j·K … j·K + K − 1`` (:func:`fairdesk.stats.resampled.resampled_columns`).
    n_cols : K.
    specs : the metrics over the resampled columns; ``cols[spec.id]`` their columns in
        one system's block.
    raw : per system, the frame's statistic columns on the common items (for the audits).
    common : the common set and the failures.
    """

    systems: tuple[str, ...]
    meta: pd.DataFrame
    item_ids: np.ndarray
    stacked: np.ndarray
    n_cols: int
    specs: list[MetricSpec]
    cols: dict[str, list[int]]
    raw: dict[str, pd.DataFrame]
    common: CommonItems

    def columns(self, spec_id: str, j: int) -> list[int]:
        """The columns of metric ``spec_id`` of system ``j`` in ``stacked``."""
        return [c + j * self.n_cols for c in self.cols[spec_id]]


def common_items(
    frames: Mapping[str, pd.DataFrame],
    specs: Sequence[MetricSpec],
    *,
    item_col: str = "item_id",
    failed: Mapping[str, Iterable] | None = None,
) -> SystemItems:
    """The items every system has a usable hypothesis for, and their statistics.

    An item is a failure of a system when its frame lacks it, its statistics are undefined
    (NaN) there, or ``failed[system]`` lists it. Item ids must be unique within a frame.

    Raises
    ------
    ValueError
        Fewer than two systems, a frame without ``item_col`` or a statistic column, a
        repeated item id (named), or no common item.
    """
    systems = tuple(frames)
    if len(systems) < 2:
        raise ValueError(
            f"A comparison of systems needs at least two systems; got {len(systems)} "
            f"({', '.join(map(repr, systems)) or 'none'})."
        )
    stat_cols = list(dict.fromkeys(c for s in specs for c in s.stats))
    failed = {k: set(v) for k, v in (failed or {}).items()}
    unknown = set(failed) - set(systems)
    if unknown:
        raise ValueError(f"failed names unknown systems {sorted(map(str, unknown))}.")
    usable: dict[str, set] = {}
    seen: dict[object, None] = {}  # every item id once, in first-seen order
    for name, f in frames.items():
        lack = [c for c in [item_col, *stat_cols] if c not in f.columns]
        if lack:
            raise ValueError(
                f"The frame of system {name!r} lacks the column(s) {lack}; compute the item "
                "statistics of every system first."
            )
        ids = f[item_col]
        dup = ids[ids.duplicated()]
        if len(dup):
            raise ValueError(
                f"Item id {dup.iloc[0]!r} occurs more than once in the frame of system "
                f"{name!r}; each system has one hypothesis per item."
            )
        ok = np.isfinite(f[stat_cols].to_numpy(dtype=float)).all(axis=1) & ids.notna().to_numpy()
        bad = failed.get(name, set())
        ok &= ~ids.isin(bad).to_numpy()
        usable[name] = set(ids[ok])
        for i in ids:
            seen.setdefault(i, None)
    everyone = set.intersection(*usable.values())
    base = frames[systems[0]]
    meta = base[base[item_col].isin(everyone)].reset_index(drop=True)
    if meta.empty:
        raise ValueError(
            "No item has a usable hypothesis from every system, so the systems cannot be "
            f"compared (usable items: {', '.join(f'{k} {len(v)}' for k, v in usable.items())})."
        )
    item_ids = meta[item_col].to_numpy(dtype=object)
    raw = {}
    for name, f in frames.items():
        raw[name] = f.set_index(item_col).loc[item_ids, stat_cols].reset_index(drop=True)
    common = CommonItems(
        n_items=len(meta),
        per_system={k: len(v) for k, v in usable.items()},
        failed={k: tuple(i for i in seen if i not in usable[k]) for k in systems},
    )
    n = len(meta)
    Xall = np.vstack([raw[k].to_numpy(dtype=float) for k in systems])
    cols = {s.id: [stat_cols.index(c) for c in s.stats] for s in specs}
    # one structure for every system: the resampled columns of all rows together
    Xt, tspecs, tcols = resampled_columns(Xall, list(specs), cols)
    K = Xt.shape[1]
    stacked = np.hstack([Xt[j * n : (j + 1) * n] for j in range(len(systems))])
    return SystemItems(
        systems=systems,
        meta=meta,
        item_ids=item_ids,
        stacked=stacked,
        n_cols=K,
        specs=tspecs,
        cols=tcols,
        raw=raw,
        common=common,
    )


def sclite_percent(items: SystemItems, spec: MetricSpec, j: int) -> np.ndarray | None:
    """Per-utterance WER% as sclite computes it (100·S/N + 100·D/N + 100·I/N, in this order:
    its floating-point ties decide sc_stats' Wilcoxon ranks); None for other metrics."""
    raw = items.raw[items.systems[j]]
    if spec.id != "wer" or not {"n_sub", "n_del", "n_ins", "n_words"} <= set(raw.columns):
        return None
    n = raw["n_words"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        parts = [100 * raw[c].to_numpy(float) / n for c in ("n_sub", "n_del", "n_ins")]
    return parts[0] + parts[1] + parts[2]
