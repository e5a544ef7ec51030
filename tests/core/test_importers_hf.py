"""Hugging Face Parquet with embedded FLAC bytes and save_to_disk folders (Arrow streams)."""

import hashlib
import io
import json

import pytest
import soundfile as sf

from fairdesk.core.errors import ImportFailed
from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.importers_hf import media_folder
from fairdesk.core.store import Project
from tests.conftest import tone

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

AUDIO = pa.struct([("bytes", pa.binary()), ("path", pa.string())])


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


def flac(freq, seconds=0.3):
    buf = io.BytesIO()
    sf.write(buf, tone(seconds, 16000, freq), 16000, format="FLAC")
    return buf.getvalue()


def table(rows):
    """Columns as the Hub's Common Voice/FLEURS Parquet: audio struct, sentence, speaker..."""
    return pa.table(
        {
            "audio": pa.array([{"bytes": b, "path": p} for b, p, *_ in rows], type=AUDIO),
            "sentence": [r[2] for r in rows],
            "client_id": [r[3] for r in rows],
            "accent": [r[4] for r in rows],
            "age": pa.array([r[5] for r in rows], type=pa.int64()),
        }
    )


ROWS = [
    (flac(200), "cv_1.mp3", "Hello there", "spk1", "Scottish", 30),
    (flac(250), "cv_2.mp3", "Cafe\u0301 time", "spk2", "Irish", None),
    (None, "elsewhere/cv_3.mp3", "no bytes", "spk2", "Irish", 41),
]


def hub_snapshot(root, rows=ROWS):
    (root / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(table(rows), root / "data" / "test-00000-of-00001.parquet")
    return root


def test_hf_parquet_extracts_bytes_once_and_imports(project, tmp_path):
    root = hub_snapshot(tmp_path / "hub")
    f = root / "data" / "test-00000-of-00001.parquet"
    assert detect_format(f) == "hf" and detect_format(root) == "hf"
    rep = import_dataset(project, "cv", root)
    assert rep.format == "hf" and rep.imported == 2
    # a struct holding only a path is read from that file (here: none there, so refused;
    # the reason is the import's path check: tests/core/test_importers_hf_paths.py reads one)
    assert [(p.row, p.path) for p in rep.problems] == [
        (3, str(root / "data" / "elsewhere" / "cv_3.mp3"))
    ]
    items = project.items(project.dataset("cv")).set_index("id")
    assert list(items.index) == ["test/cv_1.mp3", "test/cv_2.mp3"]
    assert list(items["speaker_id"]) == ["spk1", "spk2"]
    assert items.loc["test/cv_2.mp3", "text"] == "Caf\u00e9 time"
    assert items.loc["test/cv_1.mp3", "accent"] == "Scottish"
    assert items.loc["test/cv_1.mp3", "age"] == 30 and set(items["split"]) == {"test"}
    media = media_folder(project.folder, "cv")
    assert project.dataset("cv").root == media.resolve()
    # the file is named by the SHA-256 of its bytes; FLAC sniffed despite the .mp3 name
    digest = hashlib.sha256(ROWS[0][0]).hexdigest()[:24]
    assert items.loc["test/cv_1.mp3", "path"] == f"{digest}.flac"
    assert sorted(p.name for p in media.iterdir()) == sorted(
        [f"{digest}.flac", f"{hashlib.sha256(ROWS[1][0]).hexdigest()[:24]}.flac"]
    )
    again = import_dataset(project, "cv", root)
    assert (again.unchanged, again.updated) == (2, 0)
    # new bytes for row 2: a new file, the item updated
    changed = [ROWS[0], (flac(400), *ROWS[1][1:])]
    hub_snapshot(root, changed)
    third = import_dataset(project, "cv", root)
    assert (third.unchanged, third.updated) == (1, 1)
    assert len(list(media.iterdir())) == 3


def test_hf_columns_named_and_missing(project, tmp_path):
    f = tmp_path / "x.parquet"
    pq.write_table(
        pa.table(
            {
                "clip": pa.array([{"bytes": flac(300), "path": None}], type=AUDIO),
                "words": ["hi"],
                "who": ["w1"],
            }
        ),
        f,
    )
    rep = import_dataset(project, "x", f, fmt="hf", text_col="words", speaker_col="who")
    items = project.items(project.dataset("x"))
    assert (
        rep.imported == 1 and list(items["id"]) == ["x:1"] and list(items["speaker_id"]) == ["w1"]
    )
    with pytest.raises(ImportFailed) as e:
        import_dataset(project, "y", f, fmt="hf", audio_col="words")
    assert str(e.value) == (
        f"{f}: column 'words' is not an audio struct {{bytes, path}} (columns: clip, words, "
        "who); name it with --audio-col, or import a table of paths with --format manifest"
    )
    plain = tmp_path / "paths.parquet"
    pq.write_table(pa.table({"path": ["a.wav"], "text": ["hi"]}), plain)
    assert detect_format(plain) == "manifest"


def save_to_disk(folder, rows, split):
    """The layout datasets.Dataset.save_to_disk writes: an Arrow stream, state.json,
    dataset_info.json."""
    folder.mkdir(parents=True, exist_ok=True)
    t = table(rows)
    with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink:
        with pa.ipc.new_stream(sink, t.schema) as w:
            w.write_table(t, max_chunksize=1)
    (folder / "state.json").write_text(
        json.dumps(
            {
                "_data_files": [{"filename": "data-00000-of-00001.arrow"}],
                "_fingerprint": "abc",
                "_format_type": None,
                "_split": split,
            }
        )
    )
    (folder / "dataset_info.json").write_text(json.dumps({"features": {}}))


def test_hf_save_to_disk_dataset_dict(project, tmp_path):
    root = tmp_path / "saved"
    save_to_disk(root / "train", ROWS[:1], None)
    save_to_disk(root / "test", ROWS[1:2], None)
    (root / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    assert detect_format(root) == "hf"
    rep = import_dataset(project, "d", root)
    assert rep.imported == 2 and not rep.problems
    items = project.items(project.dataset("d")).set_index("id")
    assert dict(items["split"]) == {"train/cv_1.mp3": "train", "test/cv_2.mp3": "test"}
    single = tmp_path / "one"
    save_to_disk(single, ROWS[:2], "validation")
    assert detect_format(single) == "hf"
    rep = import_dataset(project, "one", single)
    assert rep.imported == 2
    assert set(project.items(project.dataset("one"))["split"]) == {"validation"}
    (single / "data-00000-of-00001.arrow").write_bytes(b"garbage")
    with pytest.raises(ImportFailed, match="not a readable Arrow stream"):
        import_dataset(project, "bad", single)


def test_hf_wav_bytes_a_few_samples_short_of_their_header_say_how_many(project, tmp_path):
    """Embedded WAV bytes three samples short of their header warned "2.58 s on disk, the
    header says 2.58 s"; the warning counts samples, so the two numbers differ."""
    buf = io.BytesIO()
    sf.write(buf, tone(2.58, 16000, 300), 16000, format="WAV", subtype="PCM_16")
    short = buf.getvalue()[:-6]  # three 16-bit samples
    root = hub_snapshot(tmp_path / "hub", [(short, "cv_1.wav", "Hello there", "s1", "Irish", 30)])
    rep = import_dataset(project, "cv", root)
    assert rep.imported == 1 and not rep.problems
    (w,) = [x["warning"] for x in rep.warnings if "header" in x["warning"]]
    assert "(41,277 samples on disk, the header says 41,280: 3 missing, 0.2 ms)" in w
    assert "2.58 s" not in w
