"""A copied or moved project reads its audio from where the dataset is now (issue 30, item
12): ``relink_dataset`` / ``fairdesk relink`` check every file under the new root first,
refuse a wrong root naming a missing file, refuse files that are not audio, and keep the
annotations; the exports then read the new root."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from fairdesk.cli import main
from fairdesk.core.errors import StoreError
from tests.conftest import write_wav

N = 6


def _project(base: Path):
    """A project in ``base/proj`` with dataset ``d`` (6 wav files under ``base/data``), one
    annotation and one audit of imported predictions."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.stats import AuditSettings

    data = base / "data"
    rows, preds = [], []
    for i in range(N):
        rel = f"spk{i % 2}/u{i}.wav"
        write_wav(data / rel, seconds=0.4, freq=200.0 + 30 * i)
        rows.append(
            {
                "id": f"u{i}",
                "path": rel,
                "text": "one two three",
                "speaker_id": f"s{i}",
                "accent": "a" if i < 3 else "b",
            }
        )
        preds.append({"item_id": f"u{i}", "text": "one two three" if i % 2 else "one two"})
    for name, rs in (("m.csv", rows), ("p.csv", preds)):
        with (data / name).open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rs[0]))
            w.writeheader()
            w.writerows(rs)
    p = Project(base / "proj")
    assert import_dataset(p, "d", data / "m.csv", id_col="id").imported == N
    items = p.items(p.dataset("d")).set_index("id")
    p.save_transcript(int(items.loc["u0", "db_id"]), "one two tree", annotator="ada")
    out = run_audit(
        p,
        AuditRequest(
            dataset="d",
            model=f"predictions:{data / 'p.csv'}",
            by=("accent",),
            settings=AuditSettings(n_bootstrap=200, min_items=2, min_speakers=1),
            nlu="none",
        ),
    )
    p.close()
    return base / "proj", data, out.run_id


@pytest.fixture
def copied(tmp_path):
    """(the copy's project folder, the copy's data folder, run id): the original project and
    data copied elsewhere, as a user copies a project to another machine."""
    proj, data, run = _project(tmp_path / "orig")
    shutil.copytree(proj, tmp_path / "copy" / "proj")
    shutil.copytree(data, tmp_path / "copy" / "data")
    return tmp_path / "copy" / "proj", tmp_path / "copy" / "data", run, data


def test_a_copied_project_reads_the_original_until_relinked(copied, tmp_path):
    from fairdesk.core.relink import audio_root, relink_dataset
    from fairdesk.core.store import Project
    from fairdesk.reports.data import load_run

    proj, data, run, original = copied
    p = Project(proj)
    ds = p.dataset("d")
    assert ds.root == original.resolve()  # the copy still names the original's audio
    assert audio_root(p, ds).describe() == f"audio of 'd' read from {original.resolve()}"
    before = [
        (a["item_id"], a["value"]) for a in p.annotations_of_kinds(range(1, 99), ("transcript",))
    ]
    rep = relink_dataset(p, "d", data)
    assert (rep.old_root, rep.new_root, rep.items) == (original.resolve(), data.resolve(), N)
    d = load_run(p, run)
    paths = [d.audio_path(r) for r in d.items.to_dict(orient="records")]
    assert sorted(paths) == sorted(data.resolve() / f"spk{i % 2}/u{i}.wav" for i in range(N))
    after = [
        (a["item_id"], a["value"]) for a in p.annotations_of_kinds(range(1, 99), ("transcript",))
    ]
    assert after == before and len(after) == 1  # the annotation is kept
    p.close()
    # the exports link the new root's files
    from fairdesk.reports.elan import export_eafs

    p = Project(proj)
    its = export_eafs(p, run, tmp_path / "eaf", aligner="even")
    assert {it.audio for it in its} == {data.resolve() / f"spk{i % 2}/u{i}.wav" for i in range(N)}
    assert str(data.resolve() / "spk0/u0.wav") in (tmp_path / "eaf" / "u0.eaf").read_text("utf-8")
    p.close()


def test_a_wrong_root_is_refused_naming_a_missing_file(copied, tmp_path):
    from fairdesk.core.relink import relink_dataset
    from fairdesk.core.store import Project

    proj, data, _run, original = copied
    (data / "spk1" / "u3.wav").unlink()
    p = Project(proj)
    with pytest.raises(StoreError) as err:
        relink_dataset(p, "d", data)
    assert str(err.value) == (
        f"dataset 'd' was not relinked to {data.resolve()}: 1 of {N} audio files are not "
        f"there: {data.resolve() / 'spk1/u3.wav'} (item u3); give the folder that holds the "
        "dataset's audio as it was imported (its sub-folders as they were)"
    )
    with pytest.raises(StoreError) as err:
        relink_dataset(p, "d", tmp_path / "nowhere")
    assert str(err.value) == (
        f"{(tmp_path / 'nowhere').resolve()}: not a folder; give the folder that holds "
        "dataset 'd''s audio (it should hold spk0/u0.wav, the audio of item u0)"
    )
    assert p.dataset("d").root == original.resolve()  # nothing changed
    p.close()


def test_a_file_that_is_not_audio_under_the_new_root_is_refused(copied, tmp_path):
    from fairdesk.core.relink import relink_dataset
    from fairdesk.core.store import Project

    proj, data, _run, original = copied
    (data / "spk0" / "u2.wav").write_text("not audio")
    p = Project(proj)
    with pytest.raises(StoreError, match=r"1 of 6 files there do not decode as audio: .*u2.wav"):
        relink_dataset(p, "d", data)
    assert p.dataset("d").root == original.resolve()
    p.close()


def test_cli_relink_and_datasets_warn_about_a_missing_folder(copied, capsys):
    proj, data, _run, original = copied
    shutil.rmtree(original)  # the original is gone: the copy has no audio until relinked
    assert main(["datasets", "--project", str(proj)]) == 0
    err = capsys.readouterr().err
    assert err == (
        f"  warning: audio of 'd' read from {original.resolve()}: the folder is not there; "
        f"`fairdesk relink --project {proj.resolve()} --dataset 'd' NEW_FOLDER`\n"
    )
    assert main(["relink", "--project", str(proj), "--dataset", "d", str(data / "spk0")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"fairdesk relink: dataset 'd' was not relinked to {data.resolve() / 'spk0'}: 6 of 6"
    )
    assert main(["relink", "--project", str(proj), "--dataset", "d", str(data)]) == 0
    out = capsys.readouterr().out
    assert out == (
        f"d: audio is read from {data.resolve()} (was {original.resolve()}); all 6 files "
        "found there; every file holds the same audio as before\n"
    )
    assert main(["datasets", "--project", str(proj)]) == 0
    assert capsys.readouterr().err == ""
