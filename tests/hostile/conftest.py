"""Hostile and careless input (issue 10): helpers shared by the cases.

Every case checks four things: the exit code, that the message names the file / line /
column and says what to do, the imported / refused counts, and that nothing else in the
project changed (a dump of every table before and after, :func:`dump`).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from fairdesk.cli import main
from tests.conftest import write_wav

BASE_ITEMS = 8


def dump(folder) -> dict[str, list]:
    """Every row of every table of the project at ``folder`` (read-only), table by table."""
    return dump_file(Path(folder) / "project.sqlite")


def dump_file(db) -> dict[str, list]:
    """:func:`dump` of one database file, whatever its name (a backup, say)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {n: sorted(map(repr, conn.execute(f"SELECT * FROM {n}"))) for n in names}
    finally:
        conn.close()


def changed(before: dict, after: dict) -> set[str]:
    """The tables whose rows differ."""
    return {t for t in set(before) | set(after) if before.get(t) != after.get(t)}


def counts(folder) -> dict[str, int]:
    return {t: len(rows) for t, rows in dump(folder).items()}


@pytest.fixture(scope="session")
def _base_template(tmp_path_factory):
    """A project with dataset ``base``: two accents × two speakers × two sentences."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    tmp = tmp_path_factory.mktemp("hostile-base")
    root = tmp / "data"
    lines = ["id,path,text,speaker_id,accent"]
    n = 0
    for accent in ("north", "south"):
        for s in range(2):
            for c in range(2):
                rel = f"{accent}/s{s}_{c}.wav"
                write_wav(root / rel, seconds=0.4, freq=200 + 20 * n)
                lines.append(f"{accent}-{s}-{c},{rel},play song {c},{accent}{s},{accent}")
                n += 1
    (root / "m.csv").write_text("\n".join(lines) + "\n")
    p = Project(tmp / "proj")
    assert import_dataset(p, "base", root / "m.csv").imported == BASE_ITEMS
    p.close()
    return tmp


@pytest.fixture
def base(_base_template, tmp_path):
    """A fresh copy of the base project: ``(project folder, data folder)``."""
    shutil.copytree(_base_template, tmp_path / "b")
    proj, data = tmp_path / "b" / "proj", tmp_path / "b" / "data"
    conn = sqlite3.connect(proj / "project.sqlite")
    with conn:  # the copy's dataset lives in the copy's data folder
        conn.execute("UPDATE datasets SET root=?", (str(data.resolve()),))
    conn.close()
    return proj, data


@pytest.fixture
def cli(capsys):
    """``cli(*args) -> (exit code, stdout, stderr)`` of ``fairdesk`` run in this process."""

    def run(*args):
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err, out + err
        return code, out, err

    return run


def predictions_file(path: Path, rows: list[tuple[str, str]], key: str = "item_id") -> Path:
    """A predictions CSV keyed by ``key``."""
    import csv

    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([key, "text"])
        w.writerows(rows)
    return path
