"""Damaged and empty project stores (issue 29): a 0-byte ``project.sqlite`` is a damaged
project, never a new empty one; a store whose pages were overwritten gives one message
saying it is damaged, that nothing was changed, the integrity check's result, ``fairdesk
check`` and the backup; ``fairdesk check`` reports; a backup is kept before a migration and
before a large import.

Each case: the exit code, the command's own stderr (exact where it can be), and the store
before and after (its bytes when it cannot be read, else a dump of every table).
"""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from fairdesk.core import integrity, schema

from .conftest import BASE_ITEMS, dump, dump_file
from .stores import damage, digest, listing, wal_size

NO_BACKUP = (
    "There is no backup (project.sqlite.backup is kept before migrations and large imports): "
    "restore the project folder from your own copies"
)


def _empty_message(cmd, folder):
    db = folder / "project.sqlite"
    return (
        f"fairdesk {cmd}: {db}: the project is damaged (project.sqlite is empty: 0 bytes, no "
        "project in it); nothing was changed. The integrity check says: the file is empty "
        f"(0 bytes). `fairdesk check --project {folder}` gives the full report. {NO_BACKUP}. "
        "To start a new project here instead, delete the empty project.sqlite first\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["datasets"],
        ["items", "--dataset", "base"],
        ["show", "--run", "1"],
        ["export", "--run", "1", "--items", "{tmp}/F.csv"],
        ["import", "--name", "x", "{data}/m.csv"],
        ["demo"],
    ],
    ids=lambda a: a[0],
)
def test_a_0_byte_store_is_a_damaged_project_not_a_new_one(cli, base, tmp_path, argv):
    _proj, data = base
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "project.sqlite").write_bytes(b"")
    argv = [a.format(tmp=tmp_path, data=data) for a in argv]
    code, out, err = cli(argv[0], "--project", folder, *argv[1:])
    assert code == 2
    assert err == _empty_message(argv[0], folder)
    assert listing(folder) == {"project.sqlite": digest(folder / "project.sqlite")}
    assert (folder / "project.sqlite").stat().st_size == 0
    assert not (tmp_path / "F.csv").exists()


def test_init_on_a_0_byte_store_refuses_and_a_missing_one_creates(cli, tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "project.sqlite").write_bytes(b"")
    code, _out, err = cli("init", folder)
    assert code == 2 and err == _empty_message("init", folder)
    (folder / "project.sqlite").unlink()
    code, out, err = cli("init", folder)
    assert code == 0 and out == f"fairdesk project at {folder} (schema {schema.SCHEMA_VERSION})\n"
    code, out, _ = cli("datasets", "--project", folder)
    assert code == 0 and out.startswith("no datasets in")


def _damaged_message(cmd, proj, check_says, backup_sentence=NO_BACKUP):
    db = proj / "project.sqlite"
    return (
        f"fairdesk {cmd}: {db}: the project is damaged (database disk image is malformed); "
        f"nothing was changed. The integrity check says: {check_says}. `fairdesk check "
        f"--project {proj}` gives the full report. {backup_sentence}\n"
    )


