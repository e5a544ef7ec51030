"""Audit pitfalls (issue 18; METHODS.md §2): hallucinated items, one utterance that carries a
group's WER, and verdicts that only hold with the flagged items in.

Called by :func:`fairdesk.jobs.analysis.analyse` for every audit (project or table):

* :func:`add_pitfall_columns` adds the per-item flags (:mod:`fairdesk.metrics.hallucination`),
  their evidence, the ``unflagged_*`` counts behind ``wer_unflagged``, and -- where the audit
  job measured the audio (:mod:`fairdesk.core.acoustics`) -- ``speech_rate``;
* :func:`pitfalls_block` returns the JSON-ready ``pitfalls`` block of the result: flag counts
  per group, the groups whose WER one utterance carries, and each tested comparison recomputed
  without the flagged items.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = [
    "DOMINANCE_MIN_ERRORS",
    "DOMINANCE_SHARE",
    "add_pitfall_columns",
    "dominant_items",
    "pitfalls_block",
    "verdicts_without_flagged",
]

#: A group's WER counts as carried by one utterance when the group has at least this many
#: word errors (S+D+I) ...
DOMINANCE_MIN_ERRORS = 20
#: ... and one utterance holds more than this share of them.
DOMINANCE_SHARE = 0.25
#: Metrics left out when comparisons are recomputed without flagged items (they are about the
#: flags themselves: without flagged items the rate is 0 and wer_unflagged equals wer).
_FLAG_METRICS = frozenset({"hallucination_rate", "wer_unflagged"})


def add_pitfall_columns(
    frame: pd.DataFrame, stats: pd.DataFrame, normaliser, language: str, settings=None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Add the flag stats to ``stats`` and evidence / speech rate to ``frame``.

    Parameters
    ----------
    frame : the audit frame (``reference``, ``hypothesis``; optional ``nonspeech_words``,
        ``speech_s``).
    stats : its per-item stats (:func:`fairdesk.metrics.compute_item_stats`), same index.
    normaliser : the run's resolved normaliser name (the flags see the same words as WER).
    language : transcript language.
    settings : :class:`~fairdesk.metrics.hallucination.HallucinationSettings` (None: defaults).

    Returns
    -------
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
) -> dict[str, dict]:
    """Groups whose word errors one utterance carries.

    Parameters
    ----------
    frame : per-item frame with ``group`` and ``n_sub``, ``n_del``, ``n_ins``.
    min_errors : the group needs at least this many errors (S+D+I).
    share : the utterance must hold more than this share of them.

    Returns
    -------
    dict
        group -> ``{"item", "errors", "group_errors", "share", "wer", "wer_without_item"}``
        for every group where one utterance holds more than ``share`` of >= ``min_errors``.
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
            out[g] = {
                "item": str(ids[ix][k]),
                "errors": int(e[k]),
                "group_errors": int(total),
                "share": float(e[k] / total),
                "wer": total / n if n > 0 else None,
                "wer_without_item": (total - e[k]) / n_wo if n_wo > 0 else None,
            }
    return out


