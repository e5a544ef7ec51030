"""Where an item's audio file is: paths as manifests and recipes write them.

A manifest lists each audio file by an absolute path (what Kaldi, Lhotse and NeMo recipes
write) or by a path relative to some folder: the one ``--audio-root`` names, else the
manifest's folder or, when the paths do not resolve there, the first of its parent folders
where they do (Kaldi and icefall recipes write ``db/...`` relative to the recipe folder,
two levels above ``data/train/wav.scp``): :func:`choose_root`. :func:`resolve_audio_path`
turns one listed path into the file it names.

In the store each item keeps its path relative to its *audio root*: the dataset's root
(``datasets.root``: the folder relative paths were read from) or, for a file outside it, one
of the dataset's other roots (``audio_roots``: the common folder of the files listed outside
it, :func:`outside_roots`). Everything that reads an item's audio joins the two with
:func:`audio_file`; a frame of items names a file of another root by its absolute path, so
that one join serves both.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from .errors import ImportFailed
from .names import DiskNames, nul_reason

__all__ = [
    "AUDIO_ROOT_HINT",
    "audio_file",
    "choose_root",
    "file_stamp",
    "not_found",
    "outside_roots",
    "place",
    "resolve_audio_path",
    "roots_of",
    "shown_item_path",
    "under",
]

#: How many listed paths :func:`choose_root` tries in each folder.
SAMPLE = 200

#: What a message about a path that does not resolve tells the user to do.
AUDIO_ROOT_HINT = (
    "if the manifest's paths are relative to another folder, give that folder with --audio-root"
)


def audio_file(root, path) -> Path:
    """The file of an item: ``path`` relative to ``root``, or ``path`` itself when it is
    absolute (an item of another audio root). The one join of a root and an item path."""
    return Path(root) / str(path)


def shown_item_path(root, path: str) -> str:
    """An item's path as a frame of items shows it: ``path`` itself for an item of the
    dataset's root (``root`` None), else the full path under its own root ``root``."""
    return str(path) if root is None else (Path(str(root)) / str(path)).as_posix()


def resolve_audio_path(raw: str, roots: Sequence[Path], names: DiskNames | None = None) -> Path:
    """The file a listed path ``raw`` names.

    An absolute path is read as it is; a relative one is tried under each of ``roots`` in
    turn (the first where it exists wins; when none holds it, the first root's join, so that
    the audio check reports it as not found there). A name is found also under NFC/NFD, with
    or without the spaces around it and with ``\\`` for ``/`` (:class:`DiskNames`).
    """
    names = names or DiskNames()
    text = str(raw)
    if os.path.isabs(text.strip()) or not roots:
        return Path(names.locate(None, text))
    first = None
    for root in roots:
        got = names.locate(Path(root), text)
        if first is None:
            first = got
        if os.path.lexists(got):
            return Path(got)
    return Path(first or text)


def choose_root(
    raws: Iterable[str | None],
    start: Path,
    audio_root=None,
    *,
    names: DiskNames | None = None,
) -> Path:
    """The folder the relative paths ``raws`` are read from (absolute, not resolved).

    ``audio_root`` (``--audio-root``) when given; else ``start`` (the manifest's folder)
    when the relative paths resolve there, else the nearest parent folder of it where they
    all do (or, when none holds them all, the one that holds the most; ``start`` when none
    holds any). Absolute paths play no part.

    Raises
    ------
    ImportFailed
        ``audio_root`` is not a folder.
    """
    if audio_root is not None and str(audio_root).strip():
        base = Path(os.path.abspath(Path(str(audio_root)).expanduser()))
        if not base.is_dir():
            raise ImportFailed(
                f"--audio-root {base}: no such folder; give the folder the manifest's "
                "relative paths start from"
            )
        return base
    start = Path(os.path.abspath(start))
    rel = []
    for r in raws:
        if r is None or not str(r).strip() or os.path.isabs(str(r).strip()) or "\x00" in str(r):
            continue
        rel.append(str(r))
        if len(rel) >= SAMPLE:
            break
    if not rel:
        return start
    names = names or DiskNames()
    best, best_hits = start, 0
    for folder in (start, *start.parents):
        hits = sum(1 for r in rel if os.path.lexists(names.locate(folder, r)))
        if hits == len(rel):
            return folder
        if hits > best_hits:
            best, best_hits = folder, hits
    return best


