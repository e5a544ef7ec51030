"""Kaldi / ESPnet data directories on fixtures in the published layout."""

import json

import pytest

from fairdesk.cli import main
from fairdesk.core.errors import ImportFailed
from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.store import Project
from tests.conftest import write_wav


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


def _write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def kaldi_dir(root):
    """data/train as a recipe writes it: wav.scp with relative and absolute paths, text,
    utt2spk, spk2utt, spk2gender, spk2age, utt2lang, utt2dur."""
    d = root / "data" / "train"
    for i, (_spk, utt) in enumerate(
        [("spkA", "spkA-001"), ("spkA", "spkA-002"), ("spkB", "spkB-001")]
    ):
        write_wav(d / "wav" / f"{utt}.wav", seconds=0.3, freq=200 + 30 * i)
    _write(
        d / "wav.scp",
        [
            "spkA-001 wav/spkA-001.wav",
            f"spkA-002 {d / 'wav' / 'spkA-002.wav'}",
            "spkB-001 wav/spkB-001.wav",
        ],
    )
    _write(d / "text", ["spkA-001 HELLO WORLD", "spkA-002 Cafe\u0301 OK", "spkB-001 GOOD DAY"])
    _write(d / "utt2spk", ["spkA-001 spkA", "spkA-002 spkA", "spkB-001 spkB"])
    _write(d / "spk2utt", ["spkA spkA-001 spkA-002", "spkB spkB-001"])
    _write(d / "spk2gender", ["spkA f", "spkB m"])
    _write(d / "spk2age", ["spkA 34", "spkB 61"])
    _write(d / "utt2lang", ["spkA-001 en", "spkA-002 fr", "spkB-001 en"])
    _write(d / "utt2dur", ["spkA-001 0.3", "spkA-002 0.3", "spkB-001 0.3"])
    return d


def test_kaldi_imports_items_speakers_and_metadata(project, tmp_path):
    d = kaldi_dir(tmp_path)
    assert detect_format(d) == "kaldi"
    rep = import_dataset(project, "k", d)
    assert rep.format == "kaldi" and rep.imported == 3 and not rep.problems
    items = project.items(project.dataset("k")).set_index("id")
    assert list(items.index) == ["spkA-001", "spkA-002", "spkB-001"]
    assert items.loc["spkA-002", "text"] == "Caf\u00e9 OK"  # NFC
    assert items.loc["spkA-002", "path"] == "wav/spkA-002.wav"  # absolute, inside: relative
    assert dict(items["speaker_id"]) == {"spkA-001": "spkA", "spkA-002": "spkA", "spkB-001": "spkB"}
    assert dict(items["gender"]) == {"spkA-001": "female", "spkA-002": "female", "spkB-001": "male"}
    assert list(items["age"]) == ["34", "34", "61"]
    assert list(items["lang"]) == ["en", "fr", "en"]
    assert "dur" in items.columns
    again = import_dataset(project, "k", d)
    assert (again.unchanged, again.added, again.stale) == (3, 0, 0)
    (d / "wav.scp").write_text("spkA-001 wav/spkA-001.wav\n", encoding="utf-8")
    third = import_dataset(project, "k", d)
    assert third.stale == 2
    assert [(p.row, p.reason) for p in third.problems] == [
        (
            2,
            "spkA-002 has a transcript but no recording in wav.scp; add it there or remove the line",
        ),
        (
            3,
            "spkB-001 has a transcript but no recording in wav.scp; add it there or remove the line",
        ),
    ]


def test_kaldi_meta_option_picks_tables(project, tmp_path):
    d = kaldi_dir(tmp_path)
    import_dataset(project, "k", d, fmt="kaldi", kaldi_meta="spk2gender")
    items = project.items(project.dataset("k"))
    assert {"gender"} <= set(items.columns) and not {"age", "lang", "dur"} & set(items.columns)
    import_dataset(project, "n", d, fmt="kaldi", kaldi_meta="none")
    assert "gender" not in project.items(project.dataset("n")).columns
    with pytest.raises(ImportFailed) as e:
        import_dataset(project, "x", d, fmt="kaldi", kaldi_meta="spk2accent")
    assert str(e.value) == (
        f"{d}: --kaldi-meta names spk2accent, not in the data directory (its spk2*/utt2* "
        "tables: spk2age, spk2gender, utt2dur, utt2lang); name those, 'all' or 'none'"
    )


