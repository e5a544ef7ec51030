"""File names of per-item exports (TextGrid, EAF, a copied clip) that read back to the item.

An item id such as ``audio/0053/x`` is written as folders mirroring the id,
``audio/0053/x.TextGrid``, so the export reads as the dataset does. A character no file name
may hold on Windows, macOS or Linux (``<>:"\\|?*``, control characters, a trailing dot or
space, a reserved name such as ``CON``), and ``%`` itself, is percent-encoded (``%3F``); an
id whose parts cannot be folders (an empty part, ``.`` or ``..``) is written flat with its
``/`` encoded (``a%2F%2Fb.TextGrid``), as exports before this one named every file.
:func:`item_from_file` reads both kinds back to the id.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

__all__ = ["item_file", "item_from_file"]

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


def item_file(item, suffix: str) -> Path:
    """The relative path of an item's file: ``item_file("audio/0053/x", ".TextGrid")`` is
    ``audio/0053/x.TextGrid``."""
    item = str(item)
    parts = item.split("/")
    if any(p in ("", ".", "..") for p in parts):
        # not folders: the whole id in one name, "/" encoded (the old exports' names)
        flat = quote(item, safe="-_.,+=@ ") or "_"
        return Path(flat + suffix)
    return Path(*[_part(p) for p in parts[:-1]], _part(parts[-1]) + suffix)


def item_from_file(rel, suffix: str | None = None) -> str:
    """The item id of an exported file, from its path relative to the export folder (its
    suffix removed; ``suffix``: only that one, else the last). Reads the folder names of
    :func:`item_file` and the flat, percent-encoded names of older exports alike."""
    parts = list(PurePosixPath(Path(rel).as_posix()).parts)
    last = parts[-1]
    if suffix and last.lower().endswith(suffix.lower()):
        last = last[: -len(suffix)]
    else:
        last = PurePosixPath(last).stem
    parts[-1] = last
    return "/".join(unquote(p) for p in parts)
