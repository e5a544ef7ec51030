"""Run incremental evaluation on chosen items of a project and store it (the GUI's job).

A pure function with ``progress`` / ``cancelled`` callbacks (the pattern of
:mod:`fairdesk.gui.jobs`): it opens its own connection to the project, streams the items
through the policies with each model, and stores the result as an incremental run
(:mod:`fairdesk.incremental.store`), the same payload as ``fairdesk incremental``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

__all__ = ["open_backend", "run_on_items"]


def open_backend(model: str, device: str = "cpu", threads: int | None = None, **settings):
    """``get_backend(model, device, cpu_threads=threads, **settings)``; engines without a
    thread setting (PocketSphinx: its config rejects unknown keys) get none.

    Returns
    -------
    (backend, threads or None)
    """
    from fairdesk.models import get_backend

    try:
        return get_backend(model, device, cpu_threads=threads, **settings), threads
    except (TypeError, KeyError):
        if settings:
            raise ValueError(f"model {model!r} takes no setting {', '.join(settings)}") from None
        return get_backend(model, device), None


def run_on_items(
    folder,
    dataset: str,
    item_ids: Sequence[str],
    models: Sequence[str],
    policies: Sequence[str],
    chunk_s: float = 1.0,
    *,
    threads: int | None = None,
    progress: Callable[[float, str], None] = lambda *_: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> int:
    """Stream the items ``item_ids`` of ``dataset`` and store the run; returns its id.

    Raises
    ------
    ValueError
        For an unknown dataset, no matching item, or a model/policy that cannot run
        (``native`` on an engine without partial results).
    """
    import pandas as pd

    from fairdesk.core import audio as audio_io
    from fairdesk.core.store import Project
    from fairdesk.incremental import (
        STAT_COLUMNS,
        evaluate,
        hardware,
        models_table,
        summarise,
        warm_up,
    )
    from fairdesk.incremental.native import NATIVE, supports_native
    from fairdesk.incremental.store import store_incremental

    project = Project(folder, create=False)
    try:
        ds = project.dataset(dataset)
        frame = project.items(ds)
        wanted = {str(i) for i in item_ids}
        items = frame[frame["id"].astype(str).isin(wanted)].reset_index(drop=True)
        if items.empty:
            raise ValueError(f"none of the chosen items is in dataset {dataset!r}")
        threads = threads or os.cpu_count() or 1
        frames, timelines, failures, decoders, fps = [], [], [], [], {}
        total = len(models)
        for mi, model in enumerate(models):
            backend, used = open_backend(model, "cpu", threads)
            with backend:
                pols = [p for p in policies if p != NATIVE or supports_native(backend)]
                if not pols:
                    raise ValueError(
                        f"model {model!r} has no native streaming; pick a re-decoding policy"
                    )
                warm_s = warm_up(backend)

                def step(done, n, msg, mi=mi, model=model):
                    progress((mi + done / max(n, 1)) / total, f"{model}: {msg}")

                f, fails, extras = evaluate(
                    backend,
                    items.to_dict("records"),
                    lambda it: audio_io.load(ds.root / it["path"]).samples,
                    pols,
                    chunk_s,
                    language=ds.language or "en",
                    progress=step,
                    model=model,
                    timelines=True,
                    cancelled=cancelled,
                )
                decoders.append(
                    {
                        "model": model,
                        "policies": pols,
                        "warm_up_s": warm_s,
                        "decoder": {
                            "model": model,
                            **getattr(backend, "settings", {}),
                            "cpu_threads": used,
                        },
                    }
                )
                fps[model] = getattr(backend, "fingerprint", model)
            frames.append(f)
            timelines += extras.timelines
            failures += [{**x, "model": model} for x in fails]
        frame = pd.concat(frames, ignore_index=True)
        summary = summarise(frame)
        cols = [
            c
            for c in ("id", "speaker_id", "content_id", "model", "policy", "stream")
            if c in frame.columns
        ]
        res = {
            "dataset": dataset,
            "model": models[0],
            "models": list(models),
            "policies": list(policies),
            "chunk_s": chunk_s,
            "split": None,
            "policy_options": {},
            "hardware": hardware(threads),
            "decoder": decoders[0]["decoder"],
            "decoders": decoders,
            "n_items": int(len(items)),
            "summary": summary,
            "table": models_table(summary),
            "failures": failures,
            "settings": {"by": [], "filters": {}, "sample": None, "items": sorted(wanted)},
            "items": frame[cols + list(STAT_COLUMNS) + ["hypothesis"]].to_dict("records")
            if not frame.empty
            else [],
            "timelines": timelines,
        }
        run_id = store_incremental(project, ds.id, res, fps)
        progress(1.0, f"stored as run {run_id}")
        return run_id
    finally:
        project.close()
