"""A speaker sheet joins metadata to a field session by speaker id: an ELAN session whose
participants have no gender gets it from a CSV or an Excel sheet, and can be audited by it;
speakers missing from the sheet and rows no item uses are listed."""

import json

import pytest

from fairdesk.cli import main
from fairdesk.core.importers import import_dataset
from fairdesk.core.store import Project

from .test_importers_sessions import elan_session


def test_a_csv_sheet_gives_an_elan_session_its_speakers_gender(tmp_path, capsys):
    folder = tmp_path / "corpus"
    elan_session(folder)  # participants Ana and Ben, a notes tier
    sheet = tmp_path / "speakers.csv"
    sheet.write_text("Participant,gender,age\nAna,female,34\nBen,male,\nCarl,male,50\n")
    code = main(
        [
            "import",
            "--project",
            str(tmp_path / "p"),
            "--name",
            "s",
            str(folder),
            "--speakers",
            str(sheet),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "speaker sheet" in out and "gender, age joined to 40 items of 2 speakers" in out
    assert "1 row of the sheet that no item uses: Carl" in out
    items = Project(tmp_path / "p").items(Project(tmp_path / "p").dataset("s"))
    by = items.groupby("speaker_id")["gender"].first().to_dict()
    assert by == {"Ana": "female", "Ben": "male"}
    assert items.loc[items["speaker_id"] == "Ana", "age"].astype(str).unique().tolist() == ["34"]
    # Ben's empty age cell stays missing
    assert items.loc[items["speaker_id"] == "Ben", "age"].isna().all()


def test_a_sheet_lists_speakers_it_lacks_and_refuses_a_speaker_twice(tmp_path):
    folder = tmp_path / "corpus"
    elan_session(folder)
    project = Project(tmp_path / "p")
    sheet = tmp_path / "s.tsv"
    sheet.write_text("speaker_id\tdialect\nAna\tOwerri\n")
    rep = import_dataset(project, "s", folder, speakers=sheet)
    assert rep.speakers["missing"] == ["Ben"] and rep.speakers["unused"] == []
    assert rep.speakers["joined_items"] == 20
    twice = tmp_path / "t.csv"
    twice.write_text("spk,gender\nAna,female\nBen,male\nAna,male\n")
    from fairdesk.core.errors import ImportFailed

    with pytest.raises(ImportFailed, match=r"speaker 'Ana' is listed twice \(rows 2 and 4\)"):
        import_dataset(project, "t", folder, speakers=twice)
    both = tmp_path / "b.csv"
    both.write_text("speaker,participant,gender\nAna,Ana,female\n")
    with pytest.raises(ImportFailed, match="two speaker columns, 'speaker' and 'participant'"):
        import_dataset(project, "u", folder, speakers=both)


def test_an_excel_sheet_is_read_and_the_json_report_carries_the_join(tmp_path, capsys):
    pytest.importorskip("openpyxl")
    import pandas as pd

    folder = tmp_path / "corpus"
    elan_session(folder)
    sheet = tmp_path / "speakers.xlsx"
    pd.DataFrame({"Speaker": ["Ana", "Ben"], "gender": ["female", "male"]}).to_excel(
        sheet, index=False
    )
    code = main(
        [
            "import",
            "--project",
            str(tmp_path / "p"),
            "--name",
            "s",
            str(folder),
            "--speakers",
            str(sheet),
            "--json",
        ]
    )
    assert code == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["speakers"]["column"] == "Speaker" and rep["speakers"]["joined_speakers"] == 2