def test_kaldi_spk2utt_alone_gives_the_speakers(project, tmp_path):
    d = kaldi_dir(tmp_path)
    (d / "utt2spk").unlink()
    import_dataset(project, "k", d)
    items = project.items(project.dataset("k"))
    assert list(items["speaker_id"]) == ["spkA", "spkA", "spkB"]


def test_kaldi_refuses_pipes_archives_and_bad_lines_by_line(project, tmp_path):
    d = kaldi_dir(tmp_path)
    _write(
        d / "wav.scp",
        [
            "spkA-001 wav/spkA-001.wav",
            "spkA-002 sox wav/x.flac -t wav - remix 1 |",
            "spkB-001 raw.ark:1234[0:10]",
            "lonely",
            "spkA-001 wav/spkA-002.wav",
            "extra wav/spkB-001.wav",
        ],
    )
    rep = import_dataset(project, "k", d)
    assert rep.imported == 1
    got = [(p.source.rsplit("/", 1)[-1], p.row, p.reason) for p in rep.problems]
    assert (
        "wav.scp",
        2,
        (
            "spkA-002: the entry 'sox wav/x.flac -t wav - remix 1 |' uses 'remix' (a sox "
            "effect), which changes the audio; fairdesk reads the file itself and cannot apply "
            "it: write the changed audio out as a file and list the file"
        ),
    ) in got
    assert (
        "wav.scp",
        3,
        (
            "spkB-001: the entry 'raw.ark:1234[0:10]' reads a slice [0:10] of an archive "
            "entry; write that part of the audio out and list it"
        ),
    ) in got
    assert ("wav.scp", 4, "wav.scp line has a key but no value: 'lonely'") in got
    assert (
        "wav.scp",
        5,
        (
            "wav.scp lists 'spkA-001' again (first on line 1); the first entry is used: "
            "remove the repeated line"
        ),
    ) in got
    assert (
        "wav.scp",
        6,
        ("extra has no transcript in text; add a line 'extra <words>' or remove the recording"),
    ) in got


def test_kaldi_reads_absolute_paths_outside_and_audio_root(project, tmp_path):
    d = kaldi_dir(tmp_path)
    outside = write_wav(tmp_path / "corpus" / "o.wav", seconds=0.3)
    _write(d / "wav.scp", [f"spkA-001 {outside}"])
    rep = import_dataset(project, "k", d)
    assert rep.imported == 1 and rep.roots[1:] == (str(outside.parent),)
    # --audio-root: the corpus folder holds the audio; relative paths are read from there
    _write(d / "wav.scp", [f"spkA-001 {outside}", "spkB-001 o.wav"])
    rep = import_dataset(project, "k2", d, audio_root=str(tmp_path / "corpus"))
    assert rep.imported == 2 and rep.roots == (str(outside.parent),)


