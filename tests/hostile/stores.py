"""Project stores in trouble (issue 29): damaged, empty, full, read-only. Helpers shared by
the store cases (``test_store_*.py``); fixtures come from ``conftest.py``.

- :func:`audited` copies the base project and audits it with predictions (run 1);
- :func:`damage` overwrites pages of ``project.sqlite`` as a failing disk would;
- :func:`store_limit` caps the store's size with ``PRAGMA max_page_count`` on every
  connection the store opens: the store meets "database or disk is full" without root or a
  small file system;
- :func:`read_only` makes the store see a read-only folder (running as root, ``chmod`` does
  not stop writes, so the folder's write check is the seam), which opens the project with
  SQLite's ``immutable=1`` as on read-only media.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

from fairdesk.cli import main

from .conftest import predictions_file

IDS = [f"{a}-{s}-{c}" for a in ("north", "south") for s in range(2) for c in range(2)]


def copy_base(template: Path, dest: Path) -> tuple[Path, Path]:
    """A copy of the base project template at ``dest``: ``(project, data)``."""
    shutil.copytree(template, dest)
    proj, data = dest / "proj", dest / "data"
    conn = sqlite3.connect(proj / "project.sqlite")
    with conn:
        conn.execute("UPDATE datasets SET root=?", (str(data.resolve()),))
    conn.close()
    return proj, data


def audit_args(proj, pred) -> list[str]:
    return [
        "audit",
        "--project",
        str(proj),
        "--dataset",
        "base",
        "--model",
        f"predictions:{pred}",
        "--by",
        "accent",
        "--n-bootstrap",
        "200",
        "--min-items",
        "1",
        "--min-speakers",
        "1",
        "--quiet",
    ]


def predictions(folder: Path) -> Path:
    return predictions_file(
        folder / "p.csv", [(i, "play" if i.startswith("s") else f"play song {i[-1]}") for i in IDS]
    )


def audited(template: Path, dest: Path) -> tuple[Path, Path]:
    """The base project audited once (run 1): ``(project, predictions file)``."""
    proj, _data = copy_base(template, dest)
    pred = predictions(dest)
    assert main(audit_args(proj, pred)) == 0
    return proj, pred


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def listing(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` (recursively) with its digest."""
    return {
        str(p.relative_to(folder)): digest(p)
        for p in sorted(Path(folder).rglob("*"))
        if p.is_file()
    }


def damage(db: Path, first_page: int = 2) -> None:
    """Overwrite every page of ``db`` from ``first_page`` (1-based: page 1 holds the header
    and the schema) with bytes no table can hold."""
    size = db.stat().st_size
    page = 4096
    with open(db, "r+b") as f:
        for n in range(first_page - 1, size // page):
            f.seek(n * page)
            f.write(bytes([0xA5]) * page)


def store_limit(monkeypatch, extra_pages: int = 0) -> None:
    """Every connection the store opens from now on may grow the database by at most
    ``extra_pages`` pages (``PRAGMA max_page_count``), as a full disk would stop it."""
    from fairdesk.core import store

    real = store._connect

    def limited(db_path):
        conn = real(db_path)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count={pages + extra_pages}")
        return conn

    monkeypatch.setattr(store, "_connect", limited)


def read_only(monkeypatch, folder: Path) -> None:
    """The store sees ``folder`` (and what is in it) as not writable."""
    from fairdesk.core import opening

    real = opening._can_write
    root = Path(folder).resolve()

    def can_write(path):
        p = Path(path).resolve()
        return False if p == root or root in p.parents else real(path)

    monkeypatch.setattr(opening, "_can_write", can_write)


def wal_size(proj: Path) -> int:
    wal = Path(proj) / "project.sqlite-wal"
    return wal.stat().st_size if wal.exists() else 0


def unprivileged() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() != 0
