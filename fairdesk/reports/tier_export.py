"""One file per item of a run's tiers (:mod:`fairdesk.reports.tiers`), all or none: what the
TextGrid and ELAN exports (:mod:`fairdesk.reports.praat`, :mod:`fairdesk.reports.elan`)
share."""

from __future__ import annotations

from .data import RunData
from .item_files import item_files
from .tiers import run_tiers

__all__ = ["export_items"]


def export_items(
    d: RunData,
    folder,
    purpose: str,
    write,
    aligner="auto",
    items=None,
    *,
    progress=None,
    cancelled=None,
    writing=None,
    annotator_tiers: bool = False,
) -> list:
    """The tiers of every item first, then one file per item: a cancelled export leaves no
    file behind (the folder is made only once every item is aligned), and so does a failed
    one (the files are written into a temporary folder put in place when all are written:
    :func:`fairdesk.core.atomic.atomic_folder`).

    Parameters
    ----------
    d : the run.
    folder : where the files go (checked first, made when the writing starts).
    purpose : what the files are, for the messages (``the TextGrids``).
    write : ``write(ItemTiers, folder)`` writes one item's files (through
        :mod:`fairdesk.core.atomic`).
    aligner, items : as :func:`fairdesk.reports.tiers.run_tiers`.
    progress : ``progress(fraction, message)``: aligning up to 90 %, writing the rest.
    cancelled : checked before each item while aligning (:func:`run_tiers`); once the
        writing has begun it is not asked any more, so the files are all written.
    writing : called with no argument when the writing begins (the GUI's Cancel stops
        there).
    annotator_tiers : one more tier per annotator (see :func:`fairdesk.reports.tiers.run_tiers`).
    """
    from ..core.atomic import atomic_folder, check_output_folder
    from ..core.progress import Progress

    check_output_folder(folder, purpose)
    bar = Progress(progress)
    bar.stage(0.0, 0.9, "aligning the reference words")
    done = run_tiers(
        d,
        aligner,
        items,
        progress=lambda f, m: bar.report(f, m, force=f >= 1.0),
        cancelled=cancelled,
        annotator_tiers=annotator_tiers,
    )
    names = item_files((it.item for it in done), "")
    for it in done:
        it.stem = names[it.item]
    if writing is not None:
        writing()
    bar.stage(0.9, 1.0, f"writing {purpose}")
    with atomic_folder(folder, purpose) as tmp:  # all the files or none
        for k, it in enumerate(done):
            write(it, tmp)
            bar.report((k + 1) / max(1, len(done)), f"writing {purpose} {k + 1}/{len(done)}")
    bar.report(1.0, f"{len(done)} files written", force=True)
    return done
