"""File names of per-item exports (TextGrid, EAF, a copied clip) that read back to the item.

An item id such as ``audio/0053/x`` is written as folders mirroring the id,
``audio/0053/x.TextGrid``, so the export reads as the dataset does. An id that ends in an
audio file's extension (``audio/1203/012030036.opus``, as audio-folder datasets name their
items) is written without it, ``audio/1203/012030036.TextGrid``: the clip's name with the
TextGrid's suffix, as Praat users name the pair (a copied clip keeps its own extension,
``012030036.opus``). Where two items of one export would then get the same name (``x.wav``
and ``x.flac``, or ``x`` and ``x.wav``; compared without case, as Windows and macOS compare
names), those items keep their whole id, extension included (``x.wav.TextGrid``,
``x.flac.TextGrid``): :func:`item_files`. A character no file name may hold on Windows,
macOS or Linux (``<>:"\\|?*``, control characters, a trailing dot or space, a reserved name
such as ``CON``), and ``%`` itself, is percent-encoded (``%3F``); an id whose parts cannot be
folders (an empty part, ``.`` or ``..``) is written flat with its ``/`` encoded
(``a%2F%2Fb.TextGrid``), as exports before this one named every file.
:func:`item_from_file` reads every kind back, and :class:`ItemResolver` finds the item a
name without the audio extension stands for.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

from ..core.audio import AUDIO_EXTENSIONS

__all__ = ["item_file", "item_files", "item_from_file", "item_stem", "ItemResolver"]

_UNSAFE = frozenset('<>:"\\|?*%/')
_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{k}{i}" for k in ("com", "lpt") for i in range(1, 10)]
)


def _enc(ch: str) -> str:
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8"))


def _part(name: str) -> str:
    """One path part of an id as a file name (see the module doc)."""
    out = "".join(_enc(c) if c in _UNSAFE or ord(c) < 32 or ord(c) == 127 else c for c in name)
    if out and out[-1] in ". ":
        out = out[:-1] + _enc(out[-1])
    if out.split(".")[0].lower() in _RESERVED:
        out = _enc(out[0]) + out[1:]
    return out


def item_stem(item) -> str:
    """The id without the audio extension of its last part (``audio/1203/012030036.opus`` →
    ``audio/1203/012030036``; an id without one, or one that is nothing but it, unchanged)."""
    item = str(item)
    last = item.rpartition("/")[2]
    dot = last.rfind(".")
    if dot > 0 and last[dot:].lower() in AUDIO_EXTENSIONS and last[:dot].strip(". "):
        return item[: len(item) - len(last) + dot]
    return item


def item_file(item, suffix: str, *, whole: bool = False) -> Path:
    """The relative path of an item's file: ``item_file("audio/0053/x", ".TextGrid")`` is
    ``audio/0053/x.TextGrid``, and ``item_file("audio/1203/y.opus", ".TextGrid")`` is
    ``audio/1203/y.TextGrid`` (``whole``: ``audio/1203/y.opus.TextGrid``, the id kept whole,
    as :func:`item_files` names items whose names would clash)."""
    item = str(item) if whole else item_stem(item)
    parts = item.split("/")
    if any(p in ("", ".", "..") for p in parts):
        # not folders: the whole id in one name, "/" encoded (the old exports' names)
        flat = quote(item, safe="-_.,+=@ ") or "_"
        return Path(flat + suffix)
    return Path(*[_part(p) for p in parts[:-1]], _part(parts[-1]) + suffix)


def item_files(items: Iterable, suffix: str) -> dict[str, Path]:
    """The relative path of each item's file in one export, every name distinct: the
    :func:`item_file` name, except for items whose names would coincide (without case), which
    keep their whole id (``x.wav.TextGrid`` and ``x.flac.TextGrid``)."""
    ids = list(dict.fromkeys(str(i) for i in items))
    whole: set[str] = set()
    while True:
        names = {i: item_file(i, suffix, whole=i in whole) for i in ids}
        seen: dict[str, list[str]] = {}
        for i, n in names.items():
            seen.setdefault(n.as_posix().casefold(), []).append(i)
        clash = {i for group in seen.values() if len(group) > 1 for i in group} - whole
        if not clash:  # distinct, or only whole ids left clashing (ids differing by case)
            return names
        whole |= clash


class ItemResolver:
    """The item of a dataset's ``ids`` that an exported file's id (:func:`item_from_file`)
    names: the id itself, else the one item whose id without its audio extension
    (:func:`item_stem`) it is (``resolver(name)``; None when there is none, or several:
    ``x.wav`` and ``x.flac`` for ``x``, which :func:`item_files` names whole)."""

    def __init__(self, ids: Iterable):
        self.known = {str(i) for i in ids}
        self.stems: dict[str, list[str]] = {}
        for i in sorted(self.known):
            s = item_stem(i)
            if s != i:
                self.stems.setdefault(s, []).append(i)

    def candidates(self, name: str) -> list[str]:
        """The items ``name`` may stand for (one when it is an id)."""
        name = str(name)
        return [name] if name in self.known else list(self.stems.get(name, ()))

    def __call__(self, name: str) -> str | None:
        hits = self.candidates(name)
        return hits[0] if len(hits) == 1 else None


def item_from_file(rel, suffix: str | None = None) -> str:
    """The item id an exported file's name gives, from its path relative to the export folder
    (its suffix removed; ``suffix``: only that one, else the last). Reads the folder names of
    :func:`item_file` and the flat, percent-encoded names of older exports alike. A name
    written without the id's audio extension gives the id without it: :class:`ItemResolver`
    finds the item."""
    parts = list(PurePosixPath(Path(rel).as_posix()).parts)
    last = parts[-1]
    if suffix and last.lower().endswith(suffix.lower()):
        last = last[: -len(suffix)]
    else:
        last = PurePosixPath(last).stem
    parts[-1] = last
    return "/".join(unquote(p) for p in parts)
