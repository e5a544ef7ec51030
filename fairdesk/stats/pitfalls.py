"""Statistics of the audit pitfalls (docs/METHODS.md, "Audit pitfalls"): hallucination flags per group,
one utterance that carries a group's WER, and verdicts that only hold with the flagged items
in.

Typed inputs: the per-item frame and ``compare_groups``' :class:`~fairdesk.stats.results.
AuditResult`; nothing here mutates a result (the stage :mod:`fairdesk.jobs.pitfalls` builds
the new one with ``dataclasses.replace``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .notices import Notice, notice
from .pitfall_types import (
    NOT_COMPARED,
    NOT_RECOMPUTED_ALL,
    NOT_RECOMPUTED_REFERENCE,
    NOT_RECOMPUTED_REFUSED,
    REASON_ALL_FLAGGED,
    REASON_EXCLUDED,
    REASON_REFERENCE_FLAGGED,
    REASON_REFUSED,
    DominantItem,
    WithoutFlagged,
)
from .results import AuditResult

__all__ = [
    "DOMINANCE_MIN_ERRORS",
    "DOMINANCE_SHARE",
    "FLAG_METRICS",
    "add_pitfall_columns",
    "dominant_items",
    "flag_counts",
    "nonspeech_share_by_group",
    "verdicts_without_flagged",
]

#: A group's WER counts as carried by one utterance when the group has at least this many
#: word errors (S+D+I) ...
DOMINANCE_MIN_ERRORS = 20
#: ... and one utterance holds more than this share of them.
DOMINANCE_SHARE = 0.25
#: Metrics left out when comparisons are recomputed without flagged items (they are about the
#: flags themselves: without flagged items the rate is 0 and wer_unflagged equals wer).
FLAG_METRICS = frozenset({"hallucination_rate", "wer_unflagged"})


def add_pitfall_columns(
    frame: pd.DataFrame, stats: pd.DataFrame, normaliser, language: str, settings=None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Add the flag stats to ``stats`` and evidence / speech rate to ``frame``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The audit frame (``reference``, ``hypothesis``; optional ``nonspeech_words``,
        ``speech_s``).
    stats : pandas.DataFrame
        Its per-item stats (:func:`fairdesk.metrics.compute_item_stats`), same index.
    normaliser : str or callable
        The run's resolved normaliser (the flags see the same words as WER).
    language : str
        Transcript language.
    settings : HallucinationSettings, optional
        :class:`~fairdesk.metrics.hallucination.HallucinationSettings` (None: defaults).

    Returns
    -------
    tuple of pandas.DataFrame
        (frame, stats) with the new columns; unchanged without reference and hypothesis.
    """
    from ..core.acoustics import speech_rate
    from ..metrics.hallucination import hallucination_columns, unflagged_columns

    if not {"reference", "hypothesis", "n_words"} <= set(frame.columns) | set(stats.columns):
        return frame, stats
    flags = hallucination_columns(frame, normaliser, language, settings)
    evidence = flags.pop("hallucination_evidence")
    stats = pd.concat([stats, flags], axis=1)
    stats = pd.concat([stats, unflagged_columns(stats)], axis=1)
    frame = frame.copy()
    frame["hallucination_evidence"] = evidence.to_numpy()
    if "speech_s" in frame.columns:
        frame["speech_rate"] = speech_rate(stats["n_words"], frame["speech_s"])
    return frame, stats


def _item_ids(frame: pd.DataFrame) -> pd.Series:
    for c in ("item_id", "id"):
        if c in frame.columns:
            return frame[c].astype(str)
    return pd.Series([str(i) for i in frame.index], index=frame.index)