def verdicts_without_flagged(
    frame: pd.DataFrame, res: dict, specs, settings, reference=None
) -> list[dict]:
    """Each tested comparison recomputed without the flagged items, where the verdict changes.

    Parameters
    ----------
    frame : per-item frame with stats and ``hallucinated``.
    res : the run's result dict (its ``comparisons`` get a ``without_flagged`` entry and the
        flag ``verdict_changes_without_flagged_items`` where the verdict differs).
    specs : the tested metric specs.
    settings : the run's ``AuditSettings``.
    reference : the requested reference group (None: the run's reference).

    Returns
    -------
    list of dict
        One per changed comparison: metric, group, verdict, verdict_without_flagged, gap,
        gap_without_flagged, n_flagged_group, n_flagged_reference.
    """
    from ..stats import compare_groups

    specs = [s for s in specs if s.id not in _FLAG_METRICS]
    flagged = frame["hallucinated"].to_numpy(bool)
    if not specs or not flagged.any() or not res.get("comparisons"):
        return []
    rest = frame[~flagged].reset_index(drop=True)
    ref = res.get("reference") if reference is None else reference
    try:
        again = compare_groups(rest, specs, settings, reference=ref).to_dict()
    except ValueError as exc:
        for c in res["comparisons"]:
            if c["metric"] in {s.id for s in specs}:
                c["without_flagged"] = {"verdict": None, "reason": str(exc)}
        return [{"metric": None, "group": None, "reason": f"not recomputed: {exc}"}]
    by_key = {(c["metric"], c["group"]): c for c in again["comparisons"]}
    excluded = {e["group"]: e["reason"] for e in again.get("excluded", [])}
    n_flag = frame.loc[flagged, "group"].astype(str).value_counts().to_dict()
    changed = []
    for c in res["comparisons"]:
        if c["metric"] not in {s.id for s in specs}:
            continue
        c2 = by_key.get((c["metric"], c["group"]))
        entry = (
            {"verdict": None, "reason": excluded.get(c["group"], "not compared")}
            if c2 is None
            else {
                "verdict": c2["verdict"],
                "gap": c2["gap"],
                "ci_low": c2["ci_low"],
                "ci_high": c2["ci_high"],
                "p_adjusted": c2["p_adjusted"],
            }
        )
        entry["n_flagged_group"] = int(n_flag.get(str(c["group"]), 0))
        entry["n_flagged_reference"] = int(n_flag.get(str(c["reference"]), 0))
        c["without_flagged"] = entry
        if entry["verdict"] != c["verdict"]:
            c["flags"] = [*c.get("flags", []), "verdict_changes_without_flagged_items"]
            changed.append(
                {
                    "metric": c["metric"],
                    "group": c["group"],
                    "verdict": c["verdict"],
                    "verdict_without_flagged": entry["verdict"],
                    "gap": c["gap"],
                    "gap_without_flagged": entry.get("gap"),
                    "reason": entry.get("reason"),
                    "n_flagged_group": entry["n_flagged_group"],
                    "n_flagged_reference": entry["n_flagged_reference"],
                }
            )
    return changed


def _flag_counts(frame: pd.DataFrame) -> dict[str, dict]:
    from ..metrics.hallucination import FLAG_COLUMNS

    groups = frame["group"].astype(str)
    sums = frame[list(FLAG_COLUMNS)].groupby(groups, sort=True).sum()
    sizes = groups.value_counts()
    flagged = frame["hallucinated"].to_numpy(bool)
    ids = _item_ids(frame[flagged]).groupby(groups[flagged], sort=False).agg(list)
    out = {}
    for g in sums.index:
        row = {"n_items": int(sizes[g])}
        for c in FLAG_COLUMNS:
            row[c.removeprefix("hall_")] = int(sums.at[g, c])
        row["rate"] = row["hallucinated"] / row["n_items"] if row["n_items"] else None
        row["items"] = list(ids.get(g, []))
        out[g] = row
    return out


def pitfalls_block(frame: pd.DataFrame, res: dict, specs, settings, reference=None) -> dict:
    """The ``pitfalls`` block of an audit result (empty dict for non-transcription frames).

    Also writes, per group of ``res["groups"]``, ``wer_dominated_by`` (None or the
    :func:`dominant_items` entry), and per tested comparison ``without_flagged``.
    """
    from ..core.acoustics import VAD_SETTINGS
    from ..metrics.hallucination import HallucinationSettings

    if "hallucinated" not in frame.columns:
        return {}
    dom = dominant_items(frame)
    for g in res.get("groups", []):
        g["wer_dominated_by"] = dom.get(str(g["group"]))
    checked = "nonspeech_words" in frame.columns and frame["nonspeech_words"].notna().any()
    block = {
        "settings": {
            **HallucinationSettings().to_dict(),
            "dominance_min_errors": DOMINANCE_MIN_ERRORS,
            "dominance_share": DOMINANCE_SHARE,
            "vad": VAD_SETTINGS if checked else None,
        },
        "flags_checked": ["loop", "runaway"]
        + (["over_nonspeech"] if checked else [])
        + (["unstable"] if "hypothesis_sampled_a" in frame.columns else []),
        "n_flagged": int(frame["hallucinated"].sum()),
        "by_group": _flag_counts(frame),
        "wer_dominated": [{"group": g, **d} for g, d in dom.items()],
        "verdicts_without_flagged": verdicts_without_flagged(
            frame, res, specs, settings, reference
        ),
    }
    if not checked:
        block["not_checked"] = (
            "over_nonspeech: the backend gives no word times (or the audit had no audio)"
        )
    if "nonspeech_share" in frame.columns:
        share = pd.to_numeric(frame["nonspeech_share"], errors="coerce")
        block["nonspeech_share_by_group"] = {
            str(g): (float(v) if math.isfinite(v) else None)
            for g, v in share.groupby(frame["group"].astype(str)).mean().items()
        }
    return block
