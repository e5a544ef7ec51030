"""Hugging Face tables whose audio column holds paths (``{'bytes': None, 'path': ...}``),
written by ``datasets`` itself (``cast_column(Audio(decode=False))``, ``to_parquet``,
``save_to_disk``) when it is installed, else as the same Arrow struct with pyarrow."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.spans import load_row
from fairdesk.core.store import Project
from tests.session_fixture import _utterances

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


@pytest.fixture(scope="module")
def speech():
    return [(t, np.round(x * 32767).astype(np.int16)) for t, x in _utterances(3)]


def _corpus(folder, speech):
    """``folder/clips/*.wav`` of real speech and the table's columns."""
    (folder / "clips").mkdir(parents=True)
    cols = {"audio": [], "sentence": [], "client_id": [], "age": [], "gender": []}
    for i, (words, x) in enumerate(speech):
        sf.write(folder / "clips" / f"x{i}.wav", x, 16000, subtype="PCM_16")
        cols["audio"].append(f"clips/x{i}.wav")
        cols["sentence"].append(words)
        cols["client_id"].append(f"c{i % 2}")
        cols["age"].append([21, None, 34][i])
        cols["gender"].append(["female_feminine", "male_masculine", "do_not_wish_to_say"][i])
    return cols


def _check(project, name, speech, copied=False):
    ds = project.dataset(name)
    items = project.items(ds)
    assert list(items["text"]) == [w for w, _x in speech]
    for (_w, x), (_i, row) in zip(speech, items.iterrows()):
        got = load_row(ds.root, row).samples
        assert got.shape == x.shape and np.max(np.abs(got - x / 32768)) < 1e-4
    shown = [None if isinstance(v, float) else v for v in items["gender"]]  # NaN: missing
    assert shown == ["female", "male", None]
    assert list(items["gender_raw"]) == ["female_feminine", "male_masculine", "do_not_wish_to_say"]
    assert list(items["age"]) == [21, None, 34]  # integers beside a gap, never 21.0
    assert len(project.items(ds, {"age": ["21"]})) == 1
    media = project.folder / "media"
    assert (media.exists() and any(media.rglob("*.wav"))) == copied


def test_parquet_with_a_path_struct_reads_the_clips_beside_it(
    project, tmp_path, speech, monkeypatch
):
    folder = tmp_path / "cv-hf"
    cols = _corpus(folder, speech)
    try:
        from datasets import Audio, Dataset
    except ImportError:
        audio = pa.array(
            [{"bytes": None, "path": p} for p in cols["audio"]],
            pa.struct([("bytes", pa.binary()), ("path", pa.string())]),
        )
        table = pa.table({**{k: v for k, v in cols.items() if k != "audio"}, "audio": audio})
        pq.write_table(table, folder / "train-00000-of-00001.parquet")
    else:
        monkeypatch.chdir(folder)
        ds = Dataset.from_dict(cols).cast_column("audio", Audio(decode=False))
        ds.to_parquet(str(folder / "train-00000-of-00001.parquet"))
    f = folder / "train-00000-of-00001.parquet"
    assert pq.read_table(f).column("audio").to_pylist()[0] == {
        "bytes": None,
        "path": "clips/x0.wav",
    }
    assert detect_format(f) == "hf"
    rep = import_dataset(project, "t", f)
    assert rep.format == "hf" and rep.imported == 3 and not rep.problems
    _check(project, "t", speech)


def test_save_to_disk_of_a_path_column_embeds_the_clips(project, tmp_path, speech, monkeypatch):
    """datasets 5's save_to_disk embeds local files into the Arrow shards (the struct holds
    their bytes): the same items, extracted into the project."""
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "corpus"
    cols = _corpus(folder, speech)
    monkeypatch.chdir(folder)
    ds = datasets.Dataset.from_dict(cols).cast_column("audio", datasets.Audio(decode=False))
    ds.save_to_disk(str(folder / "hf_disk"))
    assert detect_format(folder / "hf_disk") == "hf"
    rep = import_dataset(project, "d", folder / "hf_disk")
    assert rep.imported == 3 and not rep.problems
    _check(project, "d", speech, copied=True)


def test_a_row_without_bytes_or_path_is_named(project, tmp_path, speech):
    folder = tmp_path / "t"
    cols = _corpus(folder, speech)
    audio = pa.array(
        [{"bytes": None, "path": cols["audio"][0]}, None, {"bytes": None, "path": None}],
        pa.struct([("bytes", pa.binary()), ("path", pa.string())]),
    )
    pq.write_table(pa.table({"audio": audio, "sentence": cols["sentence"]}), folder / "t.parquet")
    rep = import_dataset(project, "t", folder / "t.parquet", fmt="hf")
    assert rep.imported == 1
    # audio = null was said to be "only a path to a file elsewhere"
    assert [(p.row, p.reason) for p in rep.problems] == [
        (
            2,
            "the audio is missing in this row: the audio column 'audio' is null; give the row "
            "its audio or remove it",
        ),
        (
            3,
            "the audio is missing in this row: the audio column 'audio' holds neither bytes nor "
            "a path; give the row its audio or remove it",
        ),
    ]
