"""Read-only projects (issue 29): a project on a read-only disk, in a folder without write
permission or an immutable one is read without writing a byte (SQLite ``immutable=1``);
reading commands work, writing commands say the project is read-only (and where), exit 2.

Running as root (CI), ``chmod`` does not stop writes: the fixture makes the store see the
folder as not writable (:func:`tests.hostile.stores.read_only`), which takes the same path
as a read-only mount. The unprivileged variant uses ``chmod -R a-w`` and is skipped as root.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys

import pytest

from fairdesk.core import schema

from .conftest import BASE_ITEMS, dump
from .stores import audited, listing, read_only, unprivileged

REASON = "its folder cannot be written"


@pytest.fixture(scope="module")
def audited_template(_base_template, tmp_path_factory):
    return audited(_base_template, tmp_path_factory.mktemp("ro") / "b")


@pytest.fixture
def ro_project(audited_template, tmp_path, monkeypatch):
    """A copy of the audited project that the store sees as read-only: ``(project, pred)``."""
    import shutil

    proj0, pred = audited_template
    proj = tmp_path / "ro" / "proj"
    shutil.copytree(proj0, proj)
    read_only(monkeypatch, proj)
    return proj, pred


def _refusal(cmd, proj, what):
    return (
        f"fairdesk {cmd}: {proj}: the project is read-only ({REASON}); {what} would change "
        "it, so nothing was done. Reading works (datasets, items, show, export and report to "
        f"files elsewhere, the GUI). To change it, copy the folder somewhere writable (cp -r "
        f"{proj} COPY) and use --project COPY, or ask for write access\n"
    )


def test_reading_commands_work_and_write_nothing(cli, ro_project, tmp_path):
    proj, _ = ro_project
    before, files = dump(proj), listing(proj)
    code, out, err = cli("datasets", "--project", proj)
    assert code == 0 and out.startswith(f"base: {BASE_ITEMS} items"), err
    code, out, err = cli("items", "--project", proj, "--dataset", "base", "--json")
    assert code == 0 and len(json.loads(out)) == BASE_ITEMS, err
    code, out, err = cli("show", "--project", proj, "--run", "1")
    assert code == 0 and out, err
    target = tmp_path / "elsewhere" / "F.csv"
    code, out, err = cli("export", "--project", proj, "--run", "1", "--items", target)
    assert code == 0 and target.read_text().count("\n") == BASE_ITEMS + 1, err
    code, out, err = cli("report", "--project", proj, "--run", "1", "--html", tmp_path / "R.html")
    assert code == 0 and (tmp_path / "R.html").stat().st_size > 1000, err
    code, out, err = cli("check", "--project", proj)
    assert code == 0 and f"  read-only: {REASON}\n" in out
    assert dump(proj) == before and listing(proj) == files  # nothing created or changed


@pytest.mark.parametrize(
    "argv, what",
    [
        (["import", "--name", "more", "{data}/m.csv"], "an import"),
        (
            ["audit", "--dataset", "base", "--model", "predictions:{pred}", "--by", "accent"],
            "an audit",
        ),
        (
            ["annotate", "--dataset", "base", "--from-textgrid", "{tmp}", "--tier", "reference"],
            "importing transcripts",
        ),
        (
            ["record", "accept", "--dataset", "rec", "--speaker", "s1", "--list"]
            + ["igbo_tonal_minimal_pairs", "--prompt", "1", "--take", "1"],
            "recording",
        ),
        (["record", "recover"], "recovering recordings"),
    ],
    ids=lambda v: v[0] if isinstance(v, list) else None,
)
def test_writing_commands_say_the_project_is_read_only(cli, ro_project, tmp_path, argv, what):
    proj, pred = ro_project
    before, files = dump(proj), listing(proj)
    data = proj.parents[1] / "data"
    argv = [a.format(data=data, pred=pred, tmp=tmp_path) for a in argv]
    n = 2 if argv[0] == "record" else 1
    code, out, err = cli(*argv[:n], "--project", proj, *argv[n:])
    assert code == 2
    assert err == _refusal(argv[0], proj, what)
    assert dump(proj) == before and listing(proj) == files


def test_a_library_write_is_refused_too(ro_project):
    from fairdesk.core.errors import ReadOnlyProject
    from fairdesk.core.store import Project

    proj, _ = ro_project
    p = Project(proj, create=False)
    assert p.read_only == REASON
    with pytest.raises(ReadOnlyProject, match="the project is read-only"):
        p.add_annotation(1, "note", {"x": 1})
    p.close_all()


def test_a_wal_left_behind_is_read_when_its_shm_is_there(cli, tmp_path, monkeypatch, base):
    """Commits still in the -wal (a writer killed before its checkpoint): a read-only reader
    sees them through mode=ro when the -shm is there."""
    proj, _ = base
    keep = sqlite3.connect(proj / "project.sqlite", isolation_level=None)
    keep.execute("PRAGMA journal_mode=WAL")
    keep.execute("PRAGMA wal_autocheckpoint=0")
    keep.execute("UPDATE datasets SET name='renamed'")
    assert (proj / "project.sqlite-wal").stat().st_size > 0
    read_only(monkeypatch, proj)
    code, out, err = cli("datasets", "--project", proj)
    keep.close()
    assert code == 0 and out.startswith("renamed:"), err


def test_an_older_schema_is_read_read_only_through_the_new_layout(cli, tmp_path, monkeypatch):
    """A schema-2 project (before item status, saliency, annotators) on read-only media:
    read without migrating; its tables and columns read as the current schema's."""
    from fairdesk.core.store import Project

    from .test_store_damaged import _old_project

    proj = _old_project(tmp_path / "p", 2)
    before = listing(proj)
    read_only(monkeypatch, proj)
    code, out, err = cli("datasets", "--project", proj)
    assert code == 0 and out.startswith("old: 0 items"), err
    assert listing(proj) == before  # no migration, no backup
    p = Project(proj, create=False)
    assert p.schema_version == 2
    new = tmp_path / "new"
    Project(new).close_all()
    for table in ("datasets", "annotations", "item_status", "saliency", "embeddings"):
        cols = [r[1] for r in p.conn.execute(f"PRAGMA table_info({table})")]
        conn = sqlite3.connect(new / "project.sqlite")
        want = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        conn.close()
        assert cols == want, table
    p.close_all()


