"""Imported hypotheses (``predictions:<file>``): audit a model that was run elsewhere.

File formats (chosen by extension): ``.csv``, ``.tsv``, ``.jsonl`` / ``.ndjson``.

Columns (CSV/TSV header, or JSONL object keys; names are case-insensitive):

- key: ``item_id`` (also ``id``, what ``fairdesk items --json`` prints) and/or ``path`` (also
  ``audio_path``); at least one per row. A path that names more than one item of the audit
  (a bare ``a.wav`` for ``x/a.wav`` and ``y/a.wav``) is ambiguous: those items get no
  prediction and the row is reported, never applied to a guess. A key two rows give
  different predictions is refused (the item gets none; the reason names both lines); a
  row repeating an earlier one's prediction is used once, with a warning;
- ``text`` (or ``hypothesis``): the transcript; empty is allowed (flagged);
- optional ``confidence`` (number), ``intent``, ``slots`` (a JSON object; in JSONL an
  object or a JSON string), ``label``.

The file is read by :mod:`fairdesk.core.tables` (RFC 4180 quoting; UTF-8 with or without BOM,
or UTF-16 with BOM). Bad rows are reported in :attr:`PredictionsBackend.problems` and
skipped; the good rows are kept. ``row`` in a problem is the 1-based line number in the file
(the CSV header is line 1; a quoted field spanning lines reports the line where its record
starts).
"""

from __future__ import annotations

import dataclasses
import json
import math
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fairdesk.core.plurals import count
from fairdesk.core.tables import Table, TableProblem, read_table
from fairdesk.models.base import Backend, file_digest

FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
KEY_COLUMNS = ("item_id", "id", "path", "audio_path")
TEXT_COLUMNS = ("text", "hypothesis")
VALUE_COLUMNS = ("confidence", "intent", "slots", "label")
#: Why an item got no prediction when nothing more specific applies.
NO_PREDICTION = "no prediction for this item in the imported file"


@dataclass(frozen=True)
class Prediction:
    """One imported prediction.

    Attributes
    ----------
    text : str or None
        Hypothesis transcript (None when the file has no text column).
    confidence : float or None
    intent : str or None
    slots : dict or None
    label : str or None
    row : int
        Line number in the file.
    """

    text: str | None
    confidence: float | None = None
    intent: str | None = None
    slots: dict | None = None
    label: str | None = None
    row: int = 0


@dataclass(frozen=True)
class Problem:
    """A rejected or suspicious row.

    Attributes
    ----------
    row : int
        1-based line number in the file.
    key : str or None
        The row's item_id/path when it could be read.
    reason : str
        What is wrong, in words.
    kept : bool
        True for a warning (the row was kept, e.g. empty text), False for a rejected row.
    """

    row: int
    key: str | None
    reason: str
    kept: bool = False

    def __str__(self) -> str:
        what = "warning" if self.kept else "skipped"
        key = f" ({self.key})" if self.key else ""
        return f"line {self.row}{key}: {self.reason} [{what}]"


class _BadRow(Exception):
    pass


def normalise_path(path: str) -> str:
    """Forward slashes, no leading ``./``, collapsed ``..``/``.`` (for matching, not for I/O)."""
    p = str(path).strip().replace("\\", "/")
    return posixpath.normpath(p) if p else ""


