"""Praat TextGrids: one per item with the tiers of :mod:`fairdesk.reports.tiers` (praatio),
and corrected transcripts read back (:func:`import_textgrids`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..core.atomic import atomic_path
from .data import load_run
from .tier_export import export_items
from .transcripts import import_transcripts


def write_textgrid(it, path) -> Path:
    """Write one :class:`~fairdesk.reports.tiers.ItemTiers` as a long-format TextGrid (its
    folder made if needed)."""
    from praatio import textgrid

    off = float(getattr(it, "offset", 0.0) or 0.0)  # a segment: times in its session file
    tg = textgrid.Textgrid(minTimestamp=off, maxTimestamp=off + it.duration)
    for name in it.names():
        entries = [(s + off, e + off, label) for s, e, label in it.tiers.get(name) or []]
        if name == "saliency" and not entries:
            continue  # the item was not explained
        tg.addTier(textgrid.IntervalTier(name, entries, off, off + it.duration))
    with atomic_path(path, make_parents=True) as tmp:  # complete or not at all
        tg.save(str(tmp), format="long_textgrid", includeBlankSpaces=True, reportingMode="error")
    return Path(path)


def export_textgrids(
    project,
    run_id: int,
    folder,
    aligner="auto",
    items=None,
    copy_audio: bool = False,
    *,
    progress=None,
    cancelled=None,
    writing=None,
    annotator_tiers: bool = False,
) -> list:
    """One TextGrid per analysed item of a run in ``folder``, named after the item id with
    folders mirroring its ``/`` parts and without an audio extension (``audio/0053/x.TextGrid``
    for the item ``audio/0053/x`` or ``audio/0053/x.opus``; items whose names would clash keep
    their whole id: :func:`fairdesk.reports.item_files.item_files`).

    Parameters
    ----------
    project, run_id : the run.
    folder : created if needed.
    aligner : how reference words get their times (:class:`~fairdesk.reports.tiers.Aligners`).
    items : only these item ids (default: all).
    copy_audio : also copy each clip next to its TextGrid under the same name, with the
        clip's extension (``x.TextGrid`` and ``x.opus``; Praat opens
        the pair with Open → Read from file, then View & Edit). A segment's TextGrid is in
        session times, so its session recording is copied instead, once, under
        ``sessions/`` with its path in the dataset.
    progress, cancelled, writing : see :func:`fairdesk.reports.tier_export.export_items`.
    annotator_tiers : also one ``annotator:NAME`` tier per annotator, their version of the
        reference (:func:`fairdesk.reports.tiers.run_tiers`).

    Returns
    -------
    list of ItemTiers
        What was written, with how each item's reference times were obtained.
    """

    d = load_run(project, run_id)
    copied: set[Path] = set()

    def write(it, folder: Path) -> None:
        write_textgrid(it, folder / it.file(".TextGrid"))
        if not (copy_audio and it.audio is not None and it.audio.exists()):
            return
        if not it.segment:
            _copy_audio(it.audio, folder / it.file(it.audio.suffix))
            return
        dst = folder / "sessions" / _in_dataset(it.audio, d)
        if dst not in copied:  # one copy of a session for all its segments
            _copy_audio(it.audio, dst)
            copied.add(dst)

    return export_items(
        d,
        folder,
        "the TextGrids",
        write,
        aligner,
        items,
        progress=progress,
        cancelled=cancelled,
        writing=writing,
        annotator_tiers=annotator_tiers,
    )


def _in_dataset(audio: Path, d) -> Path:
    """``audio``'s path inside its dataset's folder (its name when it lies elsewhere); in a
    run of several datasets, a file of a dataset after the first under that dataset's name."""
    sets = getattr(d, "dataset_set", None)
    roots = [(None, getattr(d.dataset, "root", None))]
    if sets is not None and sets.several:
        roots = [(None if i == 0 else x.name, x.root) for i, x in enumerate(sets.datasets)]
    for name, root in roots:
        if root is None:  # a deleted dataset: no folder to be inside
            continue
        try:
            rel = Path(audio).resolve().relative_to(Path(root).resolve())
        except (TypeError, ValueError, OSError):
            continue
        return rel if name is None else Path(name) / rel
    return Path(Path(audio).name)


