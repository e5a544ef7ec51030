"""The audit's explain stage (docs/METHODS.md, "Saliency grounding" and "Jobs and caching"): saliency on the speaker-balanced sample.

For every group that passes the minimums,
:func:`~fairdesk.explain.grounding.explain_sample` picks ``explain_per_group`` items
(default 12) spread over speakers and aligned on content. For each sampled item:

1. the saliency curve of the reference transcript's log-probability under the audited model
   (``explain_method``: occlusion by default), looked up in / written to the ``saliency``
   cache table by (audio hash, model key, target hash, method key);
2. the target regions: the item's annotated error windows when it has any
   (:data:`~fairdesk.explain.grounding.ERROR_KINDS`), else the reference word spans from
   :class:`~fairdesk.explain.alignment.WhisperAligner` (cached in the curve's ``meta``);
3. its grounding lift;
4. where the target is annotated error windows, phone-error grounding (docs/METHODS.md, "Representation"):
   AUROC and average precision of the saliency for the frames inside the windows, overall
   and within speech frames only (the audit's Silero VAD regions, ``speech_regions``; the
   energy VAD of :func:`~fairdesk.explain.grounding.energy_vad` when the frame has none),
   summarised per group as the mean over its items (:func:`phone_grounding_summary`).

Every other item gets lift 0 and ``n_grounded`` 0, so the metric ``grounding_lift`` =
Σ lift / Σ n_grounded is the mean lift of the explained items of a group. An item whose
saliency cannot be computed (unreadable audio, a clip over the model's window, a model
error) or whose lift is undefined is listed under ``failures`` with the reason and is not
grounded; the job goes on.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection
from typing import Any, TypedDict

import numpy as np

from ..core.errors import AudioError, Cancelled, FairdeskError
from ..core.jsonio import json_number, jsonable
from ..core.spans import load_row
from ..explain import store
from ..explain.grounding import (
    ERROR_KINDS,
    energy_vad,
    explain_sample,
    frames_in_regions,
    grounding_lift,
    phone_error_grounding,
)
from ..explain.saliency import (
    DEFAULT_FRAME_S,
    DEFAULT_STEPS,
    DEFAULT_WINDOW_S,
    GRADIENT_METHODS,
    METHODS,
    compute_saliency,
    is_differentiable,
    method_key,
    method_params,
)


class StageSettings(TypedDict):
    """The explain stage's fixed saliency settings (:data:`STAGE_SETTINGS`)."""

    window_s: float
    stride_s: float
    mask: str
    steps: int
    frame_s: float


#: Settings of the explain stage that are not request fields (recorded with every result
#: and part of the saliency cache key through the method key).
STAGE_SETTINGS: StageSettings = {
    "window_s": DEFAULT_WINDOW_S,
    "stride_s": DEFAULT_WINDOW_S,
    "mask": "zero",
    "steps": DEFAULT_STEPS,
    "frame_s": DEFAULT_FRAME_S,
}


#: The item view's first, coarse curve (docs/METHODS.md, "Coarse curve first"): occlusion
#: with 0.5 s windows every 0.5 s, cached under its own method key, shown labelled "coarse"
#: until the exact curve (:data:`STAGE_SETTINGS`) replaces it. Never used by the audit's
#: grounding statistics, which look up the exact key only.
COARSE_WINDOW_S = 0.5


def stage_method_key(method: str, *, coarse: bool = False) -> str:
    """The cache's method key of the audit's explain stage for ``method`` (with
    ``coarse``: the item view's coarse occlusion curve, :data:`COARSE_WINDOW_S`)."""
    s = STAGE_SETTINGS
    window = COARSE_WINDOW_S if coarse else s["window_s"]
    stride = COARSE_WINDOW_S if coarse else s["stride_s"]
    if coarse and method != "occlusion":
        raise ValueError(f"the coarse curve is an occlusion curve, not {method!r}")
    params = method_params(
        method, window_s=window, stride_s=stride, mask=s["mask"], steps=s["steps"]
    )
    return method_key(method, frame_s=s["frame_s"], **params)


