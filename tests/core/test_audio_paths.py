"""Paths as recipes write them (issue 46, "Paths as recipes write them"): absolute paths read
as written in every format, relative ones from ``--audio-root`` or the manifest's folder and
then its parent folders, each dataset's audio roots listed and relinked one by one; a project
of the schema before audio roots opens and audits as it did."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from fairdesk.cli import main
from fairdesk.core import audio_paths, schema
from fairdesk.core.importers import import_dataset
from fairdesk.core.spans import load_row
from fairdesk.core.store import Project
from tests.conftest import write_wav

UTTS = [("u1", "s1", "a"), ("u2", "s2", "a"), ("u3", "s3", "b"), ("u4", "s4", "b")]
TEXT = "one two three"


@pytest.fixture
def project(tmp_path):
    p = Project(tmp_path / "proj")
    yield p
    p.close()


def _write(path: Path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _wavs(folder: Path) -> dict[str, Path]:
    """One distinct 0.3 s tone per utterance under ``folder`` (written with soundfile)."""
    return {
        u: write_wav(folder / spk / f"{u}.wav", seconds=0.3, freq=200 + 40 * i)
        for i, (u, spk, _a) in enumerate(UTTS)
    }


def _audited(project, name: str, folder: Path) -> None:
    """Every item of ``name`` decodes from where the store says it is, and an audit of
    imported predictions reads them all (no failure)."""
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.stats import AuditSettings

    ds = project.dataset(name)
    items = project.items(ds)
    assert len(items) == len(UTTS)
    for _i, row in items.iterrows():
        assert load_row(ds.root, row).samples.size > 0
    preds = folder / "preds.csv"
    with preds.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["item_id", "text"])
        w.writerows([(k, TEXT) for k in items["id"]])
    out = run_audit(
        project,
        AuditRequest(
            dataset=name,
            model=f"predictions:{preds}",
            by=("accent",),
            settings=AuditSettings(n_bootstrap=200, min_items=2, min_speakers=1),
            nlu="none",
        ),
    )
    res = out.result.to_json()
    assert res["failures"] == []
    assert sum(g["n_items"] for g in res["groups"]) == len(UTTS)


def _kaldi(d: Path, paths: dict[str, str]) -> Path:
    _write(d / "wav.scp", [f"{u} {paths[u]}" for u, _s, _a in UTTS])
    _write(d / "text", [f"{u} {TEXT.upper()}" for u, _s, _a in UTTS])
    _write(d / "utt2spk", [f"{u} {s}" for u, s, _a in UTTS])
    _write(d / "utt2accent", [f"{u} {a}" for u, _s, a in UTTS])
    return d


def test_kaldi_data_dir_with_absolute_paths_elsewhere(project, tmp_path, capsys):
    wavs = _wavs(tmp_path / "corpus" / "wav")
    d = _kaldi(tmp_path / "exp" / "data" / "train", {u: str(p) for u, p in wavs.items()})
    rep = import_dataset(project, "k", d)
    assert rep.imported == 4 and rep.problems == ()
    assert rep.roots == (str(d.resolve()), str(tmp_path / "corpus" / "wav"))
    items = project.items(project.dataset("k")).set_index("id")
    assert items.loc["u1", "path"] == wavs["u1"].as_posix()  # shown in full
    _audited(project, "k", tmp_path)
    # `fairdesk datasets` lists both roots the dataset reads from
    assert main(["datasets", "--project", str(project.folder)]) == 0
    out = capsys.readouterr().out
    assert f"audio from {tmp_path / 'corpus' / 'wav'}: 4 items" in out
    summary = project.dataset_summary(project.dataset("k"))
    assert summary["audio_roots"] == [
        {"root": str(d.resolve()), "items": 0},
        {"root": str(tmp_path / "corpus" / "wav"), "items": 4},
    ]


def test_kaldi_recipe_paths_relative_to_the_recipe_folder(project, tmp_path, capsys):
    recipe = tmp_path / "egs" / "recipe"
    wavs = _wavs(recipe / "db" / "corpus")
    rel = {u: p.relative_to(recipe).as_posix() for u, p in wavs.items()}
    d = _kaldi(recipe / "data" / "train", rel)
    assert main(["import", "--project", str(project.folder), "--name", "r", str(d)]) == 0
    out = capsys.readouterr().out
    assert f"relative paths read from {recipe.resolve()}" in out  # the root chosen is named
    ds = project.dataset("r")
    assert ds.root == recipe.resolve()
    assert sorted(project.items(ds)["path"]) == sorted(rel.values())
    _audited(project, "r", tmp_path)


def test_lhotse_recordings_with_absolute_paths(project, tmp_path):
    wavs = _wavs(tmp_path / "audio")
    man = tmp_path / "manifests"
    man.mkdir()
    recs = [
        {
            "id": f"rec-{u}",
            "sources": [{"type": "file", "channels": [0], "source": str(wavs[u])}],
            "sampling_rate": 16000,
            "num_samples": 4800,
            "duration": 0.3,
        }
        for u, _s, _a in UTTS
    ]
    sups = [
        {
            "id": u,
            "recording_id": f"rec-{u}",
            "start": 0.0,
            "duration": 0.3,
            "channel": 0,
            "text": TEXT,
            "speaker": s,
            "custom": {"accent": a},
        }
        for u, s, a in UTTS
    ]
    for name, records in (("recordings", recs), ("supervisions", sups)):
        (man / f"c_{name}_dev.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
        )
    rep = import_dataset(project, "l", man)
    assert rep.imported == 4 and rep.problems == ()
    assert rep.roots[1:] == (str(tmp_path / "audio"),)
    _audited(project, "l", tmp_path)


def _nemo(path: Path, paths: dict[str, str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            json.dumps(
                {"audio_filepath": paths[u], "duration": 0.3, "text": TEXT, "accent": a, "id": u}
            )
            + "\n"
            for u, _s, a in UTTS
        ),
        encoding="utf-8",
    )
    return path


def test_nemo_absolute_paths_outside_the_manifest_folder(project, tmp_path):
    wavs = _wavs(tmp_path / "audio")
    man = _nemo(tmp_path / "manifests" / "train.json", {u: str(p) for u, p in wavs.items()})
    rep = import_dataset(project, "n", man)
    assert rep.format == "nemo" and rep.imported == 4 and rep.problems == ()
    assert rep.roots[1:] == (str(tmp_path / "audio"),)
    _audited(project, "n", tmp_path)


def test_nemo_with_audio_root(project, tmp_path, capsys):
    wavs = _wavs(tmp_path / "elsewhere" / "audio")
    rel = {u: p.relative_to(tmp_path / "elsewhere").as_posix() for u, p in wavs.items()}
    man = _nemo(tmp_path / "manifests" / "train.json", rel)
    args = ["import", "--project", str(project.folder), "--name", "n", str(man), "--json"]
    # without it the paths resolve nowhere: each row says where it looked and names the option
    assert main(args) == 1
    rep = json.loads(capsys.readouterr().out)
    assert len(rep["problems"]) == 4
    for p in rep["problems"]:
        assert "file not found" in p["reason"] and "--audio-root" in p["reason"]
        assert str((tmp_path / "manifests").resolve()) in p["reason"]
    assert main([*args, "--audio-root", str(tmp_path / "elsewhere")]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["imported"] == 4 and rep["audio_roots"] == [str(tmp_path / "elsewhere")]
    _audited(project, "n", tmp_path)


def test_a_manifest_path_that_does_not_resolve_names_audio_root(project, tmp_path):
    write_wav(tmp_path / "data" / "a.wav")
    _write(tmp_path / "data" / "m.csv", ["path,text", "a.wav,one", "clips/b.wav,two"])
    rep = import_dataset(project, "m", tmp_path / "data" / "m.csv")
    assert rep.imported == 1
    (problem,) = rep.problems
    assert problem.row == 3 and problem.path == "clips/b.wav"
    assert problem.reason == (
        f"file not found: clips/b.wav was read relative to {(tmp_path / 'data').resolve()}; "
        "check the path in the manifest or restore the file (if the manifest's paths are "
        "relative to another folder, give that folder with --audio-root)"
    )


def test_choose_root_walks_up_to_where_the_paths_resolve(tmp_path):
    write_wav(tmp_path / "top" / "db" / "x.wav")
    start = tmp_path / "top" / "data" / "train"
    start.mkdir(parents=True)
    assert audio_paths.choose_root(["db/x.wav", None, "/abs/y.wav"], start) == tmp_path / "top"
    assert audio_paths.choose_root(["nowhere/x.wav"], start) == start  # none resolve
    assert audio_paths.choose_root([], start) == start
    assert audio_paths.choose_root(["db/x.wav"], start, tmp_path) == tmp_path  # --audio-root
    with pytest.raises(Exception, match="--audio-root .*: no such folder"):
        audio_paths.choose_root(["x.wav"], start, tmp_path / "missing")
    # resolve_audio_path: absolute as written, relative under the first root holding it
    assert audio_paths.resolve_audio_path("/abs/y.wav", [start]) == Path("/abs/y.wav")
    got = audio_paths.resolve_audio_path("db/x.wav", [start, tmp_path / "top"])
    assert got == tmp_path / "top" / "db" / "x.wav"
    assert audio_paths.resolve_audio_path("q.wav", [start]) == start / "q.wav"
    # the roots of files outside a dataset's root: one per top-level folder when they
    # share only the file system's root
    assert audio_paths.outside_roots([Path("/a/x/1.wav"), Path("/a/y/2.wav")]) == [Path("/a")]
    assert audio_paths.outside_roots([Path("/a/1.wav"), Path("/b/c/2.wav")]) == [
        Path("/a"),
        Path("/b/c"),
    ]


def test_relink_works_per_root(project, tmp_path, capsys):
    from fairdesk.core.errors import StoreError
    from fairdesk.core.relink import audio_roots, relink_dataset

    inside = write_wav(tmp_path / "data" / "a.wav", freq=300)
    outside = write_wav(tmp_path / "corpus" / "b.wav", freq=500)
    _write(tmp_path / "data" / "m.csv", ["path,text", f"a.wav,one\n{outside},two"])
    assert import_dataset(project, "d", tmp_path / "data" / "m.csv").imported == 2
    ds = project.dataset("d")
    assert [r.root for r in audio_roots(project, ds)] == [
        (tmp_path / "data").resolve(),
        tmp_path / "corpus",
    ]
    # the corpus moves: only that root is relinked (the one whose files the folder holds)
    moved = tmp_path / "moved"
    write_wav(moved / "b.wav", freq=500)
    outside.unlink()
    rep = relink_dataset(project, "d", moved)
    assert (rep.old_root, rep.new_root, rep.items, rep.changed) == (
        tmp_path / "corpus",
        moved.resolve(),
        1,
        0,
    )
    ds = project.dataset("d")
    assert ds.root == (tmp_path / "data").resolve()  # the dataset's own root is untouched
    paths = sorted(project.items(ds)["path"])
    assert paths == sorted(["a.wav", (moved.resolve() / "b.wav").as_posix()])
    # a folder that holds the files of both roots: the one meant is named with old_root
    both = tmp_path / "both"
    write_wav(both / "a.wav", freq=300)
    write_wav(both / "b.wav", freq=500)
    with pytest.raises(StoreError, match="reads audio from 2 folders .*--from"):
        relink_dataset(project, "d", both)
    args = ["relink", "--project", str(project.folder), "--dataset", "d", str(both)]
    assert main([*args, "--from", str(tmp_path / "data"), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["old_root"] == str((tmp_path / "data").resolve())
    assert rep["new_root"] == str(both.resolve()) and rep["changed"] == 0
    assert project.dataset("d").root == both.resolve()
    assert inside.exists()


def _schema8_project(folder: Path, data: Path) -> Path:
    """A project written before audio roots (schema 8): one dataset of the UTTS, its
    items' paths relative to ``data``, no size or time stored."""
    import hashlib

    from fairdesk.core.audio import probe

    folder.mkdir()
    conn = sqlite3.connect(folder / "project.sqlite", isolation_level=None)
    for v in range(8):
        for stmt in schema._split_sql(schema.MIGRATIONS[v]):
            conn.execute(stmt)
    conn.execute("PRAGMA user_version=8")
    conn.execute(
        "INSERT INTO datasets(id, name, root, format, created_at) VALUES (1, 'old', ?, "
        "'manifest', 1)",
        (str(data),),
    )
    for u, spk, accent in UTTS:
        info = probe(data / spk / f"{u}.wav")
        conn.execute(
            "INSERT INTO items(dataset_id, item_key, path, audio_hash, duration, sample_rate, "
            "channels, text, speaker_id, content_id, metadata) VALUES (1,?,?,?,?,?,?,?,?,?,?)",
            (
                u,
                f"{spk}/{u}.wav",
                info.content_hash,
                info.duration,
                info.sample_rate,
                info.channels,
                TEXT,
                spk,
                "t:" + hashlib.sha1(TEXT.encode()).hexdigest()[:12],
                json.dumps({"accent": accent}),
            ),
        )
    conn.close()
    return folder