def outside_roots(files: Iterable[Path]) -> list[Path]:
    """The audio roots of files that lie outside the dataset's root: their common folder,
    or, when that is the file system's root, one per top-level folder (``/data``,
    ``/corpora``) so that a root is a folder one can move."""
    folders = sorted({str(Path(f).parent) for f in files})
    if not folders:
        return []
    common = Path(os.path.commonpath(folders))
    if common.parent != common:
        return [common]
    tops = sorted({Path(*Path(f).parts[:2]) for f in folders})
    return [
        Path(os.path.commonpath([f for f in folders if Path(f).is_relative_to(t)])) for t in tops
    ]


def file_stamp(path) -> tuple[int, float] | None:
    """``(size in bytes, modification time)`` of a file (None when it cannot be read): what
    tells whether the audio changed since it was hashed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return int(st.st_size), float(st.st_mtime)


# -- an import: where each listed file is, and its audio root ------------------------------
def place(p: str) -> tuple[Path | None, str | None]:
    """The absolute path of the listed file ``p`` (as listed: links are not followed, so a
    file is stored where the manifest says it is); returns (path, reason)."""
    if not p:
        return None, "no audio path in this row"
    nul = nul_reason(p)
    if nul:
        return None, nul
    try:
        full = Path(os.path.abspath(p))
        full.resolve()  # a loop of links is found here
    except RuntimeError:  # pathlib's "Symlink loop from ..."
        return None, (
            f"path {p!r} cannot be resolved: a symbolic link in it leads back to itself "
            "(a loop); fix or remove the link"
        )
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, (
                f"path {p!r} cannot be resolved: a symbolic link in it leads back to itself "
                "(a loop); fix or remove the link"
            )
        return None, f"path {p!r} cannot be resolved ({exc.strerror or exc}); check the path"
    return full, None


def under(root: Path, full: Path) -> str | None:
    """``full`` relative to ``root`` (POSIX), as listed or with its links followed; None when
    it lies outside ``root``."""
    for cand in (full, full.resolve()):
        try:
            return cand.relative_to(root).as_posix()
        except ValueError:
            continue
    return None


def roots_of(root: Path, placed: list[Path]) -> dict[Path, tuple[Path | None, str]]:
    """Each placed file's audio root and path relative to it: the dataset's ``root`` (None)
    for a file inside it, else one of :func:`outside_roots` (the folders of the files listed
    outside it, links in the folders followed)."""
    out: dict[Path, tuple[Path | None, str]] = {}
    outside: dict[Path, Path] = {}
    for full in placed:
        rel = under(root, full)
        if rel is not None:
            out[full] = (None, rel)
        else:
            outside[full] = full.parent.resolve() / full.name
    extra = outside_roots(outside.values())
    for full, real in outside.items():
        top = next(r for r in extra if real.is_relative_to(r))
        out[full] = (top, real.relative_to(top).as_posix())
    return out


def not_found(root: Path, full: Path, rel: str, rooted: bool = True) -> str:
    """Why a listed file is not there, naming where it was looked for; ``rooted``: the
    format takes ``--audio-root`` (a corpus layout of fixed folders does not)."""
    if under(root, full) is not None:
        return f"file not found: {rel} was read relative to {root}; " + (
            f"check the path in the manifest or restore the file ({AUDIO_ROOT_HINT})"
            if rooted
            else "restore the file or remove its entry"
        )
    return (
        f"file not found: {full} (an absolute path is read as written"
        + ("; a relative one is read from --audio-root or the manifest's folder" if rooted else "")
        + "); check the path in the manifest or restore the file"
    )
