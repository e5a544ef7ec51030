"""ELAN ``.eaf`` files: one per item with the tiers of :mod:`fairdesk.reports.tiers`
(pympi-ling), linked to the item's audio, and corrected transcripts read back."""

from __future__ import annotations

import os
from pathlib import Path

from ..core.atomic import atomic_write
from .data import load_run
from .tier_export import export_items
from .transcripts import import_transcripts

ITEM_PROPERTY = "fairdesk:item"
DATASET_PROPERTY = "fairdesk:dataset"
MIME = {
    ".wav": "audio/x-wav",
    ".flac": "audio/flac",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".opus": "audio/ogg",
}


def write_eaf(it, path) -> Path:
    """Write one :class:`~fairdesk.reports.tiers.ItemTiers` as an EAF linked to its audio
    (absolute ``file://`` URL and the path relative to the EAF's folder)."""
    import pympi

    path = Path(path)
    eaf = pympi.Elan.Eaf(author="fairdesk")
    if it.audio is not None:
        audio = Path(it.audio).resolve()
        rel = os.path.relpath(audio, path.parent.resolve())
        eaf.add_linked_file(
            audio.as_uri(), relpath=rel, mimetype=MIME.get(audio.suffix.lower(), "audio/x-wav")
        )
    eaf.add_property(ITEM_PROPERTY, it.item)
    eaf.add_property(DATASET_PROPERTY, it.dataset)
    off = float(getattr(it, "offset", 0.0) or 0.0)  # a segment: times in its session file
    for name in it.names():
        entries = it.tiers.get(name) or []
        if name == "saliency" and not entries:
            continue
        eaf.add_tier(name)
        for s, e, label in entries:
            start, end = int(round((s + off) * 1000)), int(round((e + off) * 1000))
            if end > start:
                eaf.add_annotation(name, start, end, label)
    eaf.remove_tier("default")
    # pympi's to_file renames an existing file to <stem>.bak and writes in place; the same
    # XML is written here through the atomic writer instead (complete or not at all).
    from xml.etree import ElementTree

    doc = pympi.Elan.to_adocument(eaf, True)
    with atomic_write(path, "wb", make_parents=True) as f:
        ElementTree.ElementTree(doc).write(f, xml_declaration=True, encoding="UTF-8")
    return path


def export_eafs(
    project,
    run_id: int,
    folder,
    aligner="auto",
    items=None,
    *,
    progress=None,
    cancelled=None,
    writing=None,
    annotator_tiers: bool = False,
) -> list:
    """One EAF per analysed item of a run in ``folder``, named as the TextGrids are (see
    :func:`fairdesk.reports.praat.export_textgrids` for the parameters)."""
    return export_items(
        load_run(project, run_id),
        folder,
        "the ELAN files",
        lambda it, folder: write_eaf(it, folder / it.file(".eaf")),
        aligner,
        items,
        progress=progress,
        cancelled=cancelled,
        writing=writing,
        annotator_tiers=annotator_tiers,
    )


def read_eaf(path) -> tuple[str | None, dict]:
    """(item id from the ``fairdesk:item`` property or None, {tier: [(start s, end s, label)]})."""
    import pympi

    try:
        eaf = pympi.Elan.Eaf(str(path), suppress_version_warning=True)
    except Exception as exc:  # noqa: BLE001 - pympi raises many kinds on a bad file
        raise ValueError(f"{type(exc).__name__}: {exc}") from None
    item = next((v for k, v in eaf.properties if k == ITEM_PROPERTY), None)
    tiers = {}
    for name in eaf.get_tier_names():
        tiers[name] = [
            (a[0] / 1000.0, a[1] / 1000.0, a[2]) for a in eaf.get_annotation_data_for_tier(name)
        ]
    return item, tiers


def import_eafs(project, dataset: str, folder, tier: str, annotator: str = ""):
    """Corrected transcripts from the ``tier`` of each EAF in ``folder``, as the version of
    ``annotator`` (:func:`fairdesk.reports.transcripts.import_transcripts`)."""
    return import_transcripts(project, dataset, folder, tier, read_eaf, "*.eaf", "ELAN", annotator)
