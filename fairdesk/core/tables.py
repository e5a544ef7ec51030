"""The one reader of table-shaped input: CSV, TSV, JSONL and Parquet, with row-numbered problems.

Manifests (:mod:`fairdesk.core.importers`), imported predictions
(:mod:`fairdesk.models.predictions`), NLU tables (:mod:`fairdesk.nlu.table`) and ``--table``
audits all read their files here, so that they agree on three things:

Quoting
    Set by the caller that knows the format. ``quoting="rfc4180"`` (the default) follows
    RFC 4180: a field may be quoted, ``""`` inside quotes is one ``"``, and a quoted field may
    span lines. An opening quote that is never closed is a problem naming its line; the lines
    after it are read as rows of their own, never swallowed into one field.
    ``quoting="none"`` reads every ``"`` as text (Common Voice TSVs are unquoted: a sentence
    may hold a quotation mark).
Encoding
    UTF-8 with or without a byte-order mark, or UTF-16 with its byte-order mark. A row holding
    bytes that are not UTF-8 is a problem naming its line and the byte; a UTF-16 file that does
    not decode is refused as a whole.
Row numbering
    Row N is the file's Nth physical line (a CSV's header is line 1; JSONL has no header), and
    every message says "line N". A record whose quoted field spans lines is numbered by the
    line where it starts. Parquet has no lines: its rows are numbered 1, 2, ... and said "row N".
Repeated keys
    A JSONL record (or an object inside it) that holds a key twice is a problem naming its
    line and the key: JSON parsers keep the last value only, which would drop the first
    without a word.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .errors import FairdeskError

__all__ = [
    "JSONL_SUFFIXES",
    "PARQUET_SUFFIXES",
    "Table",
    "TableError",
    "TableProblem",
    "decode_text",
    "header_hint",
    "read_table",
    "undecodable",
]

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
#: Longest field of a CSV/TSV (the csv module's default limit, 128 KiB): a longer one is
#: almost always a quoting mistake that swallowed lines, and is reported at its line.
FIELD_LIMIT = 131072
#: Deepest JSON nesting read (the reference parser recurses).
MAX_JSON_DEPTH = 64
PARQUET_SUFFIXES = (".parquet", ".pq")
QUOTING = ("rfc4180", "none")


class TableError(FairdeskError, ValueError):
    """The whole file cannot be read as a table (empty, no header, duplicate columns ...)."""


@dataclass(frozen=True)
class TableProblem:
    """One row that could not be read.

    Attributes
    ----------
    line : the file's line where the row starts (Parquet: the row's 1-based position).
    reason : what is wrong and what to do.
    record : the row's fields as far as they could be read (None when they could not), so
        that a caller can name the row's key.
    """

    line: int
    reason: str
    record: dict | None = None
    unit: str = "line"

    def __str__(self) -> str:
        return f"{self.unit} {self.line}: {self.reason}"


@dataclass
class Table:
    """A table read from a file.

    Attributes
    ----------
    path : the file.
    format : ``"csv"``, ``"tsv"``, ``"jsonl"`` or ``"parquet"``.
    columns : the header's column names, stripped (JSONL: every key seen, in order).
    rows : ``(line, record)`` for every readable, non-blank row, in file order.
    problems : the rows that could not be read.
    """

    path: Path
    format: str
    columns: list[str]
    rows: Sequence[tuple[int, dict]] = field(default_factory=list)
    problems: list[TableProblem] = field(default_factory=list)

    def frame(self, line_column: str | None = None):
        """The rows as a DataFrame indexed by their line numbers (``line_column``: also as a
        column)."""
        import pandas as pd

        if isinstance(self.rows, _FrameRows):  # Parquet: the file's frame, rows from 1
            df = self.rows.df.set_axis(self.rows.cols, axis=1)
            df.index = pd.RangeIndex(1, len(df) + 1)
        else:
            df = pd.DataFrame.from_records(
                [r for _, r in self.rows], index=[n for n, _ in self.rows]
            )
        for c in self.columns:
            if c not in df.columns:
                df[c] = None
        if line_column:
            df[line_column] = df.index
        return df


def decode_text(data: bytes, source) -> str:
    """Decode a file's bytes by the encoding policy (see the module docstring).

    Undecodable UTF-8 bytes become lone surrogates (``surrogateescape``) so that the rows
    holding them can be reported one by one; :func:`undecodable` finds them.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with a byte-order mark
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise TableError(
                f"{source}: starts with a UTF-16 byte-order mark but does not "
                f"decode as UTF-16 (byte {exc.start}); re-save it as UTF-8"
            ) from None
    return data.decode("utf-8", errors="surrogateescape")