def is_coarse_key(key: str) -> bool:
    """Whether a stored curve's method key is the item view's coarse curve."""
    return key == stage_method_key("occlusion", coarse=True)


def check_explain_backend(backend, method: str) -> None:
    """Refuse, before any work, a model or method the explain stage cannot use."""
    if method not in METHODS:
        raise FairdeskError(f"unknown explain method {method!r}; use one of {', '.join(METHODS)}")
    caps: Collection[str] = getattr(backend, "capabilities", set())
    if "score" not in caps:
        raise FairdeskError(
            f"model {getattr(backend, 'id', '?')!r} gives no log-probability of a text, which "
            "saliency needs (grounding_lift); use whisper-tiny.en or an hf:<folder> CTC or "
            "seq2seq model, or drop --explain / --metric grounding_lift"
        )
    if method in GRADIENT_METHODS and not is_differentiable(backend):
        raise FairdeskError(
            f"explain method {method!r} needs a differentiable (torch) model such as "
            f"hf:<folder>; model {getattr(backend, 'id', '?')!r} is not: use "
            "--explain-method occlusion"
        )


def occlusion_batch(backend) -> int:
    """Masked copies per ``score_many`` call: 16 on a GPU, 1 on the CPU.

    Measured with bench/explain_occlusion.py (whisper-tiny.en int8, 2 CPU threads, a 2 s demo
    clip, 21 scorings): one copy per call took 16.1 s per item, all 21 in one call (encoded
    8 at a time) 21.0 s, the same curve either way. The 30 s encoder pass dominates and does
    not get cheaper per clip in a CPU batch; one copy per call also checks for cancellation
    after every scoring.
    """
    return 16 if getattr(backend, "device", "cpu") == "cuda" else 1


def occlusion_workers(backend) -> int:
    """Masked copies scored at once: on the CPU, as many as the backend serves concurrent
    calls (``parallel_calls``: CTranslate2 workers, :func:`fairdesk.models.scoring_settings`);
    1 on a GPU, whose batches are the parallelism.

    Measured on our 2-core machine (whisper-tiny.en int8, a 2.6 s demo clip, the coarse
    curve's 7 scorings, the model warm, median of 3; the machine shared, so wall times are
    noisy): one call at a time on 2 intra-op threads took 1.9 s (2.7 CPU-s) quiet and 7.1 s
    (2.5 CPU-s) beside two busy processes; two calls at once on two single-thread workers
    1.5 s (2.4 CPU-s) and 2.5 s (2.4 CPU-s), the same scores. Two threads of one call wait
    for each other at every layer, and under load one of them is often not running.
    """
    if getattr(backend, "device", "cpu") == "cuda":
        return 1
    return max(1, int(getattr(backend, "parallel_calls", 1) or 1))


def compute_item_saliency(
    backend, audio, text, method: str, cancelled=None, progress=None, *, coarse: bool = False
):
    """The explain stage's saliency for one clip (its fixed settings, :data:`STAGE_SETTINGS`;
    with ``coarse``, the item view's coarse occlusion windows, :data:`COARSE_WINDOW_S`)."""
    s = STAGE_SETTINGS
    batch = occlusion_batch(backend) if method == "occlusion" else None
    workers = occlusion_workers(backend) if method == "occlusion" else 1
    return compute_saliency(
        backend,
        audio,
        text,
        method,
        window_s=COARSE_WINDOW_S if coarse else s["window_s"],
        stride_s=COARSE_WINDOW_S if coarse else s["stride_s"],
        frame_s=s["frame_s"],
        mask=s["mask"],
        steps=s["steps"],
        batch_size=batch,
        workers=workers,
        cancelled=cancelled,
        progress=progress,
    )


