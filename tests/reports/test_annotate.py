"""Corrected transcripts back from Praat and ELAN: stored as ``transcript`` annotations, every
unusable file reported by name, exit codes 0/1/2."""

from __future__ import annotations

import shutil

import pytest

from fairdesk.cli import main


def _db_id(project, dataset, item):
    f = project.items(project.dataset(dataset))
    return int(f.set_index("id").loc[item, "db_id"])


@pytest.fixture
def exported(speech_runs, tmp_path):
    from fairdesk.reports.praat import export_textgrids

    folder = tmp_path / "tg"
    export_textgrids(speech_runs.project, speech_runs.tone_run, folder, aligner="even")
    return folder


def _set_reference(path, new_words):
    """Rewrite the reference tier's labels as a linguist would in Praat."""
    from praatio import textgrid

    tg = textgrid.openTextgrid(str(path), includeEmptyIntervals=False)
    tier = tg.getTier("reference")
    entries = [(e.start, e.end, w) for e, w in zip(tier.entries, new_words)]
    tg.replaceTier("reference", tier.new(entries=entries))
    tg.save(str(path), format="long_textgrid", includeBlankSpaces=True)


def test_edited_tone_mark_imports_as_annotation(speech_runs, exported, tmp_path, capsys):
    from fairdesk.reports.transcripts import current_transcript

    p = speech_runs.project
    keep = tmp_path / "one"
    keep.mkdir()
    shutil.copy(exported / "yo-0-0.TextGrid", keep)
    _set_reference(keep / "yo-0-0.TextGrid", ["ọjá", "ni", "mo", "lọ"])  # grave → acute
    args = [
        "annotate",
        "--project",
        str(p.folder),
        "--dataset",
        "t",
        "--from-textgrid",
        str(keep),
        "--tier",
        "reference",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "1 transcript imported" in out
    db = _db_id(p, "t", "yo-0-0")
    last = p.annotations(db)[-1]
    assert last["kind"] == "transcript"
    assert last["value"]["text"] == "ọjá ni mo lọ"
    assert last["value"]["previous"] == "ọjà ni mo lọ"
    assert "yo-0-0.TextGrid" in last["value"]["source"]
    assert current_transcript(p, db, "ọjà ni mo lọ") == "ọjá ni mo lọ"
    # the dataset's own text is untouched; importing again changes nothing
    assert p.items(p.dataset("t")).set_index("id").loc["yo-0-0", "text"] == "ọjà ni mo lọ"
    n = len(p.annotations(db))
    assert main(args) == 0
    assert "0 transcripts imported" in capsys.readouterr().out
    assert len(p.annotations(db)) == n


def test_every_mismatch_is_reported_by_file(speech_runs, exported, tmp_path, capsys):
    from praatio import textgrid

    p = speech_runs.project
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(exported / "yo-1-2.TextGrid", folder)
    _set_reference(folder / "yo-1-2.TextGrid", ["mò", "fẹ́", "jẹun"])
    tg = textgrid.openTextgrid(str(exported / "yo-1-0.TextGrid"), False)
    tg.removeTier("reference")
    tg.save(str(folder / "yo-1-0.TextGrid"), "long_textgrid", True)  # tier missing
    _copy_blank = folder / "yo-1-1.TextGrid"
    shutil.copy(exported / "yo-1-1.TextGrid", _copy_blank)
    _set_reference(_copy_blank, ["", "", ""])  # every interval emptied
    (folder / "broken.TextGrid").write_text("not a textgrid at all")
    assert (
        main(
            [
                "annotate",
                "--project",
                str(p.folder),
                "--dataset",
                "t",
                "--from-textgrid",
                str(folder),
                "--tier",
                "reference",
            ]
        )
        == 0
    )
    cap = capsys.readouterr()
    err = cap.err
    assert "yo-1-0.TextGrid: no tier 'reference' (tiers: 'hypothesis', 'errors')" in err
    assert "yo-1-1.TextGrid: tier 'reference' has no text" in err
    assert "broken.TextGrid: not a readable TextGrid file" in err
    assert "4 files" in cap.out and "1 transcript imported" in cap.out and "3 problems" in cap.out
    assert p.annotations(_db_id(p, "t", "yo-1-2"))[-1]["value"]["text"] == "mò fẹ́ jẹun"


def test_exit_codes(speech_runs, tmp_path, capsys):
    p = speech_runs.project
    base = ["annotate", "--project", str(p.folder), "--dataset", "t", "--tier", "reference"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(base + ["--from-textgrid", str(empty)]) == 1  # nothing to import
    assert main(base + ["--from-textgrid", str(tmp_path / "missing")]) == 2
    assert (
        main(
            [
                "annotate",
                "--project",
                str(p.folder),
                "--dataset",
                "nope",
                "--tier",
                "x",
                "--from-textgrid",
                str(empty),
            ]
        )
        == 2
    )
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.TextGrid").write_text("garbage")
    assert main(base + ["--from-textgrid", str(bad)]) == 1
    capsys.readouterr()


def test_eaf_round_trip(speech_runs, tmp_path, capsys):
    import pympi

    from fairdesk.reports.elan import export_eafs

    p = speech_runs.project
    export_eafs(p, speech_runs.tone_run, tmp_path, aligner="even", items=["yo-1-1"])
    path = tmp_path / "yo-1-1.eaf"
    eaf = pympi.Elan.Eaf(str(path))
    anns = sorted(eaf.get_annotation_data_for_tier("reference"))
    eaf.remove_all_annotations_from_tier("reference")
    fixed = ["ẹ", "kù", "àárọ̀"]
    for (s, e, _), w in zip(anns, fixed):
        eaf.add_annotation("reference", s, e, w)
    eaf.to_file(str(path))
    renamed = tmp_path / "renamed-by-hand.eaf"  # the item id is in the file's properties
    path.rename(renamed)
    assert (
        main(
            [
                "annotate",
                "--project",
                str(p.folder),
                "--dataset",
                "t",
                "--from-eaf",
                str(tmp_path),
                "--tier",
                "reference",
            ]
        )
        == 0
    )
    last = p.annotations(_db_id(p, "t", "yo-1-1"))[-1]
    assert last["kind"] == "transcript" and last["value"]["text"] == "ẹ kù àárọ̀"
    capsys.readouterr()
