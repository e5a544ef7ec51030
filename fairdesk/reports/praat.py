"""Praat TextGrids: one per item with the tiers of :mod:`fairdesk.reports.tiers` (praatio),
and corrected transcripts read back (:func:`import_textgrids`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..core.atomic import atomic_path, make_folder
from .data import load_run
from .item_files import item_file
from .tiers import TIERS, run_tiers
from .transcripts import import_transcripts


def write_textgrid(it, path) -> Path:
    """Write one :class:`~fairdesk.reports.tiers.ItemTiers` as a long-format TextGrid (its
    folder made if needed)."""
    from praatio import textgrid

    tg = textgrid.Textgrid(minTimestamp=0.0, maxTimestamp=it.duration)
    for name in TIERS:
        entries = it.tiers.get(name) or []
        if name == "saliency" and not entries:
            continue  # the item was not explained
        tg.addTier(textgrid.IntervalTier(name, list(entries), 0.0, it.duration))
    with atomic_path(path, make_parents=True) as tmp:  # complete or not at all
        tg.save(str(tmp), format="long_textgrid", includeBlankSpaces=True, reportingMode="error")
    return Path(path)


def export_textgrids(
    project, run_id: int, folder, aligner="auto", items=None, copy_audio: bool = False
) -> list:
    """One TextGrid per analysed item of a run in ``folder``, named after the item id with
    folders mirroring its ``/`` parts (``audio/0053/x.TextGrid``;
    :func:`fairdesk.reports.item_files.item_file`).

    Parameters
    ----------
    project, run_id : the run.
    folder : created if needed.
    aligner : how reference words get their times (:class:`~fairdesk.reports.tiers.Aligners`).
    items : only these item ids (default: all).
    copy_audio : also copy each clip next to its TextGrid under the same name (Praat opens
        the pair with Open → Read from file, then View & Edit).

    Returns
    -------
    list of ItemTiers
        What was written, with how each item's reference times were obtained.
    """
    folder = make_folder(folder, "the TextGrids")
    done = []
    for it in run_tiers(load_run(project, run_id), aligner, items):
        write_textgrid(it, folder / item_file(it.item, ".TextGrid"))
        if copy_audio and it.audio is not None and it.audio.exists():
            _copy_audio(it.audio, folder / item_file(it.item, it.audio.suffix))
        done.append(it)
    return done


def _copy_audio(src: Path, dst: Path) -> None:
    """Copy a clip beside its TextGrid, complete or not at all, with its times (``copy2``)."""
    with atomic_path(dst, make_parents=True) as tmp:
        shutil.copy2(src, tmp)


def read_textgrid(path) -> tuple[None, dict]:
    """(None, {tier name: [(start, end, label)]}) of a TextGrid (interval and point tiers)."""
    from praatio import textgrid

    try:
        tg = textgrid.openTextgrid(
            str(path),
            includeEmptyIntervals=False,
            reportingMode="silence",
            duplicateNamesMode="rename",
        )
    except Exception as exc:  # noqa: BLE001 - praatio raises many kinds on a bad file
        raise ValueError(f"{type(exc).__name__}: {exc}") from None
    out = {}
    for name in tg.tierNames:
        tier = tg.getTier(name)
        out[name] = [(e[0], e[1] if len(e) > 2 else e[0], e[-1]) for e in tier.entries]
    return None, out


def import_textgrids(project, dataset: str, folder, tier: str):
    """Corrected transcripts from the ``tier`` of each TextGrid in ``folder``
    (:func:`fairdesk.reports.transcripts.import_transcripts`)."""
    return import_transcripts(
        project, dataset, folder, tier, read_textgrid, "*.TextGrid", "TextGrid"
    )