def saliency_result(backend, samples, text: str, method: str, cancelled=None) -> dict:
    """:func:`compute_item_saliency` as the stage stores it: ``curve``, ``frame_s``, ``meta``."""
    sal = compute_item_saliency(backend, samples, text, method, cancelled=cancelled)
    return {
        "curve": sal.curve,
        "frame_s": sal.frame_s,
        "meta": {**sal.meta, "score": sal.score, "params": sal.params},
    }


def saliency_audio(backend, loaded, texts: dict, method: str) -> list[tuple]:
    """Saliency of decoded clips (``(row, samples or None, failure reason)``, as
    :func:`fairdesk.jobs.shards.load_shard_audio` gives them) against ``texts[row]``:
    ``(row, :func:`saliency_result` or None, failure reason)`` per clip, the reasons worded
    as the explain stage words them. What a Ray actor runs (:mod:`fairdesk.jobs.engines`)."""
    out: list[tuple] = []
    for idx, samples, why in loaded:
        if samples is None:
            out.append((idx, None, why))
            continue
        try:
            out.append((idx, saliency_result(backend, samples, texts[idx], method), None))
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - a model error is a per-item failure
            out.append((idx, None, f"{type(exc).__name__}: {exc}"))
    return out


def error_windows(project, item_db_id) -> list[tuple[float, float]]:
    """Annotated error windows of an item (annotations of a kind in ERROR_KINDS)."""
    if item_db_id is None or (isinstance(item_db_id, float) and math.isnan(item_db_id)):
        return []
    out = []
    for a in project.annotations(int(item_db_id)):
        if a["kind"] in ERROR_KINDS and a["start"] is not None and a["end"] is not None:
            out.append((float(a["start"]), float(a["end"])))
    return sorted(out)


def _default_aligner(backend):
    from ..explain.alignment import WhisperAligner

    if getattr(backend, "id", None) == "whisper-tiny.en" and hasattr(backend, "_encode"):
        return WhisperAligner(backend)
    return WhisperAligner()


