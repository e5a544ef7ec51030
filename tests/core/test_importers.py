import json

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core import importers
from fairdesk.core.errors import ImportFailed
from fairdesk.core.importers import import_dataset
from fairdesk.core.store import Project
from tests.conftest import write_wav


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


def _broken_tree(root):
    """A dataset folder with 3 good rows and one row for each kind of bad input."""
    write_wav(root / "a.wav")
    write_wav(root / "sub" / "b.wav", sr=44100, channels=2)
    write_wav(root / "c.flac", fmt="FLAC")
    (root / "corrupt.wav").write_bytes(b"RIFF....WAVEfmt garbage")
    sf.write(str(root / "empty.wav"), np.zeros(0, np.float32), 16000)
    write_wav(root / "d.wav")
    write_wav(root.parent / "outside.wav")
    rows = [
        b"id,path,text,speaker,accent",
        b"u1,a.wav,play some music,s1,scottish",
        b"u2,sub/b.wav,turn it up,s2,irish",
        b"u3,c.flac,\xc3\xa0kw\xc3\xa0,s1,scottish",  # UTF-8 'àkwà' is fine
        b"u4,missing.wav,hello,s3,irish",
        b"u5,corrupt.wav,hello,s3,irish",
        b"u6,empty.wav,hello,s3,irish",
        b"u1,d.wav,duplicate id,s3,irish",
        b"u7,d.wav,caf\xe9 latin-1,s3,irish",  # not UTF-8
        b"u8,d.wav,   ,s3,irish",  # empty transcript
        b"u9,../outside.wav,escape,s3,irish",
        b"u10," + str(root.parent / "outside.wav").encode() + b",absolute elsewhere,s3,irish",
        b"u11,d.wav,too,many,fields,here",
    ]
    (root / "manifest.csv").write_bytes(b"\n".join(rows) + b"\n")
    return root / "manifest.csv"


def test_manifest_good_rows_imported_bad_rows_reported(project, tmp_path):
    man = _broken_tree(tmp_path / "data")
    rep = import_dataset(project, "d", man)
    assert rep.imported == 5 and rep.added == 5
    by_line = {p.row: p.reason for p in rep.problems}  # the file's line (header = line 1)
    assert set(by_line) == {5, 6, 7, 8, 9, 10, 13}
    assert "not found" in by_line[5]
    assert "cannot decode" in by_line[6]
    assert "zero length" in by_line[7]
    assert "duplicate item id 'u1'" in by_line[8] and "first seen on line 2" in by_line[8]
    assert "not valid UTF-8" in by_line[9] and "0xe9" in by_line[9]
    assert "empty transcript" in by_line[10]
    assert "fields" in by_line[13]
    ds = project.dataset("d")
    items = project.items(ds)
    assert list(items["id"]) == ["u1", "u2", "u3", "u9", "u10"]
    # a file outside the manifest's folder (relative or absolute) is read where it is: its
    # path is shown in full, and the dataset reads from a second audio root
    outside = (tmp_path / "outside.wav").as_posix()
    assert list(items["path"]) == ["a.wav", "sub/b.wav", "c.flac", outside, outside]
    assert rep.roots == (str((tmp_path / "data").resolve()), str(tmp_path))
    row = items.set_index("id").loc["u2"]
    assert row["channels"] == 2 and row["sample_rate"] == 44100 and row["accent"] == "irish"
    assert items.set_index("id").loc["u3", "text"] == "àkwà"
    # content ids derived from the normalised text
    assert items["content_id"].str.startswith("t:").all()
    # re-import changes nothing
    before = project.conn.execute("SELECT * FROM items ORDER BY id").fetchall()
    rep2 = import_dataset(project, "d", man)
    assert (rep2.added, rep2.updated, rep2.unchanged) == (0, 0, 5)
    after = project.conn.execute("SELECT * FROM items ORDER BY id").fetchall()
    assert [tuple(r) for r in before] == [tuple(r) for r in after]


