"""The rows an importer produces: candidates, problems, and the text and table readers.

Kept apart from :mod:`fairdesk.core.importers` so that the corpus readers
(:mod:`.importers_saa`, :mod:`.importers_l2arctic`) use them without an import circle.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import tables
from .errors import ImportFailed
from .names import DiskNames
from .speaker_columns import SPEAKER_COLUMNS, find_speaker_column  # noqa: F401 - re-exported
from .tables import TableError, decode_text, header_hint


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
    #: The span of the file the item is (seconds; None: the whole file), e.g. a Kaldi
    #: ``segments`` line or an ELAN interval (:mod:`fairdesk.core.spans`).
    start_s: float | None = None
    end_s: float | None = None
    #: ``(line, file)`` where the audio is listed, when that is not ``row`` of ``source``
    #: (a Kaldi ``wav.scp`` line): a file not found or not audio is reported there.
    audio_at: tuple[int, str] | None = None
    #: ``(line, file)`` where the span's times are given, when not ``row`` of ``source``
    #: (a Kaldi ``segments`` line): a span that does not fit its file is reported there.
    span_at: tuple[int, str] | None = None

    def where_audio(self) -> tuple[int, str]:
        """The ``(line, file)`` a problem with the listed audio file is reported at."""
        return self.audio_at or (self.row, self.source)

    def where_span(self) -> tuple[int, str]:
        """The ``(line, file)`` a problem with the span's times is reported at."""
        return self.span_at or self.where_audio()


# -- table rows to candidates (manifest, audiofolder, Common Voice, NeMo) -------------------
AUDIO_COLUMNS = (
    "path",
    "audio",
    "audio_path",
    "file",
    "file_name",
    "filename",
    "wav",
    "audio_file",
    "audio_filepath",
)
TEXT_COLUMNS = (
    "text",
    "transcript",
    "transcription",
    "sentence",
    "reference",
    "normalized_text",
    "ref",
)
# the speaker column: the one rule of :mod:`fairdesk.core.speaker_columns`
CONTENT_COLUMNS = ("content_id", "sentence_id", "prompt_id", "text_id")
ID_COLUMNS = ("id", "item_id", "utt_id", "utterance_id", "key")
#: A manifest without transcripts is accepted when it has one of these (classifiers).
LABEL_COLUMNS = ("label", "class", "emotion")


def _pick(columns, wanted: str | None, candidates, what: str, source) -> str | None:
    if wanted:
        if wanted not in columns:
            raise ImportFailed(
                f"{source}: no column {wanted!r} for the {what} (columns: {', '.join(columns)})"
            )
        return wanted
    lower = {c.lower().strip(): c for c in columns}
    for c in candidates:
        if c in lower:
            return lower[c]
    return None


def _clean(v):
    """A cell's value, None where it is missing: None, NaN (a Parquet or pandas gap), or
    blank text (docs/METHODS.md, "Missing values"; never the text "nan")."""
    if v is None or (isinstance(v, float) and v != v):
        return None
    if type(v).__name__ in ("NAType", "NaTType"):  # pandas.NA / NaT
        return None
    if isinstance(v, str):
        v = v.strip()
        return v or None
    return v


def listed_paths(header, rows, source, audio_col=None) -> list:
    """The values of the audio-path column (none when there is no such column: the rows are
    refused when made candidates): what :func:`fairdesk.core.audio_paths.choose_root`
    picks the folder of relative paths by."""
    a = _pick(header, audio_col, AUDIO_COLUMNS, "audio path", source)
    return [] if a is None else [row.get(a) for _i, row in rows]


