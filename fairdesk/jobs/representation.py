"""Representation stage (docs/METHODS.md, "Representation"): one embedding per item, silhouette and leakage.

Embeddings are cached in the project store by (audio content hash, model key).
"""

from __future__ import annotations

import time

import numpy as np

from ..core.caches import lookup_embeddings, save_embeddings
from ..core.spans import item_spans
from .shards import embed_audio, load_shard_audio


def item_embeddings(
    project, prep, frame, prog, batch: int = 8, req=None
) -> tuple[np.ndarray, np.ndarray]:
    """Embeddings of the frame's items (rows that failed are dropped); returns (X, row mask).

    Cached embeddings are read first; the missing ones are computed in batches of ``batch``
    items, here or, when ``req.engine`` is ``ray``, on the cluster's model actors
    (:func:`~.engines.run_remote`), and each batch is stored as it finishes.
    """
    backend = prep.backend
    if "embed" not in getattr(backend, "capabilities", set()):
        raise ValueError(
            f"model {backend.id} gives no embeddings; representation metrics "
            "need a model with an encoder (whisper-tiny.en or hf:<folder>)"
        )
    key = prep.model_key
    hashes = list(frame["audio_hash"])
    have = lookup_embeddings(project, key, hashes)
    todo = [i for i, h in enumerate(hashes) if h not in have]
    started = time.monotonic()
    root = prep.dataset.root
    paths = frame["path"]
    spans = item_spans(frame)
    batches = [
        [(i, hashes[i], str(paths.iloc[i]), spans[i]) for i in todo[s : s + batch]]
        for s in range(0, len(todo), batch)
    ]
    done = [0]

    def commit(results):  # one finished batch: (row, vector or None for unreadable audio)
        got = [(i, v) for i, v in results if v is not None]
        if got:
            save_embeddings(project, key, [(hashes[i], v) for i, v in got])
            for i, v in got:
                have[hashes[i]] = v
        done[0] += len(results)
        prog.items(done[0], len(todo), started, "embedded")

    if batches and req is not None and req.engine != "local":
        from .engines import run_remote

        run_remote(req, prep, batches, commit, prog.cancelled, kind="embed")
    else:
        for rows in batches:
            prog.check()
            commit(embed_audio(backend, load_shard_audio(root, rows)))
    mask = np.array([h in have for h in hashes])
    X = np.stack([have[h] for h, m in zip(hashes, mask) if m]) if mask.any() else np.zeros((0, 0))
    return X, mask


def representation_block(project, prep, frame, run, req, prog) -> dict:
    """Silhouette, leakage and the per-metric case labels, as a JSON-ready dict (``run``:
    the run's ``AuditRun``, its excluded groups and verdicts)."""
    from ..stats.representation import representation_analysis

    X, mask = item_embeddings(project, prep, frame, prog, req=req)
    excluded = {g.group for g in run.groups if not g.compared}  # and the no-value row
    groups = frame["group"].astype(str).to_numpy()
    keep = mask.copy()
    keep[mask] = ~np.isin(groups[mask], list(excluded))
    X = X[~np.isin(groups[mask], list(excluded))]
    sub = frame[keep].reset_index(drop=True)
    if len(set(sub["group"])) < 2:
        return {"error": "representation metrics need at least two analysed groups"}
    disparity: dict[str, bool] = {}
    for c in run.comparisons:
        disparity[c.metric] = disparity.get(c.metric, False) or (c.verdict == "disparity_detected")
    speakers = sub["speaker_id"].to_numpy() if "speaker_id" in sub else None
    try:
        rep = representation_analysis(
            X,
            sub["group"].astype(str).to_numpy(),
            speakers,
            disparity=disparity,
            threshold=req.settings.structure_threshold,
            seed=req.settings.seed,
        )
    except (ValueError, np.linalg.LinAlgError) as exc:
        # The probe degrades; it never sinks the audit whose statistics are computed.
        return {
            "skipped": f"representation metrics not computed: {exc}",
            "n_items": int(len(sub)),
            "model_key": prep.model_key,
        }
    out = rep.to_dict()
    out["n_items"] = int(len(sub))
    out["model_key"] = prep.model_key
    return out
