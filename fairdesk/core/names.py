"""Names as people type them: ids and labels compared under Unicode NFC, file names found on
disk whichever way they were typed.

docs/METHODS.md, "Items, groups and the reference": "Ìgbò" typed with a precomposed ``Ì``
(NFC) and with ``I`` + a combining grave (NFD) print the same and are one label. Every id
(item, speaker, content) and every metadata value is normalised to NFC on the way in
(``--table`` rows, imported datasets) and when a stored project is read for grouping.

A manifest names a file as its author typed it; the file system keeps the bytes the file was
created with (macOS writes NFD, most editors NFC). :class:`DiskNames` finds the listed file
under NFC or NFD, with a Windows-style ``sub\\a.wav``, and with or without the spaces around
the cell.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

__all__ = ["DiskNames", "nfc", "nfc_record", "nul_reason"]


def nfc(value):
    """``value`` in NFC when it is a string (lists and dicts: their strings), else as is."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, list):
        return [nfc(v) for v in value]
    if isinstance(value, dict):
        return {nfc(k): nfc(v) for k, v in value.items()}
    return value


def nfc_record(record: dict) -> dict:
    """A record with its keys and string values in NFC (a new dict)."""
    return {nfc(k) if isinstance(k, str) else k: nfc(v) for k, v in record.items()}


class DiskNames:
    """Find a listed file on disk: as written, then trimmed, then with ``\\`` as ``/``, each
    name also under NFC/NFD (one lookup of a folder's listing per folder)."""

    def __init__(self):
        self._listings: dict[str, dict[str, list[str]]] = {}

    def locate(self, base: Path | None, raw: str) -> str:
        """The path of the file ``raw`` (relative to ``base``, or absolute) names.

        Returns the first variant that exists; when none does, the trimmed path as written
        (so that the audio check reports it as not found). A name holding a NUL byte is
        returned as it is (:func:`nul_reason` names it).
        """
        text = str(raw)
        trimmed = text.strip()
        if not trimmed or "\x00" in text:
            return trimmed if "\x00" not in text else text
        tries = [text] if text == trimmed else [text, trimmed]
        if "\\" in trimmed and "/" not in trimmed:
            tries.append(trimmed.replace("\\", "/"))
        default = self._join(base, trimmed)
        for t in tries:
            full = self._join(base, t)
            if os.path.lexists(full):
                return full
            found = self._unicode_match(full)
            if found is not None:
                return found
        return default

    @staticmethod
    def _join(base: Path | None, text: str) -> str:
        return text if base is None or os.path.isabs(text) else str(Path(base) / text)

    def _unicode_match(self, full: str) -> str | None:
        """``full`` with each missing name replaced by the one entry of its folder that is
        equal under NFC; None when a name has no such entry (or several)."""
        p = Path(full)
        parts = p.parts
        if not parts:
            return None
        cur = Path(parts[0])
        changed = False
        for part in parts[1:]:
            nxt = cur / part
            if not os.path.lexists(nxt):
                same = self._listing(cur).get(unicodedata.normalize("NFC", part), [])
                if len(same) != 1:
                    return None
                nxt, changed = cur / same[0], True
            cur = nxt
        return str(cur) if changed else None

    def _listing(self, folder: Path) -> dict[str, list[str]]:
        key = str(folder)
        if key not in self._listings:
            names: dict[str, list[str]] = {}
            try:
                for n in os.listdir(folder):
                    names.setdefault(unicodedata.normalize("NFC", n), []).append(n)
            except OSError:
                pass
            self._listings[key] = names
        return self._listings[key]


def nul_reason(path: str) -> str | None:
    """A reason when a listed path holds a NUL byte (no file name can), else None."""
    if "\x00" not in str(path):
        return None
    at = str(path).index("\x00") + 1
    return (
        f"the path holds a NUL byte (character {at}), which no file name can; the cell is "
        "damaged: retype the path"
    )
