"""How a project's ``project.sqlite`` is opened: writable (WAL, migrated forward) or, where it
cannot be written, read-only without writing a byte.

A project is read-only when its folder or database cannot be written (a read-only disk, a
folder or file without write permission, an immutable folder), or when opening it writable
fails with SQLite's "attempt to write a readonly database". Opening writable writes
(``PRAGMA journal_mode=WAL``, the migration, marking interrupted runs); a read-only opening
does none of these:

- the folder can be written (only the database file cannot): ``mode=ro`` (SQLite may create
  the ``-shm`` beside it, as any reader does);
- the folder cannot be written: ``immutable=1``, which needs no ``-shm``; a WAL database on
  read-only media cannot be read with ``mode=ro`` unless its ``-shm`` is there. An
  ``immutable`` reader does not see what a ``-wal`` holds, so when a non-empty ``-wal`` is
  there ``mode=ro`` is tried first (it works when the ``-shm`` is there too), and only then
  ``immutable=1``, saying what it may not show. A writing session checkpoints its ``-wal``
  into the database when it closes (``Project.close``), so a copied project has none.

A project of an older schema cannot be migrated read-only. Every migration so far only adds
(tables, and columns with defaults), so an older project is read through temporary objects
that look like the new layout (:data:`READ_ONLY_LAYOUT`: empty temporary tables for the
tables it lacks, temporary views adding the columns it lacks with their defaults; temporary
objects live in memory and shadow the stored ones by name). A migration without such a layout
makes the project unreadable read-only, and the message says which schema it needs.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.request import pathname2url

from .errors import DamagedProject, ReadOnlyProject, StoreError
from .schema import SCHEMA_VERSION

__all__ = [
    "READ_ONLY_LAYOUT",
    "empty_database",
    "folder_writable",
    "layout_read_only",
    "read_only_connection",
    "read_only_reason",
    "read_only_refusal",
    "wal_pending",
]

#: For each migration i (user_version i -> i + 1) that only adds: temporary objects through
#: which a database of version i reads like one of version i + 1, without writing to it.
READ_ONLY_LAYOUT: dict[int, tuple[str, ...]] = {
    1: (
        "CREATE TEMP TABLE import_problems (id INTEGER PRIMARY KEY, dataset_id INTEGER NOT "
        "NULL, row INTEGER, path TEXT, reason TEXT NOT NULL, created_at REAL NOT NULL)",
        "CREATE TEMP TABLE embeddings (audio_hash TEXT NOT NULL, model_key TEXT NOT NULL, "
        "vector BLOB NOT NULL, PRIMARY KEY (audio_hash, model_key))",
        "CREATE TEMP VIEW datasets AS SELECT *, 'en' AS language FROM main.datasets",
    ),
    2: (
        "CREATE TEMP TABLE saliency (audio_hash TEXT NOT NULL, model_key TEXT NOT NULL, "
        "target_hash TEXT NOT NULL, method TEXT NOT NULL, frame_s REAL NOT NULL, curve BLOB "
        "NOT NULL, meta TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL, PRIMARY KEY "
        "(audio_hash, model_key, target_hash, method))",
    ),
    3: (
        "CREATE TEMP TABLE item_status (item_id INTEGER PRIMARY KEY, stale INTEGER NOT NULL "
        "DEFAULT 0, warnings TEXT NOT NULL DEFAULT '[]', updated_at REAL NOT NULL)",
    ),
    4: ("CREATE TEMP VIEW annotations AS SELECT *, '' AS annotator FROM main.annotations",),
    5: (
        "CREATE TEMP TABLE alignments (audio_hash TEXT NOT NULL, text_hash TEXT NOT NULL, "
        "aligner TEXT NOT NULL, cut TEXT NOT NULL, words TEXT NOT NULL, aligner_key TEXT "
        "NOT NULL DEFAULT '', run_id INTEGER, created_at REAL NOT NULL, PRIMARY KEY "
        "(audio_hash, text_hash, aligner, cut))",
    ),
    6: (
        "CREATE TEMP TABLE item_spans (item_id INTEGER PRIMARY KEY, start_s REAL NOT NULL, "
        "end_s REAL NOT NULL)",
    ),
    7: (
        "CREATE TEMP TABLE recording_plans (id INTEGER PRIMARY KEY, dataset TEXT NOT NULL, "
        "source TEXT NOT NULL DEFAULT '', body TEXT NOT NULL, created_at REAL NOT NULL)",
    ),
    8: (
        "CREATE TEMP TABLE audio_roots (id INTEGER PRIMARY KEY, dataset_id INTEGER NOT NULL, "
        "path TEXT NOT NULL, UNIQUE (dataset_id, path))",
        "CREATE TEMP VIEW items AS SELECT *, NULL AS root_id, NULL AS size, NULL AS mtime "
        "FROM main.items",
    ),
}


def _sidecar(db: Path, suffix: str) -> Path:
    return db.with_name(db.name + suffix)


def wal_pending(db: Path) -> bool:
    """Whether a non-empty ``-wal`` is beside ``db`` (commits not yet in the database)."""
    try:
        return _sidecar(db, "-wal").stat().st_size > 0
    except OSError:
        return False


def empty_database(db: Path) -> bool:
    """``db`` is a 0-byte file and no ``-wal`` holds its pages: not a project (a new project
    is only made where there is no ``project.sqlite`` at all)."""
    try:
        return db.stat().st_size == 0 and not wal_pending(db)
    except OSError:
        return False


def _can_write(path: Path) -> bool:
    """Whether this process may write ``path`` (a seam for the read-only tests: running as
    root, ``os.access`` says yes to files without write permission)."""
    return os.access(path, os.W_OK | os.X_OK) if path.is_dir() else os.access(path, os.W_OK)


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def folder_writable(folder: Path) -> bool:
    """Whether files can be made in ``folder`` (SQLite's ``-shm`` and ``-wal``)."""
    return not _read_only_mount(folder) and _can_write(folder)


def read_only_reason(folder: Path, db: Path) -> str | None:
    """Why the project at ``folder`` cannot be written (None: it can be)."""
    if _read_only_mount(folder):
        return "it is on a read-only disk"
    if not _can_write(folder):
        return "its folder cannot be written"
    for p in (db, _sidecar(db, "-wal"), _sidecar(db, "-shm")):
        if p.exists() and not _can_write(p):
            return f"{p.name} cannot be written"
    return None


def sqlite_uri(db: Path, query: str) -> str:
    return f"file:{pathname2url(str(db))}?{query}"


def read_only_connection(db: Path, folder_writable: bool) -> tuple[sqlite3.Connection, list[str]]:
    """A connection that never writes to ``db``, and notes on what it may not show."""
    queries = ["mode=ro"] if folder_writable else ["immutable=1"]
    if not folder_writable and wal_pending(db):
        queries = ["mode=ro", "immutable=1"]
    last: Exception | None = None
    for q in queries:
        try:
            conn = sqlite3.connect(
                sqlite_uri(db, q),
                uri=True,
                timeout=30.0,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            last = exc
            continue
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout=30000")
        notes = []
        if q == "immutable=1" and wal_pending(db):
            notes.append(
                f"{_sidecar(db, '-wal').name} holds changes that were never written into "
                f"{db.name} and cannot be read on read-only media without its -shm file: "
                "what they hold is not shown (open the project once where it can be written)"
            )
        return conn, notes
    assert last is not None
    raise last


def layout_read_only(conn: sqlite3.Connection, db: Path) -> int:
    """Make an older database read like the current schema (temporary objects only); returns
    its stored version. Raises StoreError when it cannot be read without migrating."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{db}: the project was written by a newer fairdesk (schema {version} > "
            f"{SCHEMA_VERSION}); upgrade fairdesk to open it"
        )
    if version == 0:
        raise DamagedProject(
            f"{db}: holds no fairdesk project (no tables, schema 0) and cannot be set up "
            "read-only; nothing was changed. Check the --project path (`fairdesk check "
            f"--project {db.parent}` says what the file holds)"
        )
    for v in range(version, SCHEMA_VERSION):
        if v not in READ_ONLY_LAYOUT:
            raise ReadOnlyProject(
                f"{db}: the project has schema {version} and this fairdesk needs schema "
                f"{SCHEMA_VERSION}; the change to schema {v + 1} cannot be read without "
                "migrating, which writes, and the project is read-only. Copy the project "
                "folder somewhere writable and open the copy (it is migrated once), or open "
                f"it with a fairdesk that reads schema {version}"
            )
        for stmt in READ_ONLY_LAYOUT[v]:
            conn.execute(stmt)
    conn.execute("PRAGMA query_only=ON")  # after the layout: no write, temporary ones too
    return version


def read_only_refusal(folder: Path, reason: str, what: str = "this") -> ReadOnlyProject:
    """The error of a write to a read-only project."""
    return ReadOnlyProject(
        f"{folder}: the project is read-only ({reason}); {what} would change it, so nothing "
        "was done. Reading works (datasets, items, show, export and report to files "
        f"elsewhere, the GUI). To change it, copy the folder somewhere writable (cp -r "
        f"{folder} COPY) and use --project COPY, or ask for write access"
    )
