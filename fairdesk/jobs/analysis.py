"""From the per-item frame to the statistics: shared by project audits and table audits."""

from __future__ import annotations

#: Metrics reported per group but not tested by default: they decompose a tested metric
#: (WER into S/D/I; TER into its parts; diacritic counts into RDD and net loss). Testing them
#: too would multiply the Holm family without a new question; ask with --metric to test them.
DESCRIPTIVE_BY_DEFAULT = frozenset({
    "sub_rate", "del_rate", "ins_rate", "insertion_ratio", "rdd", "diacritic_net_loss",
    "ter_dropped", "ter_hallucinated", "ter_wrong",
    # METHODS.md §2 hallucination flags: reported per group, tested only when asked for
    "hallucination_rate", "wer_unflagged",
})

#: Metric ids computed outside the per-item table (§5).
REPRESENTATION_IDS = frozenset({"silhouette", "leakage"})
#: Metric ids that need the explain stage (saliency); their per-item stat columns are
#: written by it (fairdesk.explain.stage), so they are per-item metrics once it ran.
GROUNDING_IDS = frozenset({"grounding_lift"})
GROUNDING_STATS = ("grounding_lift", "n_grounded")


def wants_explain(ids) -> bool:
    """Whether a ``--metric`` list asks for a grounding metric (switches explain on)."""
    return any(i in GROUNDING_IDS for i in (ids or ()))


def split_metric_ids(ids):
    """(per-item metric ids, wants representation) from a user's ``--metric`` list.

    Grounding ids stay in the per-item list (the explain stage adds their columns); use
    :func:`wants_explain` to switch the explain stage on for them.
    """
    if not ids:
        return None, False
    ids = list(dict.fromkeys(ids))
    rep = any(i in REPRESENTATION_IDS for i in ids)
    rest = [i for i in ids if i not in REPRESENTATION_IDS]
    return (rest or None), rep


def analyse(frame, settings, reference=None, wanted=None, language="en"):
    """Per-item metrics, every comparison, group values of every metric and confusions.

    Parameters
    ----------
    frame : the per-item audit frame with a ``group`` column (contract).
    settings : ``AuditSettings``.
    reference : reference group (None: the largest).
    wanted : metric ids to test (None: every metric the data supports, less
        :data:`DESCRIPTIVE_BY_DEFAULT`, which are reported per group only).
    language : transcript language (selects the normaliser).

    Returns
    -------
    (frame with the per-item stat columns, JSON-ready result dict)
    """
    from dataclasses import replace

    import pandas as pd

    from ..metrics import compute_item_stats, metric_specs
    from ..metrics.normalize import is_english
    from ..stats import compare_groups
    from .pitfalls import add_pitfall_columns, pitfalls_block

    name = settings.normaliser
    if name == "auto":
        name = "whisper-english" if is_english(language) else "whisper-basic"
        settings = replace(settings, normaliser=name)
    stats = compute_item_stats(frame, language=language, normalizer=name)
    frame, stats = add_pitfall_columns(frame, stats, name, language)
    grounding = [c for c in GROUNDING_STATS if c in frame.columns]
    if grounding:  # written by the explain stage
        stats = pd.concat([stats.reset_index(drop=True),
                           frame[grounding].astype(float).reset_index(drop=True)], axis=1)
    frame = frame.reset_index(drop=True)
    frame = pd.concat([frame.drop(columns=[c for c in stats.columns if c in frame.columns]),
                       stats.reset_index(drop=True)], axis=1)
    every = metric_specs(stats)
    if wanted:
        tested = metric_specs(stats, list(wanted))
    else:
        tested = [s for s in every if s.id not in DESCRIPTIVE_BY_DEFAULT] or every
    res = compare_groups(frame, tested, settings, reference=reference).to_dict()
    _add_group_values(res, frame, [s for s in every if s.id not in {t.id for t in tested}])
    res["tested_metrics"] = [s.id for s in tested]
    res["descriptive_metrics"] = [s.id for s in every if s.id not in res["tested_metrics"]]
    res.update(confusions(frame))
    res["pitfalls"] = pitfalls_block(frame, res, tested, settings, reference)
    return frame, res


def _add_group_values(res: dict, frame, specs) -> None:
    """Pooled value of each extra metric per group; every metric also as a top-level key."""
    import numpy as np

    for g in res.get("groups", []):
        values = g.setdefault("values", {})
        sub = frame[frame["group"].astype(str) == str(g["group"])]
        for s in specs:
            v = float(s.compute(sub[list(s.stats)].to_numpy(float).sum(axis=0)))
            values[s.id] = v if np.isfinite(v) else None
        for k, v in values.items():
            g.setdefault(k, v)


def confusions(f) -> dict:
    """Per-group confusion matrices of intents (NLU) and class labels (classifiers)."""
    from ..metrics import confusion_matrix

    out = {}
    for key, true_col, pred_col in (("intent_confusion", "ref_intent", "hyp_intent"),
                                    ("confusion", "label", "predicted_label")):
        if true_col in f.columns and pred_col in f.columns:
            mats = confusion_matrix(f, "group", true_col=true_col, pred_col=pred_col)
            out[key] = {str(g): {"true": [str(x) for x in m.index],
                                 "predicted": [str(x) for x in m.columns],
                                 "matrix": m.to_numpy().astype(int).tolist()}
                        for g, m in mats.items()}
    return out
