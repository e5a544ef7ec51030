"""The dataset readers on their own (no audio decoded): every field of every candidate and
problem, and the messages of the layouts they refuse."""

import pytest

from fairdesk.core import importers as imp
from fairdesk.core import importers_formats as formats
from fairdesk.core.errors import ImportFailed
from fairdesk.core.import_rows import Candidate, Problem, read_text


def test_librispeech_reader_fields_speakers_and_bad_lines(tmp_path):
    root = tmp_path / "LibriSpeech" / "test-clean"
    (root / "84" / "121").mkdir(parents=True)
    (root / "84" / "121" / "84-121.trans.txt").write_text(
        "84-121-0000 GO DO YOU HEAR\n\n84-121-0001 NO\n"
    )
    # SPEAKERS.TXT one level up (the corpus layout), with a comment, an indented comment,
    # a blank line, a line with too few fields and a lower-case sex
    sp = tmp_path / "LibriSpeech" / "SPEAKERS.TXT"
    sp.write_text(
        "; comment\n   ; indented comment\n\n84 | f | test-clean | 25 | C\n"
        "99 | M\n7 | X | dev-clean | 3 | Z\n"
    )
    got_root, cands, problems = formats.read_librispeech(root)
    assert got_root == root
    tf = str(root / "84" / "121" / "84-121.trans.txt")
    assert cands == [
        Candidate(
            row=1,
            source=tf,
            key="84-121-0000",
            path=str(root / "84" / "121" / "84-121-0000.flac"),
            text="GO DO YOU HEAR",
            speaker_id="84",
            metadata={"gender": "f", "subset": "test-clean"},
        ),
        Candidate(
            row=3,
            source=tf,
            key="84-121-0001",
            path=str(root / "84" / "121" / "84-121-0001.flac"),
            text="NO",
            speaker_id="84",
            metadata={"gender": "f", "subset": "test-clean"},
        ),
    ]
    assert problems == [
        Problem(5, None, "SPEAKERS.TXT line is not 'ID | SEX | SUBSET | MINUTES | NAME'", str(sp))
    ]
    # the reader keeps the sex as written; the import's label vocabulary maps it
    _, cands, _ = formats.READERS["librispeech"](root)
    assert cands[0].metadata == {"gender": "female", "gender_raw": "f", "subset": "test-clean"}
    # SPEAKERS.TXT in the folder itself wins; an unknown sex is kept as written
    (root / "SPEAKERS.TXT").write_text("84 | X | other | 1 | A\n")
    _, cands, problems = formats.read_librispeech(root)
    assert cands[0].metadata == {"gender": "X", "subset": "other"} and problems == []
    # exactly three fields is enough
    (root / "SPEAKERS.TXT").write_text("84 | M | train\n")
    _, cands, problems = formats.read_librispeech(root)
    assert cands[0].metadata == {"gender": "M", "subset": "train"} and problems == []
    # a speaker SPEAKERS.TXT does not list is imported without gender, and reported
    (root / "SPEAKERS.TXT").write_text("7 | M | train\n")
    _, cands, problems = formats.read_librispeech(root)
    assert [c.metadata for c in cands] == [{}, {}]
    assert problems == [
        Problem(
            None,
            str(root / "84"),
            "speaker 84 is not in SPEAKERS.TXT: imported without gender and subset; add a line "
            "'84 | F or M | subset | minutes | name' to it",
            str(root / "SPEAKERS.TXT"),
        )
    ]


def test_librispeech_reader_refuses_a_folder_without_transcripts(tmp_path):
    with pytest.raises(ImportFailed) as e:
        formats.read_librispeech(tmp_path)
    assert str(e.value) == f"{tmp_path}: no *.trans.txt files (LibriSpeech layout)"


def _cv(root, name="validated.tsv"):
    (root / "clips").mkdir(parents=True, exist_ok=True)
    (root / name).write_text(
        "client_id\tpath\tsentence_id\tsentence\tup_votes\tdown_votes\taccent\tsegment"
        '\nc1\ta.mp3\ts1\tHe said "hi"\t2\t0\tscottish\t\n'
        "c2\tb.mp3\ts2\tplain\t1\t1\t\t\n",
        encoding="utf-8",
    )


