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
