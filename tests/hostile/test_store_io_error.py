"""A disk with no space left makes SQLite say "disk I/O error" (it cannot grow its -shm or
-wal), not "disk is full" (issue 44, point 8): the store is sound, so the message says the
disk is full and nothing is lost, never that the project is damaged or to restore a
backup; a real disk I/O error on a sound store says the disk failed, not the project; a
store the integrity check finds damaged is still called damaged."""

from __future__ import annotations

import errno
import sqlite3
from collections import namedtuple

import pytest

from fairdesk.core import integrity
from fairdesk.core.store import Project

Usage = namedtuple("Usage", "total used free")


def _io_error(monkeypatch, free: int) -> None:
    """Opening the project for writing fails as SQLite does at 0 bytes free, on a disk
    with ``free`` bytes left."""

    def fail(self):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Project, "_open_writable", fail)
    monkeypatch.setattr("shutil.disk_usage", lambda _p: Usage(10**9, 10**9 - free, free))


@pytest.mark.parametrize("command", ["datasets", "import"])
def test_no_space_left_says_disk_full_not_damaged(cli, base, monkeypatch, command):
    proj, data = base
    manifest = data / "more.csv"
    manifest.write_text("path,text\nx.wav,hello\n")
    args = ["import", "--project", proj, "--name", "more", manifest]
    with monkeypatch.context() as m:
        _io_error(m, free=0)
        code, out, err = cli(*(args if command == "import" else ["datasets", "--project", proj]))
    assert code != 0
    assert "the disk is full" in err and "the project holds what it held before" in err
    assert "damaged" not in err and "backup" not in err
    code, out, _err = cli("check", "--project", proj)
    assert code == 0 and "ok" in out


def test_a_disk_io_error_on_a_sound_store_blames_the_disk(cli, base, monkeypatch):
    proj, _data = base
    with monkeypatch.context() as m:
        _io_error(m, free=10**9)
        code, _out, err = cli("datasets", "--project", proj)
    assert code != 0
    assert "the disk could not be read or written (disk I/O error)" in err
    assert "the integrity check says ok: the project is not damaged" in err
    assert "backup" not in err


def test_enospc_and_a_damaged_store_keep_their_words(tmp_path):
    db = tmp_path / "project.sqlite"
    sqlite3.connect(db).execute("CREATE TABLE t(x)").connection.close()
    full = integrity.database_error(OSError(errno.ENOSPC, "No space left on device"), db)
    assert "the disk is full" in str(full)
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)  # a header, then garbage
    bad = integrity.database_error(sqlite3.OperationalError("disk I/O error"), db)
    assert "the project is damaged" in str(bad)
