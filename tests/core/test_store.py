import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from fairdesk.core import store
from fairdesk.core.store import Project


def test_wal_and_schema(tmp_path):
    p = Project(tmp_path / "proj")
    assert p.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert p.schema_version == store.SCHEMA_VERSION


def test_readers_work_while_writer_holds_transaction(tmp_path):
    p = Project(tmp_path / "proj")
    with p.transaction() as c:
        c.execute("INSERT INTO datasets(name, root, format, created_at) VALUES ('a','/','m',0)")
    other = sqlite3.connect(str(p.db_path))
    with p.transaction() as c:  # writer open ...
        c.execute("INSERT INTO datasets(name, root, format, created_at) VALUES ('b','/','m',0)")
        # ... a reader sees the committed state without blocking
        assert [r[0] for r in other.execute("SELECT name FROM datasets")] == ["a"]
    assert sorted(r[0] for r in other.execute("SELECT name FROM datasets")) == ["a", "b"]


def test_killed_writer_loses_nothing_committed(tmp_path):
    proj = tmp_path / "proj"
    Project(proj)
    script = textwrap.dedent(f"""
        import sys, time
        from fairdesk.core.store import Project
        p = Project({str(proj)!r})
        i = 0
        while True:
            with p.transaction() as c:
                c.execute("INSERT INTO datasets(name, root, format, created_at) "
                          "VALUES (?, '/', 'm', 0)", (f"d{{i}}",))
            print(i, flush=True)
            i += 1
            with p.transaction() as c:  # an open, uncommitted write when killed
                c.execute("INSERT INTO recordings(path, status, created_at) "
                          "VALUES ('x', 'partial', 0)")
                time.sleep(0.01)
                c.execute("DELETE FROM recordings")
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    acked = -1
    t0 = time.time()
    while acked < 30 and time.time() - t0 < 60:
        line = proc.stdout.readline()
        if line:
            acked = int(line)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    p = Project(proj)
    assert p.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    names = {r[0] for r in p.conn.execute("SELECT name FROM datasets")}
    assert {f"d{i}" for i in range(acked + 1)} <= names
    assert p.conn.execute("SELECT COUNT(*) FROM recordings").fetchone()[0] == 0


def test_migration_from_v1_keeps_data(tmp_path):
    db = tmp_path / "old" / store.DB_NAME
    db.parent.mkdir()
    c = sqlite3.connect(str(db))
    c.executescript(store.MIGRATIONS[0])
    c.execute("PRAGMA user_version=1")
    c.execute("INSERT INTO datasets(name, root, format, created_at) VALUES ('old','/r','m',1)")
    c.commit()
    c.close()
    p = Project(db.parent, create=False)
    assert p.schema_version == store.SCHEMA_VERSION
    ds = p.dataset("old")
    assert ds.language == "en"  # column added by migration 2, default applied
    assert p.conn.execute("SELECT COUNT(*) FROM import_problems").fetchone()[0] == 0


def test_newer_schema_refused(tmp_path):
    p = Project(tmp_path / "p")
    p.conn.execute(f"PRAGMA user_version={store.SCHEMA_VERSION + 5}")
    p.close()
    with pytest.raises(store.StoreError, match="newer fairdesk"):
        Project(tmp_path / "p")


def test_not_a_database(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / store.DB_NAME).write_text("garbage " * 100)
    with pytest.raises(store.StoreError, match="not a usable"):
        Project(tmp_path / "p")


def test_annotation_saved_at_once(tmp_path):
    p = Project(tmp_path / "p")
    with p.transaction() as c:
        c.execute("INSERT INTO datasets(name, root, format, created_at) VALUES ('d','/','m',0)")
        c.execute(
            "INSERT INTO items(dataset_id, item_key, path, audio_hash, duration, "
            "sample_rate, channels, text, content_id) VALUES (1,'k','a.wav','h',1,16000,1,"
            "'àkwà','c')"
        )
    aid = p.add_annotation(1, "transcript", {"text": "ákwá"})
    # another connection (another process would be the same) sees it immediately
    other = sqlite3.connect(str(p.db_path))
    row = other.execute("SELECT value FROM annotations WHERE id=?", (aid,)).fetchone()
    assert json.loads(row[0]) == {"text": "ákwá"}


def test_metadata_columns_are_the_summarys_columns(tmp_path, wav_factory):
    import json as _json
    import unicodedata

    from fairdesk.core.importers import import_dataset

    rows = [
        {"path": "a.wav", "text": "one", "speaker_id": "s1", "accent": "x", "slots": {"a": 1},
         "note": None, unicodedata.normalize("NFD", "région"): "nord", "flag": True},
        {"path": "b.wav", "text": "two", "speaker_id": "s2", "accent": "y", "slots": {},
         "note": None, unicodedata.normalize("NFD", "région"): "sud", "flag": False},
    ]  # fmt: skip
    for r in rows:
        wav_factory(r["path"])
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("\n".join(_json.dumps(r) for r in rows), encoding="utf-8")
    p = Project(tmp_path / "proj")
    rep = import_dataset(p, "d", manifest)
    assert rep.imported == 2, rep.problems
    ds = p.dataset("d")
    want = set(p.dataset_summary(ds)["columns"])
    assert p.metadata_columns(ds) == want and "région" in want
    assert "note" not in want  # no scalar value anywhere