def undecodable(value) -> str | None:
    """A reason when ``value`` holds bytes that were not UTF-8 (naming the byte), else None."""
    if not isinstance(value, str):
        return None
    m = _ESCAPED_BYTE.search(value)
    if m is None:
        return None
    return (
        f"text is not valid UTF-8 (byte 0x{ord(m.group()) - 0xDC00:02x} at character "
        f"{m.start() + 1}); re-save the file as UTF-8"
    )


#: A byte that was not UTF-8, as ``surrogateescape`` decoding keeps it.
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def header_hint(columns) -> str:
    """Why a header lacks the columns asked for, when its shape tells (else ""): NUL bytes
    in it (UTF-16 without a byte-order mark) or one column holding another separator."""
    names = [str(c) for c in columns]
    if any("\x00" in n for n in names):
        return (
            "; the header holds NUL bytes: the file is most likely UTF-16 without a "
            "byte-order mark: re-save it as UTF-8"
        )
    if len(names) == 1:
        for sep, what in ((";", "semicolons"), ("|", "'|'"), ("\t", "tabs"), (",", "commas")):
            if sep in names[0]:
                return (
                    f"; the header is one column holding {what}: the file is most likely "
                    f"separated by {what} (a spreadsheet set to a decimal comma writes ';'): "
                    "re-save it separated by commas, or by tabs as .tsv"
                )
    return ""


def _format_of(path: Path, fmt: str | None) -> str:
    if fmt:
        return fmt
    suffix = path.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    return "tsv" if suffix == ".tsv" else "csv"


def read_table(
    path,
    *,
    fmt: str | None = None,
    delimiter: str | None = None,
    quoting: str = "rfc4180",
    name_blank: bool = False,
) -> Table:
    """Read a CSV, TSV, JSONL or Parquet file.

    Parameters
    ----------
    path : str or Path
    fmt : {"csv", "tsv", "jsonl", "parquet"}, optional
        Default: from the suffix (``.tsv``, ``.jsonl``/``.ndjson``/``.json``, ``.parquet``/
        ``.pq``; anything else is CSV).
    delimiter : str, optional
        Default: a tab for TSV; for CSV a tab when the first line has tabs and no comma, else
        a comma.
    quoting : {"rfc4180", "none"}
        How ``"`` is read in CSV/TSV (module docstring).
    name_blank : bool
        CSV/TSV: name a blank header cell ``unnamed_<column number>`` (as pandas does)
        instead of refusing the file for duplicate names; for published files whose rows end
        in empty columns (the Speech Accent Archive's ``speakers_all.csv``).

    Returns
    -------
    Table

    Raises
    ------
    TableError
        The file is empty, has no header, repeats a column name, or is not decodable at all.
    """
    path = Path(path)
    if quoting not in QUOTING:
        raise ValueError(f"quoting must be one of {QUOTING}, got {quoting!r}")
    fmt = _format_of(path, fmt)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise TableError(
            f"{path}: cannot be opened ({exc.strerror or exc}); check the path"
        ) from None
    if not stat.S_ISREG(st.st_mode):
        what = (
            "a folder"
            if stat.S_ISDIR(st.st_mode)
            else "not a regular file (a FIFO, device or socket)"
        )
        raise TableError(f"{path}: is {what}; give a CSV, TSV, JSONL or Parquet file")
    if fmt == "parquet":
        return _read_parquet(path)
    try:
        data = path.read_bytes()
    except PermissionError:
        raise TableError(
            f"{path}: permission denied: fairdesk may not read this file; give your user "
            "read permission (chmod u+r, or ask the file's owner) or copy it somewhere you "
            "can read"
        ) from None
    except OSError as exc:
        raise TableError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    text = decode_text(data, path)
    if fmt == "jsonl":
        return _read_jsonl(path, text)
    if delimiter is None:
        first = text.split("\n", 1)[0]
        delimiter = "\t" if fmt == "tsv" or ("\t" in first and "," not in first) else ","
    return _read_delimited(path, text, fmt, delimiter, quoting, name_blank)


