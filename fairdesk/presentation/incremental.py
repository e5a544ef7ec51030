"""The words and numbers of incremental runs, for every view (the GUI's Incremental tab, the
incremental report, ``fairdesk incremental``): the row names of the models × policies table
(:func:`row_name`, with their explanations :func:`row_help`, both from the one table of
:mod:`.labels`), and one rule for every number of
it and of the per-group blocks (docs/METHODS.md, "Incremental recognition": ``WER 17.0%, EO
0.30``): WER in percent and its gaps in percentage points, every other measure (EO, latencies,
RPS, SPR, RTF) as a plain number to :data:`DECIMALS` decimals, an infinite one (SPR without
revokes) as ``inf`` (:func:`fmt_stream_value`, :func:`fmt_stream_gap`, :func:`fmt_stream_ci`).
"""

from __future__ import annotations

import math

from .labels import INCREMENTAL_ROW_HELP, INCREMENTAL_ROW_NAMES
from .numbers import MISSING, finite, fmt_ci, fmt_gap, fmt_percent, number

__all__ = [
    "DECIMALS",
    "TEXTS",
    "PERCENT_METRICS",
    "column_head",
    "policy_label",
    "fmt_stream_ci",
    "fmt_stream_gap",
    "fmt_stream_value",
    "row_help",
    "row_name",
]

#: The incremental measures shown in percent (their gaps in percentage points).
PERCENT_METRICS = frozenset({"wer"})
#: Decimals of every other incremental measure, its gaps and CI bounds.
DECIMALS = 3


def row_name(metric: str) -> str:
    """The row name of ``metric`` in the models × policies table
    (:data:`~fairdesk.presentation.labels.INCREMENTAL_ROW_NAMES`; the id itself when it has
    none)."""
    return INCREMENTAL_ROW_NAMES.get(metric, metric)


def policy_label(policy: str) -> str:
    """The short name of a policy in the table's heads (``Con.``, ``sliding (snapped)``;
    the stored column labels use the same table, :data:`fairdesk.incremental.run.POLICY_LABELS`)."""
    from ..incremental.run import POLICY_LABELS

    return POLICY_LABELS.get(policy, policy)


def column_head(column, compact: bool = False) -> str:
    """The head of a table column (its policy; a stream other than the displayed one after
    it): ``local agr., committed``, or ``local agr. (comm.)`` where space is short (the
    console)."""
    h = policy_label(column.policy)
    if column.stream == "displayed":
        return h
    return f"{h} ({column.stream[:4]}.)" if compact else f"{h}, {column.stream}"


def row_help(metric: str) -> str:
    """What the row of ``metric`` measures (the report's row tooltips; '' when unknown)."""
    return INCREMENTAL_ROW_HELP.get(metric, "")


def fmt_stream_value(metric: str, value) -> str:
    """A value of an incremental measure, in the table and in a group's row alike: WER in
    percent (``12.3%``), the rest to 3 decimals (``0.300``); an infinite one (SPR without
    revokes) as ``inf``; :data:`~.numbers.MISSING` if none."""
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if metric in PERCENT_METRICS:
        return fmt_percent(value)
    return number(value, DECIMALS)


def fmt_stream_gap(metric: str, value) -> str:
    """A group's gap to the reference: ``+3.1 pp`` for WER, ``+0.031`` for the rest."""
    if metric in PERCENT_METRICS:
        return fmt_gap("wer", value)
    return number(value, DECIMALS, signed=True)


def fmt_stream_ci(metric: str, low, high) -> str:
    """The 95% CI of a gap, ``[-1.2 pp, +4.0 pp]`` for WER, ``[-0.012, +0.040]`` for the rest
    (a bound that rounds to zero keeps its sign); :data:`~.numbers.MISSING` without both."""
    if metric in PERCENT_METRICS:
        return fmt_ci("wer", low, high)
    if finite(low) is None or finite(high) is None:
        return MISSING
    lo, hi = (number(x, DECIMALS, signed=True, keep_sign=True) for x in (low, high))
    return f"[{lo}, {hi}]"


def _not_compared(error: str) -> str:
    return error


#: code → words of the incremental notes (see fairdesk.presentation.notices): the reason the
#: models of a policy could not be paired is the statistics' own message.
TEXTS = {"incremental.models_not_compared": _not_compared}
