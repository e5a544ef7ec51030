"""A table of references and hypotheses as the per-item audit frame (no audio, no project).

The input of a table audit (``fairdesk audit --table``) and of a regression on a table
(``fairdesk regress --table``), with plain arguments: :func:`read_any_table` reads the file
and :func:`table_frame` renames the named columns, checks the text and names every item.
The command line only maps its options onto these (:mod:`fairdesk.cli.tables`).
"""

from __future__ import annotations

from pathlib import Path

from .names import nfc
from .tables import TableError, header_hint

__all__ = [
    "SPEAKER_SOURCE",
    "MissingColumn",
    "speaker_source",
    "no_rows_message",
    "read_any_table",
    "row_warnings",
    "rows_frame",
    "table_frame",
]


class MissingColumn(TableError):
    """The table lacks a column it must have (``column``: which one)."""

    def __init__(self, message: str, column: str):
        super().__init__(message)
        self.column = column


#: ``DataFrame.attrs`` key of a frame made by :func:`rows_frame`: the table's column the
#: speaker ids came from (None: the table had none). A frame read again (the command line
#: reads, the job checks) keeps the name the user's table gave.
SPEAKER_SOURCE = "fairdesk_speaker_column"


def speaker_source(frame) -> str | None:
    """The table column a frame's ``speaker_id`` came from (:data:`SPEAKER_SOURCE`; a
    frame not made by :func:`rows_frame`: ``speaker_id`` when it has ids, else None)."""
    if SPEAKER_SOURCE in getattr(frame, "attrs", {}):
        return frame.attrs[SPEAKER_SOURCE]
    return "speaker_id" if "speaker_id" in frame.columns else None


def read_any_table(path):
    """A CSV, TSV, JSONL or Parquet file as a DataFrame indexed by the file's line numbers.

    Parameters
    ----------
    path : the file.

    Returns
    -------
    (pandas.DataFrame, list of dict)
        The rows (Parquet: indexed by row numbers) and the unreadable rows as
        ``{"line", "reason", "source"}``.

    Raises
    ------
    fairdesk.core.tables.TableError
        The path cannot be opened, is missing or not a regular file, or the whole file cannot
        be read as a table; the message starts with the path.
    """
    from .tables import read_table

    p = Path(path)
    try:
        exists, regular = p.exists(), p.is_file()
    except OSError as exc:  # a name too long ...
        raise TableError(
            f"{str(p)[:200]}...: cannot be opened ({exc.strerror or exc}); check the path"
        ) from None
    if not exists:
        raise TableError(f"{p}: no such file")
    if not regular:
        raise TableError(
            f"{p}: is {'a folder' if p.is_dir() else 'not a regular file'}"
            "; give a CSV, TSV, JSONL or Parquet file"
        )
    table = read_table(p)
    problems = [{"line": pr.line, "reason": pr.reason, "source": str(p)} for pr in table.problems]
    return table.frame(), problems


def table_frame(
    path,
    *,
    ref_col: str = "reference",
    hyp_col: str = "hypothesis",
    speaker_col: str | None = None,
    content_col: str = "content_id",
):
    """The per-item audit frame of a table file, renaming the named columns.

    Parameters
    ----------
    path : the table file (:func:`read_any_table`).
    ref_col, hyp_col, speaker_col, content_col : as :func:`rows_frame`.

    Returns
    -------
    (pandas.DataFrame, list of dict)
        As :func:`rows_frame`; the problems also list the file's unreadable rows.

    Raises
    ------
    MissingColumn
        The reference or hypothesis column is missing.
    fairdesk.core.tables.TableError
        The file cannot be read (:func:`read_any_table`).
    """
    df, problems = read_any_table(path)
    return rows_frame(
        df,
        problems,
        source=str(path),
        ref_col=ref_col,
        hyp_col=hyp_col,
        speaker_col=speaker_col,
        content_col=content_col,
    )


