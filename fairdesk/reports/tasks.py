"""The report-writing functions the GUI runs as jobs (HTML/PDF report, tables, Praat and
ELAN tiers): like :mod:`fairdesk.jobs.tasks`, each opens its own project connection in the
worker thread and takes ``progress`` and ``cancelled`` callbacks; no Qt here.

They live in the reports layer (above jobs) because they call the report writers.
"""

from __future__ import annotations

from pathlib import Path

from ..core.store import Project


def export_report(folder, run_id, path, *, embed_audio=False, pdf=None, progress, cancelled):
    """Write the HTML report of a run (and the PDF when ``pdf`` names a file); returns
    ``{"html": str, "pdf": str or None, "audio_skipped": [str]}``."""
    from ..reports.html import write_report

    progress(0.0, f"writing the report of run {run_id}" + (" and its PDF" if pdf else ""))
    project = Project(folder)
    try:
        out = write_report(project, int(run_id), path, embed_audio=embed_audio, pdf=pdf)
    finally:
        project.close()
    progress(1.0, "report written")
    return {
        "html": str(out.html),
        "pdf": None if out.pdf is None else str(out.pdf),
        "audio_skipped": list(out.audio_skipped),
    }


def export_tables(folder, run_id, out_dir, *, ext="csv", progress, cancelled):
    """Write ``items``, ``groups`` and ``comparisons`` of a run as ``<name>.<ext>`` (csv, tsv
    or parquet) in ``out_dir``; returns the paths written."""
    from ..reports.data import load_run
    from ..reports.tables import export_tables as _export

    progress(0.0, f"writing the tables of run {run_id}")
    out_dir = Path(out_dir)
    project = Project(folder)
    try:
        d = load_run(project, int(run_id))
        paths = _export(
            d,
            items=out_dir / f"items.{ext}",
            groups=out_dir / f"groups.{ext}",
            comparisons=out_dir / f"comparisons.{ext}",
        )
    finally:
        project.close()
    return [str(p) for p in paths]


def export_tiers(
    folder, run_id, out_dir, *, kind="textgrid", aligner="auto", progress, cancelled, partial=None
):
    """One Praat TextGrid (``kind="textgrid"``) or ELAN ``.eaf`` (``"eaf"``) per item of a
    run in ``out_dir``, with a progress report per item; a cancel before the writing begins
    leaves no file (:func:`fairdesk.reports.tier_export.export_items`); ``partial("writing")``
    says the writing has begun. The forced alignments are read from the project where an
    earlier export stored them. Returns ``{"n": int, "reference_times": {how: count},
    "aligned": int, "reused": int}`` (items forced-aligned now; read back from the project)."""
    from collections import Counter

    from ..reports.elan import export_eafs
    from ..reports.praat import export_textgrids
    from ..reports.tiers import Aligners

    what = "TextGrids" if kind == "textgrid" else "ELAN files"
    progress(0.0, f"aligning the reference words for the {what}")
    aligners = aligner if isinstance(aligner, Aligners) else Aligners(aligner)
    project = Project(folder)
    try:
        fn = export_textgrids if kind == "textgrid" else export_eafs
        done = fn(
            project,
            int(run_id),
            out_dir,
            aligners,
            progress=progress,
            cancelled=cancelled,
            writing=None if partial is None else (lambda: partial("writing")),
        )
    finally:
        project.close()
    how = Counter(it.reference_source or "?" for it in done)
    return {
        "n": len(done),
        "reference_times": dict(how),
        "aligned": aligners.aligned,
        "reused": aligners.reused,
    }