class _FrameRows(Sequence[tuple[int, dict]]):
    """A Parquet table's ``(row number, record)`` pairs, made when asked for: a million-row
    ``--table`` goes to :meth:`Table.frame` without a dict per row."""

    def __init__(self, df, cols: list[str]):
        self.df, self.cols = df, cols

    def __len__(self) -> int:
        return len(self.df)

    def _row(self, i: int) -> tuple[int, dict]:
        (values,) = self.df.iloc[i : i + 1].itertuples(index=False, name=None)
        return i + 1, dict(zip(self.cols, values, strict=True))

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._row(k) for k in range(len(self))[i]]
        return self._row(range(len(self))[i])

    def __iter__(self):
        rows = self.df.itertuples(index=False, name=None)
        for i, r in enumerate(rows, start=1):
            yield i, dict(zip(self.cols, r, strict=True))

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented


def _read_parquet(path: Path) -> Table:
    import pandas as pd

    from .extras import require

    require("parquet", f"reading {path.name}", ("pyarrow",))

    df = pd.read_parquet(path)
    cols = [str(c) for c in df.columns]
    return Table(path, "parquet", cols, _FrameRows(df, cols), [])


def _json_error(line: str, exc: json.JSONDecodeError) -> str:
    """Where a JSONL line stops being JSON, as its column in that line (counted from 1). The
    parser counts past the line's end onto a next line (column 1) when the record stops
    short: that is said as the column after the line's last character."""
    body = line.rstrip("\r\n")
    col = min(exc.pos, len(body)) + 1
    msg = exc.msg.removesuffix(" at")  # "Invalid control character at"
    if exc.pos >= len(body.rstrip()):
        return (
            f"not valid JSON ({msg} at column {col}, where the line ends: the record is cut "
            "short or broken over lines); write each record whole on one line"
        )
    return f"not valid JSON ({msg} at column {col})"


def parse_jsonl(path, text: str) -> Table:
    """The records of JSONL ``text`` read from ``path`` (decoded already, e.g. from a
    gzipped file), with the same per-line problems as :func:`read_table`."""
    return _read_jsonl(Path(path), text)


def _read_jsonl(path: Path, text: str) -> Table:
    rows: list[tuple[int, dict]] = []
    table = Table(path, "jsonl", [], rows)
    seen: dict[str, None] = {}
    for n, line in enumerate(io.StringIO(text, newline=""), start=1):
        if not line.strip():
            continue
        bad = undecodable(line)
        if bad:
            table.problems.append(TableProblem(n, bad))
            continue
        if _json_depth(line) > MAX_JSON_DEPTH:
            table.problems.append(
                TableProblem(
                    n,
                    f"JSON nested deeper than {MAX_JSON_DEPTH} levels; write one flat object "
                    "per line (values may be objects or lists a few levels deep)",
                )
            )
            continue
        repeated: list[str] = []
        try:
            obj = json.loads(line, object_pairs_hook=_pairs_hook(repeated))
        except json.JSONDecodeError as exc:
            table.problems.append(TableProblem(n, _json_error(line, exc)))
            continue
        except RecursionError:
            table.problems.append(
                TableProblem(n, "JSON nested too deeply; write one flat object per line")
            )
            continue
        if not isinstance(obj, dict):
            table.problems.append(
                TableProblem(
                    n, f"not a JSON object (a JSON {type(obj).__name__}); write one object per line"
                )
            )
            continue
        if repeated:
            table.problems.append(TableProblem(n, _repeated_reason(repeated)))
            continue
        where = _lone_surrogate(obj)
        if where is not None:
            table.problems.append(
                TableProblem(
                    n,
                    f"{where} holds a lone surrogate (an escape such as \\ud800 that is half "
                    "of a UTF-16 pair, not a character); write the character itself or its "
                    "complete pair",
                )
            )
            continue
        for k in obj:
            seen.setdefault(str(k), None)
        rows.append((n, {str(k): v for k, v in obj.items()}))
    table.columns = list(seen)
    return table


class _Lines:
    """Physical lines (``\\n``, ``\\r\\n`` or ``\\r``) fed to :mod:`csv`, counted."""

    def __init__(self, lines: list[str], start: int):
        self.lines, self.next = lines, start  # index of the next line to hand out

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.next >= len(self.lines):
            raise StopIteration
        self.next += 1
        return self.lines[self.next - 1]