def rows_frame(
    df,
    problems=(),
    *,
    source: str = "table",
    ref_col: str = "reference",
    hyp_col: str = "hypothesis",
    speaker_col: str | None = None,
    content_col: str = "content_id",
):
    """The per-item audit frame of a table's rows (a DataFrame indexed by line), renaming
    the named columns.

    Parameters
    ----------
    df : the rows (a file's, or a caller's DataFrame; its index names the rows).
    problems : problems found while reading (``line``, ``reason``, ``source``), kept.
    source : what the messages call the table (its path).
    ref_col, hyp_col : the reference and hypothesis columns (renamed ``reference`` and
        ``hypothesis``; not needed for a table of labels and predicted labels only).
    speaker_col : the speaker column (renamed ``speaker_id``); None: found by the one rule
        (:func:`fairdesk.core.speaker_columns.find_speaker_column`). The column it came
        from is kept in the frame's ``attrs`` (:func:`speaker_source`).
    content_col : renamed ``content_id`` when present.

    Returns
    -------
    (pandas.DataFrame, list of dict)
        The frame (a ``line`` column with the rows' line numbers; ``item_id`` is the line
        where the table has none; ``content_id`` derived from the reference where missing)
        and the problems (those given, and texts that are not UTF-8), by line.

    Raises
    ------
    MissingColumn
        The reference or hypothesis column is missing.
    fairdesk.core.speaker_columns.AmbiguousSpeakerColumn
        Two columns could be the speaker column.
    fairdesk.core.speaker_columns.MissingSpeakerColumn
        ``speaker_col`` is not a column.
    """
    import pandas as pd

    from .importers import bad_utf8, derive_content_id
    from .speaker_columns import find_speaker_column
    from .values import classification_only

    problems = list(problems)
    ren = {ref_col: "reference", hyp_col: "hypothesis"}
    spk = find_speaker_column(df.columns, speaker_col, source=source)
    if spk is not None:
        ren[spk] = "speaker_id"
        if spk != "speaker_id" and "speaker_id" in df.columns:  # another column was named:
            ren["speaker_id"] = "speaker_id_table"  # the table's own ids kept, by another name
    # a frame this function made keeps the name of its table's speaker column
    origin = df.attrs.get(SPEAKER_SOURCE, spk) if spk == "speaker_id" else spk
    if content_col in df.columns:
        ren[content_col] = "content_id"
    classify = classification_only(df, ref_col)  # labels and predicted labels, no text
    for need in () if classify else (ref_col, hyp_col):
        if need not in df.columns:
            raise MissingColumn(
                f"{source}: no column {need!r} (columns: {_names(df.columns)})"
                + header_hint(df.columns),
                need,
            )
    df = df.rename(columns={k: v for k, v in ren.items() if k != v})
    if "intent" in df.columns and "ref_intent" not in df.columns:
        df = df.rename(columns={"intent": "ref_intent", "slots": "ref_slots"})
    # The frame's index is the file's line numbers: they stay the rows' names from here on.
    if "line" not in df.columns:
        df["line"] = df.index
    if classify:
        df = df.drop(columns=[c for c in ("reference", "hypothesis") if c in df.columns])
        if "content_id" not in df.columns:
            df["content_id"] = [str(line) for line in df.index]
    else:
        bad = []
        for line, r, h in zip(df.index, df["reference"], df["hypothesis"], strict=True):
            reason = bad_utf8(r) or bad_utf8(h)
            if reason:
                bad.append(line)
                problems.append({"line": int(line), "reason": reason, "source": source})
        df = df.drop(index=bad)
        # An empty reference stays empty: the analysis reports it as a problem (docs/METHODS.md, "Per-item metrics");
        # an empty hypothesis is a real output (all deletions).
        ref = df["reference"]
        df["reference"] = ref.where(ref.isna(), ref.astype(str))
        df["hypothesis"] = df["hypothesis"].fillna("").astype(str)
        if "content_id" not in df.columns:
            df["content_id"] = [derive_content_id("" if pd.isna(t) else t) for t in df["reference"]]
    if "speaker_id" not in df.columns:
        df["speaker_id"] = None
    if "item_id" not in df.columns:
        df["item_id"] = [str(line) for line in df.index]  # an item is named by its line
    # Ids and labels as Unicode NFC: "Ìgbò" typed two ways is one group, one speaker
    # (docs/METHODS.md, "Items, groups and the reference"); the texts are the metrics' to normalise.
    for col in df.columns:
        if col not in ("reference", "hypothesis", "line") and (
            pd.api.types.is_object_dtype(df[col]) or pd.api.types.is_string_dtype(df[col])
        ):
            df[col] = df[col].map(nfc)
    problems = sorted(problems, key=lambda pr: pr["line"])
    out = pd.DataFrame(df).reset_index(drop=True)
    out.attrs[SPEAKER_SOURCE] = origin
    return out, problems