def test_import_is_one_transaction(project, tmp_path, monkeypatch):
    man = _broken_tree(tmp_path / "data")
    calls = {"n": 0}
    real = importers.derive_content_id

    def boom(text):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("simulated crash mid-import")
        return real(text)

    monkeypatch.setattr(importers, "derive_content_id", boom)
    with pytest.raises(RuntimeError):
        import_dataset(project, "d", man)
    assert project.conn.execute("SELECT COUNT(*) FROM items").fetchone()[0] == 0
    assert project.conn.execute("SELECT COUNT(*) FROM datasets").fetchone()[0] == 0


def test_nothing_good_writes_nothing(project, tmp_path):
    root = tmp_path / "bad"
    root.mkdir()
    (root / "m.csv").write_text("path,text\nnope.wav,hello\n")
    rep = import_dataset(project, "bad", root / "m.csv")
    assert rep.imported == 0 and len(rep.problems) == 1
    assert project.datasets() == []


def test_jsonl_manifest_with_malformed_line(project, tmp_path):
    root = tmp_path / "j"
    write_wav(root / "a.wav")
    write_wav(root / "b.wav")
    lines = [
        json.dumps(
            {"audio": "a.wav", "text": "hi", "speaker_id": "s", "intent": "Pause", "slots": {}}
        ),
        "{not json",
        json.dumps({"audio": "b.wav", "text": "yo", "age": 30}),
    ]
    (root / "m.jsonl").write_text("\n".join(lines) + "\n")
    rep = import_dataset(project, "j", root / "m.jsonl")
    assert rep.imported == 2
    assert [(p.row, "not valid JSON" in p.reason) for p in rep.problems] == [(2, True)]
    items = project.items(project.dataset("j")).set_index("path")
    assert items.loc["a.wav", "intent"] == "Pause" and items.loc["b.wav", "age"] == 30


def test_named_columns_and_missing_column(project, tmp_path):
    root = tmp_path / "n"
    write_wav(root / "x.wav")
    (root / "m.tsv").write_text("wavfile\tutterance\twho\nx.wav\thello there\tspk9\n")
    with pytest.raises(ImportFailed, match="no audio-path column"):
        import_dataset(project, "n", root / "m.tsv")
    rep = import_dataset(
        project, "n", root / "m.tsv", audio_col="wavfile", text_col="utterance", speaker_col="who"
    )
    assert rep.imported == 1
    assert project.items(project.dataset("n"))["speaker_id"].tolist() == ["spk9"]


def test_audiofolder(project, tmp_path):
    root = tmp_path / "af"
    write_wav(root / "test" / "one.wav")
    write_wav(root / "test" / "two.wav")
    (root / "test" / "metadata.csv").write_text(
        "file_name,transcription,gender\none.wav,hello world,female\ntwo.wav,,male\n"
    )
    rep = import_dataset(project, "af", root)
    assert rep.format == "audiofolder" and rep.imported == 1
    assert "empty transcript" in rep.problems[0].reason
    it = project.items(project.dataset("af"))
    assert it["path"].tolist() == ["test/one.wav"] and it["split"].tolist() == ["test"]


def test_commonvoice(project, tmp_path):
    root = tmp_path / "cv"
    write_wav(root / "clips" / "common_voice_en_1.mp3.wav")
    for i in (1, 2, 3):
        write_wav(root / "clips" / f"cv_{i}.wav")
    (root / "validated.tsv").write_text(
        "client_id\tpath\tsentence_id\tsentence\tup_votes\tdown_votes\tage\tgender\taccents\n"
        "c1\tcv_1.wav\tsid1\tHello there.\t2\t0\ttwenties\tfemale_feminine\tScottish English\n"
        "c2\tcv_2.wav\tsid1\tHello there.\t2\t0\tthirties\tmale_masculine\t\n"
        "c2\tcv_9.wav\tsid2\tMissing clip.\t2\t0\tthirties\tmale_masculine\t\n"
    )
    rep = import_dataset(project, "cv", root)
    assert rep.format == "commonvoice" and rep.imported == 2
    assert rep.problems[0].row == 4 and "not found" in rep.problems[0].reason  # line 4
    it = project.items(project.dataset("cv")).set_index("id")
    assert it.loc["cv_1", "speaker_id"] == "c1" and it.loc["cv_1", "content_id"] == "sid1"
    assert it.loc["cv_1", "accents"] == "Scottish English"
    assert "up_votes" not in it.columns


