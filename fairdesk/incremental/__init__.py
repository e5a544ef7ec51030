"""Incremental (streaming) recognition: simulation, adds/revokes, pooled metrics per group.

docs/METHODS.md, "Incremental recognition" (after Whetten et al. 2023). :func:`simulate` streams one clip through a policy
(``concatenation``, ``sliding``, ``sliding-literal``, ``local-agreement``,
``local-agreement-norm``) or records an engine's own partial results (``native``);
:func:`item_stats` turns its update log into summable per-item statistics; :func:`pooled`
gives the corpus metrics (WER, LAT, EO, RPS, SPR, RTF, latencies) and
:data:`INCREMENTAL_METRICS` lets :func:`fairdesk.stats.compare_groups` audit them per group.
"""

from fairdesk.incremental.edits import (
    StreamCounts,
    count_stream,
    edit_counts,
    prefix_counts,
    stable_from,
    tokens,
)
from fairdesk.incremental.metrics import (
    DEFAULT_COMPARED,
    INCREMENTAL_METRICS,
    STAT_COLUMNS,
    item_stats,
    pooled,
)
from fairdesk.incremental.native import NATIVE, simulate_native, supports_native
from fairdesk.incremental.run import (
    ALL_POLICIES,
    TABLE_ROWS,
    Extras,
    compare_by_group,
    evaluate,
    hardware,
    models_table,
    summarise,
    warm_up,
)
from fairdesk.incremental.simulate import POLICIES, Cut, Simulation, Update, simulate
from fairdesk.incremental.timeline import timeline

__all__ = [
    "ALL_POLICIES",
    "DEFAULT_COMPARED",
    "NATIVE",
    "TABLE_ROWS",
    "Extras",
    "INCREMENTAL_METRICS",
    "POLICIES",
    "STAT_COLUMNS",
    "Cut",
    "Simulation",
    "StreamCounts",
    "Update",
    "compare_by_group",
    "count_stream",
    "edit_counts",
    "evaluate",
    "hardware",
    "item_stats",
    "pooled",
    "prefix_counts",
    "models_table",
    "simulate",
    "simulate_native",
    "stable_from",
    "summarise",
    "supports_native",
    "timeline",
    "tokens",
    "warm_up",
]
