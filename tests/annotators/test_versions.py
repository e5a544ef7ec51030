"""One reference version per annotator, adjudicated versions, names compared NFC-trimmed, and
imports of a named annotator's TextGrids all or nothing (docs/METHODS.md, "References from
several annotators")."""

from __future__ import annotations

import unicodedata

from tests.annotators.fixture import (
    ITEMS,
    import_annotator,
    item_id,
    project,
    two_annotators,
    write_textgrids,
)


def _db(p, key):
    f = p.items(p.dataset("d"))
    return int(f.set_index("id").loc[item_id(key), "db_id"])


def test_textgrids_of_two_annotators_are_two_versions_beside_the_imported_text(tmp_path):
    p, _ = two_annotators(tmp_path)
    versions = p.transcript_versions()
    for key, (_s, _a, imported, ada, obi) in ITEMS.items():
        iv = versions[_db(p, key)]
        assert iv.imported == imported
        assert {v.annotator: v.text for v in iv.versions} == {"Ada": ada, "Obi": obi}
        assert iv.disagree == (ada != obi)
        assert iv.adjudication is None
        assert iv.latest == obi  # imported last: the newest row by anyone
    # the store's imported text is untouched
    assert p.items(p.dataset("d")).set_index("id").loc["n1.wav", "text"] == "akwa ego"


def test_an_annotators_latest_row_is_their_version_and_names_are_nfc_trimmed(tmp_path):
    p, _ = project(tmp_path)
    db = _db(p, "n1")
    decomposed = unicodedata.normalize("NFD", "Ọ̀bị")
    p.save_transcript(db, "àkwa ego", "Ọ̀bị")
    p.save_transcript(db, "àkwà ego", f"  {decomposed} ")  # one annotator, another form
    p.save_transcript(db, "ákwá ego", "Ada")
    p.add_annotation(db, "transcript", {"text": "akwà ego"})  # an old row, no name
    iv = p.transcript_versions([db])[db]
    assert [(v.annotator, v.text) for v in iv.versions] == [
        ("Ada", "ákwá ego"),
        ("unnamed", "akwà ego"),
        ("Ọ̀bị", "àkwà ego"),
    ]
    # Ọ̀bị's history keeps both rows: nothing overwritten
    hist = [h for h in p.transcript_history(db) if h["annotator"] == "Ọ̀bị"]
    assert [h["text"] for h in hist] == ["àkwa ego", "àkwà ego"]


def test_a_new_annotator_starts_from_the_imported_text(tmp_path):
    p, _ = project(tmp_path)
    db = _db(p, "n0")
    p.save_transcript(db, "àkwà ji", "Ada")
    # Obi's first save is compared with the imported text, not with Ada's version
    assert p.save_transcript(db, "akwa ji", "Obi") is None
    a = p.save_transcript(db, "àkwa ji", "Obi")
    assert p.annotations(db)[-1]["id"] == a
    assert p.annotations(db)[-1]["value"]["previous"] == "akwa ji"


def test_adjudication_is_a_new_row_with_the_adjudicator_and_time(tmp_path):
    import pytest

    from fairdesk.core.errors import StoreError

    p, _ = two_annotators(tmp_path)
    db = _db(p, "s1")
    before = [dict(a) for a in p.annotations(db)]
    aid = p.adjudicate(db, "ákwá ego", " Chi ")
    iv = p.transcript_versions([db])[db]
    assert iv.adjudication is not None
    assert (iv.adjudication.adjudicator, iv.adjudication.text) == ("Chi", "ákwá ego")
    assert iv.adjudication.annotation_id == aid and iv.adjudication.created_at > 0
    # the versions are unchanged: adjudication is not a version of Chi
    assert {v.annotator for v in iv.versions} == {"Ada", "Obi"}
    assert p.annotations(db)[: len(before)] == before
    row = p.annotations(db)[-1]
    assert row["annotator"] == "Chi"
    assert row["value"]["versions"] == {v.annotator: v.annotation_id for v in iv.versions}
    assert iv.latest == "ákwá ego"
    with pytest.raises(StoreError, match="name the adjudicator"):
        p.adjudicate(db, "x", "  ")


def test_a_folder_naming_an_unknown_item_imports_nothing_and_lists_it(tmp_path, capsys):
    p, _ = project(tmp_path)
    folder = write_textgrids(
        tmp_path / "ada", {"n0.wav": "àkwà ji", "n1.wav": "àkwà ego", "ghost": "akwa", "n9": "ji"}
    )
    n = p.conn.execute("SELECT COUNT(*) FROM annotations").fetchone()[0]
    assert import_annotator(p, folder, "Ada") == 2
    err = capsys.readouterr().err
    assert "nothing imported: 2 files name items that dataset 'd' does not have" in err
    assert "ghost.TextGrid: item 'ghost'" in err and "n9.TextGrid: item 'n9'" in err
    assert p.conn.execute("SELECT COUNT(*) FROM annotations").fetchone()[0] == n


def test_a_named_annotators_first_version_equal_to_the_import_is_stored(tmp_path, capsys):
    p, _ = project(tmp_path)
    folder = write_textgrids(tmp_path / "ada", {"n2.wav": "akwa ji"})
    assert import_annotator(p, folder, "Ada") == 0
    assert "1 transcript imported" in capsys.readouterr().out
    db = _db(p, "n2")
    assert [v.text for v in p.transcript_versions([db])[db].versions] == ["akwa ji"]
    assert import_annotator(p, folder, "Ada") == 0  # again: unchanged, nothing written
    assert "0 transcripts imported as annotations, 1 unchanged" in capsys.readouterr().out
