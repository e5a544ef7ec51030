"""The words and numbers of incremental runs, for every view (the GUI's Incremental tab, the
incremental report, ``fairdesk incremental``): the row names of the models × policies table
(:data:`ROW_NAMES`, with their explanations :data:`ROW_HELP`) and the per-group values, gaps
and CIs (:func:`fmt_stream_group`, :func:`fmt_stream_gap`, :func:`fmt_stream_ci`): shares in
percent and their gaps in percentage points, the rest to four decimals."""

from __future__ import annotations

from .numbers import MISSING, finite, fmt_ci, fmt_gap, fmt_value, number

__all__ = [
    "ROW_HELP",
    "ROW_NAMES",
    "PLAIN_DECIMALS",
    "SHARE_METRICS",
    "fmt_stream_ci",
    "fmt_stream_gap",
    "fmt_stream_group",
    "row_name",
]

#: The row names of the models × policies table, by metric id (one table, every view).
ROW_NAMES = {
    "wer": "WER",
    "lat_seed001": "LAT (seed 001)",
    "lat_pooled": "LAT (pooled)",
    "eo": "EO",
    "rps": "RPS",
    "spr": "SPR",
    "rtf": "RTF",
}
#: What each row measures (the report's row tooltips).
ROW_HELP = {
    "wer": "word error rate of the final transcript",
    "lat_seed001": "seed 001's LAT: seconds from a chunk's arrival to its prediction, per "
    "word of the prediction, averaged over predictions (zero-word ones skipped)",
    "lat_pooled": "decode seconds per final word, pooled",
    "eo": "edit overhead: revokes / (adds + revokes)",
    "rps": "revokes per second of decode time",
    "spr": "decode seconds per revoke (inf: no revokes)",
    "rtf": "real-time factor: decode seconds / audio seconds",
}

#: The incremental metrics that are shares (0..1): shown as WER is, in percent, their gaps
#: in percentage points.
SHARE_METRICS = frozenset({"wer", "eo", "eo_edit", "revoke_update_share"})

#: Decimals of the incremental metrics that are not shares (seconds, rates, factors).
PLAIN_DECIMALS = 4


def row_name(metric: str) -> str:
    """The row name of ``metric`` (:data:`ROW_NAMES`; the id itself when it has none)."""
    return ROW_NAMES.get(metric, metric)


def fmt_stream_group(metric: str, value) -> str:
    """One group's value of an incremental metric: ``12.3%`` for a share, ``0.4120`` else."""
    if metric in SHARE_METRICS:
        return fmt_value("wer", value)
    return number(value, PLAIN_DECIMALS)


def fmt_stream_gap(metric: str, value) -> str:
    """A group's gap to the reference: ``+3.1 pp`` for a share, ``+0.0310`` else."""
    if metric in SHARE_METRICS:
        return fmt_gap("wer", value)
    return number(value, PLAIN_DECIMALS, signed=True)


def fmt_stream_ci(metric: str, low, high) -> str:
    """The 95% CI of a gap, ``[-1.2 pp, +4.0 pp]`` for a share, ``[-0.0120, +0.0400]`` else
    (a bound that rounds to zero keeps its sign); :data:`~.numbers.MISSING` without both."""
    if metric in SHARE_METRICS:
        return fmt_ci("wer", low, high)
    if finite(low) is None or finite(high) is None:
        return MISSING
    lo, hi = (number(x, PLAIN_DECIMALS, signed=True, keep_sign=True) for x in (low, high))
    return f"[{lo}, {hi}]"
