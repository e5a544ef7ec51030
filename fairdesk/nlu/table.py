"""Predicted intents and slots imported from a file (``get_nlu("table:<file>")``).

For an NLU that runs outside fairdesk: export its predictions for each item and import them.

Formats
-------
CSV (``.csv``, ``.tsv``)
    Header row with ``item_id`` and ``intent``; slots either as one ``slots`` column holding a
    JSON object (``{"artist": "queen"}``) or as one ``slot:<name>`` column per slot (empty
    cell = no slot). Optional ``intent_confidence`` (or ``confidence``) in [0, 1].
JSON Lines (``.jsonl``, ``.ndjson``)
    One object per line: ``{"item_id": ..., "intent": ..., "slots": {...},
    "intent_confidence": ...}``.

``hyp_intent`` / ``predicted_intent`` and ``hyp_slots`` / ``predicted_slots`` are accepted as
column names too. Rows that cannot be read (no item id, no intent, slots that are not a JSON
object, a confidence outside [0, 1], a repeated item id) are skipped and listed in
:attr:`TableNlu.bad_rows`; a file with no usable row is refused. An item with no row gets an
empty prediction (intent ``""``), which never matches, and is listed by
:meth:`TableNlu.missing`.

The file is read by :mod:`fairdesk.core.tables` (RFC 4180 quoting; UTF-8 with or without BOM,
or UTF-16 with BOM); ``row`` is the file's line where the row starts (the header is line 1).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import SupportsFloat, SupportsIndex

from fairdesk.core.plurals import count
from fairdesk.core.tables import Table, read_table
from fairdesk.nlu.base import NluModel, NluResult, slots_from_json

__all__ = ["BadRow", "TableNlu"]

_ID = ("item_id",)
_INTENT = ("intent", "hyp_intent", "predicted_intent")
_SLOTS = ("slots", "hyp_slots", "predicted_slots")
_CONF = ("intent_confidence", "confidence")
_SLOT_PREFIX = ("slot:", "slot_")


@dataclass(frozen=True)
class BadRow:
    """One row that could not be imported.

    Attributes
    ----------
    row : int
        Line number in the file (the CSV header is line 1).
    column : str
        The field at fault (``""`` for the whole row).
    reason : str
    """

    row: int
    column: str
    reason: str

    def __str__(self) -> str:
        where = f"line {self.row}" + (f", column {self.column!r}" if self.column else "")
        return f"{where}: {self.reason}"


def _first(record: dict, names: Sequence[str]) -> tuple[str | None, object]:
    for name in names:
        if name in record:
            return name, record[name]
    return None, None


def _blank(v: object) -> bool:
    return (
        v is None
        or (isinstance(v, float) and math.isnan(v))
        or (isinstance(v, str) and not v.strip())
    )


class TableNlu(NluModel):
    """Predictions looked up by ``item_id``.

    Parameters
    ----------
    results : dict of str to NluResult
    source : str
        File the predictions came from (for messages and the id).
    fingerprint : str
    bad_rows : list of BadRow
    """

    def __init__(
        self,
        results: dict[str, NluResult],
        source: str,
        fingerprint: str,
        bad_rows: Sequence[BadRow] = (),
    ):
        self.results = dict(results)
        self.source = source
        self.id = f"table:{Path(source).name}"
        self.fingerprint = fingerprint
        self.bad_rows = list(bad_rows)

    @classmethod
    def from_file(cls, path: str | Path) -> TableNlu:
        """Read a CSV/TSV or JSONL file of predictions (see the module docstring).

        Raises
        ------
        FileNotFoundError
            When the file does not exist.
        ValueError
            When the format is unknown, a required column is missing, or no row is usable.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"NLU predictions file not found: {path}")
        raw = path.read_bytes()
        suffix = path.suffix.lower()
        if suffix not in (".jsonl", ".ndjson", ".csv", ".tsv"):
            raise ValueError(
                f"{path}: unknown predictions format {suffix!r}; use .csv, .tsv or .jsonl"
            )
        table = read_table(path)
        records = cls._records(table, path)
        results: dict[str, NluResult] = {}
        bad: list[BadRow] = []
        for line, record in records:
            if isinstance(record, BadRow):
                bad.append(record)
                continue
            parsed = cls._parse_record(line, record)
            if isinstance(parsed, BadRow):
                bad.append(parsed)
            elif parsed[0] in results:
                bad.append(
                    BadRow(
                        line,
                        "item_id",
                        f"item {parsed[0]!r} repeats an earlier row; the first row is kept",
                    )
                )
            else:
                results[parsed[0]] = parsed[1]
        if not results:
            details = "; ".join(str(b) for b in bad[:5]) or "the file has no rows"
            raise ValueError(
                f"{path}: no usable prediction ({details}). Each row needs item_id and intent."
            )
        return cls(results, str(path), hashlib.sha256(raw).hexdigest(), bad)

    @staticmethod
    def _records(table: Table, path: Path) -> list[tuple[int, dict | BadRow]]:
        """The table's rows and unreadable rows (as :class:`BadRow`), in line order."""
        if table.format != "jsonl":
            header = table.columns
            if "item_id" not in header or not any(c in header for c in _INTENT):
                raise ValueError(
                    f"{path}: the header must name 'item_id' and 'intent'; it has {header}"
                )
        out: list[tuple[int, dict | BadRow]] = [
            (pr.line, BadRow(pr.line, "", pr.reason)) for pr in table.problems
        ]
        for line, record in table.rows:
            slot_cols = {
                k.split(":", 1)[1] if k.startswith("slot:") else k[5:]: v
                for k, v in record.items()
                if table.format != "jsonl" and k.startswith(_SLOT_PREFIX) and not _blank(v)
            }
            if slot_cols:
                record = {**record, "__slot_columns__": slot_cols}
            out.append((line, record))
        return sorted(out, key=lambda e: e[0])

    @staticmethod
    def _parse_record(line: int, record: dict) -> tuple[str, NluResult] | BadRow:
        _, item_id = _first(record, _ID)
        if _blank(item_id):
            return BadRow(line, "item_id", "missing item id")
        col, intent = _first(record, _INTENT)
        if _blank(intent) or not isinstance(intent, str):
            return BadRow(line, col or "intent", "missing intent")
        col, raw_slots = _first(record, _SLOTS)
        try:
            slots = slots_from_json(raw_slots)
        except (ValueError, TypeError) as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            return BadRow(line, col or "slots", f"slots are not a JSON object ({msg})")
        slots.update({k: str(v).strip() for k, v in record.get("__slot_columns__", {}).items()})
        col, conf = _first(record, _CONF)
        confidence = None
        if col is not None and not _blank(conf):  # col is None only when conf is missing
            try:
                if not isinstance(conf, str | SupportsFloat | SupportsIndex):
                    raise TypeError
                confidence = float(conf)
            except (TypeError, ValueError):
                return BadRow(line, col, f"confidence {conf!r} is not a number")
            if not 0.0 <= confidence <= 1.0:
                return BadRow(line, col, f"confidence {confidence} is outside [0, 1]")
        return str(item_id).strip(), NluResult(intent.strip(), slots, confidence)

    def parse(self, texts: Sequence[str]) -> list[NluResult]:
        raise TypeError(
            f"{self.id} holds predictions per item_id, not per text: call "
            "parse_items(item_ids, texts) or fairdesk.nlu.parse_frame(model, frame)"
        )

    def parse_items(self, item_ids: Sequence[str], texts: Sequence[str] = ()) -> list[NluResult]:
        """Predictions for these items; an item without a row gets ``NluResult("")``."""
        return [self.results.get(str(i), NluResult("", {}, None)) for i in item_ids]

    def missing(self, item_ids: Sequence[str]) -> list[str]:
        """The given item ids that have no prediction in the table."""
        return [str(i) for i in item_ids if str(i) not in self.results]

    def report(self) -> str:
        """One human-readable paragraph: how many rows were read and which were skipped."""
        lines = [
            f"{self.source}: {count(len(self.results), 'prediction')} read, "
            f"{count(len(self.bad_rows), 'row')} skipped"
        ]
        lines += [f"  {b}" for b in self.bad_rows]
        return "\n".join(lines)