COMMANDS = [
    ["datasets"],
    ["items", "--dataset", "base"],
    ["import", "--name", "more", "{data}/m.csv"],
    ["annotate", "--dataset", "base", "--from-textgrid", "{tmp}", "--tier", "reference"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_overwritten_pages_say_damaged_nothing_changed_and_what_to_do(cli, base, tmp_path, argv):
    proj, data = base
    db = proj / "project.sqlite"
    damage(db)
    before = listing(proj)
    argv = [a.format(tmp=tmp_path, data=data) for a in argv]
    code, out, err = cli(argv[0], "--project", proj, *argv[1:])
    assert code == 2
    assert err == _damaged_message(argv[0], proj, "database disk image is malformed")
    after = listing(proj)
    assert after["project.sqlite"] == before["project.sqlite"]  # not a byte changed
    assert wal_size(proj) == 0  # SQLite's -shm may stay beside a store it cannot checkpoint


def test_the_message_names_the_backup_and_restoring_it_gives_the_project_back(cli, base):
    proj, _data = base
    db = proj / "project.sqlite"
    good = dump(proj)
    conn = sqlite3.connect(db)
    integrity.write_backup(conn, proj)
    conn.close()
    backup = proj / "project.sqlite.backup"
    assert dump_file(backup) == good
    damage(db)
    code, _out, err = cli("datasets", "--project", proj)
    assert code == 2
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(backup.stat().st_mtime))
    sentence = (
        f"The last backup is {backup} (from {when}, 0 s ago): to go back to it, move {db} "
        f"aside (keep it) and copy the backup to {db}; what was changed since the backup is "
        "lost"
    )
    assert err.replace(" 1 s ago", " 0 s ago") == _damaged_message(
        "datasets", proj, "database disk image is malformed", sentence
    )
    db.rename(proj / "damaged.sqlite")
    backup_bytes = backup.read_bytes()
    db.write_bytes(backup_bytes)
    code, out, err = cli("datasets", "--project", proj)
    assert code == 0 and out.startswith(f"base: {BASE_ITEMS} items"), err
    assert dump(proj) == good


# -- fairdesk check --------------------------------------------------------------------------
def test_check_of_a_sound_project(cli, base):
    proj, _ = base
    before = listing(proj)
    code, out, err = cli("check", "--project", proj)
    assert code == 0 and err == ""
    size = (proj / "project.sqlite").stat().st_size
    assert out == (
        f"{proj}: ok\n"
        "  integrity_check: ok\n"
        f"  schema: {schema.SCHEMA_VERSION} (this fairdesk: {schema.SCHEMA_VERSION})\n"
        f"  size: {size} bytes\n"
        "  writable: yes\n"
        "  backup: none (one is kept before migrations and large imports)\n"
    )
    assert listing(proj) == before  # checking creates nothing (no -shm, no -wal)


def test_check_of_a_damaged_project_says_what_to_do(cli, base):
    proj, _ = base
    damage(proj / "project.sqlite")
    before = listing(proj)
    code, out, err = cli("check", "--project", proj, "--json", "-")
    assert code == 1
    rep = json.loads(out)
    assert rep["ok"] is False and rep["integrity_check"] == ["database disk image is malformed"]
    assert rep["problems"] == ["the integrity check found damage"]
    assert rep["advice"] == [
        "keep the damaged project.sqlite (move it aside, do not delete it) and do not write to "
        "the project until it is restored",
        NO_BACKUP,
    ]
    assert f"{proj}: DAMAGED" in err and "  what to do: keep the damaged" in err
    assert listing(proj) == before


def test_check_finds_damage_inside_one_table(cli, base):
    """Pages of one table overwritten: the integrity check names what it found."""
    proj, _ = base
    db = proj / "project.sqlite"
    conn = sqlite3.connect(db)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='items'").fetchone()[0]
    conn.close()
    with open(db, "r+b") as f:  # the items table's root page: a b-tree page of garbage
        f.seek((root - 1) * 4096)
        f.write(bytes([0x0D]) + bytes([0xFF]) * 4095)
    code, out, _ = cli("check", "--project", proj, "--json", "-")
    rep = json.loads(out)
    assert code == 1 and rep["integrity_check"] != ["ok"]
    code, _, err = cli("items", "--project", proj, "--dataset", "base")
    assert code == 2 and "the project is damaged" in err and "nothing was changed" in err


def test_check_of_a_folder_without_a_project(cli, tmp_path):
    code, out, _ = cli("check", "--project", tmp_path)
    assert code == 1
    assert f"  problem: {tmp_path / 'project.sqlite'} is missing: no fairdesk project here" in out
    assert list(tmp_path.iterdir()) == []


# -- the backup ------------------------------------------------------------------------------
def _old_project(folder, version):
    """A project of schema ``version`` holding one dataset."""
    folder.mkdir()
    conn = sqlite3.connect(folder / "project.sqlite", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    for v in range(version):
        for stmt in schema._split_sql(schema.MIGRATIONS[v]):
            conn.execute(stmt)
    conn.execute(f"PRAGMA user_version={version}")
    conn.execute(
        "INSERT INTO datasets(name, root, format, created_at) VALUES ('old', '/data', 'm', 1)"
    )
    conn.close()
    return folder


def test_a_migration_keeps_a_backup_of_the_old_store(cli, tmp_path):
    proj = _old_project(tmp_path / "p", 2)
    before = dump(proj)
    code, out, err = cli("datasets", "--project", proj)
    assert code == 0, err
    backup = proj / "project.sqlite.backup"
    assert dump_file(backup) == before
    conn = sqlite3.connect(f"file:{backup}?immutable=1", uri=True)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one file
    conn.close()
    assert sorted(p.name for p in proj.iterdir() if "backup" in p.name) == [backup.name]
    assert dump(proj)["datasets"] == before["datasets"]
    code, _, _ = cli("datasets", "--project", proj)  # already migrated: backup kept as it was
    assert dump_file(backup) == before


def test_a_large_import_keeps_a_backup_a_small_one_does_not(cli, base, monkeypatch):
    proj, data = base
    before = dump(proj)
    monkeypatch.setattr(integrity, "BACKUP_IMPORT_ITEMS", BASE_ITEMS)  # 8 new items: not more
    code, _, err = cli("import", "--project", proj, "--name", "again", data / "m.csv")
    assert code == 0, err
    assert not (proj / "project.sqlite.backup").exists()
    middle = dump(proj)
    monkeypatch.setattr(integrity, "BACKUP_IMPORT_ITEMS", BASE_ITEMS - 1)
    code, _, err = cli("import", "--project", proj, "--name", "third", data / "m.csv")
    assert code == 0, err
    assert dump_file(proj / "project.sqlite.backup") == middle != before
    # re-importing a dataset adds nothing: no new backup
    stamp = (proj / "project.sqlite.backup").stat().st_mtime_ns
    code, _, err = cli("import", "--project", proj, "--name", "third", data / "m.csv")
    assert code == 0 and (proj / "project.sqlite.backup").stat().st_mtime_ns == stamp
