"""The rows an importer produces: candidates, problems, and the text and table readers.

Kept apart from :mod:`fairdesk.core.importers` so that the corpus readers
(:mod:`.importers_saa`, :mod:`.importers_l2arctic`) use them without an import circle.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import tables
from .errors import ImportFailed
from .tables import TableError, decode_text


@dataclass(frozen=True)
class Problem:
    """One refused row: ``row`` is the line of ``source`` where the row starts (None: the
    whole file); messages say "line N"."""

    row: int | None
    path: str | None
    reason: str
    source: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Candidate:
    row: int
    source: str
    key: str | None
    path: str
    text: str | None
    speaker_id: str | None = None
    content_id: str | None = None
    metadata: dict = field(default_factory=dict)
    needs_text: bool = True
    #: ``(kind, start, end, value)`` annotations that come with the source (L2-ARCTIC's
    #: phone errors); re-importing replaces the item's annotations of these kinds.
    annotations: list = field(default_factory=list)


# -- text decoding ---------------------------------------------------------------------
def read_text(path: Path) -> str:
    """Read a text file by the encoding policy of :func:`fairdesk.core.tables.decode_text`
    (UTF-8 with or without BOM, UTF-16 with BOM); undecodable bytes become surrogates so that
    the rows holding them can be reported one by one instead of sinking the file."""
    try:
        return decode_text(Path(path).read_bytes(), path)
    except TableError as exc:
        raise ImportFailed(str(exc)) from None


# -- table reading (the one reader, core.tables) ------------------------------------------
def read_table(
    path: Path, quoting: str = "rfc4180", name_blank: bool = False
) -> tuple[list[str], list[tuple[int, dict]], list[Problem]]:
    """Rows of a CSV, TSV, JSONL or Parquet file as ``(line, dict)``; unreadable rows as
    problems (see :mod:`fairdesk.core.tables`: numbering, quoting, encodings)."""
    try:
        table = tables.read_table(path, quoting=quoting, name_blank=name_blank)
    except TableError as exc:
        raise ImportFailed(str(exc)) from None
    src = str(path)
    problems = [Problem(pr.line, None, pr.reason, src) for pr in table.problems]
    return table.columns, table.rows, problems