def test_commonvoice_reader_fields(tmp_path):
    root = tmp_path / "cv"
    _cv(root)
    _cv(root, "train.tsv")
    got_root, cands, problems = formats.read_commonvoice(root)
    assert got_root == root and problems == []
    src = str(root / "validated.tsv")  # validated.tsv wins over the splits
    assert cands == [
        Candidate(
            row=2,
            source=src,
            key="a",
            path=str(root / "clips" / "a.mp3"),
            text='He said "hi"',
            speaker_id="c1",
            content_id="s1",
            metadata={"accents": "scottish"},
        ),
        Candidate(
            row=3,
            source=src,
            key="b",
            path=str(root / "clips" / "b.mp3"),
            text="plain",
            speaker_id="c2",
            content_id="s2",
            metadata={},
        ),
    ]
    # a named split, with or without .tsv; both 'accent' and 'accents': both kept as they are
    (root / "dev.tsv").write_text(
        "client_id\tpath\tsentence\taccent\taccents\n"
        "c1\ta.mp3\thi\tscottish\tscots\n"
        "c2\tb.mp3\tho\t\t\n",
        encoding="utf-8",
    )
    for split in ("dev", "dev.tsv"):
        _, cands, _ = formats.read_commonvoice(root, split=split)
        assert [c.source for c in cands] == [str(root / "dev.tsv")] * 2
        assert cands[0].metadata == {"accent": "scottish", "accents": "scots"}


def test_commonvoice_reader_splits_and_refusals(tmp_path):
    root = tmp_path / "cv"
    _cv(root, "train.tsv")
    _cv(root, "test.tsv")
    _, cands, _ = formats.read_commonvoice(root)  # no validated.tsv: train, dev, test in order
    assert [c.source for c in cands] == [str(root / "train.tsv")] * 2 + [str(root / "test.tsv")] * 2
    with pytest.raises(ImportFailed) as e:
        formats.read_commonvoice(root, split="other")
    assert str(e.value) == (
        f"{root / 'other.tsv'}: not found; Common Voice splits here: test.tsv, train.tsv"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ImportFailed) as e:
        formats.read_commonvoice(empty)
    assert str(e.value) == (
        f"{empty}: no validated.tsv, train.tsv, dev.tsv or test.tsv (Common Voice layout)"
    )
    # without sentence_id there is no content id
    (root / "validated.tsv").write_text("client_id\tpath\tsentence\nc1\tx.mp3\thi\n")
    _, cands, _ = formats.read_commonvoice(root)
    assert cands[0].content_id is None and cands[0].key == "x"


def test_audiofolder_reader_fields_and_splits(tmp_path):
    root = tmp_path / "af"
    (root / "train").mkdir(parents=True)
    (root / "metadata.csv").write_text("file_name,transcription,speaker\na.wav,hello,s1\n")
    (root / "train" / "metadata.jsonl").write_text(
        '{"file_name": "b.wav", "transcription": "bye", "split": "mine"}\n'
    )
    got_root, cands, problems = formats.read_audiofolder(root)
    assert got_root == root and problems == []
    assert cands == [
        Candidate(
            row=2,
            source=str(root / "metadata.csv"),
            key=None,
            path=str(root / "a.wav"),
            text="hello",
            speaker_id="s1",
            metadata={},
        ),
        Candidate(
            row=1,
            source=str(root / "train" / "metadata.jsonl"),
            key=None,
            path=str(root / "train" / "b.wav"),
            text="bye",
            metadata={"split": "mine"},
        ),  # a split column of the rows is kept
    ]
    (root / "train" / "metadata.jsonl").write_text('{"file_name": "b.wav", "text": "x"}\n')
    _, cands, _ = formats.read_audiofolder(root)
    assert cands[1].metadata == {"split": "train"}
    with pytest.raises(ImportFailed) as e:
        formats.read_audiofolder(tmp_path / "af" / "train" / "...")
    assert "no metadata.csv or metadata.jsonl (audiofolder layout)" in str(e.value)