#: How many line numbers a row warning names.
SHOWN_LINES = 5


def row_warnings(frame, source: str = "table") -> list[str]:
    """What is suspicious about the used rows of a table frame (:func:`rows_frame`): rows
    that repeat an earlier row exactly, and item ids used by more than one row (each row
    is still an item: the audit counts it again). Each sentence counts the rows and names
    the first :data:`SHOWN_LINES` lines."""
    if frame.empty:
        return []
    lines = frame["line"].tolist() if "line" in frame.columns else list(frame.index)
    named = "item_id" in frame.columns and not all(
        str(i) == str(n) for i, n in zip(frame["item_id"], lines, strict=True)
    )
    cols = [c for c in frame.columns if c != "line" and (named or c != "item_id")]
    keys = [repr(t) for t in frame[cols].itertuples(index=False, name=None)]
    first: dict[str, int] = {}
    copies = []
    for key, line in zip(keys, lines, strict=True):
        if key in first:
            copies.append((line, first[key]))
        else:
            first[key] = line
    out = []
    if copies:
        shown = ", ".join(f"line {a} = line {b}" for a, b in copies[:SHOWN_LINES])
        more = f" and {len(copies) - SHOWN_LINES} more" if len(copies) > SHOWN_LINES else ""
        out.append(
            f"{source}: {_copies(len(copies), 'exact copy', 'exact copies')} of an earlier row "
            f"({shown}{more}); "
            "each copy is counted as another item: remove the copies unless they are "
            "separate recordings"
        )
    if named:
        copied = {a for a, _b in copies}
        seen: dict[str, int] = {}
        reused = []
        for item, line in zip(frame["item_id"], lines, strict=True):
            if item is None or (isinstance(item, float) and item != item):
                continue
            if str(item) in seen and line not in copied:
                reused.append((str(item), seen[str(item)], line))
            seen.setdefault(str(item), line)
        if reused:
            shown = ", ".join(f"{i!r} on lines {a} and {b}" for i, a, b in reused[:SHOWN_LINES])
            more = f" and {len(reused) - SHOWN_LINES} more" if len(reused) > SHOWN_LINES else ""
            out.append(
                f"{source}: {_copies(len(reused), 'item id', 'item ids')} used again by a "
                f"later row ({shown}{more}); each row is counted as its own item: give every "
                "row a unique id"
            )
    return out


def _copies(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def no_rows_message(source: str, problems) -> str:
    """Why a table has no usable row: no row below the header, or every row refused (how
    many, the first reasons, and the fix they share)."""
    if not problems:
        return f"{source}: no usable rows: the file has a header but no rows below it; add rows"
    first = problems[0]
    where = f"line {first.get('line')}: " if first.get("line") is not None else ""
    reasons = [str(pr.get("reason", "")) for pr in problems]
    hint = ""
    if all("UTF-8" in r for r in reasons):
        hint = (
            "; the file is not UTF-8 (most likely Latin-1 or Windows-1252): re-save it as "
            "UTF-8 (in a spreadsheet: CSV UTF-8)"
        )
    n = len(problems)
    return (
        f"{source}: no usable rows: {'the one row was' if n == 1 else f'all {n} rows were'} "
        f"refused (first: {where}{reasons[0]}){hint}"
    )


def _names(columns) -> str:
    """Column names for a message (a name holding control characters, NUL bytes of a UTF-16
    file read as UTF-8 among them, is shown escaped)."""
    return ", ".join(ascii(c) if any(ord(ch) < 32 for ch in str(c)) else str(c) for c in columns)