def explain_stage(project, prep, frame, req, prog, aligner=None, run_remote=None):
    """Run the explain stage on the per-item audit frame.

    Parameters
    ----------
    project, prep, req, prog : as in :func:`fairdesk.jobs.audit.run_audit`.
    frame : the per-item audit frame (``analysis_frame``): ``group``, ``reference``,
        ``path``, ``audio_hash``, ``speaker_id``, ``item_id``, ``db_id``.
    aligner : an object with ``align(audio, text) -> [WordSpan]`` and ``key`` (default:
        :class:`~fairdesk.explain.alignment.WhisperAligner`, loaded only when a span is missing).
    run_remote : the engine's dispatcher (:func:`fairdesk.jobs.engines.run_remote`, given by
        the audit job for ``--engine ray``): the missing saliency curves are computed on its
        actors; None computes them here.

    Returns
    -------
    (lift per row, n_grounded per row, JSON-ready block)
    """
    from ..stats.slicing import apply_minimums

    method = req.explain_method
    check_explain_backend(prep.backend, method)
    settings = req.settings
    started = time.monotonic()
    lifts = np.zeros(len(frame))
    grounded = np.zeros(len(frame))
    kept, _excluded = apply_minimums(
        frame, settings.min_items, settings.min_speakers, include_missing=settings.include_missing
    )
    eligible = frame[frame["group"].astype(str).isin([str(g) for g in kept])]
    sample = (
        explain_sample(eligible, req.explain_per_group, seed=settings.seed)
        if len(eligible)
        else eligible
    )
    mkey = stage_method_key(method)
    root = prep.dataset.root
    items: list[dict[str, Any]] = []
    failures: list[dict[str, str]] = []
    n_cached = n_computed = n_aligned = 0
    own_aligner = aligner
    total = len(sample)
    remote = (
        _remote_saliency(project, prep, sample, req, prog, mkey, run_remote)
        if run_remote is not None
        else {}
    )
    for done, (row_ix, row) in enumerate(sample.iterrows()):
        prog.check()
        item = str(row.get("item_id", row.get("id")))
        text = str(row.get("reference") or "").strip()
        if not text:
            failures.append({"item": item, "reason": "empty reference text"})
            continue
        key = store.SaliencyKey(
            str(row["audio_hash"]), prep.model_key, store.target_hash(text), mkey
        )
        got = remote.get(key)
        if got is not None and got[0] != row_ix and got[1] is not None:
            got = None  # a clip computed for an earlier row: found in the cache, as locally
        hit = store.lookup(project, key) if got is None else None
        samples = None
        try:
            if got is not None:  # computed on the cluster and stored as it came back
                if got[1] is None:
                    raise _ItemFailed(got[2])
                curve, frame_s, meta = got[1]["curve"], got[1]["frame_s"], got[1]["meta"]
                n_computed += 1
            elif hit is None:
                samples = load_row(root, row).samples
                sal = saliency_result(prep.backend, samples, text, method, cancelled=prog.cancelled)
                curve, frame_s, meta = sal["curve"], sal["frame_s"], sal["meta"]
                store.save(project, key, frame_s, curve, meta)
                n_computed += 1
            else:
                curve, frame_s, meta = hit.curve, hit.frame_s, dict(hit.meta)
                n_cached += 1
            regions = error_windows(project, row.get("db_id"))
            target = "error_windows" if regions else "words"
            if not regions:
                if own_aligner is None:
                    own_aligner = _default_aligner(prep.backend)
                akey = own_aligner.key
                if meta.get("aligner") != akey or "words" not in meta:
                    if samples is None:
                        samples = load_row(root, row).samples
                    words = own_aligner.align(samples, text)
                    meta = {
                        **meta,
                        "aligner": akey,
                        "words": [w.to_dict() if hasattr(w, "to_dict") else dict(w) for w in words],
                    }
                    store.update_meta(project, key, meta)
                    n_aligned += 1
                regions = [(w["start"], w["end"]) for w in meta["words"]]
        except Cancelled:
            raise
        except (AudioError, _ItemFailed) as exc:
            failures.append({"item": item, "reason": exc.reason})
            continue
        except Exception as exc:  # noqa: BLE001 - a model error is a per-item failure
            failures.append({"item": item, "reason": f"{type(exc).__name__}: {exc}"})
            continue
        lift = grounding_lift(curve, frame_s, regions)
        peg = None
        if target == "error_windows":
            try:
                peg = _phone_error_grounding(curve, frame_s, regions, row, samples, root)
            except AudioError as exc:
                failures.append({"item": item, "reason": f"phone-error grounding: {exc.reason}"})
        spk = row.get("speaker_id")
        rec: dict[str, Any] = {
            "item": item,
            "group": str(row["group"]),
            "speaker_id": None if spk is None or spk != spk else str(spk),
            "lift": json_number(lift),
            "target": target,
            "n_regions": len(regions),
            "cached": hit is not None,
            "saliency_key": key.to_dict(),
        }
        if peg is not None:
            rec["phone_error_grounding"] = peg
        items.append(rec)
        if math.isnan(lift):
            failures.append(
                {
                    "item": item,
                    "reason": "grounding lift undefined (no positive "
                    "saliency, or no frame inside the target regions)",
                }
            )
        else:
            pos = frame.index.get_loc(row_ix)
            lifts[pos] = lift
            grounded[pos] = 1.0
        prog.items(done + 1, total, started, "explained")
    per_group: dict[str, int] = {}
    for r in items:
        if r["lift"] is not None:
            per_group[r["group"]] = per_group.get(r["group"], 0) + 1
    block = {
        "method": method,
        "method_key": mkey,
        **{
            k: v
            for k, v in STAGE_SETTINGS.items()
            if k in ("frame_s",) or k in method_params(method)
        },
        "per_group": int(req.explain_per_group),
        "target": "log-probability of the reference transcript under the audited model",
        "regions": "annotated error windows where the item has them, else the reference "
        "word spans (whisper-tiny.en forced alignment)",
        "aligner": getattr(own_aligner, "key", None) if own_aligner is not None else None,
        "items_explained": per_group,
        "items": items,
        "failures": failures,
        "phone_error_grounding": phone_grounding_summary(items),
        "n_sampled": int(total),
        "n_cached": n_cached,
        "n_computed": n_computed,
        "n_aligned": n_aligned,
        "seconds": round(time.monotonic() - started, 3),
    }
    return lifts, grounded, block


