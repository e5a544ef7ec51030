"""The project store: a folder holding ``project.sqlite`` (SQLite in WAL mode).

Readers keep working while a job writes (WAL); every write is a transaction, so a killed
process never leaves half an import, and what was committed survives ``kill -9``.
The schema is versioned with ``PRAGMA user_version`` and migrated forward on open.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import integrity, opening, summaries
from .audio_paths import shown_item_path
from .errors import StoreError
from .labels import integer_columns
from .names import nfc
from .schema import DB_NAME, MIGRATIONS, SCHEMA_VERSION, _connect, inserted_id, migrate
from .versions import annotator_name, is_adjudication

__all__ = [
    "DB_NAME",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "TRANSCRIPT",
    "Dataset",
    "Project",
    "close_all",
    "copy_database",
    "last_opened",
    "migrate",
    "remove_dataset_if_empty",
]

#: The projects opened in this process and not closed (:func:`close_all`, :func:`last_opened`).
_OPEN: weakref.WeakSet = weakref.WeakSet()
_LAST: Path | None = None

#: Annotation kind of a corrected transcript (value: ``{"text", "previous", "source"...}``).
TRANSCRIPT = "transcript"


@dataclass(frozen=True)
class Dataset:
    """One dataset row."""

    id: int
    name: str
    root: Path
    format: str
    language: str


class Project:
    """A fairdesk project folder.

    Parameters
    ----------
    folder : the project folder; created with an empty store when ``create`` is true.
    create : create the folder and database if they do not exist.

    Notes
    -----
    One connection per thread (:meth:`conn`); a background job opens its own.
    """

    def __init__(self, folder, create: bool = True, read_only: bool | None = None):
        try:
            self.folder = Path(folder).expanduser().resolve()
            self.db_path = self.folder / DB_NAME
            exists = self.db_path.exists()
        except OSError as exc:  # a name too long, a loop of links ...
            raise StoreError(
                f"{str(folder)[:200]}: cannot open this project folder "
                f"({exc.strerror or exc}); check the --project path"
            ) from None
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        #: Why the project is read-only (None: it can be written): ``transaction`` refuses.
        self.read_only: str | None = None
        #: What a read-only opening may not show (an un-checkpointed -wal), for the views.
        self.notes: list[str] = []
        if exists and opening.empty_database(self.db_path):
            raise integrity.damaged(
                self.db_path,
                f"{DB_NAME} is empty: 0 bytes, no project in it",
                ["the file is empty (0 bytes)"],
                hint=f"To start a new project here instead, delete the empty {DB_NAME} first",
            )
        if not exists:
            self._create_folder(create)
        reason = (
            opening.read_only_reason(self.folder, self.db_path)
            if read_only is None
            else ("it was opened read-only" if read_only else None)
        )
        if reason is not None and not exists:
            raise StoreError(
                f"{self.folder}: cannot create a project here ({reason}); choose a writable place"
            )
        try:
            if reason is None:
                try:
                    self._open_writable()
                except sqlite3.OperationalError as exc:
                    if "readonly" not in str(exc) or read_only is False:
                        raise
                    self.close_all()  # found by a failed write: open it read-only instead
                    reason = "its database cannot be written"
            if reason is not None:
                self.read_only = reason
                self.conn  # noqa: B018 - opened read-only and laid out as the current schema
        except StoreError:
            self.close_all()
            raise
        except sqlite3.DatabaseError as exc:
            self.close_all()
            if "not a database" in str(exc):
                raise integrity.damaged(
                    self.db_path, f"not a usable fairdesk database: {exc}"
                ) from None
            raise integrity.database_error(exc, self.db_path, "opening the project") from None
        _OPEN.add(self)
        global _LAST
        _LAST = self.db_path

    def _create_folder(self, create: bool) -> None:
        if not create:
            raise StoreError(
                f"{self.folder}: no fairdesk project here ({DB_NAME} is missing); check "
                f"the --project path, or create a project with `fairdesk init "
                f"{self.folder}` (or `fairdesk import` / `fairdesk demo`)"
            )
        if self.folder.exists() and not self.folder.is_dir():
            raise StoreError(f"{self.folder}: exists and is not a folder")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"{self.folder}: cannot create the project folder "
                f"({exc.strerror or exc}); choose a writable place"
            ) from None

    def _open_writable(self) -> None:
        """WAL, the migration (after a backup of an existing project), interrupted runs."""
        conn = self.conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if 0 < version < SCHEMA_VERSION:
            integrity.write_backup(conn, self.folder)
        migrate(conn)
        from .runlock import release_interrupted

        release_interrupted(self)

    # -- connections and transactions -------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        c = getattr(self._local, "conn", None)
        if c is None:
            if self.read_only:
                folder_writable = opening.folder_writable(self.folder)
                c, self.notes = opening.read_only_connection(self.db_path, folder_writable)
                try:
                    opening.layout_read_only(c, self.db_path)
                except BaseException:
                    c.close()
                    raise
            else:
                c = _connect(self.db_path)
            self._local.conn = c
            self._conns.append(c)
        return c

    def close(self) -> None:
        """Close this thread's connection; a writing one first moves its -wal into the
        database (so a copy of the folder, or a read-only reader, needs no -wal)."""
        c = getattr(self._local, "conn", None)
        if c is not None:
            self._close(c)
            self._local.conn = None

    def _close(self, c: sqlite3.Connection) -> None:
        if c in self._conns:
            self._conns.remove(c)
        if not self.read_only:
            try:
                c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass  # busy (another reader) or a full disk: the -wal is kept, nothing lost
        try:
            c.close()
        except sqlite3.Error:
            pass

    def close_all(self) -> None:
        """Close every thread's connection (when nothing uses the project any more)."""
        for c in list(self._conns):
            self._close(c)
        self._local = threading.local()
        _OPEN.discard(self)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: everything inside commits together or not at all.

        Raises ReadOnlyProject on a read-only project; a full disk (StoreFull) or damage
        (DamagedProject) found while writing rolls the transaction back and says so."""
        if self.read_only:
            raise opening.read_only_refusal(self.folder, self.read_only)
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            yield c
            c.execute("COMMIT")
        except BaseException as exc:
            try:
                c.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite rolled back already (a full disk can do that)
            if isinstance(exc, sqlite3.DatabaseError) and integrity.is_store_problem(exc):
                if integrity.is_full(exc):
                    try:  # give back the space the rolled-back pages took in the -wal
                        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    except sqlite3.Error:
                        pass
                raise integrity.database_error(exc, self.db_path) from None
            raise

    @property
    def schema_version(self) -> int:
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    # -- datasets and items ---------------------------------------------------------
    def datasets(self) -> list[Dataset]:
        rows = self.conn.execute("SELECT * FROM datasets ORDER BY name").fetchall()
        return [self._dataset(r) for r in rows]

    def dataset(self, name: str) -> Dataset:
        r = self.conn.execute("SELECT * FROM datasets WHERE name=?", (name,)).fetchone()
        if r is None:
            names = ", ".join(d.name for d in self.datasets()) or "none"
            raise StoreError(f"no dataset named {name!r} in {self.folder} (datasets: {names})")
        return self._dataset(r)

    @staticmethod
    def _dataset(r) -> Dataset:
        return Dataset(r["id"], r["name"], Path(r["root"]), r["format"], r["language"])

    def metadata_columns(self, ds: Dataset) -> set[str]:
        """The metadata columns :meth:`dataset_summary` lists (:mod:`.summaries`)."""
        return summaries.metadata_columns(self.conn, ds)

    def dataset_summary(self, ds: Dataset) -> dict:
        """Counts of a dataset: items, speakers, duration, and per metadata column its values
        (:mod:`.summaries`)."""
        return summaries.dataset_summary(self.conn, ds)

    def item_count(self, ds: Dataset) -> int:
        """How many items the dataset holds (stale ones included)."""
        return self.conn.execute(
            "SELECT COUNT(*) FROM items WHERE dataset_id=?", (ds.id,)
        ).fetchone()[0]

    def items(
        self, ds: Dataset, filters: dict[str, list[str]] | None = None, stale: bool | None = False
    ):
        """The dataset's items as a DataFrame (metadata expanded into columns).

        Columns: ``id`` (the item key), ``db_id``, ``path`` (relative to the dataset's root;
        absolute for a file of another of its audio roots), ``audio_hash``,
        ``duration``, ``sample_rate``, ``channels``, ``text``, ``speaker_id``, ``content_id``
        and one column per metadata key. ``filters`` keeps rows whose column value is one of
        the given strings. ``stale``: False (default) leaves out the items the last re-import
        no longer listed, True keeps only them, None keeps every item. The ``warnings`` column
        lists the import's warnings about an item's audio. ``start_s``/``end_s`` (only when
        some item of the dataset is a span of its file): the span in seconds, None for an
        item that is the whole file.
        """
        import pandas as pd

        rows = self.conn.execute(
            "SELECT items.id, item_key, items.path, ar.path AS root_path, audio_hash, duration, "
            "sample_rate, channels, text, speaker_id, content_id, metadata, "
            "COALESCE(s.stale, 0) AS stale, COALESCE(s.warnings, '[]') AS warnings, "
            "sp.start_s, sp.end_s FROM items "
            "LEFT JOIN item_status AS s ON s.item_id = items.id LEFT JOIN item_spans AS sp "
            "ON sp.item_id = items.id LEFT JOIN audio_roots AS ar ON ar.id = items.root_id "
            "WHERE items.dataset_id=? ORDER BY items.id",
            (ds.id,),
        ).fetchall()
        if stale is not None:
            rows = [r for r in rows if bool(r["stale"]) == bool(stale)]
        records = []
        for r in rows:
            rec = {
                "id": r["item_key"],
                "db_id": r["id"],
                # relative to the dataset's root; a file of another root by its full path
                "path": shown_item_path(r["root_path"], r["path"]),
                "audio_hash": r["audio_hash"],
                "duration": r["duration"],
                "sample_rate": r["sample_rate"],
                "channels": r["channels"],
                "text": r["text"],
                # ids and labels as NFC also when stored before imports normalised them
                "speaker_id": nfc(r["speaker_id"]),
                "content_id": r["content_id"],
                "warnings": json.loads(r["warnings"]) or None,
            }
            if r["start_s"] is not None:
                rec["start_s"], rec["end_s"] = r["start_s"], r["end_s"]
            for k, v in json.loads(r["metadata"]).items():
                rec.setdefault(nfc(k), nfc(v))
            records.append(rec)
        frame = pd.DataFrame.from_records(records)
        integer_columns(frame, records, list(frame.columns))  # 21, not 21.0, beside a gap
        if frame.empty:
            frame = pd.DataFrame(
                columns=[
                    "id",
                    "db_id",
                    "path",
                    "audio_hash",
                    "duration",
                    "sample_rate",
                    "channels",
                    "text",
                    "speaker_id",
                    "content_id",
                    "warnings",
                ]
            )
        if "start_s" in frame.columns:  # None (not NaN) where an item is a whole file
            for col in ("start_s", "end_s"):
                frame[col] = frame[col].astype(object).where(frame[col].notna(), None)
        for col, values in (filters or {}).items():
            col, values = nfc(col), [nfc(str(v)) for v in values]
            if col not in frame.columns:
                raise StoreError(
                    f"filter column {col!r} is not in dataset {ds.name!r} "
                    f"(columns: {', '.join(map(str, frame.columns))})"
                )
            have = frame[col].dropna().astype(str)
            missing = [str(v) for v in values if str(v) not in set(have)]
            if missing:
                shown = sorted(set(have))
                more = f" and {len(shown) - 30} more" if len(shown) > 30 else ""
                raise StoreError(
                    f"filter {col}={','.join(missing)}: no item of dataset {ds.name!r} has "
                    f"{'this value' if len(missing) == 1 else 'these values'} (values of "
                    f"{col!r}: {', '.join(shown[:30]) or 'none'}{more}); repeat --filter "
                    f"{col}=VALUE for several values"
                )
            frame = frame[frame[col].astype(str).isin([str(v) for v in values])]
        return frame.reset_index(drop=True)

    # -- annotations (saved at once) ------------------------------------------------
    def add_annotation(
        self, item_db_id: int, kind: str, value, start=None, end=None, annotator: str = ""
    ) -> int:
        now = time.time()
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO annotations(item_id, kind, start, end, value, created_at, "
                "updated_at, annotator) VALUES (?,?,?,?,?,?,?,?)",
                (
                    item_db_id,
                    kind,
                    start,
                    end,
                    json.dumps(value, ensure_ascii=False),
                    now,
                    now,
                    annotator_name(annotator),
                ),
            )
            return inserted_id(cur)

    def annotations(self, item_db_id: int, kind: str | None = None) -> list[dict]:
        q = "SELECT * FROM annotations WHERE item_id=?" + (" AND kind=?" if kind else "")
        rows = self.conn.execute(
            q + " ORDER BY id", (item_db_id, kind) if kind else (item_db_id,)
        ).fetchall()
        return [{**dict(r), "value": json.loads(r["value"])} for r in rows]

    def annotations_of_kinds(
        self, item_db_ids: Iterable[int], kinds: tuple[str, ...]
    ) -> Iterator[dict]:
        """The annotations of ``kinds`` on the given items (read in batches): ``item_id``,
        ``kind`` and ``value`` (decoded), each item's in the order they were made."""
        from .batches import select_in

        q = (
            f"SELECT item_id, kind, value FROM annotations WHERE kind IN "
            f"({','.join('?' * len(kinds))}) AND item_id IN ({{marks}}) ORDER BY id"
        )
        for r in select_in(self.conn, q, tuple(kinds), item_db_ids):
            yield {"item_id": int(r["item_id"]), "kind": r["kind"], "value": json.loads(r["value"])}

    def save_transcript(
        self,
        item_db_id: int,
        text: str,
        annotator: str = "",
        session: str | None = None,
        source: str = "annotation editor",
    ) -> int | None:
        """Store a corrected transcript of an item (its original text is kept).

        Each annotator has their own version (docs/METHODS.md,
        "References from several annotators"): the text is compared with that annotator's
        latest version (else the imported text), and ``previous`` is that text. Saving as one types would write one
        row per pause, so consecutive saves of one editing ``session`` (same item, same
        annotator) update that session's row; a new session adds a row to the item's history.

        Parameters
        ----------
        item_db_id : the item's database id.
        text : the transcript (stored NFC).
        annotator : who typed it.
        session : an id of the editing session (None: always a new row).
        source : what wrote it (shown in the history).

        Returns
        -------
        int or None
            The annotation id; None when ``text`` equals the item's current transcript and
            nothing was written.
        """
        import unicodedata

        new = unicodedata.normalize("NFC", text)
        annotator = annotator_name(annotator)
        with self.transaction() as c:
            item = c.execute("SELECT text FROM items WHERE id=?", (item_db_id,)).fetchone()
            if item is None:
                raise StoreError(f"no item with id {item_db_id} in {self.folder}")
            last = c.execute(
                "SELECT id, value, annotator FROM annotations WHERE item_id=? "
                "AND kind=? ORDER BY id DESC LIMIT 1",
                (item_db_id, TRANSCRIPT),
            ).fetchone()
            last_value = json.loads(last["value"]) if last is not None else None
            now = time.time()
            if (
                session is not None
                and last_value is not None
                and annotator_name(last["annotator"]) == annotator
                and not is_adjudication(last_value)
                and last_value.get("session") == session
            ):
                if last_value.get("text") == new:
                    return int(last["id"])
                value = {**last_value, "text": new}
                c.execute(
                    "UPDATE annotations SET value=?, updated_at=? WHERE id=?",
                    (json.dumps(value, ensure_ascii=False), now, last["id"]),
                )
                return int(last["id"])
            current = self._own_version(c, item_db_id, annotator, item["text"])
            if current == new:
                return None
            value = {"text": new, "previous": current, "original": item["text"], "source": source}
            if session is not None:
                value["session"] = session
            cur = c.execute(
                "INSERT INTO annotations(item_id, kind, start, end, value, created_at, "
                "updated_at, annotator) VALUES (?,?,NULL,NULL,?,?,?,?)",
                (
                    item_db_id,
                    TRANSCRIPT,
                    json.dumps(value, ensure_ascii=False),
                    now,
                    now,
                    annotator,
                ),
            )
            return inserted_id(cur)

    @staticmethod
    def _own_version(c, item_db_id: int, annotator: str, imported: str) -> str:
        """The latest version of ``annotator`` (adjudications aside), else the imported text."""
        for r in c.execute(
            "SELECT value, annotator FROM annotations WHERE item_id=? AND kind=? ORDER BY id DESC",
            (item_db_id, TRANSCRIPT),
        ):
            if annotator_name(r["annotator"]) != annotator:
                continue
            value = json.loads(r["value"])
            if is_adjudication(value):
                continue
            text = value.get("text") if isinstance(value, dict) else None
            return text if isinstance(text, str) and text.strip() else imported
        return imported

    def transcript_history(self, item_db_id: int) -> list[dict]:
        """An item's transcripts, oldest first: the imported one, then each annotation.

        Each entry: ``text``, ``source`` (``import`` or the annotation's source),
        ``annotator``, ``created_at``, ``updated_at``, ``annotation_id`` (None for the
        imported text).
        """
        r = self.conn.execute("SELECT text FROM items WHERE id=?", (item_db_id,)).fetchone()
        if r is None:
            return []
        anns = self.annotations(item_db_id, TRANSCRIPT)
        original = (
            anns[0]["value"].get("original", anns[0]["value"].get("previous"))
            if anns
            else r["text"]
        )
        out = [
            {
                "text": original if original is not None else r["text"],
                "source": "import",
                "annotator": "",
                "created_at": None,
                "updated_at": None,
                "annotation_id": None,
            }
        ]
        for a in anns:
            out.append(
                {
                    "text": a["value"].get("text", ""),
                    "source": a["value"].get("source", "annotation"),
                    "annotator": a.get("annotator") or "",
                    "created_at": a["created_at"],
                    "updated_at": a["updated_at"],
                    "annotation_id": a["id"],
                }
            )
        return out

    def latest_transcripts(self, item_db_ids: Iterable[int] | None = None) -> dict[int, str]:
        """The latest transcript annotation of each item that has one (item id -> text)."""
        ids = None if item_db_ids is None else {int(i) for i in item_db_ids}
        rows = self.conn.execute(
            "SELECT a.item_id, a.value FROM annotations a JOIN (SELECT item_id, MAX(id) AS id "
            "FROM annotations WHERE kind=? GROUP BY item_id) m ON a.id = m.id",
            (TRANSCRIPT,),
        ).fetchall()
        out = {}
        for item_id, value in rows:
            if ids is not None and item_id not in ids:
                continue
            text = json.loads(value).get("text")
            if isinstance(text, str) and text.strip():
                out[int(item_id)] = text
        return out

    def transcript_versions(self, item_db_ids: Iterable[int] | None = None) -> dict:
        """Each item's versions: one per annotator, the adjudicated one, the imported text
        and the latest (item id -> :class:`fairdesk.core.versions.ItemVersions`)."""
        from .versions import item_versions

        return item_versions(self, item_db_ids)

    def adjudicate(self, item_db_id: int, text: str, adjudicator: str) -> int:
        """Store the adjudicated version of an item (:func:`fairdesk.core.versions.adjudicate`)."""
        from .versions import adjudicate

        return adjudicate(self, item_db_id, text, adjudicator)


