"""Damaged stores, full disks and the backup: what ``fairdesk check`` reports, the one
``.backup`` copy of ``project.sqlite``, and the messages for SQLite's errors.

- :func:`write_backup` keeps one copy, ``project.sqlite.backup`` beside the database, made
  with SQLite's backup API (a consistent snapshot, also while others read) into a temporary
  file renamed into place when complete (:mod:`fairdesk.core.atomic`). The store writes it
  before a migration and before an import that adds more than :data:`BACKUP_IMPORT_ITEMS`
  items.
- :func:`check_project` opens the database read-only (never migrated or changed) and runs
  ``PRAGMA integrity_check`` (or ``quick_check``), reads the schema version against the
  code's, and looks at the backup.
- :func:`database_error` turns an ``sqlite3`` error met while reading or writing a project
  into a :class:`StoreError` saying what happened, where, and what to do.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from .errors import DamagedProject, StoreError, StoreFull
from .schema import DB_NAME, SCHEMA_VERSION

__all__ = [
    "BACKUP_IMPORT_ITEMS",
    "BACKUP_SUFFIX",
    "DATABASE_ERRORS",
    "CheckReport",
    "backup_path",
    "check_project",
    "damaged",
    "database_error",
    "disk_full",
    "is_full",
    "is_store_problem",
    "refuse_read_only",
    "write_backup",
]

#: An import adding more items than this is preceded by a backup.
BACKUP_IMPORT_ITEMS = 10_000
BACKUP_SUFFIX = ".backup"
#: What a command catches to report a store error (the CLI does not import sqlite3).
DATABASE_ERRORS = (sqlite3.DatabaseError,)
#: Lines of the integrity check quoted in a message.
_QUOTED = 3
#: Free bytes below which a disk I/O error on a sound store is the disk being full
#: (SQLite says "disk I/O error", not "disk is full", when it cannot even grow its -shm or
#: -wal file).
LOW_SPACE = 4 * 1024 * 1024


def backup_path(folder) -> Path:
    """``project.sqlite.backup`` in the project folder."""
    return Path(folder) / (DB_NAME + BACKUP_SUFFIX)


def write_backup(conn: sqlite3.Connection, folder) -> Path:
    """Replace the project's backup with a copy of the database behind ``conn`` (complete or
    not at all). Raises StoreFull / StoreError when it cannot be written."""
    from .atomic import OutputError, atomic_path

    target = backup_path(folder)
    try:
        with atomic_path(target) as tmp:
            dst = sqlite3.connect(str(tmp))
            try:
                conn.backup(dst)
                dst.execute("PRAGMA journal_mode=DELETE")  # one file: nothing beside it
            finally:
                dst.close()
    except OutputError as exc:
        if exc.errno is not None and "full" in exc.reason:
            raise disk_full(
                Path(folder), "writing the backup before changing the project"
            ) from None
        raise StoreError(f"the backup could not be written: {exc}; nothing was changed") from None
    except sqlite3.DatabaseError as exc:
        if is_full(exc):
            raise disk_full(
                Path(folder), "writing the backup before changing the project"
            ) from None
        raise StoreError(
            f"{target}: the backup could not be written ({exc}); nothing was changed"
        ) from None
    return target


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{int(seconds)} s"
    if seconds < 7200:
        return f"{int(seconds // 60)} min"
    if seconds < 172800:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} days"


def backup_note(folder) -> str:
    """One sentence on the backup: where it is, how old, how to use it; or that there is none."""
    b = backup_path(folder)
    db = Path(folder) / DB_NAME
    try:
        st = b.stat()
    except OSError:
        return (
            f"There is no backup ({b.name} is kept before migrations and large imports): "
            "restore the project folder from your own copies"
        )
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(st.st_mtime))
    return (
        f"The last backup is {b} (from {when}, {_age(time.time() - st.st_mtime)} ago): to go "
        f"back to it, move {db} aside (keep it) and copy the backup to {db}; what was changed "
        "since the backup is lost"
    )


def is_full(exc: BaseException) -> bool:
    """An SQLite error of a full disk (or a store at its ``max_page_count``), or an
    ``OSError`` ENOSPC."""
    import errno

    if isinstance(exc, OSError):
        return exc.errno == errno.ENOSPC
    return "disk is full" in str(exc) or "disk full" in str(exc)


def _is_io_error(exc: BaseException) -> bool:
    """SQLite's "disk I/O error" (or an ``OSError`` of the disk): a full or failing disk as
    often as a damaged file; :func:`database_error` checks which."""
    if isinstance(exc, OSError):
        return True
    return "disk i/o error" in str(exc).lower()


def free_bytes(folder: Path) -> int:
    """Free bytes on the device holding ``folder`` (a very large number when unknown)."""
    import shutil

    try:
        return int(shutil.disk_usage(folder).free)
    except OSError:
        return 1 << 62


def _is_damaged(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(
        w in text
        for w in ("malformed", "not a database", "corrupt", "disk i/o error", "short read")
    )


def is_store_problem(exc: BaseException) -> bool:
    """An SQLite error about the store itself (full, damaged, read-only), not about a query
    (a constraint, a missing table): :func:`database_error` words it for the user."""
    return is_full(exc) or _is_damaged(exc) or "readonly" in str(exc)


def _reader_uris(db: Path) -> list[str]:
    """URIs that read ``db`` without writing: ``immutable`` creates nothing beside the file
    (``mode=ro`` would leave a -shm and a -wal); commits still in a -wal are only read with
    ``mode=ro``, tried first when there is one."""
    from .opening import sqlite_uri, wal_pending

    immutable = sqlite_uri(db, "immutable=1")
    return [sqlite_uri(db, "mode=ro"), immutable] if wal_pending(db) else [immutable]


def _quick_check(db: Path, full: bool = False) -> list[str]:
    """The integrity check's lines (``["ok"]`` when fine), on a read-only connection."""
    pragma = "integrity_check" if full else "quick_check"
    uris = _reader_uris(db)
    for uri in uris:
        try:
            conn = sqlite3.connect(uri, uri=True)
        except sqlite3.Error:
            continue
        try:
            return [str(r[0]) for r in conn.execute(f"PRAGMA {pragma}")]
        except sqlite3.DatabaseError as exc:
            if uri == uris[-1] or _is_damaged(exc):
                return [str(exc)]
        finally:
            conn.close()
    return ["the database could not be opened"]