def dominant_items(
    frame: pd.DataFrame, min_errors: int = DOMINANCE_MIN_ERRORS, share: float = DOMINANCE_SHARE
) -> dict[str, DominantItem]:
    """Groups whose word errors one utterance carries.

    Parameters
    ----------
    frame : pandas.DataFrame
        Per-item frame with ``group`` and ``n_sub``, ``n_del``, ``n_ins``, ``n_words``.
    min_errors : int
        The group needs at least this many errors (S+D+I).
    share : float
        The utterance must hold more than this share of them.

    Returns
    -------
    dict
        group -> :class:`~fairdesk.stats.pitfall_types.DominantItem` (``item, errors,
        group_errors, share, wer, wer_without_item``) for every group where one utterance
        holds more than ``share`` of >= ``min_errors``.
    """
    err = frame[["n_sub", "n_del", "n_ins"]].to_numpy(float).sum(axis=1)
    words = frame["n_words"].to_numpy(float)
    ids = _item_ids(frame).to_numpy()
    out = {}
    for g, ix in frame.groupby(frame["group"].astype(str), sort=True).indices.items():
        e = err[ix]
        total = float(e.sum())
        if total < min_errors:
            continue
        k = int(np.argmax(e))
        if e[k] > share * total:
            n = float(words[ix].sum())
            n_wo = n - words[ix][k]
            out[g] = DominantItem(
                item=str(ids[ix][k]),
                errors=int(e[k]),
                group_errors=int(total),
                share=float(e[k] / total),
                wer=total / n if n > 0 else None,
                wer_without_item=float((total - e[k]) / n_wo) if n_wo > 0 else None,
            )
    return out


def verdicts_without_flagged(
    frame: pd.DataFrame, result: AuditResult, specs, settings, reference=None
) -> tuple[dict[tuple[str, str], WithoutFlagged], list[dict]]:
    """Each tested comparison recomputed without the flagged items.

    Parameters
    ----------
    frame : pandas.DataFrame
        Per-item frame with stats and ``hallucinated``.
    result : AuditResult
        The run's statistics (read only).
    specs : list of MetricSpec
        The tested metric specs (the flag metrics themselves are left out).
    settings : AuditSettings
        The run's settings.
    reference : str, optional
        The requested reference group (None: the run's reference).

    Returns
    -------
    entries : dict
        ``(metric, group)`` -> the comparison without the flagged items
        (:class:`~fairdesk.stats.pitfall_types.WithoutFlagged`: its verdict and numbers, or
        the coded reason it was not recomputed), for every tested comparison.
    changed : list of dict
        One per comparison whose verdict changes: metric, group, verdict,
        verdict_without_flagged, gap, gap_without_flagged, reason (a coded note or None),
        n_flagged_group, n_flagged_reference (or one row ``metric: None`` with the coded
        reason nothing was recomputed).
    """
    from .compare import compare_groups

    specs = [s for s in specs if s.id not in FLAG_METRICS]
    ids = {s.id for s in specs}
    flagged = frame["hallucinated"].to_numpy(bool)
    if not specs or not flagged.any() or not result.comparisons:
        return {}, []
    rest = frame[~flagged].reset_index(drop=True)
    ref = result.reference if reference is None else reference

    def none_recomputed(reason: Notice, short: Notice):
        entries = {
            (c.metric, c.group): WithoutFlagged(recomputed=False, reason=short)
            for c in result.comparisons
            if c.metric in ids
        }
        return entries, [{"metric": None, "group": None, "reason": reason}]

    if flagged.all():
        return none_recomputed(
            notice(NOT_RECOMPUTED_ALL, n_items=len(frame)), notice(REASON_ALL_FLAGGED)
        )
    if ref is not None and not (rest["group"].astype(str) == str(ref)).any():
        n_ref = int((frame["group"].astype(str) == str(ref)).sum())
        return none_recomputed(
            notice(NOT_RECOMPUTED_REFERENCE, reference=str(ref), n_reference=n_ref),
            notice(REASON_REFERENCE_FLAGGED, reference=str(ref)),
        )
    try:
        again = compare_groups(rest, specs, settings, reference=ref)
    except ValueError as exc:
        return none_recomputed(
            notice(NOT_RECOMPUTED_REFUSED, text=str(exc)), notice(REASON_REFUSED, text=str(exc))
        )
    by_key = {(c.metric, c.group): c for c in again.comparisons}
    excluded = {e.group: e.reason for e in again.excluded}
    n_flag = frame.loc[flagged, "group"].astype(str).value_counts().to_dict()
    entries: dict[tuple[str, str], WithoutFlagged] = {}
    changed = []
    for c in result.comparisons:
        if c.metric not in ids:
            continue
        c2 = by_key.get((c.metric, c.group))
        n_g = int(n_flag.get(str(c.group), 0))
        n_r = int(n_flag.get(str(c.reference), 0))
        if c2 is None:
            why = excluded.get(c.group)
            reason = notice(NOT_COMPARED) if why is None else _excluded(why)
            entry = WithoutFlagged(
                recomputed=False, reason=reason, n_flagged_group=n_g, n_flagged_reference=n_r
            )
        else:
            entry = WithoutFlagged(
                recomputed=True,
                verdict=c2.verdict,
                gap=_finite(c2.gap),
                ci_low=_finite(c2.ci_low),
                ci_high=_finite(c2.ci_high),
                p_adjusted=_finite(c2.p_adjusted),
                n_flagged_group=n_g,
                n_flagged_reference=n_r,
            )
        entries[(c.metric, c.group)] = entry
        if entry.verdict != c.verdict:
            changed.append(
                {
                    "metric": c.metric,
                    "group": c.group,
                    "verdict": c.verdict,
                    "verdict_without_flagged": entry.verdict,
                    "gap": _finite(c.gap),
                    "gap_without_flagged": entry.gap,
                    "reason": entry.reason,
                    "n_flagged_group": n_g,
                    "n_flagged_reference": n_r,
                }
            )
    return entries, changed


