"""The incremental run (docs/METHODS.md, "Incremental recognition") as one job: ``fairdesk incremental`` and the GUI's
Incremental tab both call :func:`run_incremental`.

A pure function with ``progress`` / ``cancelled`` callbacks (the pattern of
:mod:`fairdesk.jobs.tasks`): it opens its own connection to the project (or uses the one it
is given), chooses the items (by id, or by filters, groups and a sample), streams them through
the policies with each model, compares groups, and stores the result as an incremental run
(:mod:`fairdesk.incremental.store`). It returns an
:class:`~fairdesk.incremental.result.IncrementalResult`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["model_policies", "open_backend", "run_incremental"]


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


def model_policies(policies: Sequence[str], backend, model: str) -> list[str]:
    """The policies a model runs: ``native`` only for engines with their own partial results.

    Raises
    ------
    ValueError
        No policy is left for the model.
    """
    from fairdesk.incremental.native import NATIVE, supports_native

    if NATIVE in policies and not supports_native(backend):
        rest = [p for p in policies if p != NATIVE]
        if not rest:
            raise ValueError(
                f"model {model!r} has no native streaming; policy native needs an engine "
                "with partial results (pocketsphinx-en-us); add a re-decoding policy for it"
            )
        return rest
    return list(policies)


def _choose_items(project, dataset, item_ids, filters, by, sample, seed):
    """The dataset and its chosen items (by id, else by filters and a sample)."""
    from fairdesk.stats.slicing import slice_frame, stratified_sample

    ds = project.dataset(dataset)
    frame = project.items(ds, filters or {})
    if item_ids is not None:
        wanted = {str(i) for i in item_ids}
        frame = frame[frame["id"].astype(str).isin(wanted)]
        if frame.empty:
            raise ValueError(f"none of the chosen items is in dataset {dataset!r}")
    if frame.empty:
        raise ValueError(f"dataset {dataset!r} has no items (after the filters)")
    both = sorted(set(filters or {}) & set(by or []))
    if both:
        raise ValueError(f"column(s) {both} can't be both a filter and a grouping key")
    had_group = "group" in frame.columns
    if by:
        frame = slice_frame(frame, list(by))
    if sample:
        if sample < 1:
            raise ValueError("the sample must be at least 1 item")
        if by:
            frame = stratified_sample(frame, "group", sample, seed=seed)
        elif sample < len(frame):
            frame = frame.sample(n=sample, random_state=seed).sort_index()
    if by and not had_group:
        frame = frame.drop(columns=["group"])
    return ds, frame.reset_index(drop=True)


def run_incremental(
    project,
    dataset: str,
    models: Sequence[str] = ("whisper-tiny.en",),
    policies: Sequence[str] = ("concatenation",),
    chunk_s: float = 1.0,
    *,
    item_ids: Sequence[str] | None = None,
    filters: dict | None = None,
    by: Sequence[str] | None = None,
    sample: int | None = None,
    reference: str | None = None,
    metrics: Sequence[str] | None = None,
    settings=None,
    split: bool = False,
    options: dict | None = None,
    device: str = "cpu",
    threads: int | None = None,
    beam_size: int | None = None,
    keep_logs: bool = False,
    store: bool = True,
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
):
    """Stream chosen items of a dataset through the policies with each model; store the run.

    Parameters
    ----------
    project : the project folder (the job opens its own connection) or an open
        :class:`fairdesk.core.store.Project`.
    dataset : the dataset's name.
    models : model ids; each runs the policies it can (:func:`model_policies`).
    policies : policy names (:data:`fairdesk.incremental.ALL_POLICIES`).
    chunk_s : seconds per chunk (positive).
    item_ids : the items to stream (None: all, after ``filters`` and ``sample``).
    filters : column -> accepted values.
    by : one or two columns whose groups are compared (``groups`` of the result).
    sample : this many items (per group with ``by``, spread over speakers).
    reference : the reference group (default: the largest).
    metrics : metrics compared across groups (default
        :data:`fairdesk.incremental.DEFAULT_COMPARED`).
    settings : :class:`fairdesk.stats.settings.AuditSettings` of the comparisons and the
        sample's seed (default ``AuditSettings()``).
    split : split each recording on silence first and report per segment too.
    options : policy options by policy name.
    device, threads, beam_size : the decoder's (threads default: all cores).
    keep_logs : keep every update log in the result.
    store : store a run that has results in the project (``run_id`` of the result).
    progress : called with (fraction done, message).
    cancelled : checked between items and policies; True stops the run
        (:class:`fairdesk.core.progress.Cancelled`, nothing stored).

    Returns
    -------
    fairdesk.incremental.result.IncrementalResult
        ``run_id`` is None when not stored: ``store`` is False, or no item gave a result
        (then ``summary`` is empty and ``failures`` say why).

    Raises
    ------
    ValueError
        A bad chunk, metric, grouping or sample, no matching item, a model that cannot run
        its policies (``native`` without partial results), a decoder setting the model
        does not take.
    fairdesk.core.errors.StoreError
        No such project or dataset.
    """
    import pandas as pd

    from fairdesk.core.spans import load_row
    from fairdesk.core.store import Project
    from fairdesk.incremental import STAT_COLUMNS, evaluate, hardware, models_table, summarise
    from fairdesk.incremental import warm_up as warm
    from fairdesk.incremental.metrics import DEFAULT_COMPARED, INCREMENTAL_METRICS
    from fairdesk.incremental.result import IncrementalResult, ModelsTable
    from fairdesk.incremental.result_parts import (
        FailedItem,
        ModelDecoder,
        Timeline,
    )
    from fairdesk.incremental.run import compare_by_group
    from fairdesk.incremental.segment import SPLIT_SETTINGS
    from fairdesk.incremental.store import store_incremental
    from fairdesk.stats.settings import AuditSettings

    report = progress or (lambda *_: None)
    if not (isinstance(chunk_s, (int, float)) and math.isfinite(chunk_s) and chunk_s > 0):
        raise ValueError("the chunk must be a positive number of seconds")
    metrics = list(metrics or DEFAULT_COMPARED)
    bad = [m for m in metrics if m not in INCREMENTAL_METRICS]
    if bad:
        raise ValueError(f"unknown metric(s) {bad}; use: {', '.join(INCREMENTAL_METRICS)}")
    by = list(by or [])
    if len(by) > 2:
        raise ValueError("group by one or two columns")
    settings = settings or AuditSettings()
    models = list(dict.fromkeys(models))
    policies = list(dict.fromkeys(policies))
    if not models or not policies:
        raise ValueError("choose at least one model and one policy")
    own = not isinstance(project, Project)
    proj = Project(project, create=False) if own else project
    try:
        ds, items = _choose_items(
            proj, dataset, item_ids, filters, by, sample, getattr(settings, "seed", 0)
        )
        threads = threads or os.cpu_count() or 1
        dec_settings = {"beam_size": beam_size} if beam_size else {}
        records = items.to_dict("records")

        def load(item):
            return load_row(ds.root, item).samples

        frames, failures, timelines, segments, logs = [], [], [], [], []
        decoders: list[dict[str, Any]] = []
        fingerprints = {}
        for mi, model in enumerate(models):
            backend, used = open_backend(model, device, threads, **dec_settings)
            with backend:
                pols = model_policies(policies, backend, model)
                try:  # warm up on the first item's audio, silence when it cannot be read
                    first = load(records[0])
                except Exception:  # noqa: BLE001 - the item itself fails in evaluate
                    first = None
                warm_s = warm(backend, first)

                def step(done, n, msg, mi=mi, model=model):
                    report((mi + done / max(n, 1)) / len(models), f"{model} [{done}/{n}] {msg}")

                frame, fails, extras = evaluate(
                    backend,
                    records,
                    load,
                    pols,
                    chunk_s,
                    language=ds.language or "en",
                    options=options,
                    keep_logs=keep_logs,
                    progress=step,
                    model=model,
                    timelines=True,
                    split=split,
                    cancelled=cancelled,
                )
                decoder = {"model": model, **getattr(backend, "settings", {}), "cpu_threads": used}
                if any(p.startswith("local-agreement") for p in pols):
                    decoder["local_agreement_decode"] = getattr(
                        backend, "streaming_settings", "the backend's transcribe (no prompt)"
                    )
                decoders.append(
                    {"model": model, "policies": pols, "warm_up_s": warm_s, "decoder": decoder}
                )
                fingerprints[model] = getattr(backend, "fingerprint", model)
            frames.append(frame)
            failures += [{**f, "model": model} for f in fails]
            timelines += extras.timelines
            segments += extras.segments
            logs += [
                {"item": k[0], "model": model, "policy": k[1], **v} for k, v in extras.logs.items()
            ]
        # a model whose every item failed gives an empty frame: leave it out of the pooling
        kept = [f for f in frames if not f.empty]
        frame = pd.concat(kept, ignore_index=True) if kept else pd.DataFrame()
        summary = summarise(frame)
        groups = systems = None
        if by and not frame.empty:
            groups = compare_by_group(frame, by, settings, metrics, reference)
            if len(models) > 1:  # the models paired on the same items
                from fairdesk.incremental.pairing import compare_models_by_group

                systems = compare_models_by_group(frame, by, models, settings, metrics, reference)
        cols = [
            c
            for c in dict.fromkeys(
                ("id", "speaker_id", "content_id", *by, "model", "policy", "stream", "n_segments")
            )
            if c in frame.columns
        ]
        rows = (
            frame[cols + list(STAT_COLUMNS) + ["hypothesis"]].to_dict("records")
            if not frame.empty
            else []
        )
        chosen = {"items": sorted(map(str, item_ids))} if item_ids is not None else {}
        result = IncrementalResult(
            dataset=dataset,
            models=tuple(models),
            policies=tuple(policies),
            chunk_s=chunk_s,
            n_items=int(len(items)),
            summary=tuple(summary),
            table=ModelsTable.from_json(models_table(summary), summary),
            hardware=hardware(decoders[0]["decoder"]["cpu_threads"]),
            decoders=tuple(ModelDecoder.from_json(d) for d in decoders),
            settings={
                **settings.to_dict(),
                "by": by,
                "filters": dict(filters or {}),
                "sample": sample,
                "metrics": metrics,
                **chosen,
            },
            failures=tuple(FailedItem.from_json(f) for f in failures),
            items=tuple(rows),
            timelines=tuple(Timeline.from_json(t) for t in timelines),
            split={"vad": "silero (faster_whisper.vad)", **SPLIT_SETTINGS} if split else None,
            policy_options=dict(options or {}),
            groups=None if groups is None else tuple(groups),
            systems=tuple(systems) if systems else None,
            segments=tuple(segments) if split else None,
            logs=tuple(logs) if keep_logs else None,
        )
        if store and summary:
            result = result.with_run_id(store_incremental(proj, ds.id, result, fingerprints))
            report(1.0, f"stored as run {result.run_id}")
        else:
            report(1.0, "done" if summary else "no item gave a result: nothing stored")
        return result
    finally:
        if own:
            proj.close()