def damaged(db: Path, what: str, check: list[str] | None = None, hint: str = "") -> DamagedProject:
    """The error of a damaged (or empty) ``project.sqlite``; ``hint``: a last sentence."""
    folder = db.parent
    lines = _quick_check(db) if check is None else check
    quoted = "; ".join(lines[:_QUOTED]) + (
        f" (and {len(lines) - _QUOTED} more)" if len(lines) > _QUOTED else ""
    )
    return DamagedProject(
        f"{db}: the project is damaged ({what}); nothing was changed. The integrity check "
        f"says: {quoted}. `fairdesk check --project {folder}` gives the full report. "
        f"{backup_note(folder)}" + (f". {hint}" if hint else "")
    )


def disk_full(folder: Path, doing: str) -> StoreFull:
    """The error of a full disk met while writing the project at ``folder``."""
    return StoreFull(
        f"{folder}: the disk is full (no space left on the device holding the project) while "
        f"{doing}; what it was writing was rolled back, the project holds what it held "
        "before. Free some space there and run the command again (what an audit finished "
        "is kept and reused)"
    )


def database_error(exc: BaseException, db: Path | None, doing: str = "") -> StoreError:
    """A :class:`StoreError` for an ``sqlite3`` error met on the project at ``db``."""
    where = str(db) if db is not None else "the project store"
    if isinstance(exc, StoreError):
        return exc
    if is_full(exc) and db is not None:
        return disk_full(db.parent, doing or "writing to the project")
    if "readonly" in str(exc) and db is not None:
        from .opening import read_only_refusal

        return read_only_refusal(db.parent, "the database cannot be written", "the command")
    if _is_io_error(exc) and db is not None:
        check = _quick_check(db)  # reads only: it works on a full disk too
        if check == ["ok"]:  # the file is sound: the disk, not the project, failed
            if free_bytes(db.parent) < LOW_SPACE:
                return disk_full(db.parent, doing or "writing to the project")
            return StoreError(
                f"{db}: the disk could not be read or written ({exc})"
                + (f" while {doing}" if doing else "")
                + "; the integrity check says ok: the project is not damaged and nothing "
                "was changed. Check the disk (its space, its connection) and run the "
                "command again"
            )
        return damaged(db, str(exc), check)
    if _is_damaged(exc) and db is not None:
        return damaged(db, str(exc))
    return StoreError(
        f"{where}: the project store could not be read or written ({exc}); nothing was "
        f"changed. `fairdesk check --project {db.parent if db else 'FOLDER'}` says whether "
        "it is damaged"
    )