def _read_delimited(
    path: Path, text: str, fmt: str, delimiter: str, quoting: str, name_blank: bool = False
) -> Table:
    lines = list(io.StringIO(text, newline=""))
    q: Literal[0, 3] = csv.QUOTE_NONE if quoting == "none" else csv.QUOTE_MINIMAL
    src = _Lines(lines, 0)
    try:
        header = next(csv.reader(src, delimiter=delimiter, quoting=q, strict=True))
    except StopIteration:
        raise TableError(f"{path}: the file is empty; it needs a header row") from None
    except csv.Error as exc:
        raise TableError(
            f"{path}: line 1 (the header) cannot be read ({exc}); fix its quoting"
        ) from None
    header = [h.strip() for h in header]
    if name_blank:
        header = [h or f"unnamed_{i}" for i, h in enumerate(header, start=1)]
    for i, h in enumerate(header, start=1):
        bad = undecodable(h)
        if bad:
            raise TableError(f"{path}: line 1 (the header), column {i}: {bad}")
    if src.next != 1:
        raise TableError(
            f"{path}: the header's quoted names run over several lines; close the quote on line 1"
        )
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise TableError(f"{path}: duplicate column names {dup}; rename them")
    rows: list[tuple[int, dict]] = []
    table = Table(path, fmt, header, rows)
    while src.next < len(lines):
        start = src.next  # 0-based index of the line where the next record starts
        reader = csv.reader(src, delimiter=delimiter, quoting=q, strict=True)
        try:
            values = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            # An unclosed quote runs to the end of the file (or a malformed quoted field):
            # report the record's first line and read on from the line after it.
            table.problems.append(TableProblem(start + 1, _quote_reason(exc)))
            src.next = start + 1
            continue
        n_lines = src.next - start
        if not values or all(not v.strip() for v in values):
            continue
        if len(values) != len(header):
            if n_lines > 1:
                # Most likely a quote opened on this line and closed (by accident) lines
                # later; read those lines again as rows of their own.
                table.problems.append(
                    TableProblem(
                        start + 1,
                        f"a quote opened on this line is closed only on line "
                        f"{start + n_lines}, which leaves {len(values)} fields (the header has "
                        f'{len(header)}); close the quote or double it ("") inside the field',
                    )
                )
                src.next = start + 1
                continue
            table.problems.append(
                TableProblem(
                    start + 1,
                    f"row has {len(values)} fields but the header has {len(header)}; "
                    "fix the quoting or separators",
                )
            )
            continue
        record = dict(zip(header, values, strict=True))
        bad_cell = next(((c, r) for c, v in record.items() if (r := undecodable(v))), None)
        if bad_cell:
            column, why = bad_cell
            table.problems.append(TableProblem(start + 1, f"column {column!r}: {why}", record))
            continue
        rows.append((start + 1, record))
    return table


def _pairs_hook(repeated: list[str]):
    """A ``json.loads`` ``object_pairs_hook`` that builds the dict and appends to ``repeated``
    every key an object holds more than once (the parser would keep only its last value)."""

    def hook(pairs):
        obj = {}
        for k, v in pairs:
            if k in obj and k not in repeated:
                repeated.append(k)
            obj[k] = v
        return obj

    return hook


def _repeated_reason(keys: list[str]) -> str:
    names = ", ".join(repr(k) for k in keys[:5]) + (
        f" and {len(keys) - 5} more" if len(keys) > 5 else ""
    )
    one = len(keys) == 1
    return (
        f"the key{'' if one else 's'} {names} appear{'s' if one else ''} more than once in this "
        "record; JSON keeps only the last value, so the others would be lost without a word: "
        "keep one value per key"
    )


def _json_depth(line: str) -> int:
    """Deepest bracket nesting of a JSON line (strings skipped); cheap, no recursion."""
    depth = deepest = 0
    in_str = esc = False
    for ch in line:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _lone_surrogate(obj, where: str = "") -> str | None:
    """Where (``column 'x'``) a JSON value holds a lone surrogate code point, else None."""
    stack = [(obj, where)]
    while stack:
        v, w = stack.pop()
        if isinstance(v, str):
            if any("\ud800" <= ch <= "\udfff" for ch in v):
                return w or "a key"
        elif isinstance(v, dict):
            for k, x in v.items():
                kw = w or f"column {k!r}"
                if any("\ud800" <= ch <= "\udfff" for ch in str(k)):
                    return f"the key of {kw}" if w else "a column name"
                stack.append((x, kw))
        elif isinstance(v, list):
            stack.extend((x, w) for x in v)
    return None


def _quote_reason(exc: csv.Error) -> str:
    msg = str(exc)
    if "field larger than field limit" in msg:
        return (
            f"a field is longer than {FIELD_LIMIT // 1024} KiB; most likely a quote opened "
            "here runs over many lines (close it), else shorten the field"
        )
    if "unexpected end of data" in msg:
        return (
            "a quoted field opened on this line is never closed; close the quote, or "
            'double it ("") inside the field'
        )
    return f'malformed quoting ({msg}); quote the whole field and double any " inside it'
