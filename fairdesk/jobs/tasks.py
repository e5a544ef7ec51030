"""The functions the GUI runs as jobs: each opens its own project connection in the worker
thread (``Project.conn`` is per thread) and takes ``progress`` and ``cancelled`` callbacks.

No Qt here (the GUI wraps each one in a job): every function returns plain data for the
job's ``result`` signal. The report-writing ones (report, tables, tiers) are in
:mod:`fairdesk.reports.tasks`, above this layer.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ..core.progress import Progress
from ..core.store import Project


def audit(folder, request, *, progress, cancelled):
    """Run an audit; returns ``{"run_id", "result", "from_cache"}`` (``result``: the run's
    :class:`~fairdesk.jobs.result.AuditRun`)."""
    from ..jobs.audit import run_audit

    project = Project(folder)
    try:
        out = run_audit(project, request, progress=progress, cancelled=cancelled)
        return {"run_id": out.run_id, "result": out.result, "from_cache": out.from_cache}
    finally:
        project.close()


def audit_systems(folder, request, models, *, progress, cancelled):
    """Audit ``request`` once per model and compare the systems (the first the baseline;
    :func:`fairdesk.jobs.system_run.audit_systems`); returns the baseline's
    ``{"run_id", "result", "from_cache"}`` as :func:`audit` does, with ``systems`` (the
    names) and ``run_ids`` (every system's run)."""
    from .system_run import audit_systems as _audit_systems

    project = Project(folder)
    try:
        out = _audit_systems(project, request, list(models), progress=progress, cancelled=cancelled)
        cmp = out.comparison
        return {
            "run_id": cmp.run_ids[0],
            "result": out.runs[0],
            "from_cache": False,
            "systems": list(cmp.systems),
            "run_ids": list(cmp.run_ids),
        }
    finally:
        project.close()


def import_dataset(
    folder, name, path, *, fmt="auto", language="en", options=None, progress, cancelled
):
    """Import a dataset; returns the :class:`ImportReport` as a dict."""
    from ..core.importers import import_dataset as _import

    project = Project(folder)
    try:
        rep = _import(
            project, name, path, fmt=fmt, language=language, progress=progress, **(options or {})
        )
        return rep.to_dict()
    finally:
        project.close()


def read_dataset_view(project, ds) -> dict:
    """What the Datasets view shows of a dataset: ``summary`` and ``frame``, its items with
    each one's latest annotation (``annotation``, '' if none)."""
    frame = project.items(ds)
    latest = project.latest_transcripts(frame["db_id"]) if len(frame) else {}
    frame["annotation"] = [latest.get(int(i), "") for i in frame["db_id"]]
    return {"summary": project.dataset_summary(ds), "frame": frame}


def dataset_view(folder, name, *, progress, cancelled):
    """:func:`read_dataset_view` in a job, on the job's own connection to the project."""
    project = Project(folder)
    try:
        return read_dataset_view(project, project.dataset(name))
    finally:
        project.close()


def detect_format(path, *, progress, cancelled):
    """The format ``fairdesk import --format auto`` would read ``path`` as."""
    from ..core.importers import detect_format as _detect

    return _detect(Path(path).expanduser())


def open_demo(folder, *, progress, cancelled):
    """Create (or reopen) the demo dataset in ``folder``; returns the folder."""
    from ..core.demo import open_demo as _open_demo

    progress(0.0, "unpacking and importing the demo corpus (2,340 utterances)")
    project = Project(folder)
    try:
        _open_demo(project)
    finally:
        project.close()
    progress(1.0, "demo ready")
    return str(Path(folder))


def resampling_plan(folder, run_id, *, progress, cancelled):
    """The resampling plan of stored run ``run_id`` with ``fairdesk plan``'s defaults (stored
    with the run where it had only the closed-form estimate); returns the Plan."""
    from .plan_run import plan_stored_run

    progress(0.0, "resampling the pilot's speakers")
    project = Project(folder)
    try:
        plan, _run = plan_stored_run(project, int(run_id))
    finally:
        project.close()
    progress(1.0, "recording plan made")
    return plan


def load_audio(path, *, span=None, context=0.0, spectrogram_too: bool = True, progress, cancelled):
    """Decode a file (or only its span ``(start_s, end_s)``, with up to ``context`` seconds
    of the file on each side) to the working rate; with its envelope and (optionally)
    spectrogram. ``origin`` is where the first sample lies relative to the span's start (0 for
    a whole file; negative with context), in seconds."""
    from ..core import audio, spans
    from ..recording import signal

    progress(0.0, f"decoding {Path(path).name}")
    origin = 0.0
    if span is None:
        a = audio.load(path)
    else:
        a, origin = spans.load_with_context(path, float(span[0]), float(span[1]), float(context))
    env = signal.envelope(a.samples)
    spec = None
    if spectrogram_too:
        spec = signal.spectrogram(a.samples, progress=progress, cancelled=cancelled)
    # the envelope as vertical min-max segments, ready for one pyqtgraph curve (connect=pairs)
    seg_x = np.repeat(env.times, 2) + origin
    seg_y = np.column_stack([env.lo, env.hi]).ravel()
    db = None if spec is None else np.ascontiguousarray(spec.db, dtype=np.float32)
    return {
        "samples": a.samples,
        "envelope": env,
        "spectrogram": spec,
        "segments": (seg_x, seg_y),
        "image": db,
        "origin": origin,
    }


def spectrogram(samples, *, progress, cancelled):
    from ..recording import signal

    return signal.spectrogram(samples, progress=progress, cancelled=cancelled)


_WARM_LOCK = threading.Lock()
#: The last shareable backend a saliency job used, by (model, device): kept loaded for the
#: next item's curve (a whisper-tiny.en load and its first pass cost about 1 s of a coarse
#: curve's 2-4 s on two cores).
_WARM: dict[tuple[str, str], object] = {}


def saliency_backend(model, device="auto", *, warm: bool = False):
    """``(backend, owned)`` for a saliency job: a shareable backend
    (:attr:`~fairdesk.models.whisper_ct2.WhisperCT2Backend.shareable`) is loaded once and
    kept for the next job (``owned`` False: do not close it); any other is new and the
    caller's to close. Only one model is kept. ``warm``: a backend loaded now also runs one
    pass (the preload job; a job that scores at once has no use for it)."""
    from ..models import get_backend, scoring_settings

    key = (str(model), str(device))
    with _WARM_LOCK:
        backend = _WARM.get(key)
        if backend is None or getattr(backend, "_closed", False):
            # set up for concurrent scorings of the masked copies (same scores)
            backend = get_backend(model, device=device, **scoring_settings(model, device))
            if not getattr(backend, "shareable", False):
                return backend, True
            # the one kept before is dropped, not closed: a job may still be using it (it
            # goes when that job is done)
            _WARM.clear()
            # loaded under the lock: two jobs never load it twice (a shareable backend has
            # load() and warm(), WhisperCT2Backend's; Backend itself has neither)
            getattr(backend, "warm" if warm else "load")()
            _WARM[key] = backend
    return backend, False


def release_saliency_backends() -> None:
    """Close the backends kept loaded between saliency jobs."""
    for backend in list(_WARM.values()):
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    _WARM.clear()


def warm_saliency_model(model, *, device="auto", progress, cancelled):
    """Load the saliency model of a run ahead of the first "Compute saliency" (a job)."""
    saliency_backend(model, device, warm=True)


def saliency(
    folder,
    model,
    audio_path,
    audio_hash,
    text,
    *,
    device="auto",
    partial=None,
    progress,
    cancelled,
):
    """Occlusion saliency and reference word spans of one item, stored in the project's
    saliency cache; returns :func:`fairdesk.jobs.explain_stage.explain_item`'s dict.

    Unless the exact curve is stored already, the item view's coarse curve (0.5 s windows,
    a few encoder passes) comes first: it is stored under its own key and handed to
    ``partial`` (the same dict, ``coarse`` True), then again with the word spans once they
    are aligned, and the exact curve is computed after it, with progress. The model stays
    loaded for the next item's job (:func:`saliency_backend`)."""
    from ..core import audio as audio_io
    from ..core.rehash import current_hash
    from .explain_stage import _default_aligner, exact_saliency_stored, explain_item

    prog = Progress(progress, min_interval=0.0)  # the saliency's fractions after loading
    prog.stage(0.0, 0.05, f"loading {model}")
    samples = audio_io.load(audio_path).samples
    project = Project(folder)
    # the file changed since it was hashed: keyed by the audio it holds now
    audio_hash = current_hash(project, audio_hash, audio_path)
    backend, owned = saliency_backend(model, device)
    name = Path(audio_path).name

    def item(**kw):
        return explain_item(project, backend, samples, audio_hash, text, "occlusion", **kw)

    def hand_over(out):
        if partial is not None:
            partial(out)

    try:
        words = None
        if not exact_saliency_stored(project, backend, audio_hash, text):
            prog.stage(0.05, 0.2, f"coarse saliency of {name}")
            first = item(cancelled=cancelled, progress=prog.report, coarse=True, align=False)
            hand_over(first)
            words = first["words"] or None
            if words is None:
                prog.stage(0.2, 0.25, f"aligning the words of {name}")
                aligner = _default_aligner(backend)
                words = [w.to_dict() for w in aligner.align(samples, text)]
                hand_over(item(aligner=aligner, coarse=True, words=words))
            prog.stage(0.25, 1.0, f"exact saliency of {name}")
        else:
            prog.stage(0.05, 1.0, f"saliency of {name}")
        return item(cancelled=cancelled, progress=prog.report, words=words)
    finally:
        if owned:
            backend.close()
        project.close()


def run_agreement_view(folder, run, *, progress, cancelled):
    """The annotators' agreement beside a run's diacritic comparisons
    (:func:`fairdesk.jobs.agreement.run_agreement`; None: fewer than two annotators) in a
    job, on its own connection."""
    from .agreement import run_agreement

    project = Project(folder)
    try:
        return run_agreement(project, run)
    finally:
        project.close()


def agreement_view(folder, name, *, progress, cancelled):
    """The annotators' agreement on dataset ``name`` (:func:`fairdesk.jobs.agreement.
    dataset_agreement`, every annotator, default settings) in a job, on its own connection."""
    from .agreement import dataset_agreement

    project = Project(folder)
    try:
        return dataset_agreement(project, name)
    finally:
        project.close()