@dataclass
class CheckReport:
    """What ``fairdesk check`` found."""

    folder: Path
    ok: bool
    problems: list[str] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)
    schema: int | None = None
    code_schema: int = SCHEMA_VERSION
    read_only: str | None = None
    size: int | None = None
    wal: int | None = None
    backup: dict | None = None
    advice: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "project": str(self.folder),
            "ok": self.ok,
            "problems": self.problems,
            "integrity_check": self.integrity,
            "schema_version": self.schema,
            "code_schema_version": self.code_schema,
            "read_only": self.read_only,
            "size_bytes": self.size,
            "wal_bytes": self.wal,
            "backup": self.backup,
            "advice": self.advice,
        }


def _backup_info(folder: Path, full: bool) -> dict | None:
    b = backup_path(folder)
    try:
        st = b.stat()
    except OSError:
        return None
    check = _quick_check(b, full)
    try:
        conn = sqlite3.connect(_reader_uris(b)[-1], uri=True)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        version = None
    return {
        "path": str(b),
        "modified": time.strftime("%Y-%m-%d %H:%M", time.localtime(st.st_mtime)),
        "age": _age(time.time() - st.st_mtime),
        "size_bytes": st.st_size,
        "schema_version": version,
        "integrity_check": check,
        "ok": check == ["ok"],
    }


def check_project(folder, full: bool = True) -> CheckReport:
    """Check the project at ``folder`` without changing it (module doc)."""
    from .opening import read_only_reason

    folder = Path(folder).expanduser().resolve()
    db = folder / DB_NAME
    rep = CheckReport(folder, ok=False)
    if not db.is_file():
        rep.problems.append(f"{db} is missing: no fairdesk project here")
        rep.advice.append("check the --project path")
        rep.backup = _backup_info(folder, full)
        return rep
    rep.size = db.stat().st_size
    wal = db.with_name(db.name + "-wal")
    rep.wal = wal.stat().st_size if wal.exists() else None
    rep.read_only = read_only_reason(folder, db)
    rep.backup = _backup_info(folder, full)
    if rep.size == 0 and not rep.wal:
        rep.integrity = ["the file is empty (0 bytes)"]
        rep.problems.append(f"{db} is empty (0 bytes): it holds no project")
    else:
        rep.integrity = _quick_check(db, full)
        if rep.integrity != ["ok"]:
            rep.problems.append("the integrity check found damage")
        else:
            try:
                conn = sqlite3.connect(_reader_uris(db)[0], uri=True)
                try:
                    rep.schema = conn.execute("PRAGMA user_version").fetchone()[0]
                finally:
                    conn.close()
            except sqlite3.DatabaseError as exc:
                rep.problems.append(f"the schema version could not be read ({exc})")
    if rep.schema is not None and rep.schema > SCHEMA_VERSION:
        rep.problems.append(
            f"schema {rep.schema} is newer than this fairdesk's ({SCHEMA_VERSION}): upgrade"
        )
    rep.ok = not rep.problems
    if rep.ok:
        if rep.schema is not None and rep.schema < SCHEMA_VERSION:
            rep.advice.append(
                f"schema {rep.schema} is migrated to {SCHEMA_VERSION} (after a backup) when "
                "the project is next opened where it can be written"
            )
    else:
        rep.advice.append(
            f"keep the damaged {db.name} (move it aside, do not delete it) and do not write to "
            "the project until it is restored"
        )
        if rep.backup and rep.backup["ok"]:
            rep.advice.append(backup_note(folder))
        elif rep.backup:
            rep.advice.append(
                f"the backup {rep.backup['path']} is damaged too: restore the project folder "
                "from your own copies"
            )
        else:
            rep.advice.append(backup_note(folder))
        if rep.size == 0:
            rep.advice.append(
                f"if you meant to start a new project here, delete the empty {db.name} first"
            )
    return rep


def refuse_read_only(project, what: str) -> None:
    """Raise :class:`ReadOnlyProject` when ``project`` was opened read-only."""
    if getattr(project, "read_only", None):
        from .opening import read_only_refusal

        raise read_only_refusal(project.folder, project.read_only, what)