def test_librispeech(project, tmp_path):
    root = tmp_path / "LibriSpeech"
    (root).mkdir()
    (root / "SPEAKERS.TXT").write_text(
        "; comment\n;ID  |SEX| SUBSET | MINUTES | NAME\n"
        "84   | F | test-clean | 25.2 | Christie\n174  | M | test-clean | 25.1 | Peter\n"
    )
    d1 = root / "test-clean" / "84" / "121123"
    d2 = root / "test-clean" / "174" / "50561"
    write_wav(d1 / "84-121123-0000.flac", fmt="FLAC")
    write_wav(d2 / "174-50561-0000.flac", fmt="FLAC")
    (d1 / "84-121123.trans.txt").write_text("84-121123-0000 GO DO YOU HEAR\n")
    (d2 / "174-50561.trans.txt").write_text(
        "174-50561-0000 FORGOTTEN TOO\n174-50561-0001 NO AUDIO FOR THIS ONE\n"
    )
    rep = import_dataset(project, "ls", root)
    assert rep.format == "librispeech" and rep.imported == 2 and len(rep.problems) == 1
    it = project.items(project.dataset("ls")).set_index("id")
    assert it.loc["84-121123-0000", "gender"] == "female"
    assert it.loc["174-50561-0000", "speaker_id"] == "174"


def test_filters(project, tmp_path):
    man = _broken_tree(tmp_path / "data")
    import_dataset(project, "d", man)
    ds = project.dataset("d")
    assert project.items(ds, {"accent": ["irish"]})["id"].tolist() == ["u2", "u9", "u10"]
    with pytest.raises(Exception, match="filter column 'dialect'"):
        project.items(ds, {"dialect": ["x"]})


def test_utf16_manifest_with_bom(project, tmp_path):
    root = tmp_path / "u16"
    write_wav(root / "a.wav")
    (root / "m.csv").write_bytes("path,text\na.wav,àkwà ákwá\n".encode("utf-16"))
    rep = import_dataset(project, "u16", root / "m.csv")
    assert rep.imported == 1
    assert project.items(project.dataset("u16"))["text"].tolist() == ["àkwà ákwá"]


def test_files_outside_the_manifest_folder_are_read_where_they_are(project, tmp_path):
    # /x/data and /x/data-private: a file of the sibling folder is its own audio root (a
    # string-prefix check would take it for one under /x/data)
    root = tmp_path / "data"
    write_wav(root / "a.wav")
    write_wav(tmp_path / "data-private" / "secret.wav")
    secret = tmp_path / "data-private" / "secret.wav"
    (tmp_path / "data-private" / "notes.wav").write_text("not audio")
    rows = [
        "id,path,text",
        "u1,a.wav,kept",
        "u2,../data-private/secret.wav,relative",
        f"u3,{secret},absolute",
        "u4,../data-private/notes.wav,not audio",
    ]
    (root / "manifest.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rep = import_dataset(project, "d", root / "manifest.csv")
    assert rep.imported == 3
    # only files that decode as audio are read
    assert [(p.row, "cannot decode" in p.reason) for p in rep.problems] == [(5, True)]
    stored = project.conn.execute(
        "SELECT items.path, ar.path FROM items LEFT JOIN audio_roots ar ON ar.id = items.root_id"
    ).fetchall()
    assert [tuple(r) for r in stored] == [
        ("a.wav", None),
        ("secret.wav", str(secret.parent)),
        ("secret.wav", str(secret.parent)),
    ]
    assert rep.roots == (str(root.resolve()), str(secret.parent))