def _copy_audio(src: Path, dst: Path) -> None:
    """Copy a clip beside its TextGrid, complete or not at all, with its times (``copy2``)."""
    with atomic_path(dst, make_parents=True) as tmp:
        shutil.copy2(src, tmp)


def read_textgrid(path) -> tuple[None, dict]:
    """(None, {tier name: [(start, end, label)]}) of a TextGrid (interval and point tiers).

    Raises ``ValueError`` with what is wrong and what to do for a file that cannot be read:
    empty, not UTF-8 or UTF-16 (a TextGrid saved as Latin-1 by an old Praat or an editor),
    not a Praat text file, or malformed (praatio's error).
    """
    from praatio import textgrid

    check_textgrid_file(path)
    try:
        tg = textgrid.openTextgrid(
            str(path),
            includeEmptyIntervals=False,
            reportingMode="silence",
            duplicateNamesMode="rename",
        )
    except Exception as exc:  # noqa: BLE001 - praatio raises many kinds on a bad file
        raise ValueError(
            f"the TextGrid is malformed ({type(exc).__name__}: {str(exc)[:200] or 'no detail'})"
            "; open it in Praat and save it again (Save as text file), or export it again "
            "with `fairdesk export --textgrid`"
        ) from None
    out = {}
    for name in tg.tierNames:
        tier = tg.getTier(name)
        out[name] = [(e[0], e[1] if len(e) > 2 else e[0], e[-1]) for e in tier.entries]
    return None, out


#: How every Praat text file (long or short TextGrid) begins.
PRAAT_TEXT_START = 'File type = "ooTextFile"'


def check_textgrid_file(path) -> None:
    """Refuse, with the reason and the fix, a file that no TextGrid reader can read: one that
    cannot be opened, is empty, is neither UTF-8 nor UTF-16 (praatio's encodings, the ones
    Praat writes), or is not a Praat text file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except PermissionError:
        raise ValueError(
            "permission denied: fairdesk may not read the file; give your user read "
            "permission (chmod u+r) or copy the file somewhere you can read"
        ) from None
    except OSError as exc:
        raise ValueError(f"cannot be read ({exc.strerror or exc})") from None
    if not data.strip():
        raise ValueError(
            f"the file is empty ({len(data)} bytes); export it again with "
            "`fairdesk export --textgrid`, or remove it from the folder"
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise ValueError(
                "starts with a UTF-16 byte-order mark but does not decode as UTF-16; "
                "open it in Praat and save it again (Save as text file)"
            ) from None
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"the file is neither UTF-8 nor UTF-16 (byte 0x{data[exc.start]:02x} at "
                f"byte {exc.start + 1}; most likely Latin-1 or Windows-1252, as older Praat "
                "versions and some editors save): set Praat's Preferences > Text writing "
                "preferences to UTF-8, open the file and save it again, or re-save it as "
                "UTF-8 in a text editor"
            ) from None
    if not text.lstrip().startswith(PRAAT_TEXT_START):
        binary = data.startswith(b"ooBinaryFile")
        raise ValueError(
            "a binary TextGrid; open it in Praat and save it with Save as text file"
            if binary
            else f"not a Praat TextGrid (it does not begin with {PRAAT_TEXT_START}); "
            "give the TextGrids `fairdesk export --textgrid` wrote, edited in Praat"
        )


def import_textgrids(project, dataset: str, folder, tier: str, annotator: str = ""):
    """Corrected transcripts from the ``tier`` of each TextGrid in ``folder``, as the version
    of ``annotator`` (:func:`fairdesk.reports.transcripts.import_transcripts`)."""
    return import_transcripts(
        project, dataset, folder, tier, read_textgrid, "*.TextGrid", "TextGrid", annotator
    )