def test_a_project_of_the_previous_schema_opens_and_audits(tmp_path):
    data = tmp_path / "data"
    _wavs(data)
    folder = _schema8_project(tmp_path / "old", data)
    p = Project(folder)
    try:
        assert p.schema_version == schema.SCHEMA_VERSION
        ds = p.dataset("old")
        assert ds.root == data
        assert sorted(p.items(ds)["path"]) == sorted(f"{s}/{u}.wav" for u, s, _a in UTTS)
        assert p.dataset_summary(ds)["audio_roots"] == [{"root": str(data), "items": 4}]
        hashes = dict(p.conn.execute("SELECT item_key, audio_hash FROM items").fetchall())
        p.conn.execute("UPDATE datasets SET name='k' WHERE id=1")
        _audited(p, "k", tmp_path)
        # the audit hashed the files again (no size or time was stored): same audio, same hash
        rows = p.conn.execute("SELECT item_key, audio_hash, size, mtime FROM items").fetchall()
        assert {r[0]: r[1] for r in rows} == hashes
        assert all(r[2] and r[3] for r in rows)
    finally:
        p.close()


def test_not_found_names_audio_root_only_where_the_format_takes_it(tmp_path):
    root = tmp_path / "cv"
    said = audio_paths.not_found(root, root / "clips" / "x.mp3", "clips/x.mp3")
    assert f"read relative to {root}" in said and "--audio-root" in said
    fixed = audio_paths.not_found(root, root / "clips" / "x.mp3", "clips/x.mp3", rooted=False)
    assert fixed == (
        f"file not found: clips/x.mp3 was read relative to {root}; restore the file or remove "
        "its entry"
    )
    elsewhere = audio_paths.not_found(root, tmp_path / "y.wav", str(tmp_path / "y.wav"))
    assert elsewhere.startswith(f"file not found: {tmp_path / 'y.wav'} (an absolute path is")
