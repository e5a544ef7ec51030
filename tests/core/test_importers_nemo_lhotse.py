"""NeMo and Lhotse manifests on fixtures in the published layouts."""

import gzip
import json

import pytest

from fairdesk.core.errors import ImportFailed
from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.store import Project
from tests.conftest import write_wav


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


def _jsonl(path, records, gz=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if gz:
        path.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        path.write_text(text, encoding="utf-8")
    return path


def nemo_tree(root):
    """train_manifest.json as NeMo's scripts write it: paths relative and absolute."""
    write_wav(root / "audio" / "a.wav", seconds=0.5, freq=200)
    write_wav(root / "audio" / "b.wav", seconds=0.5, freq=260)
    write_wav(root / "audio" / "c.wav", seconds=1.0, freq=320)
    return _jsonl(
        root / "train_manifest.json",
        [
            {
                "audio_filepath": "audio/a.wav",
                "text": "hello there",
                "duration": 0.5,
                "speaker": "s1",
                "lang": "en",
            },
            {
                "audio_filepath": str(root / "audio" / "b.wav"),
                "text": "Cafe\u0301",
                "duration": 0.5,
                "speaker": "s2",
                "lang": "fr",
                "offset": 0,
            },
            {"audio_filepath": "audio/c.wav", "text": "late start", "duration": 0.4, "offset": 0.5},
            {"audio_filepath": "audio/c.wav", "text": "first part", "duration": 0.4},
        ],
    )


def test_nemo_imports_whole_files_and_spans(project, tmp_path):
    man = nemo_tree(tmp_path / "nemo")
    assert detect_format(man) == "nemo"
    rep = import_dataset(project, "n", man)
    assert rep.format == "nemo" and rep.imported == 4 and rep.problems == ()
    items = project.items(project.dataset("n")).set_index("id")
    late, first = "audio/c.wav#0.500-0.900", "audio/c.wav#0.000-0.400"
    assert list(items.index) == ["audio/a.wav", "audio/b.wav", late, first]
    assert items.loc["audio/a.wav", "start_s"] is None
    assert (items.loc[late, "start_s"], items.loc[late, "end_s"]) == (0.5, 0.9)
    assert (items.loc[first, "start_s"], items.loc[first, "end_s"]) == (0.0, 0.4)
    assert items.loc[late, "duration"] == pytest.approx(0.4)
    assert items.loc[late, "audio_hash"] != items.loc[first, "audio_hash"]
    items = items.loc[["audio/a.wav", "audio/b.wav"]]
    assert list(items["speaker_id"]) == ["s1", "s2"] and list(items["lang"]) == ["en", "fr"]
    assert items.loc["audio/b.wav", "text"] == "Caf\u00e9"
    assert "offset" not in items.columns
    assert import_dataset(project, "n", man).unchanged == 4


def test_nemo_json_errors_name_the_line_and_the_column_in_it(project, tmp_path):
    """A record cut short at column 138 was said to fail at column 1 (the parser counts the
    line's end as the start of a next line): the column is the one in the line."""
    man = nemo_tree(tmp_path / "nemo")
    good = man.read_text(encoding="utf-8").splitlines()
    head = '{"audio_filepath": "audio/a.wav", "duration": 0.5, "text": "'
    text = "a transcript long enough to run past the hundredth column of the line"
    cut = head + text.ljust(137 - len(head) - 1) + '"'  # no closing brace
    assert len(cut) == 137
    typo = '{"audio_filepath": "audio/b.wav",, "duration": 0.5, "text": "x"}'
    broken = head + "a line break\ninside the text" + '"}'  # one record over two lines
    man.write_text("\n".join([good[0], cut, typo, broken, good[3]]) + "\n", encoding="utf-8")
    rep = import_dataset(project, "n", man, fmt="nemo")
    assert rep.imported == 2
    ends = ", where the line ends: the record is cut short or broken over lines); write each "
    ends += "record whole on one line"
    assert [(p.row, p.reason) for p in rep.problems] == [
        (2, "not valid JSON (Expecting ',' delimiter at column 138" + ends),
        (
            3,
            f"not valid JSON (Expecting property name enclosed in double quotes at column "
            f"{typo.index(',,') + 2})",
        ),
        (4, f"not valid JSON (Invalid control character at column {len(head) + 13}" + ends),
        (5, "not valid JSON (Expecting value at column 1)"),
    ]


def test_an_option_the_format_does_not_take_is_refused(project, tmp_path):
    man = nemo_tree(tmp_path / "nemo")
    with pytest.raises(ImportFailed) as e:
        import_dataset(project, "n", man, split="test")
    assert str(e.value) == (
        "the nemo format takes no --split (it applies to commonvoice); leave it out"
    )
    with pytest.raises(ImportFailed, match="expects a file, not a folder"):
        import_dataset(project, "n", man.parent, fmt="nemo")


def lhotse_tree(root, gz=True):
    """RecordingSet + SupervisionSet per split, as lhotse's to_file writes them."""
    for name, sec, f in (("r1", 0.5, 200), ("r2", 0.5, 240), ("r3", 1.0, 280)):
        write_wav(root / "wavs" / f"{name}.wav", seconds=sec, freq=f)
    ext = ".jsonl.gz" if gz else ".jsonl"

    def rec(rid, sec, kind="file", n=1):
        src = {"type": kind, "channels": [0], "source": f"wavs/{rid}.wav"}
        return {
            "id": rid,
            "sources": [src] * n,
            "sampling_rate": 16000,
            "num_samples": int(sec * 16000),
            "duration": sec,
            "channel_ids": [0],
        }

    _jsonl(
        root / f"corpus_recordings_dev{ext}",
        [
            rec("r1", 0.5),
            rec("r2", 0.5),
            rec("r3", 1.0),
            rec("r4", 1.0, kind="url"),
            rec("r5", 1.0, n=2),
        ],
        gz,
    )
    sup = {"channel": 0, "start": 0.0, "language": "English"}
    _jsonl(
        root / f"corpus_supervisions_dev{ext}",
        [
            {
                **sup,
                "id": "u1",
                "recording_id": "r1",
                "duration": 0.5,
                "text": "one",
                "speaker": "A",
                "gender": "F",
                "custom": {"accent": "Scottish", "age": 30},
            },
            {
                **sup,
                "id": "u2",
                "recording_id": "r2",
                "duration": 0.5,
                "text": "two",
                "speaker": "B",
            },
            {
                **sup,
                "id": "u3",
                "recording_id": "r3",
                "duration": 0.4,
                "text": "part",
                "speaker": "B",
                "start": 0.3,
            },
            {**sup, "id": "u4", "recording_id": "r4", "duration": 1.0, "text": "url"},
            {**sup, "id": "u9", "recording_id": "nope", "duration": 1.0, "text": "x"},
        ],
        gz,
    )
    return root


@pytest.mark.parametrize("gz", [True, False])
def test_lhotse_imports_whole_recording_supervisions(project, tmp_path, gz):
    root = lhotse_tree(tmp_path / "lh", gz=gz)
    assert detect_format(root) == "lhotse"
    rep = import_dataset(project, "l", root)
    assert rep.format == "lhotse" and rep.imported == 3
    items = project.items(project.dataset("l")).set_index("id")
    assert list(items.index) == ["u1", "u2", "u3"]
    assert (items.loc["u3", "start_s"], items.loc["u3", "end_s"]) == (0.3, 0.7)
    assert items.loc["u1", "start_s"] is None
    assert dict(items["speaker_id"]) == {"u1": "A", "u2": "B", "u3": "B"}
    assert items.loc["u1", "accent"] == "Scottish" and items.loc["u1", "age"] == 30
    assert items.loc["u1", "gender"] == "female" and items.loc["u1", "gender_raw"] == "F"
    assert set(items["split"]) == {"dev"}
    assert set(items["language"]) == {"English"}
    ext = ".jsonl.gz" if gz else ".jsonl"
    got = {(p.source.rsplit("/", 1)[-1], p.row): p.reason for p in rep.problems}
    assert got == {
        (f"corpus_recordings_dev{ext}", 4): (
            "recording r4 is read from a url source, not a file; fairdesk reads audio files "
            "only: write the audio out (Recording.to_file) and list it"
        ),
        (f"corpus_recordings_dev{ext}", 5): (
            "recording r5 has 2 sources (one file per channel); fairdesk imports one audio "
            "file per recording: mix them into one file"
        ),
        (f"corpus_supervisions_dev{ext}", 5): (
            f"supervision u9 names recording nope, which corpus_recordings_dev{ext} does not "
            "list; add the recording or remove the supervision"
        ),
    }


def test_lhotse_bad_gzip_and_missing_pair(project, tmp_path):
    root = tmp_path / "lh"
    root.mkdir()
    (root / "x_recordings.jsonl.gz").write_bytes(b"not gzip")
    (root / "x_supervisions.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(ImportFailed, match="not a readable gzip file"):
        import_dataset(project, "l", root, fmt="lhotse")
    (root / "x_recordings.jsonl.gz").unlink()
    with pytest.raises(ImportFailed, match=r"no \*recordings\*"):
        import_dataset(project, "l", root, fmt="lhotse")