def test_a_migration_without_a_read_only_layout_names_the_version(cli, tmp_path, monkeypatch):
    from fairdesk.core import opening

    from .test_store_damaged import _old_project

    proj = _old_project(tmp_path / "p", 3)
    read_only(monkeypatch, proj)
    monkeypatch.delitem(opening.READ_ONLY_LAYOUT, 3)
    code, out, err = cli("datasets", "--project", proj)
    assert code == 2
    assert err == (
        f"fairdesk datasets: {proj / 'project.sqlite'}: the project has schema 3 and this "
        f"fairdesk needs schema {schema.SCHEMA_VERSION}; the change to schema 4 cannot be "
        "read without migrating, which writes, and the project is read-only. Copy the "
        "project folder somewhere writable and open the copy (it is migrated once), or open "
        "it with a fairdesk that reads schema 3\n"
    )


def test_every_migration_has_a_read_only_layout():
    from fairdesk.core import opening

    assert sorted(opening.READ_ONLY_LAYOUT) == list(range(1, schema.SCHEMA_VERSION))


@pytest.mark.skipif(not unprivileged(), reason="root ignores chmod; the seam covers it")
def test_chmod_a_minus_w_as_an_unprivileged_user(audited_template, tmp_path):
    import shutil

    proj0, _ = audited_template
    proj = tmp_path / "proj"
    shutil.copytree(proj0, proj)
    before = listing(proj)
    for p in [proj, *proj.rglob("*")]:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        r = subprocess.run(
            [sys.executable, "-m", "fairdesk", "datasets", "--project", str(proj)],
            capture_output=True,
            text=True,
            env=env,
        )
        assert r.returncode == 0 and r.stdout.startswith("base:"), r.stderr
        r = subprocess.run(
            [sys.executable, "-m", "fairdesk", "import", "--project", str(proj), "--name", "x"]
            + [str(proj.parent)],
            capture_output=True,
            text=True,
            env=env,
        )
        assert r.returncode == 2 and "the project is read-only" in r.stderr
        assert "Traceback" not in r.stderr
        assert listing(proj) == before
    finally:
        for p in [proj, *proj.rglob("*")]:
            p.chmod(p.stat().st_mode | stat.S_IWUSR)
