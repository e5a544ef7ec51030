"""Speaker sheets: speaker metadata (gender, age, dialect …) kept in a table of its own and
joined to a dataset's items by speaker id (``fairdesk import --speakers FILE``).

Field recordings segmented in ELAN or Praat, CHAT transcripts and many recipe layouts carry
speaker ids but no demographics: those live in the fieldworker's spreadsheet. A sheet is a
CSV, TSV or Excel (``.xlsx``) table with one row per speaker; its speaker column is found as
for every table (an exact ``speaker_id``, else one of the usual names: ``speaker``, ``spk``,
``participant`` …, :data:`fairdesk.core.import_rows.SPEAKER_COLUMNS`); every other column is
metadata. The join:

* every item whose speaker has a row gets that row's values (a value the format gave too,
  ELAN's participant say, is replaced by the sheet's, and each such change is counted);
* speakers of the data that the sheet lacks, and sheet rows no item uses, are listed in the
  import's report (never dropped or guessed silently);
* a speaker listed twice in the sheet refuses the sheet, naming both rows;
* empty cells stay missing (the item keeps what the format gave, if anything).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import ImportFailed
from .labels import normalise_metadata

__all__ = ["SheetJoin", "join_speaker_sheet", "read_speaker_sheet"]


@dataclass(frozen=True)
class SheetJoin:
    """What joining a speaker sheet did (shown with the import's report)."""

    path: str
    column: str
    columns: tuple[str, ...]
    joined_items: int
    joined_speakers: int
    #: speakers of the data with no row in the sheet
    missing: tuple[str, ...] = ()
    #: speakers of the sheet no item has
    unused: tuple[str, ...] = ()
    #: (speaker, column, the data's value, the sheet's value) where the sheet replaced one
    replaced: tuple[tuple[str, str, str, str], ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "column": self.column,
            "columns": list(self.columns),
            "joined_items": self.joined_items,
            "joined_speakers": self.joined_speakers,
            "missing": list(self.missing),
            "unused": list(self.unused),
            "replaced": [list(r) for r in self.replaced],
        }


def _speaker_column(columns: list[str], path: Path) -> str:
    from .import_rows import SPEAKER_COLUMNS

    if "speaker_id" in columns:
        return "speaker_id"
    lower = {c.lower(): c for c in columns}
    hits = [lower[n] for n in SPEAKER_COLUMNS if n in lower]
    hits = list(dict.fromkeys(hits))
    if not hits:
        raise ImportFailed(
            f"{path}: no speaker column (looked for speaker_id, "
            f"{', '.join(SPEAKER_COLUMNS)}; its columns: {', '.join(columns)}); name the "
            "speaker column speaker_id"
        )
    if len(hits) > 1:
        raise ImportFailed(
            f"{path}: two speaker columns, {hits[0]!r} and {hits[1]!r}; keep one, or rename "
            "the one that holds the speaker ids to speaker_id"
        )
    return hits[0]


def read_speaker_sheet(path) -> tuple[str, dict[str, dict], list[str]]:
    """``(speaker column, {speaker id: {column: value}}, metadata columns)`` of a sheet.

    Raises
    ------
    ImportFailed
        The file is missing, not a table, has no (or two) speaker columns, or lists a
        speaker twice.
    """
    import pandas as pd

    path = Path(path).expanduser()
    if not path.is_file():
        raise ImportFailed(f"{path}: no such speaker sheet; give a CSV, TSV or .xlsx file")
    suffix = path.suffix.lower()
    try:
        if suffix in (".xlsx", ".xlsm"):
            from .extras import require

            require("sheets", "an Excel speaker sheet", ("openpyxl",))
            df = pd.read_excel(path, dtype=str, keep_default_na=False)
        else:
            sep = "\t" if suffix in (".tsv", ".tab") else None
            df = pd.read_csv(
                path,
                sep=sep,
                engine="python",
                dtype=str,
                keep_default_na=False,
                encoding="utf-8-sig",
            )
    except ImportFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - the reader's reason, with the file named
        raise ImportFailed(
            f"{path}: not a readable speaker sheet ({exc}); save it as CSV"
        ) from None
    columns = [str(c).strip() for c in df.columns]
    df.columns = columns
    col = _speaker_column(columns, path)
    rows: dict[str, dict] = {}
    first: dict[str, int] = {}
    header_line = 1
    for k, rec in enumerate(df.to_dict(orient="records")):
        line = header_line + 1 + k
        sid = str(rec.get(col) or "").strip()
        if not sid:
            continue
        if sid in rows:
            raise ImportFailed(
                f"{path}: speaker {sid!r} is listed twice (rows {first[sid]} and {line}); keep "
                "one row per speaker"
            )
        first[sid] = line
        rows[sid] = normalise_metadata(  # the sheet's labels in the one vocabulary
            {c: str(v).strip() for c, v in rec.items() if c != col and str(v).strip() != ""}
        )
    meta = [c for c in columns if c != col]
    return col, rows, meta


def join_speaker_sheet(cands: list, path) -> tuple[list, SheetJoin]:
    """Join a sheet's rows to import candidates by ``speaker_id`` (in place; returns them
    with what the join did)."""
    col, rows, meta = read_speaker_sheet(path)
    used: set[str] = set()
    missing: dict[str, None] = {}
    replaced: dict[tuple[str, str], tuple[str, str, str, str]] = {}
    joined = 0
    for c in cands:
        sid = str(c.speaker_id or "").strip()
        if not sid:
            continue
        row = rows.get(sid)
        if row is None:
            missing[sid] = None
            continue
        used.add(sid)
        joined += 1
        for k, v in row.items():
            old = c.metadata.get(k)
            if old not in (None, "") and str(old) != v:
                replaced.setdefault((sid, k), (sid, k, str(old), v))
            c.metadata[k] = v
    return cands, SheetJoin(
        path=str(path),
        column=col,
        columns=tuple(meta),
        joined_items=joined,
        joined_speakers=len(used),
        missing=tuple(sorted(missing)),
        unused=tuple(sorted(s for s in rows if s not in used)),
        replaced=tuple(replaced[k] for k in sorted(replaced)),
    )
