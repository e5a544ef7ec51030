"""Per-item statistics and pooled metrics of incremental recognition (docs/METHODS.md, "Incremental stability" and "Incremental latency and speed").

Every metric is a ratio of sums of per-item columns (:func:`item_stats`), so the corpus value
(:func:`pooled`) and each group's value are pooled, never a mean of per-utterance ratios, and
the group comparison reuses :func:`fairdesk.stats.compare_groups` with the
:data:`INCREMENTAL_METRICS` specs.

Definitions (sums over the items of the corpus or group)
---------------------------------------------------------
WER
    (S + D + I) / N of the final hypothesis against the reference, both through Whisper's
    English normaliser (jiwer alignment).
lat_pooled
    decode wall time / final words (tokens of the final list; model load and warm-up are never
    inside a decode's time).
lat_seed001
    Whetten et al.'s LAT: every update that decoded is a *prediction*; its time runs from its
    chunk's arrival (``arrival_s``) to the end of the decode that produced it (``end_s`` on
    the computation clock, so waiting behind earlier decodes counts), divided by the words
    the decode returned (``n_predicted``); averaged over the predictions of the corpus or
    group (each prediction weighs one). Predictions with zero words are skipped and counted
    (``n_pred_zero``).
EO
    R / (A + R), prefix counts; ``eo_edit`` the same with edit-distance counts.
RPS
    R / decode wall time (Whetten et al. 2023); ``revokes_per_audio_second`` = R / seconds of input audio.
SPR
    1 / RPS = decode wall time / R (infinite when R = 0).
RTF
    decode wall time / seconds of input audio.
revoke_update_share
    updates containing at least one (prefix) revoke / updates; ``_edit`` with edit counts.
final_word_latency
    per item: when the last word of the final list stops changing (the computation-clock time
    of the first update from which the whole final list is a stable prefix) minus the end of
    speech (the model's end time of the last final word; the clip's end without timings);
    averaged over the items that have a final word.
stabilisation_latency
    per final token: the computation-clock time from which it is stable (it and every token
    before it never change again) minus the end time of its word; averaged over final tokens.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from fairdesk.incremental.edits import count_stream, stable_from, tokens, word_tokens
from fairdesk.incremental.simulate import Simulation
from fairdesk.metrics.registry import METRICS, MetricSpec, ratio_metric
from fairdesk.metrics.text import word_counts

__all__ = [
    "DEFAULT_COMPARED",
    "INCREMENTAL_METRICS",
    "STAT_COLUMNS",
    "item_stats",
    "pooled",
    "seed001_lat",
    "stabilisation",
]

_INC = "incremental"

#: The per-item statistic columns :func:`item_stats` writes (all numeric, summable).
STAT_COLUMNS = (
    "n_updates",
    "n_decodes",
    "n_adds",
    "n_revokes",
    "n_updates_with_revoke",
    "n_adds_edit",
    "n_revokes_edit",
    "n_updates_with_revoke_edit",
    "n_final_words",
    "decode_s",
    "audio_s",
    "clock_s",
    "n_words",
    "n_sub",
    "n_del",
    "n_ins",
    "fwl_s",
    "n_fwl",
    "stab_s",
    "n_stab",
    "n_trims",
    "n_cuts",
    "n_cuts_inside_word",
    "n_cuts_forced",
    "n_straddled",
    "n_straddled_frozen",
    "lat_seed_sum",
    "n_lat_pred",
    "n_pred_zero",
)


def _specs() -> dict[str, MetricSpec]:
    specs = [
        METRICS["wer"],
        ratio_metric(
            "eo", "Edit overhead R/(A+R)", ("n_revokes",), ("n_adds", "n_revokes"), family=_INC
        ),
        ratio_metric(
            "eo_edit",
            "Edit overhead, edit-distance counts",
            ("n_revokes_edit",),
            ("n_adds_edit", "n_revokes_edit"),
            family=_INC,
        ),
        ratio_metric(
            "revokes_per_audio_second",
            "Revokes per second of input audio",
            ("n_revokes",),
            ("audio_s",),
            family=_INC,
        ),
        ratio_metric(
            "rps",
            "Revokes per second of decode time (RPS)",
            ("n_revokes",),
            ("decode_s",),
            family=_INC,
        ),
        ratio_metric(
            "lat_pooled",
            "Latency: decode seconds per final word",
            ("decode_s",),
            ("n_final_words",),
            family=_INC,
        ),
        ratio_metric(
            "lat_seed001",
            "LAT (Whetten et al.): mean seconds per word of a prediction",
            ("lat_seed_sum",),
            ("n_lat_pred",),
            family=_INC,
        ),
        ratio_metric("rtf", "Real-time factor", ("decode_s",), ("audio_s",), family=_INC),
        ratio_metric(
            "revoke_update_share",
            "Share of updates with a revoke",
            ("n_updates_with_revoke",),
            ("n_updates",),
            kind="proportion",
            family=_INC,
        ),
        ratio_metric(
            "final_word_latency", "Final-word latency (s)", ("fwl_s",), ("n_fwl",), family=_INC
        ),
        ratio_metric(
            "stabilisation_latency",
            "Per-word stabilisation latency (s)",
            ("stab_s",),
            ("n_stab",),
            family=_INC,
        ),
    ]
    return {s.id: s for s in specs}


#: Group metrics of incremental recognition, by id (``wer`` is the registry's own spec).
INCREMENTAL_METRICS: dict[str, MetricSpec] = _specs()

#: Metrics compared across groups by default.
DEFAULT_COMPARED = ("eo", "revokes_per_audio_second", "wer")


def stabilisation(sim: Simulation, stream: str = "displayed") -> tuple[list[float], list[float]]:
    """Per final token: (computation-clock time it became stable, end time of its word).

    Word end times missing from the model give the clip's duration.
    """
    lists = sim.stream(stream)
    if not lists:
        return [], []
    toks = [tokens(ws) for ws in lists]
    first = stable_from(toks)
    ends = [u.end_s for u in sim.updates]
    word_end = []
    for w, wt in zip(lists[-1], word_tokens(lists[-1])):
        e = sim.duration_s if w.end is None else float(w.end)
        word_end.extend([e] * len(wt))
    return [ends[u] for u in first], word_end


def seed001_lat(sim: Simulation) -> tuple[float, int, int]:
    """Whetten et al.'s LAT terms of one stream: (sum over predictions with words of
    (decode end - chunk arrival) / words, number of such predictions, zero-word predictions).
    """
    total, n, zero = 0.0, 0, 0
    for u in sim.updates:
        if u.span is None or u.n_predicted is None:
            continue
        if u.n_predicted == 0:
            zero += 1
            continue
        total += (u.end_s - u.arrival_s) / u.n_predicted
        n += 1
    return total, n, zero


def item_stats(
    sim: Simulation, reference: str, stream: str = "displayed", language: str = "en"
) -> dict:
    """The per-item statistic columns (:data:`STAT_COLUMNS`) of one simulated stream,
    plus ``hypothesis`` (the final text).

    Raises
    ------
    AssertionError
        When adds − revokes differs from the final token count (a bug).
    """
    counts = count_stream(sim.stream(stream))
    final = sim.stream(stream)[-1] if sim.updates else ()
    hyp = " ".join(w.text for w in final)
    wc = word_counts(reference, hyp, language=language)
    stab_t, word_end = stabilisation(sim, stream)
    lat = [s - e for s, e in zip(stab_t, word_end)]
    assert counts.n_adds - counts.n_revokes == len(counts.final_tokens) == len(lat)
    lat_sum, n_pred, n_zero = seed001_lat(sim)
    return {
        "n_updates": counts.n_updates,
        "n_decodes": sim.n_decodes,
        "n_adds": counts.n_adds,
        "n_revokes": counts.n_revokes,
        "n_updates_with_revoke": counts.n_updates_with_revoke,
        "n_adds_edit": sum(counts.adds_edit),
        "n_revokes_edit": sum(counts.revokes_edit),
        "n_updates_with_revoke_edit": counts.n_updates_with_revoke_edit,
        "n_final_words": len(counts.final_tokens),
        "decode_s": sim.decode_s,
        "audio_s": sim.duration_s,
        "clock_s": sim.updates[-1].end_s if sim.updates else 0.0,
        "n_words": wc.n_words,
        "n_sub": wc.n_sub,
        "n_del": wc.n_del,
        "n_ins": wc.n_ins,
        "fwl_s": lat[-1] if lat else 0.0,
        "n_fwl": 1 if lat else 0,
        "stab_s": float(sum(lat)),
        "n_stab": len(lat),
        "n_trims": sim.n_trims,
        "n_cuts": len(sim.cuts),
        "n_cuts_inside_word": sum(1 for c in sim.cuts if c.inside_word),
        "n_cuts_forced": sum(1 for c in sim.cuts if c.forced),
        "n_straddled": sum(c.n_straddled for c in sim.cuts),
        "n_straddled_frozen": sum(c.n_straddled_frozen for c in sim.cuts),
        "lat_seed_sum": lat_sum,
        "n_lat_pred": n_pred,
        "n_pred_zero": n_zero,
        "hypothesis": hyp,
    }


def _div(a: float, b: float) -> float:
    return a / b if b > 0 else math.nan


def pooled(frame: pd.DataFrame) -> dict:
    """Corpus-level metrics of a frame of :func:`item_stats` rows (one policy and stream).

    Returns a dict with ``wer``, ``lat_pooled``, ``lat_seed001``, ``eo``, ``eo_edit``, ``rps``, ``rps_edit``,
    ``spr`` (inf without revokes), ``revokes_per_audio_second``, ``rtf``,
    ``revoke_update_share`` (and ``_edit``), ``final_word_latency``,
    ``stabilisation_latency`` and the totals they come from.
    """
    s = {c: float(np.asarray(frame[c], dtype=float).sum()) for c in STAT_COLUMNS}
    out: dict[str, object] = {
        sid: float(spec.compute(np.array([s[c] for c in spec.stats])))
        for sid, spec in INCREMENTAL_METRICS.items()
    }
    out["rps_edit"] = _div(s["n_revokes_edit"], s["decode_s"])
    out["spr"] = math.inf if s["n_revokes"] == 0 else _div(s["decode_s"], s["n_revokes"])
    out["spr_edit"] = (
        math.inf if s["n_revokes_edit"] == 0 else _div(s["decode_s"], s["n_revokes_edit"])
    )
    out["revoke_update_share_edit"] = _div(s["n_updates_with_revoke_edit"], s["n_updates"])
    out["n_items"] = int(len(frame))
    out["totals"] = {
        c: (int(v) if float(v).is_integer() and not c.endswith(("_s", "_sum")) else v)
        for c, v in s.items()
    }
    return out