def rows_to_candidates(
    header,
    rows,
    source: Path,
    base: Path,
    *,
    audio_col=None,
    text_col=None,
    speaker_col=None,
    content_col=None,
    id_col=None,
    drop: tuple[str, ...] = (),
) -> list[Candidate]:
    """Map table rows to candidates, each listed path read relative to ``base`` (or as written
    when absolute); the importer stores it relative to its audio root."""
    a = _pick(header, audio_col, AUDIO_COLUMNS, "audio path", source)
    if a is None:
        raise ImportFailed(
            f"{source}: no audio-path column found (looked for "
            f"{', '.join(AUDIO_COLUMNS)}); name it with --audio-col" + header_hint(header)
        )
    t = _pick(header, text_col, TEXT_COLUMNS, "transcript", source)
    label_only = t is None and any(h.lower() in LABEL_COLUMNS for h in header)
    if t is None and not label_only:
        raise ImportFailed(
            f"{source}: no transcript column found (looked for "
            f"{', '.join(TEXT_COLUMNS)}); name it with --text-col (a "
            "classification dataset needs a 'label' column instead)"
        )
    try:
        s = find_speaker_column(header, speaker_col, source=str(source))
    except TableError as exc:
        raise ImportFailed(str(exc)) from None
    c = _pick(header, content_col, CONTENT_COLUMNS, "content id", source)
    k = _pick(header, id_col, ID_COLUMNS, "item id", source)
    used = {a, t, s, c, k} | set(drop)
    names = DiskNames()  # the listed file found under NFC/NFD, trimmed or not, "\\" or "/"
    out = []
    for i, row in rows:
        p = row.get(a)
        meta = {}
        for col, v in row.items():
            if col in used:
                continue
            v = _clean(v)
            if v is not None:
                meta[str(col)] = v if isinstance(v, (str, int, float, bool)) else v
        path = names.locate(base, str(p)) if p is not None and str(p).strip() else ""
        out.append(
            Candidate(
                row=i,
                source=str(source),
                key=None if k is None else _str(row.get(k)),
                path=path,
                text=""
                if label_only
                else (
                    row.get(t)
                    if isinstance(row.get(t), str) or row.get(t) is None
                    else str(row.get(t))
                ),
                needs_text=not label_only,
                speaker_id=None if s is None else _str(row.get(s)),
                content_id=None if c is None else _str(row.get(c)),
                metadata=meta,
            )
        )
    return out


def _str(v) -> str | None:
    v = _clean(v)
    return None if v is None else str(v)


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
) -> tuple[list[str], Sequence[tuple[int, dict]], list[Problem]]:
    """Rows of a CSV, TSV, JSONL or Parquet file as ``(line, dict)``; unreadable rows as
    problems (see :mod:`fairdesk.core.tables`: numbering, quoting, encodings)."""
    try:
        table = tables.read_table(path, quoting=quoting, name_blank=name_blank)
    except TableError as exc:
        raise ImportFailed(str(exc)) from None
    src = str(path)
    problems = [Problem(pr.line, None, pr.reason, src) for pr in table.problems]
    if not table.columns and not table.rows:
        raise ImportFailed(no_records_message(path, problems))
    return table.columns, table.rows, problems


def no_records_message(path, problems) -> str:
    """Why a table holds no record at all (no header, no row): it is empty, it holds only
    blank lines, or every record was refused (how many, and the first reason)."""
    if problems:
        first = problems[0]
        n = len(problems)
        what = "the one record was" if n == 1 else f"all {n} records were"
        return f"{path}: no usable record: {what} refused (first: line {first.row}: {first.reason})"
    try:
        size = Path(path).stat().st_size
    except OSError:
        size = None
    if size == 0:
        return f"{path}: the file is empty (0 bytes): no records to import"
    return f"{path}: the file holds only blank lines: no records to import"


def read_jsonl(path: Path) -> tuple[Sequence[tuple[int, dict]], list[Problem]]:
    """Records of a JSONL file, gzipped (``.gz``) or not, as ``(line, dict)`` with the
    unreadable lines as problems (the checks of :func:`read_table`)."""
    path = Path(path)
    if not path.name.lower().endswith(".gz"):
        _header, rows, problems = read_table(path)
        return rows, problems
    try:
        data = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, zlib.error) as exc:
        raise ImportFailed(
            f"{path}: not a readable gzip file ({exc}); decompress it with gunzip to check it"
        ) from None
    try:
        table = tables.parse_jsonl(path, decode_text(data, path))
    except TableError as exc:
        raise ImportFailed(str(exc)) from None
    problems = [Problem(pr.line, None, pr.reason, str(path)) for pr in table.problems]
    if not table.rows and problems:
        raise ImportFailed(no_records_message(path, problems))
    return table.rows, problems