def test_kaldi_cli(project, tmp_path, capsys):
    d = kaldi_dir(tmp_path)
    args = ["import", "--project", str(project.folder), "--name", "k", str(d)]
    code = main([*args, "--format", "kaldi", "--kaldi-meta", "spk2gender,utt2lang", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["imported"] == 3 and out["format"] == "kaldi"
    assert set(project.items(project.dataset("k"))["lang"]) == {"en", "fr"}


def recipe_dir(root):
    """data/train as a recipe's data preparation writes it for a corpus of long recordings:
    wav.scp with paths relative to the recipe folder (db/...), segments, text, utt2spk,
    spk2utt, spk2gender."""
    for i, rec in enumerate(("rec1", "rec2")):
        write_wav(root / "db" / f"{rec}.wav", seconds=2.0, freq=200 + 40 * i)
    d = root / "data" / "train"
    _write(d / "wav.scp", ["rec1 db/rec1.wav", "rec2 db/rec2.wav", "rec3 db/gone.wav"])
    segs = [
        ("rec1-a", "rec1", "0.00", "0.90", "spkA"),
        ("rec1-b", "rec1", "1.00", "1.90", "spkA"),
        ("rec2-a", "rec2", "0.00", "1.00", "spkB"),
        ("rec3-a", "rec3", "0.00", "1.00", "spkB"),
        ("rec3-b", "rec3", "1.00", "2.00", "spkB"),
    ]
    _write(d / "segments", [f"{u} {r} {a} {b}" for u, r, a, b, _s in segs])
    _write(d / "text", [f"{u} WORDS OF {u.upper()}" for u, *_ in segs])
    _write(d / "utt2spk", [f"{u} {s}" for u, *_r, s in segs])
    _write(d / "spk2utt", ["spkA rec1-a rec1-b", "spkB rec2-a rec3-a rec3-b"])
    _write(d / "spk2gender", ["spkA f", "spkB m"])
    return d


def _problems(rep):
    return [(p.source.rsplit("/", 1)[-1], p.row, p.path, p.reason) for p in rep.problems]


def test_kaldi_files_problems_under_wav_scp_and_segments_by_line(project, tmp_path):
    """A wav.scp path that is not there and a span past the end of its recording were filed
    under text (the transcript's line); they belong to the line that lists them."""
    d = recipe_dir(tmp_path)
    _write(
        d / "segments",
        [
            "rec1-a rec1 0.00 0.90",
            "rec1-b rec1 1.00 3.50",  # past the 2 s recording
            "rec2-a rec2 0.00 1.00",
            "rec3-a rec3 0.00 1.00",
            "rec3-b rec3 1.00 2.00",
        ],
    )
    rep = import_dataset(project, "k", d)
    assert rep.imported == 2  # rec1-a, rec2-a
    assert rep.roots[0] == str(tmp_path.resolve())  # db/... read from the recipe folder
    got = _problems(rep)
    assert [g[:3] for g in got] == [
        ("segments", 2, "db/rec1.wav"),
        ("wav.scp", 3, "db/gone.wav"),
    ]
    assert got[0][3] == (
        "the span 1–3.5 s ends after the end of the file (2.000 s); fix the interval's times "
        "or the file it points at"
    )
    # the two segments of the missing recording share its one wav.scp line
    assert got[1][3].startswith("file not found: db/gone.wav was read relative to ")
    assert got[1][3].endswith("(the 2 items that read it are not imported: rec3-a, rec3-b)")
    assert not any(src == "text" for src, *_ in got)


def test_kaldi_without_segments_files_a_missing_file_under_wav_scp(project, tmp_path):
    d = kaldi_dir(tmp_path)
    _write(
        d / "wav.scp",
        ["spkA-001 wav/spkA-001.wav", "spkA-002 wav/nowhere.wav", "spkB-001 wav/spkB-001.wav"],
    )
    (d / "wav" / "spkB-001.wav").write_bytes(b"not audio at all")
    rep = import_dataset(project, "k", d)
    assert rep.imported == 1
    got = _problems(rep)
    assert [g[:3] for g in got] == [
        ("wav.scp", 2, "wav/nowhere.wav"),
        ("wav.scp", 3, "wav/spkB-001.wav"),
    ]
    assert got[0][3].startswith("file not found: wav/nowhere.wav")


def test_kaldi_a_refused_segments_or_wav_scp_line_is_reported_once(project, tmp_path):
    """Each refused segments line was reported twice: on its line, and again as a transcript
    'with no line in segments'."""
    d = recipe_dir(tmp_path)
    _write(
        d / "segments",
        [
            "rec1-a rec1 0.00 0.90",
            "rec1-b rec1",  # malformed
            "rec2-a rec2 zero 1.00",  # not seconds
            "rec3-a recX 0.00 1.00",  # no such recording
            "rec3-b rec2 1.50 1.20",  # empty span
        ],
    )
    _write(d / "wav.scp", ["rec1 db/rec1.wav", "rec2 db/rec2.wav"])
    rep = import_dataset(project, "k", d)
    assert rep.imported == 1
    got = _problems(rep)
    assert [(src, row) for src, row, *_ in got] == [("segments", n) for n in (2, 3, 4, 5)]
    assert got[0][3] == ("rec1-b: a segments line is '<utterance-id> <recording-id> <start> <end>'")
    assert got[1][3] == "rec2-a: start and end must be seconds: ['zero', '1.00']"
    assert got[2][3] == (
        "rec3-a: recording 'recX' is not in wav.scp; add it there or remove the line"
    )
    assert got[3][3].startswith("rec3-b: the span 1.5–1.2 s is empty or negative")
    # without segments: a wav.scp line with no path is said once too
    (d / "segments").unlink()
    _write(d / "wav.scp", ["rec1-a db/rec1.wav", "rec1-b", "rec2-a db/rec2.wav"])
    rep = import_dataset(project, "k2", d)
    got = _problems(rep)
    assert ("wav.scp", 2, None, "wav.scp line has a key but no value: 'rec1-b'") in got
    assert not [g for g in got if g[3].startswith("rec1-b has a transcript")]


@pytest.mark.parametrize(
    ("empty", "says"),
    [
        (
            "wav.scp",
            "wav.scp is empty (no lines); it should hold one line per recording: "
            "'<recording-id> <audio path>'; so no utterance has audio and none is imported "
            "(5 utterances in text)",
        ),
        (
            "text",
            "text is empty (no lines); it should hold one line per utterance: '<utterance-id> "
            "<transcript>'; so no recording has a transcript and none is imported "
            "(3 recordings in wav.scp)",
        ),
        (
            "segments",
            "segments is empty (no lines); it should hold one line per utterance: "
            "'<utterance-id> <recording-id> <start seconds> <end seconds>'; so no utterance "
            "has a span and none is imported (5 utterances in text) (remove segments when "
            "each recording of wav.scp is one whole utterance)",
        ),
        (
            "utt2spk",
            "utt2spk is empty (no lines); it should hold one line per utterance: "
            "'<utterance-id> <speaker-id>'; so no utterance has a speaker and none is "
            "imported (Kaldi needs a speaker for every utterance)",
        ),
    ],
)
def test_an_empty_kaldi_file_is_named_with_what_it_should_hold(project, tmp_path, empty, says):
    """Empty Kaldi files were reported as 'the manifest has a header but no rows'."""
    d = recipe_dir(tmp_path)
    (d / empty).write_text("\n" if empty == "text" else "", encoding="utf-8")
    rep = import_dataset(project, "k", d)
    assert rep.imported == 0
    assert _problems(rep) == [(empty, None, None, says)]


def test_an_empty_kaldi_metadata_table_is_named_and_the_items_kept(project, tmp_path):
    d = recipe_dir(tmp_path)
    (d / "spk2gender").write_text("", encoding="utf-8")
    (d / "wav.scp").write_text("rec1 db/rec1.wav\nrec2 db/rec2.wav\n", encoding="utf-8")
    (d / "segments").write_text("rec1-a rec1 0 0.9\nrec2-a rec2 0 1\n", encoding="utf-8")
    (d / "text").write_text("rec1-a ONE\nrec2-a TWO\n", encoding="utf-8")
    rep = import_dataset(project, "k", d)
    assert rep.imported == 2
    assert _problems(rep) == [
        (
            "spk2gender",
            None,
            None,
            "spk2gender is empty (no lines); it should hold one line per speaker: "
            "'<speaker-id> <gender>'; the items are imported without gender",
        )
    ]
    assert "gender" not in project.items(project.dataset("k")).columns