def _finite(x) -> float | None:
    """A number as stored: None where missing or not finite."""
    return None if x is None or not math.isfinite(x) else float(x)


def _excluded(why) -> Notice:
    """An exclusion's reason as a coded note (the statistics' own note where it is one)."""
    return why if isinstance(why, Notice) else notice(REASON_EXCLUDED, text=str(why))


def flag_counts(frame: pd.DataFrame) -> dict[str, dict]:
    """Per group: ``n_items``, one count per hallucination flag, ``hallucinated``, ``rate``
    and the flagged ``items``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Per-item frame with ``group`` and the flag columns.

    Returns
    -------
    dict
        group -> counts.
    """
    from ..metrics.hallucination import FLAG_COLUMNS

    groups = frame["group"].astype(str)
    sums = frame[list(FLAG_COLUMNS)].groupby(groups, sort=True).sum()
    sizes = groups.value_counts()
    flagged = frame["hallucinated"].to_numpy(bool)
    ids = _item_ids(frame[flagged]).groupby(groups[flagged], sort=False).agg(list)
    out = {}
    for g in sums.index:
        n = int(sizes[g])
        counts = {c.removeprefix("hall_"): int(sums.at[g, c]) for c in FLAG_COLUMNS}
        row: dict[str, object] = {"n_items": n, **counts}
        row["rate"] = counts["hallucinated"] / n if n else None
        row["items"] = list(ids.get(g, []))
        out[g] = row
    return out


def nonspeech_share_by_group(frame: pd.DataFrame) -> dict[str, float | None] | None:
    """Mean non-speech share (VAD) per group; None without a ``nonspeech_share`` column.

    Parameters
    ----------
    frame : pandas.DataFrame
        Per-item frame with ``group``.

    Returns
    -------
    dict or None
        group -> mean share (None where undefined).
    """
    if "nonspeech_share" not in frame.columns:
        return None
    share = pd.to_numeric(frame["nonspeech_share"], errors="coerce")
    return {
        str(g): (float(v) if math.isfinite(v) else None)
        for g, v in share.groupby(frame["group"].astype(str)).mean().items()
    }