class _ItemFailed(Exception):
    """A sampled item whose saliency failed on a Ray actor (``reason`` as worded there)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _remote_saliency(project, prep, sample, req, prog, mkey, run_remote) -> dict:
    """Compute the sample's missing saliency curves on the Ray actors (``req.engine``).

    The cache is consulted first and each distinct key is sent once (one item per task);
    every curve is stored by the driver as its task finishes. Returns, by
    :class:`~fairdesk.explain.store.SaliencyKey`, ``(row label, saliency_result or None,
    failure reason)``.
    """
    misses: list[list[tuple[int, str, str, str]]] = []
    keys: dict[int, tuple[store.SaliencyKey, object]] = {}
    seen: set[store.SaliencyKey] = set()
    for row_ix, row in sample.iterrows():
        text = str(row.get("reference") or "").strip()
        if not text:
            continue
        key = store.SaliencyKey(
            str(row["audio_hash"]), prep.model_key, store.target_hash(text), mkey
        )
        if key in seen or store.lookup(project, key) is not None:
            continue
        seen.add(key)
        pos = len(misses)
        keys[pos] = (key, row_ix)
        misses.append([(pos, str(row.get("item_id", row.get("id"))), str(row["path"]), text)])
    out: dict = {}
    if not misses:
        return out
    started = time.monotonic()
    done = [0]

    def commit(results):  # the driver alone writes the store, one curve at a time
        for pos, res, why in results:
            key, row_ix = keys[pos]
            if res is not None:
                store.save(project, key, res["frame_s"], res["curve"], res["meta"])
            out[key] = (row_ix, res, why)
        done[0] += len(results)
        prog.items(done[0], len(misses), started, "saliency computed")

    run_remote(
        req, prep, misses, commit, prog.cancelled, kind="saliency", args=(req.explain_method,)
    )
    return out


def _speech_mask(row, n: int, frame_s: float, samples, root):
    """(speech frames, source) of an item: the audit's VAD regions when the frame has them,
    else the energy VAD of the clip."""
    import json

    raw = row.get("speech_regions") if hasattr(row, "get") else None
    if isinstance(raw, str) and raw:
        return frames_in_regions(n, frame_s, [tuple(r) for r in json.loads(raw)]), "silero-vad"
    if samples is None:
        samples = load_row(root, row).samples
    sp = energy_vad(samples, frame_s)
    out = np.zeros(n, dtype=bool)
    out[: min(n, sp.size)] = sp[:n]
    return out, "energy-vad"


def _phone_error_grounding(curve, frame_s, regions, row, samples, root) -> dict:
    """Phone-error grounding of one item, JSON-ready (NaN as None: core.jsonio)."""
    c = np.asarray(curve, dtype=np.float64)
    flags = frames_in_regions(c.size, frame_s, regions)
    speech, source = _speech_mask(row, c.size, frame_s, samples, root)
    out = phone_error_grounding(c, flags, speech)
    out = jsonable(out)
    out["speech_source"] = source
    return out


def phone_grounding_summary(items) -> dict:
    """Per group: the mean of its items' AUROC, AP and within-speech AUROC/AP, each with the
    number of items where it is defined (docs/METHODS.md, "Representation"). Empty when no item had windows."""
    per: dict[str, dict[str, list]] = {}
    for r in items:
        peg = r.get("phone_error_grounding")
        if not peg:
            continue
        d = per.setdefault(
            r["group"], {k: [] for k in ("auroc", "ap", "auroc_speech", "ap_speech")}
        )
        for k in d:
            if peg.get(k) is not None:
                d[k].append(float(peg[k]))
    out = {}
    for g, d in sorted(per.items()):
        out[g] = {k: (float(np.mean(v)) if v else None) for k, v in d.items()}
        out[g].update({f"n_{k}": len(v) for k, v in d.items()})
    return out


def explain_item(
    project,
    backend,
    audio,
    audio_hash: str,
    text: str,
    method: str = "occlusion",
    aligner=None,
    cancelled=None,
    progress=None,
    *,
    coarse: bool = False,
    align: bool = True,
    words: list[dict] | None = None,
) -> dict:
    """Saliency and word spans of one clip, computed (or read from the cache) and stored.

    What the GUI's "Compute saliency" runs; the settings are the explain stage's
    (:data:`STAGE_SETTINGS`), so the audit and the GUI share cache entries.

    Parameters
    ----------
    coarse : the item view's coarse occlusion curve (:data:`COARSE_WINDOW_S`), under its own
        cache key.
    align : align the reference words when the stored curve has none (False: ``words`` is
        returned empty unless stored or given).
    words : word spans already aligned for this clip and text (stored with the curve
        instead of aligning again).

    Returns
    -------
    dict with ``curve`` (numpy), ``frame_s``, ``words`` (list of dicts), ``key``
    (:class:`~fairdesk.explain.store.SaliencyKey` as a dict), ``cached`` and ``coarse``.
    """
    check_explain_backend(backend, method)
    text = str(text).strip()
    if not text:
        raise FairdeskError("the item has no reference text to explain")
    model_key = f"{backend.id}@{backend.fingerprint}"
    key = store.SaliencyKey(
        str(audio_hash),
        model_key,
        store.target_hash(text),
        stage_method_key(method, coarse=coarse),
    )
    hit = store.lookup(project, key)
    if hit is None:
        sal = compute_item_saliency(
            backend, audio, text, method, cancelled=cancelled, progress=progress, coarse=coarse
        )
        curve, frame_s = sal.curve, sal.frame_s
        meta = {**sal.meta, "score": sal.score, "params": sal.params}
        store.save(project, key, frame_s, curve, meta)
    else:
        curve, frame_s, meta = hit.curve, hit.frame_s, dict(hit.meta)
    if "words" not in meta and (align or words is not None):
        aligner = aligner or _default_aligner(backend)
        got = words if words is not None else [w.to_dict() for w in aligner.align(audio, text)]
        meta = {**meta, "aligner": aligner.key, "words": got}
        store.update_meta(project, key, meta)
    return {
        "curve": np.asarray(curve),
        "frame_s": float(frame_s),
        "words": meta.get("words", []),
        "key": key.to_dict(),
        "cached": hit is not None,
        "coarse": coarse,
    }


def exact_saliency_stored(project, backend, audio_hash: str, text: str) -> bool:
    """Whether the exact occlusion curve of this clip, model and text is in the cache."""
    key = store.SaliencyKey(
        str(audio_hash),
        f"{backend.id}@{backend.fingerprint}",
        store.target_hash(str(text).strip()),
        stage_method_key("occlusion"),
    )
    return store.lookup(project, key) is not None


def saliency_for_item(project, audio_hash: str, model_key: str, text: str | None = None):
    """The stored curve to show for a clip and model: the reference target first, occlusion
    before gradient methods, the exact curve before the coarse one, newest first; None when
    there is none (a coarse hit: ``is_coarse_key(hit.key.method)``)."""
    rows = store.for_audio(project, audio_hash, model_key)
    if not rows:
        return None
    want = store.target_hash(text) if text is not None else None

    def rank(r):
        return (
            r.key.target_hash != want,
            not r.key.method.startswith("occlusion"),
            is_coarse_key(r.key.method),  # the exact curve replaces the coarse one
            -r.created_at,
        )

    return sorted(rows, key=rank)[0]
