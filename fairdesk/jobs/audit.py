"""The four-stage audit job (docs/METHODS.md, "Jobs and caching"): prepare → infer → explain → aggregate.

Pure code: it takes ``progress(fraction, message)`` and ``cancelled()`` callbacks, checks for
cancellation between shards, records each failed item with its reason and goes on, and keeps
every finished prediction in the project's cache, so a cancelled or crashed job resumes
without redoing finished items. An identical request is answered from the stored results.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace
from typing import TYPE_CHECKING

from .._meta import __version__
from ..core import run_items, runs
from ..core.dataset_sets import (
    check_by_columns,
    job_paths,
    open_set,
    set_items,
)
from ..core.errors import FairdeskError
from ..core.progress import Cancelled, Progress
from ..core.rehash import refresh_frame
from ..core.spans import item_spans
from ..core.store import Project
from ..stats.notices import notice
from .acoustic_stage import add_acoustics
from .prediction_keys import prediction_keys
from .prepared import Prepared
from .reference_text import choose_references
from .request import AuditOutcome, AuditRequest, with_settings  # noqa: F401 - re-exported
from .result import AuditRun
from .result_codec import canonical
from .result_parts import Acoustics, Counts, InputProblem, ItemFailure, PredictionProblem
from .run_notes import (
    ACOUSTICS_FAILURES,
    ACOUSTICS_UNAVAILABLE,
    ALL_FAILED,
    DEVICE_FALLBACK,
    EXPLAIN_FAILURES,
    INPUT_PROBLEMS,
    NLU_INTENTS_UNKNOWN,
    NLU_USED,
    PREDICTION_PROBLEMS,
    set_notes,
)
from .run_settings import METRICS_CODE_VERSION
from .run_settings import run_settings as _run_settings
from .shards import _predict_shard, load_shard_audio, predict_audio  # noqa: F401

if TYPE_CHECKING:
    import pandas as pd

    from ..stats.notices import Notice

__all__ = ["AuditRequest", "AuditOutcome", "Cancelled", "run_audit", "prepare"]


# -- prepare ---------------------------------------------------------------------------
def _load_backend(req: AuditRequest):
    from ..models import get_backend

    try:
        return get_backend(req.model, device=req.device)
    except FairdeskError:
        raise
    except (OSError, ValueError, TypeError, RuntimeError) as exc:
        # A missing file or folder, an unreadable model: a usage error naming the model.
        filename = getattr(exc, "filename", None)
        msg = (
            str(exc)
            if isinstance(exc, (ValueError, TypeError)) or not filename
            else f"{filename}: {getattr(exc, 'strerror', None)}"
        )
        raise FairdeskError(
            f"--model {req.model}: {msg}; check the path after the prefix "
            "(`fairdesk models` lists what can run here)"
        ) from None


def prepare(project: Project, req: AuditRequest, backend=None) -> Prepared:
    """Select, slice and sample the items; compute the cache keys (no inference)."""
    from ..core.acoustics import VAD_SETTINGS
    from ..stats.slicing import check_run_cap, slice_frame, stratified_sample

    if not req.by:
        raise FairdeskError("give at least one grouping column (--by COL)")
    if len(req.by) > 2:
        raise FairdeskError("at most two grouping columns (--by COL [--by COL2])")
    dset = open_set(project, req.dataset_names)
    ds = dset.first
    items = set_items(project, dset, req.filters_dict())
    if items.empty:
        raise FairdeskError(f"no items in {dset.said} match the filters")
    items = refresh_frame(project, items)  # audio changed under its name: hashed again
    refs = choose_references(project, items, req.reference_text)
    items = refs.items
    check_by_columns(items, req.by, dset)
    frame = slice_frame(items, list(req.by), {}, include_missing=req.settings.include_missing)
    if req.sample:
        frame = stratified_sample(frame, "group", int(req.sample), seed=req.settings.seed)
    check_run_cap(frame, req.settings.max_items)
    frame = frame.reset_index(drop=True)
    given = backend is not None
    backend = backend if given else _load_backend(req)  # a bad model: first
    _check_groups(frame, req)  # minimums and --reference are known before the model runs
    model_key = f"{backend.id}@{backend.fingerprint}"
    explain = None
    if req.wants_explain:
        from .explain_stage import STAGE_SETTINGS, check_explain_backend

        if int(req.explain_per_group) < 1:
            raise FairdeskError(
                f"explain_per_group must be at least 1, not {req.explain_per_group}"
            )
        check_explain_backend(backend, req.explain_method)
        explain = {
            "per_group": int(req.explain_per_group),
            "method": req.explain_method,
            "stage": STAGE_SETTINGS,
        }
    h = hashlib.sha256()
    hashed = {
        "v": __version__,
        "metrics_code": METRICS_CODE_VERSION,
        "model": model_key,
        "dataset_language": ds.language,
        "by": list(req.by),
        "filters": req.filters_dict(),
        "reference": req.reference,
        "metrics": list(req.metrics) if req.metrics else None,
        "sample": req.sample,
        "nlu": req.nlu,
        "representation": req.representation,
        "settings": req.settings.to_dict(),
        "vad": VAD_SETTINGS,
    }
    if explain is not None:  # only when on, so results cached before the explain stage stay valid
        hashed["explain"] = explain
    if req.unstable:
        from .unstable_stage import UNSTABLE_TEMPERATURE, can_sample

        if not can_sample(backend):
            raise FairdeskError(
                f"model {req.model!r} cannot sample decodes, so the unstable "
                "flag cannot be checked; drop --unstable or use a "
                "faster-whisper model (whisper-tiny.en, ct2:<folder>)"
            )
        hashed["unstable"] = {"temperature": UNSTABLE_TEMPERATURE}
    if req.model_based:  # only when on, so results cached before it stay valid
        from .model_based import ITEM_COVARIATES

        unknown = [c for c in req.covariates if c not in ITEM_COVARIATES and c not in frame.columns]
        if unknown:
            raise FairdeskError(
                f"unknown covariate(s) {unknown}: name per-item covariates "
                f"({', '.join(ITEM_COVARIATES)}) or metadata columns"
            )
        hashed["model_based"] = {"covariates": list(req.covariates)}
    elif req.covariates:
        raise FairdeskError("covariates belong to the model-based analysis (--model-based)")
    if dset.several:  # only then, so that one dataset's runs keep their keys
        hashed["datasets"] = list(dset.names)
    if req.reference_text != "latest":  # only then, so that the runs before keep their keys
        hashed["reference_text"] = req.reference_text
    h.update(json.dumps(hashed, sort_keys=True).encode())
    # Every per-item input of the statistics: a corrected transcript or label gives a new key.
    labels = [c for c in ("intent", "slots", "label") if c in frame.columns]
    if "text_versions" in frame.columns:  # resample: every version is an input
        labels.append("text_versions")
    for row in zip(
        frame["id"], frame["audio_hash"], frame["group"], frame["text"], *(frame[c] for c in labels)
    ):
        h.update(("\0".join(map(str, row)) + "\n").encode())
    frame = job_paths(frame, dset)  # several datasets: each item read from its own root
    return Prepared(
        frame,
        ds,
        backend,
        model_key,
        h.hexdigest(),
        given,
        dset,
        refs.problems,
        refs.notes,
    )


def _check_groups(frame, req: AuditRequest) -> None:
    from ..stats.minimums import MinimumsRefused, check_groups_before_inference
    from ..stats.slicing import missing_groups

    include = req.settings.include_missing
    rows = frame["group"].astype(str)
    if not include:  # the items with no grouping value are no group (a descriptive row)
        rows = rows[~rows.isin(missing_groups(frame))]
    if rows.nunique() < 2:  # one group: described, nothing compared
        return
    try:
        check_groups_before_inference(
            frame,
            "group",
            req.settings.min_items,
            req.settings.min_speakers,
            req.reference,
            include_missing=include,
        )
    except MinimumsRefused:
        raise  # typed: its shortfall holds the table the GUI shows (the text is the CLI's)
    except ValueError as exc:
        raise FairdeskError(str(exc)) from None


# -- infer -----------------------------------------------------------------------------
def infer(project: Project, prep: Prepared, req: AuditRequest, prog: Progress, run_id: int):
    """Fill the prediction cache for every item of the frame; returns failures by row."""
    frame = prep.frame
    cached = run_items.lookup_predictions(project, prep.model_key, list(frame["audio_hash"]))
    preds: dict[int, dict] = {}
    todo = []
    spans = item_spans(frame)
    lookup = getattr(prep.backend, "lookup", None)
    paths = _rel_paths(frame) if lookup is not None else frame["path"]  # a file names them
    # several datasets: items are <dataset>/<key>; a file keyed by plain keys still fits
    keys, failures, hint = prediction_keys(prep, frame, project.folder, lookup is not None)
    for idx, (key, rel, ah) in enumerate(zip(keys, paths, frame["audio_hash"])):
        if idx in failures:
            continue
        if lookup is None and ah in cached:
            preds[idx] = cached[ah]
        else:
            todo.append((idx, key, rel, spans[idx]))
    n_total, n_cached = len(frame), len(preds)
    bind = getattr(prep.backend, "bind", None)
    if bind is not None:  # imported predictions: ambiguous keys are found before any lookup
        bind(list(zip(map(str, keys), _rel_paths(frame))))
    done = [0]
    started = time.monotonic()

    def commit(results):  # this thread alone writes the store, one shard at a time
        results = hint(results)
        run_items.store_shard(project, run_id, prep.model_key, frame, results)
        for idx, pred, reason in results:
            if pred is None:
                failures[idx] = reason
            else:
                preds[idx] = pred
        done[0] += len(results)
        prog.items(done[0], len(todo), started, "transcribed")

    if failures:  # refused before any lookup: stored as failures
        run_items.store_shard(
            project, run_id, prep.model_key, frame, [(i, None, r) for i, r in failures.items()]
        )

    if todo and req.engine != "local":
        from .engines import run_remote

        shards = [todo[i : i + req.shard_size] for i in range(0, len(todo), req.shard_size)]
        run_remote(req, prep, shards, commit, prog.cancelled)
    elif todo:
        shards = [todo[i : i + req.shard_size] for i in range(0, len(todo), req.shard_size)]
        workers = req.workers or getattr(prep.backend, "preferred_workers", 1) or 1
        root = prep.dataset.root
        with ThreadPoolExecutor(max_workers=workers) as pool:
            pending: set[Future] = set()
            it = iter(shards)
            try:
                while True:
                    while len(pending) < workers * 2:
                        if prog.cancelled():
                            break
                        shard = next(it, None)
                        if shard is None:
                            break
                        pending.add(pool.submit(_predict_shard, prep.backend, root, shard))
                    if not pending:
                        break
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    # finished shards are stored before a failed one raises (Ctrl-C)
                    for fut in sorted(finished, key=lambda f: f.exception() is not None):
                        commit(fut.result())
                    if prog.cancelled():
                        for fut in pending:
                            fut.cancel()
                        wait(pending)
                        for fut in pending:
                            if not fut.cancelled():
                                run_items.store_shard(
                                    project, run_id, prep.model_key, frame, fut.result()
                                )
                        raise Cancelled("cancelled by the user")
            except BaseException:  # Ctrl-C included: queued shards never start
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    return preds, failures, {"n_items": n_total, "n_cached": n_cached, "n_inferred": len(todo)}


# -- aggregate -------------------------------------------------------------------------
def analysis_frame(frame, preds: dict[int, dict]):
    """Join the predictions to the items: the per-item audit frame of the contract."""
    import pandas as pd

    rows = sorted(preds)
    f = frame.iloc[rows].copy()
    f["item_id"] = f["id"].astype(str)
    f["reference"] = f["text"]
    f["hypothesis"] = [preds[i].get("text") or "" for i in rows]
    f["confidence_model"] = [preds[i].get("confidence") for i in rows]
    extra = [preds[i].get("extra") or {} for i in rows]
    for name in ("intent", "slots", "label"):
        vals = [e.get(name) for e in extra]
        if any(v is not None for v in vals):
            f[{"intent": "hyp_intent", "slots": "hyp_slots", "label": "predicted_label"}[name]] = (
                vals
            )
    if "predicted_label" in f.columns and "label" not in f.columns:
        for alt in ("class", "emotion"):
            if alt in f.columns:
                f["label"] = f[alt]
                break
    if "predicted_label" in f.columns:
        f["confidence"] = [
            e.get("confidence", preds[i].get("confidence")) for e, i in zip(extra, rows)
        ]
    if "intent" in f.columns:
        f["ref_intent"] = f["intent"]
        f["ref_slots"] = f["slots"] if "slots" in f.columns else [{}] * len(f)
    return pd.DataFrame(f).reset_index(drop=True)


def _apply_nlu(f, req: AuditRequest, notes: list[Notice]):
    """Parse hypotheses into intents and slots when the dataset has intent labels."""
    if "ref_intent" not in f.columns or "hyp_intent" in f.columns or req.nlu == "none":
        return f
    from ..nlu import get_nlu

    spec = req.nlu
    if spec == "auto":
        nlu = get_nlu("demo-music")
        known = set(getattr(nlu, "intents", []) or [])
        ref = set(f["ref_intent"].dropna().astype(str))
        if known and not ref <= known:
            notes.append(notice(NLU_INTENTS_UNKNOWN))
            return f
    else:
        nlu = get_nlu(spec)
    from ..nlu import parse_frame

    parsed = parse_frame(nlu, f)
    f = f.copy()
    f["hyp_intent"] = parsed["hyp_intent"].to_numpy()
    f["hyp_slots"] = parsed["hyp_slots"].to_numpy()
    notes.append(notice(NLU_USED, nlu=str(nlu.id)))
    return f


def aggregate(
    f, req: AuditRequest, language: str, notes: list[Notice]
) -> tuple[pd.DataFrame, AuditRun]:
    """Per-item metrics and every comparison; returns (frame with stats, typed run)."""
    from .analysis import analyse

    f = _apply_nlu(f, req, notes)
    f, run = analyse(
        f, req.settings, reference=req.reference, wanted=req.metrics, language=language
    )
    notes.extend(run.warnings)
    if run.input_problems:
        notes.append(notice(INPUT_PROBLEMS, n=len(run.input_problems)))
    return f, run


# -- the job -----------------------------------------------------------------------------
def run_audit(
    project: Project,
    req: AuditRequest,
    progress: Callable | None = None,
    cancelled: Callable[[], bool] | None = None,
    backend=None,
    use_result_cache: bool = True,
    aligner=None,
) -> AuditOutcome:
    """Run the whole audit. Raises :class:`Cancelled` when cancelled (state consistent).

    ``aligner`` (tests, or a caller holding one) replaces the explain stage's default
    whisper-tiny.en forced aligner (:class:`fairdesk.explain.alignment.WhisperAligner`).
    """
    prog = Progress(progress, cancelled)
    t0 = time.monotonic()
    prog.stage(0.0, 0.05, "preparing")
    prep = prepare(project, req, backend)
    prog.check()
    timings = {"prepare_s": time.monotonic() - t0}
    if use_result_cache:
        hit = runs.lookup_result(project, prep.request_hash)
        if hit is not None:
            run_id, payload = hit
            timings["total_s"] = time.monotonic() - t0
            prog.stage(1.0, 1.0, "answered from the cache")
            run = replace(
                AuditRun.from_json(payload),
                from_cache=True,
                timings=dict(timings),
                cached_from_run=run_id,
            )
            return AuditOutcome(run_id, req, None, run.failures, run, True, timings)
    run_id, lock = runs.start_run(project, prep, req)
    try:
        prog.stage(0.05, 0.80, "inference")
        t1 = time.monotonic()
        preds, failures, counts = infer(project, prep, req, prog, run_id)
        timings["infer_s"] = time.monotonic() - t1
        prog.check()
        f = analysis_frame(prep.frame, preds)
        notes: list[Notice] = list(prep.reference_notes)
        notes.extend(set_notes(prep.frame, prep.dataset_set))
        gpu = getattr(prep.backend, "device_fallback", None)
        if gpu:  # --device auto on the CPU from a GPU that does not work
            notes.append(notice(DEVICE_FALLBACK, library=gpu[0], why=gpu[1]))
        fails = tuple(
            ItemFailure(
                item=str(prep.frame["id"].iloc[i]), path=str(prep.frame["path"].iloc[i]), reason=r
            )
            for i, r in sorted(failures.items())
        )
        if f.empty:
            return _all_failed(project, prep, req, run_id, fails, counts, timings, t0)
        prog.stage(0.80, 0.82, "acoustic covariates")
        f, acoustics = add_acoustics(f, preds, prep.dataset.root, prog)
        if req.unstable:
            from .unstable_stage import add_sampled_decodes

            prog.stage(0.82, 0.88, "sampled decodes (unstable flag)")
            f, acoustics["unstable"] = add_sampled_decodes(f, prep.backend, prep.dataset.root, prog)
        explain_block = None
        if req.wants_explain:
            prog.stage(0.88, 0.95, "explain")
            t_x = time.monotonic()
            f, explain_block = _explain(project, prep, f, req, prog, aligner)
            timings["explain_s"] = time.monotonic() - t_x
            prog.check()
        else:
            prog.stage(0.88, 0.95, "explain (not requested)")
        prog.stage(0.95, 1.0, "statistics")
        t2 = time.monotonic()
        f, run = aggregate(f, req, prep.dataset.language, notes)
        if prep.reference_problems:  # the items --reference-text left out, each with why
            run = replace(
                run,
                input_problems=run.input_problems
                + canonical(list(prep.reference_problems), tuple[InputProblem, ...]),
            )
        parts: dict = {}
        if (
            "n_words" in f.columns
        ):  # phone-level annotations (L2-ARCTIC), docs/METHODS.md, "Phone confusions" and "Accentedness regression"
            from .phone_stage import annotation_blocks

            parts.update(
                annotation_blocks(project, f, reference=run.reference, alpha=req.settings.alpha)
            )
        if acoustics["failures"] or acoustics.get("unavailable"):
            notes.append(
                notice(ACOUSTICS_UNAVAILABLE, text=acoustics["unavailable"])
                if acoustics.get("unavailable")
                else notice(ACOUSTICS_FAILURES, n=len(acoustics["failures"]))
            )
        if explain_block is not None:
            from .result_blocks import Explain

            parts["explain"] = canonical(explain_block, Explain)
            if explain_block["failures"]:
                notes.append(notice(EXPLAIN_FAILURES, n=len(explain_block["failures"])))
        if req.representation:
            from .representation import representation_block
            from .result_blocks import Representation

            parts["representation"] = canonical(
                representation_block(project, prep, f, run, req, prog), Representation
            )
        if req.model_based:
            from .model_based import model_based_block
            from .result_parts import ModelBasedFit

            parts["model_based"] = canonical(
                model_based_block(f, run, req.by, req.covariates), dict[str, ModelBasedFit]
            )
        timings["aggregate_s"] = time.monotonic() - t2
        if run.timings and "plan_s" in run.timings:  # the recording plan's share of it
            timings["plan_s"] = run.timings["plan_s"]
        probs = _prediction_problems(prep.backend)
        if probs:
            notes.append(notice(PREDICTION_PROBLEMS, n=len(probs)))
        timings["total_s"] = time.monotonic() - t0
        run = replace(
            run,
            acoustics=canonical(acoustics, Acoustics),
            **parts,
            run_id=run_id,
            dataset=req.dataset,
            model=req.model,
            model_key=prep.model_key,
            device=getattr(prep.backend, "device", "cpu"),
            by=tuple(req.by),
            failures=fails,
            notes=tuple(notes),
            counts=canonical(counts, Counts),
            from_cache=False,
            prediction_problems=probs,
            run_settings=_run_settings(req, prep),
            timings=dict(timings),
        )
        if run.plan is not None and req.sample:  # a sampled pilot: "audit every item first"
            from .plan_run import with_sample

            run = replace(run, plan=with_sample(project, run, run.plan))
        runs.finish_run(project, run_id, prep.request_hash, run.to_json(), items=_item_records(f))
        prog.stage(1.0, 1.0, "done")
        return AuditOutcome(run_id, req, f, fails, run, False, timings)
    except (Cancelled, KeyboardInterrupt):  # Ctrl-C is a cancel: what finished is cached
        runs.mark_run(project, run_id, "cancelled")
        raise
    except BaseException:
        runs.mark_run(project, run_id, "failed")
        raise
    finally:
        lock.release()


def _all_failed(project, prep, req, run_id, fails, counts, timings, t0) -> AuditOutcome:
    """Every item failed: the run is stored ``failed`` with its failures (never answered
    from the result cache) and the result lists them; no statistics."""
    timings["total_s"] = time.monotonic() - t0
    run = AuditRun(
        run_id=run_id,
        dataset=req.dataset,
        model=req.model,
        model_key=prep.model_key,
        by=tuple(req.by),
        failures=fails,
        counts=canonical(counts, Counts),
        from_cache=False,
        notes=(notice(ALL_FAILED, n=len(fails)),),
        run_settings=_run_settings(req, prep),
        timings=dict(timings),
        prediction_problems=_prediction_problems(prep.backend),
    )
    runs.finish_run(project, run_id, prep.request_hash, run.to_json(), status="failed")
    return AuditOutcome(run_id, req, None, fails, run, False, timings)


def _prediction_problems(backend) -> tuple | None:
    """The rows an imported predictions file refused or flagged (None: none)."""
    probs = getattr(backend, "problems", None)
    if not probs:
        return None
    rows = [p.__dict__ if hasattr(p, "__dict__") else p for p in probs]
    return canonical(rows, tuple[PredictionProblem, ...])


def _explain(project, prep, f, req, prog, aligner):
    """The explain stage: per-item ``grounding_lift`` and ``n_grounded`` columns + block."""
    from .engines import run_remote
    from .explain_stage import explain_stage

    lifts, grounded, block = explain_stage(
        project,
        prep,
        f,
        req,
        prog,
        aligner=aligner,
        run_remote=run_remote if req.engine != "local" else None,
    )
    f = f.copy()
    f["grounding_lift"] = lifts
    f["n_grounded"] = grounded
    return f, block


def _item_records(f) -> list[dict]:
    """Per-item rows kept with the run (metadata, texts, predictions, per-item stats)."""
    drop = {"db_id", "audio_hash", "sample_rate", "channels", "text", "rel_path"}
    f = f.assign(path=_rel_paths(f))  # several datasets: relative to its dataset's root
    cols = [c for c in f.columns if c not in drop]
    return f[cols].to_dict(orient="records")


def _rel_paths(frame):
    """The items' audio paths relative to their dataset's root (what a predictions file
    names)."""
    return frame["rel_path"] if "rel_path" in frame.columns else frame["path"]
