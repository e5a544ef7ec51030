"""A full disk while writing the project store (issue 29): ``database or disk is full``
during an import or an audit says the disk is full and where, rolls the transaction back,
leaves no -wal holding the space, and the same command run again (after space was freed)
gives what a run that never met the full disk gives.

The store meets a full disk through ``PRAGMA max_page_count`` on its connections
(:func:`tests.hostile.stores.store_limit`): no root, no small file system. Output files
meeting ENOSPC are in ``test_outputs.py``; ``audit --json`` is here.
"""

from __future__ import annotations

import os
import sqlite3

import pytest

from fairdesk.core import atomic

from .conftest import dump
from .faults import disk_full
from .stores import audit_args, copy_base, predictions, store_limit, wal_size


def _full_message(cmd, proj):
    return (
        f"fairdesk {cmd}: {proj}: the disk is full (no space left on the device holding the "
        "project) while writing to the project; what it was writing was rolled back, the "
        "project holds what it held before. Free some space there and run the command again "
        "(what an audit finished is kept and reused)\n"
    )


def _integrity(proj):
    conn = sqlite3.connect(f"file:{proj / 'project.sqlite'}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


def _big_manifest(data, n=60):
    """A manifest listing the base audio ``n`` times with long transcripts."""
    lines = ["id,path,text,speaker_id,accent"]
    wavs = sorted(p.relative_to(data).as_posix() for p in data.rglob("*.wav"))
    for i in range(n):
        text = " ".join(["play song"] * 150)
        lines.append(f"big-{i},{wavs[i % len(wavs)]},{text},spk{i % 6},north")
    path = data / "big.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_import_on_a_full_disk_says_so_and_changes_nothing(cli, base, monkeypatch):
    proj, data = base
    manifest = _big_manifest(data)
    before = dump(proj)
    with monkeypatch.context() as m:
        store_limit(m, extra_pages=0)
        code, out, err = cli("import", "--project", proj, "--name", "big", manifest)
    assert code == 2
    assert err == _full_message("import", proj)
    assert dump(proj) == before
    assert wal_size(proj) == 0 and _integrity(proj) == ["ok"]
    code, out, err = cli("import", "--project", proj, "--name", "big", manifest)
    assert code == 0 and out.startswith("big: 60 items imported"), err


@pytest.mark.parametrize("extra_pages", [0, 1, 3])
def test_audit_on_a_full_disk_stops_keeps_the_store_sound_and_resumes(
    cli, base, _base_template, tmp_path, monkeypatch, extra_pages
):
    proj, _data = base
    pred = predictions(tmp_path)
    with monkeypatch.context() as m:
        store_limit(m, extra_pages=extra_pages)
        code, out, err = cli(*audit_args(proj, pred))
    assert code == 2
    assert err == _full_message("audit", proj)
    assert wal_size(proj) == 0 and _integrity(proj) == ["ok"]
    after = dump(proj)
    assert all("'running'" not in r for r in after["runs"])  # failed, never half-running
    assert after["results"] == []
    # space freed: the same audit completes, as an audit that never met the full disk does
    code, out, err = cli(*audit_args(proj, pred))
    assert code == 0, err
    run = max(int(r.split(",")[0].strip("(")) for r in dump(proj)["runs"])
    done = tmp_path / "done.csv"
    assert cli("export", "--project", proj, "--run", run, "--groups", done)[0] == 0
    ref_proj, _ = copy_base(_base_template, tmp_path / "ref")
    assert cli(*audit_args(ref_proj, pred))[0] == 0
    ref = tmp_path / "ref.csv"
    assert cli("export", "--project", ref_proj, "--run", 1, "--groups", ref)[0] == 0
    assert done.read_text() == ref.read_text()


def test_audit_json_on_a_full_disk_keeps_the_old_file_and_the_run(cli, base, tmp_path, monkeypatch):
    proj, _data = base
    pred = predictions(tmp_path)
    target = tmp_path / "a.json"
    target.write_text("old complete file\n")
    disk_full(monkeypatch)
    code, out, err = cli(*audit_args(proj, pred), "--json", target)
    assert code == 2
    assert err == (
        f"fairdesk audit: {target}: the disk is full (no space left on the device holding "
        f"{tmp_path}); the earlier file is unchanged. Free some space there, or write the file "
        "to another disk\n"
    )
    assert target.read_text() == "old complete file\n"
    assert [n for n in os.listdir(tmp_path) if atomic.TEMP_MARK in n] == []
    assert any("'done'" in r for r in dump(proj)["runs"])  # the run itself was stored


def test_the_backup_on_a_full_disk_refuses_the_migration(cli, tmp_path, monkeypatch):
    from fairdesk.core import integrity

    from .test_store_damaged import _old_project

    proj = _old_project(tmp_path / "p", 2)
    before = dump(proj)

    def full(*_a, **_k):
        raise integrity.disk_full(proj, "writing the backup before changing the project")

    monkeypatch.setattr(integrity, "write_backup", full)
    code, out, err = cli("datasets", "--project", proj)
    assert code == 2
    assert err == _full_message("datasets", proj).replace(
        "writing to the project", "writing the backup before changing the project"
    )
    assert dump(proj) == before
    conn = sqlite3.connect(f"file:{proj / 'project.sqlite'}?mode=ro", uri=True)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2  # not migrated
    conn.close()