def test_manifest_columns_by_name_case_and_refusals(tmp_path):
    m = tmp_path / "m.csv"
    m.write_text(
        "ID,Audio_Path , Transcript,Speaker,Text_ID,extra,empty\nk1,/abs/a.wav,hi,s1,c1, x ,\n"
    )
    root, cands, problems = formats.read_manifest(m)
    assert root == tmp_path and problems == []
    assert cands == [
        Candidate(
            row=2,
            source=str(m),
            key="k1",
            path="/abs/a.wav",
            text="hi",
            speaker_id="s1",
            content_id="c1",
            metadata={"extra": "x"},
        )
    ]
    with pytest.raises(ImportFailed) as e:
        formats.read_manifest(m, audio_col="nope")
    assert str(e.value) == (
        f"{m}: no column 'nope' for the audio path (columns: ID, "
        "Audio_Path, Transcript, Speaker, Text_ID, extra, empty)"
    )
    m.write_text("wav,label\na.wav,happy\n")  # a classification manifest: no transcript
    _, cands, _ = formats.read_manifest(m)
    assert cands[0].text == "" and not cands[0].needs_text
    assert cands[0].metadata == {"label": "happy"}
    m.write_text("wav,other\na.wav,x\n")
    with pytest.raises(ImportFailed) as e:
        formats.read_manifest(m)
    assert str(e.value) == (
        f"{m}: no transcript column found (looked for text, transcript, transcription, "
        "sentence, reference, normalized_text, ref); name it with --text-col (a "
        "classification dataset needs a 'label' column instead)"
    )
    m.write_text("name,text\na.wav,x\n")
    with pytest.raises(ImportFailed) as e:
        formats.read_manifest(m)
    assert str(e.value) == (
        f"{m}: no audio-path column found (looked for path, audio, audio_path, file, file_name, "
        "filename, wav, audio_file, audio_filepath); name it with --audio-col"
    )
    m.write_bytes(b"\xff\xfe\x00")  # not decodable as any accepted encoding
    with pytest.raises(ImportFailed):
        read_text(m)


def test_content_id_from_the_normalised_reference():
    a = imp.derive_content_id("Hello, WORLD!")
    assert a == imp.derive_content_id("  hello   world ") and a.startswith("t:")
    assert len(a) == 14 and a != imp.derive_content_id("hello word")
    assert imp.derive_content_id("àkwà") != imp.derive_content_id("akwa")  # marks kept
    assert imp.derive_content_id(None) == imp.derive_content_id("")


@pytest.mark.parametrize(
    "option, what",
    [
        ("text_col", "transcript"),
        ("speaker_col", "speaker id"),
        ("content_col", "content id"),
        ("id_col", "item id"),
    ],
)
def test_a_named_column_that_is_missing_is_named(tmp_path, option, what):
    m = tmp_path / "m.csv"
    m.write_text("path,text\na.wav,hi\n")
    with pytest.raises(ImportFailed) as e:
        formats.read_manifest(m, **{option: "nope"})
    assert str(e.value) == f"{m}: no column 'nope' for the {what} (columns: path, text)"


def test_manifest_cells_become_candidates_as_they_are(tmp_path):
    m = tmp_path / "m.jsonl"
    m.write_text(
        '{"path": "/abs/a.wav", "text": 5, "speaker": 7, "content_id": 3, "id": 9}\n'
        '{"path": null, "text": null}\n'
        '{"path": "  sub/b.wav ", "text": "x"}\n',
        encoding="utf-8",
    )
    root, cands, problems = formats.read_manifest(m)
    assert problems == [] and root == tmp_path
    a, b, c = cands
    assert (a.path, a.text, a.speaker_id, a.content_id, a.key) == ("/abs/a.wav", "5", "7", "3", "9")
    assert (b.path, b.text, b.key, b.speaker_id) == ("", None, None, None)
    assert (c.path, c.source, c.row) == (str(tmp_path / "sub/b.wav"), str(m), 3)


def test_table_problems_carry_the_file(tmp_path):
    m = tmp_path / "m.csv"
    m.write_text('path,text\n"a.wav,hi\n')
    _, cands, problems = formats.read_manifest(m)
    assert cands == [] and [(p.row, p.path, p.source) for p in problems] == [(2, None, str(m))]
    (tmp_path / "e.csv").write_text("")
    with pytest.raises(ImportFailed) as e:
        formats.read_manifest(tmp_path / "e.csv")
    assert str(e.value) == f"{tmp_path / 'e.csv'}: the file is empty; it needs a header row"