def _clean(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    s = str(value).strip()
    return s or None


class PredictionsBackend(Backend):
    """Predictions imported from a CSV, TSV or JSONL file.

    Parameters
    ----------
    path : path-like
        The predictions file.
    model_id : str, optional
        Defaults to ``"predictions:<path>"``.

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        When the format is unknown or the file lacks a key or a prediction column.
    """

    capabilities = frozenset()

    def __init__(self, path, model_id: str | None = None, device: str = "auto") -> None:
        self._path = Path(path)
        self._id = model_id or f"predictions:{path}"
        if not self._path.is_file():
            raise FileNotFoundError(f"predictions file not found: {self._path} (check the path)")
        fmt = FORMATS.get(self._path.suffix.lower())
        if fmt is None:
            raise ValueError(
                f"{self._path}: unknown predictions format {self._path.suffix!r}; "
                f"use one of {', '.join(sorted(FORMATS))}"
            )
        self._fingerprint = file_digest(self._path)
        self.problems: list[Problem] = []
        self._by_id: dict[str, Prediction] = {}
        self._by_path: dict[str, Prediction] = {}
        self._first_row: dict[tuple[str, str], int] = {}
        # the first row's prediction per key, and the keys two rows disagree on (refused)
        self._kept: dict[tuple[str, str], Prediction] = {}
        self._conflicts: dict[tuple[str, str], str] = {}
        self._bound: dict[tuple[str | None, str | None], str] | None = None
        self.n_rows = 0
        table = read_table(self._path, fmt=fmt)
        if fmt == "jsonl":
            self._load_jsonl(table)
        else:
            self._load_delimited(table)

    # -- identity ------------------------------------------------------------------------------
    @property
    def fingerprint(self) -> str:
        """sha256 of the file's content."""
        return self._fingerprint

    @property
    def device(self) -> str:
        return "none"

    @property
    def path(self) -> Path:
        return self._path

    def _unsupported(self, capability: str, why: str = "") -> NotImplementedError:
        return super()._unsupported(
            capability,
            "it holds imported predictions and runs no model on audio: use lookup(item_id, rel_path)",
        )

    # -- queries -------------------------------------------------------------------------------
    def __len__(self) -> int:
        """Number of distinct predictions kept."""
        return len({id(p) for p in (*self._by_id.values(), *self._by_path.values())})

    def lookup(self, item_id: str | None, rel_path: str | None = None) -> Prediction | None:
        """The prediction for an item, by ``item_id`` first, then by its audio path.

        A path matches exactly (after :func:`normalise_path`) or, failing that, when one path
        ends with the other at a folder boundary and exactly one stored path does.
        """
        if item_id is not None and str(item_id) in self._by_id:
            return self._by_id[str(item_id)]
        if item_id is not None and ("item_id", str(item_id)) in self._conflicts:
            return None  # two rows disagree (see missing_reason)
        if not rel_path:
            return None
        p = normalise_path(rel_path)
        if ("path", p) in self._conflicts:
            return None
        if p in self._by_path:
            return self._by_path[p]
        if self._bound is not None and (item_id, rel_path) in self._bound:
            return None  # ambiguous (see bind)
        hits = self._suffix_hits(p)
        return self._by_path[hits[0]] if len(hits) == 1 else None

    def _suffix_hits(self, p: str) -> list[str]:
        return [k for k in self._by_path if k.endswith("/" + p) or p.endswith("/" + k)]

    def bind(self, items) -> None:
        """Check the keys against the audit's items before any lookup.

        ``items`` is ``(item_id, rel_path)`` per item. A stored path that is not any item's
        exact path but ends more than one item's path (or an item path that ends more than
        one stored path) is ambiguous: the items involved get no prediction
        (:meth:`missing_reason` says why) and the row is reported in :attr:`problems`.
        """
        items = [(None if i is None else str(i), r) for i, r in items]
        exact = {normalise_path(r) for _i, r in items if r}
        claims: dict[str, list[tuple[str | None, str]]] = {}
        self._bound = {}
        for item_id, rel in items:
            if (item_id is not None and item_id in self._by_id) or not rel:
                continue
            p = normalise_path(rel)
            if p in self._by_path:
                continue
            hits = [k for k in self._suffix_hits(p) if k not in exact]
            if len(hits) > 1:
                rows = ", ".join(f"line {self._first_row['path', k]} ({k!r})" for k in hits)
                self._bound[item_id, rel] = (
                    f"ambiguous prediction: item path {rel!r} matches {len(hits)} rows of "
                    f"{self._path.name} ({rows}); key the rows by item id (the `id` that "
                    "`fairdesk items --json` prints) or by the full path"
                )
            for k in hits:
                claims.setdefault(k, []).append((item_id, rel))
        for k, who in claims.items():
            if len(who) < 2:
                continue
            names = ", ".join(repr(r) for _i, r in who[:5]) + (" ..." if len(who) > 5 else "")
            reason = (
                f"ambiguous path {k!r}: it matches {len(who)} items ({names}); none of "
                "them gets this prediction. Key the rows by item id (the `id` that "
                "`fairdesk items --json` prints) or by the path relative to the "
                "dataset folder"
            )
            self.problems.append(Problem(self._first_row["path", k], k, reason))
            for item_id, rel in who:
                self._bound[item_id, rel] = reason

    def missing_reason(self, item_id: str | None, rel_path: str | None = None) -> str:
        """Why :meth:`lookup` found no prediction for this item."""
        for kind, k in (("item_id", item_id), ("path", rel_path)):
            if k is not None:
                k = str(k) if kind == "item_id" else normalise_path(k)
                if (kind, k) in self._conflicts:
                    return self._conflicts[kind, k]
        if self._bound is not None:
            why = self._bound.get((None if item_id is None else str(item_id), rel_path))
            if why:
                return why
        return NO_PREDICTION

    def summary(self) -> str:
        """One line: kept, skipped and flagged rows."""
        bad = sum(not p.kept for p in self.problems)
        warn = sum(p.kept for p in self.problems)
        return (
            f"{self._path.name}: {count(len(self), 'prediction')} kept, "
            f"{count(bad, 'row')} skipped, {count(warn, 'warning')}"
        )

    # -- parsing -------------------------------------------------------------------------------
    def _check_columns(self, columns: Sequence[str]) -> None:
        cols = set(columns)
        if not cols & set(KEY_COLUMNS):
            raise ValueError(
                f"{self._path}: no key column; add one of {', '.join(KEY_COLUMNS)} "
                f"(columns found: {', '.join(columns) or 'none'})"
            )
        if not cols & {*TEXT_COLUMNS, "label", "intent"}:
            raise ValueError(
                f"{self._path}: nothing to import; add a text (or hypothesis), label or intent "
                f"column (columns found: {', '.join(columns)})"
            )
        self._has_text = bool(cols & set(TEXT_COLUMNS))

    def _load_delimited(self, table: Table) -> None:
        header = [h.lower() for h in table.columns]
        self._check_columns(header)
        self._load(table)

    def _load_jsonl(self, table: Table) -> None:
        if not table.rows:
            if table.problems:
                raise ValueError(
                    f"{self._path}: no JSON objects found ("
                    f"{'; '.join(map(str, table.problems[:3]))})"
                )
            raise ValueError(f"{self._path}: no JSON objects found (the file is empty)")
        # Columns are checked on the first object: JSONL has no header.
        self._check_columns([str(k).strip().lower() for k in table.rows[0][1]])
        self._load(table)

    def _load(self, table: Table) -> None:
        """Good rows and the reader's problems, in the file's line order."""
        events: list[tuple[int, int, dict | TableProblem]] = [(n, 1, r) for n, r in table.rows]
        events += [(pr.line, 0, pr) for pr in table.problems]
        for n, _, item in sorted(events, key=lambda e: (e[0], e[1])):
            self.n_rows += 1
            if isinstance(item, TableProblem):
                rec = {str(k).strip().lower(): v for k, v in (item.record or {}).items()}
                key = (
                    _clean(rec.get("item_id"))
                    or _clean(rec.get("id"))
                    or _clean(rec.get("path"))
                    or _clean(rec.get("audio_path"))
                )
                self._reject(n, _printable(key), item.reason)
                continue
            self._add(n, {str(k).strip().lower(): v for k, v in item.items()})

    def _reject(self, row: int, key: str | None, reason: str) -> None:
        self.problems.append(Problem(row, key, reason))

    def _add(self, row: int, record: dict) -> None:
        item_id = _clean(record.get("item_id")) or _clean(record.get("id"))
        path = _clean(record.get("path")) or _clean(record.get("audio_path"))
        key = item_id or path
        if key is None:
            self._reject(row, None, "missing key: item_id and path are both empty")
            return
        try:
            pred = self._parse(row, record)
        except _BadRow as e:
            self._reject(row, key, str(e))
            return
        keys = []
        if item_id is not None:
            keys.append(("item_id", item_id))
        if path is not None:
            keys.append(("path", normalise_path(path)))
        fresh = []
        for kind, k in keys:
            if (kind, k) not in self._first_row:
                fresh.append((kind, k))
                continue
            first = self._first_row[kind, k]
            if (kind, k) in self._conflicts:  # a third row of a refused key
                self._reject(row, key, f"{kind} {k!r} again: {self._conflicts[kind, k]}")
            elif dataclasses.replace(self._kept[kind, k], row=0) == dataclasses.replace(
                pred, row=0
            ):
                self.problems.append(
                    Problem(
                        row,
                        key,
                        f"{kind} {k!r} repeats line {first} with the same prediction (used once)",
                        kept=True,
                    )
                )
            else:  # two predictions for one item: taking either would be a guess
                reason = (
                    f"conflicting predictions for {kind} {k!r} in {self._path.name}: line "
                    f"{first} says {_short(self._kept[kind, k].text or '')} and line {row} "
                    f"says {_short(pred.text or '')}; neither is used: keep the right row "
                    "and delete the other"
                )
                self._conflicts[kind, k] = reason
                (self._by_id if kind == "item_id" else self._by_path).pop(k, None)
                self._reject(row, key, reason)
        if len(fresh) < len(keys):
            return
        for kind, k in keys:
            self._first_row[kind, k] = row
            self._kept[kind, k] = pred
            (self._by_id if kind == "item_id" else self._by_path)[k] = pred
        if self._has_text and not pred.text:
            self.problems.append(
                Problem(row, key, "empty text (kept: the model said nothing)", kept=True)
            )
        if pred.confidence is not None and not 0.0 <= pred.confidence <= 1.0:
            self.problems.append(
                Problem(
                    row, key, f"confidence {pred.confidence} is outside [0, 1] (kept)", kept=True
                )
            )

    def _parse(self, row: int, record: dict) -> Prediction:
        text = None
        if self._has_text:
            raw_text = record.get("text")
            if raw_text is None or str(raw_text).strip() == "":
                raw_text = record.get("hypothesis", raw_text)
            text = "" if raw_text is None else str(raw_text).strip()
        confidence = None
        raw_conf = record.get("confidence")
        if raw_conf is not None and not (isinstance(raw_conf, str) and not raw_conf.strip()):
            if isinstance(raw_conf, bool):
                raise _BadRow(f"confidence {raw_conf!r} is not a number")
            try:
                confidence = float(raw_conf)
            except (TypeError, ValueError):
                raise _BadRow(f"confidence {raw_conf!r} is not a number") from None
            if not math.isfinite(confidence):
                raise _BadRow(f"confidence {raw_conf!r} is not a finite number")
        slots = record.get("slots")
        if isinstance(slots, str):
            slots = slots.strip() or None
            if slots is not None:
                try:
                    slots = json.loads(slots)
                except json.JSONDecodeError as e:
                    raise _BadRow(
                        f"slots is not valid JSON ({e.msg} at column {e.colno}): {_short(record['slots'])}"
                    ) from None
        if slots is not None and not isinstance(slots, dict):
            raise _BadRow(
                f"slots must be a JSON object (name -> value), got {type(slots).__name__}"
            )
        return Prediction(
            text=text,
            confidence=confidence,
            intent=_clean(record.get("intent")),
            slots=slots,
            label=_clean(record.get("label")),
            row=row,
        )


def _printable(key: str | None) -> str | None:
    return (
        None
        if key is None
        else key.encode("utf-8", errors="surrogateescape").decode("utf-8", "replace")
    )


def _short(s: str, n: int = 40) -> str:
    s = str(s)
    return repr(s if len(s) <= n else s[: n - 1] + "…")