def remove_dataset_if_empty(project: Project, name: str) -> bool:
    """Delete dataset ``name`` when it holds no item, recording or import problem (e.g. the
    row a failed first take created); returns whether it was deleted."""
    with project.transaction() as c:
        row = c.execute("SELECT id FROM datasets WHERE name=?", (name,)).fetchone()
        if row is None:
            return False
        ds = int(row["id"])
        for table in ("items", "recordings", "import_problems", "runs"):
            if (
                c.execute(
                    f"SELECT 1 FROM {table} WHERE dataset_id=? LIMIT 1",  # noqa: S608
                    (ds,),
                ).fetchone()
                is not None
            ):
                return False
        c.execute("DELETE FROM datasets WHERE id=?", (ds,))
        return True


def copy_database(src_folder, dst_folder) -> Path:
    """Copy the database of project folder ``src_folder`` into ``dst_folder`` (SQLite's
    backup: a consistent snapshot). The source is opened as a plain database, not as a
    :class:`Project`: nothing in it is migrated or changed. Returns the copy's path."""
    src = Path(src_folder) / DB_NAME
    dst = Path(dst_folder) / DB_NAME
    with sqlite3.connect(str(src)) as a, sqlite3.connect(str(dst)) as b:
        a.backup(b)
    return dst


def close_all() -> None:
    """Close every project opened in this process (the end of a command): each writing
    connection checkpoints its -wal first."""
    for p in list(_OPEN):
        p.close_all()


def last_opened() -> Path | None:
    """The database of a project opened in this process (for messages about SQLite errors
    met outside a transaction)."""
    return _LAST
