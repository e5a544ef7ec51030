"""Hostile manifests and audio at import: every bad row named, the good rows imported,
nothing else in the project touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.conftest import write_wav

from .conftest import BASE_ITEMS, changed, counts, dump

IMPORT_TABLES = {"datasets", "items", "item_status", "import_problems", "audio_roots"}


def _import(cli, proj, manifest, name="new", *extra):
    return cli("import", "--project", proj, "--name", name, manifest, "--json", *extra)


def _wavs(root, n, prefix="w"):
    for i in range(n):
        write_wav(root / f"{prefix}{i}.wav", seconds=0.3, freq=300 + 30 * i)


def _new_rows_only(before, after, proj, n_new):
    """Only the import's own tables changed, by the new dataset's rows."""
    assert changed(before, after) <= IMPORT_TABLES
    c0, c1 = ({t: len(r) for t, r in d.items()} for d in (before, after))
    assert c1["items"] - c0["items"] == n_new
    assert c1.get("datasets", 0) - c0["datasets"] == (1 if n_new else 0)
    for t in ("runs", "results", "predictions", "annotations", "recordings"):
        assert c1[t] == c0[t]
    # The base dataset's rows are untouched.
    keep = [r for r in after["items"] if r in before["items"]]
    assert len(keep) == BASE_ITEMS


def test_commonvoice_quote_in_sentence_is_text(cli, base):
    proj, _ = base
    cv = base[1] / "cv"
    (cv / "clips").mkdir(parents=True)
    rows = ["client_id\tpath\tsentence\tup_votes\tdown_votes\tage\tgender\taccents"]
    for i in range(4):
        write_wav(cv / "clips" / f"c{i}.wav", seconds=0.3, freq=300 + 40 * i)
        s = 'He said "stop' if i == 1 else f"sentence {i}"
        rows.append(f"spk{i}\tc{i}.wav\t{s}\t2\t0\t\t\t")
    (cv / "validated.tsv").write_text("\n".join(rows) + "\n")
    before = dump(proj)
    code, out, _ = _import(cli, proj, cv, "cv", "--format", "commonvoice")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 4 and rep["problems"] == []
    _new_rows_only(before, dump(proj), proj, 4)
    code, out, _ = cli("items", "--project", proj, "--dataset", "cv", "--json")
    texts = {r["id"]: r["text"] for r in json.loads(out)}
    assert texts["c1"] == 'He said "stop' and texts["c2"] == "sentence 2"  # nothing swallowed


def test_csv_unclosed_quote_is_reported_and_swallows_no_rows(cli, base):
    proj, data = base
    _wavs(data, 4)
    (data / "q.csv").write_text(
        'path,text\nw0.wav,fine\nw1.wav,"never closed\nw2.wav,two\nw3.wav,three\n'
    )
    before = dump(proj)
    code, out, _ = _import(cli, proj, data / "q.csv")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 3 and len(rep["problems"]) == 1
    pr = rep["problems"][0]
    assert pr["row"] == 3 and pr["source"].endswith("q.csv")
    assert "never closed" in pr["reason"] and "close the quote" in pr["reason"]
    _new_rows_only(before, dump(proj), proj, 3)


def test_latin1_header_refuses_the_file_naming_line_and_column(cli, base, capsys):
    proj, data = base
    _wavs(data, 2)
    (data / "l.csv").write_bytes(b"path,text,r\xe9gion\nw0.wav,a,x\nw1.wav,b,y\n")
    before = dump(proj)
    code, out, err = cli("import", "--project", proj, "--name", "lat", data / "l.csv")
    assert code == 1
    assert "l.csv" in err and "line 1" in err and "column 3" in err and "0xe9" in err
    assert "re-save the file as UTF-8" in err
    assert dump(proj) == before


@pytest.mark.parametrize("col", ["id", "speaker_id"])
def test_latin1_in_id_or_speaker_column_refuses_that_row(cli, base, col):
    proj, data = base
    _wavs(data, 3)
    body = [
        b"id,path,text,speaker_id",
        b"a,w0.wav,one,s1",
        b"b,w1.wav,two,s2",
        b"c,w2.wav,three,s3",
    ]
    body[2] = b"b\xe9,w1.wav,two,s2" if col == "id" else b"b,w1.wav,two,s\xe92"
    (data / "l.csv").write_bytes(b"\n".join(body) + b"\n")
    before = dump(proj)
    code, out, _ = _import(cli, proj, data / "l.csv")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 2 and len(rep["problems"]) == 1
    pr = rep["problems"][0]
    assert pr["row"] == 3 and f"column {col!r}" in pr["reason"] and "0xe9" in pr["reason"]
    assert "UTF-8" in pr["reason"]
    _new_rows_only(before, dump(proj), proj, 2)


def test_jsonl_lone_surrogate_refuses_that_row(cli, base):
    proj, data = base
    _wavs(data, 3)
    lines = [
        '{"path": "w0.wav", "text": "one"}',
        '{"path": "w1.wav", "text": "bad \\ud800"}',
        '{"path": "w2.wav", "text": "three", "speaker_id": "s\\udfff"}',
    ]
    (data / "m.jsonl").write_text("\n".join(lines) + "\n")
    before = dump(proj)
    code, out, _ = _import(cli, proj, data / "m.jsonl")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 1
    assert [p["row"] for p in rep["problems"]] == [2, 3]
    assert "column 'text'" in rep["problems"][0]["reason"]
    assert "column 'speaker_id'" in rep["problems"][1]["reason"]
    assert all("lone surrogate" in p["reason"] for p in rep["problems"])
    _new_rows_only(before, dump(proj), proj, 1)


def test_field_over_128_kib_is_reported_at_its_line(cli, base):
    proj, data = base
    _wavs(data, 3)
    huge = "x" * (129 * 1024)
    (data / "h.csv").write_text(f"path,text\nw0.wav,one\nw1.wav,{huge}\nw2.wav,three\n")
    before = dump(proj)
    code, out, _ = _import(cli, proj, data / "h.csv")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 2 and len(rep["problems"]) == 1
    assert rep["problems"][0]["row"] == 3 and "128 KiB" in rep["problems"][0]["reason"]
    _new_rows_only(before, dump(proj), proj, 2)


def test_path_of_5000_characters_is_a_row_problem(cli, base):
    proj, data = base
    _wavs(data, 2)
    long = "/".join(["d" * 200] * 25) + ".wav"
    assert len(long) > 5000
    (data / "p.csv").write_text(f"path,text\nw0.wav,one\n{long},two\nw1.wav,three\n")
    before = dump(proj)
    code, out, _ = _import(cli, proj, data / "p.csv")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 2 and len(rep["problems"]) == 1
    pr = rep["problems"][0]
    assert (
        pr["row"] == 3
        and ("cannot be opened" in pr["reason"] or "not found" in pr["reason"])
        and "check the path" in pr["reason"]
    )
    _new_rows_only(before, dump(proj), proj, 2)


def test_deeply_nested_json_is_a_row_problem(cli, base):
    proj, data = base
    _wavs(data, 2)
    deep = '{"path": "w1.wav", "text": "x", "m": ' + "[" * 100000 + "]" * 100000 + "}"
    (data / "d.jsonl").write_text('{"path": "w0.wav", "text": "one"}\n' + deep + "\n")
    before = dump(proj)
    code, out, _ = _import(cli, proj, data / "d.jsonl")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 1 and rep["problems"][0]["row"] == 2
    assert "nested deeper" in rep["problems"][0]["reason"]
    _new_rows_only(before, dump(proj), proj, 1)


def test_fifo_named_wav_is_refused_without_hanging(base, tmp_path):
    proj, data = base
    _wavs(data, 2)
    os.mkfifo(data / "pipe.wav")
    (data / "f.csv").write_text("path,text\nw0.wav,one\npipe.wav,two\nw1.wav,three\n")
    before = dump(proj)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "fairdesk",
            "import",
            "--project",
            str(proj),
            "--name",
            "fifo",
            str(data / "f.csv"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["imported"] == 2 and len(rep["problems"]) == 1
    pr = rep["problems"][0]
    assert pr["row"] == 3 and pr["path"] == "pipe.wav"
    assert "named pipe (FIFO)" in pr["reason"] and "regular file" in pr["reason"]
    _new_rows_only(before, dump(proj), proj, 2)


def test_table_that_is_a_fifo_is_refused(cli, base):
    proj, data = base
    os.mkfifo(data / "m.csv.fifo")
    link = data / "pipe.csv"
    os.symlink(data / "m.csv.fifo", link)
    before = dump(proj)
    code, _, err = cli("import", "--project", proj, "--name", "x", "--format", "manifest", link)
    assert code == 1 and "pipe.csv" in err and "not a regular file" in err
    assert dump(proj) == before


def _audio_case(cli, base, write):
    proj, data = base
    _wavs(data, 1)
    write(data / "odd.wav")
    (data / "a.csv").write_text("id,path,text\nok,w0.wav,one\nodd,odd.wav,two\n")
    before = dump(proj)
    code, out, err = cli("import", "--project", proj, "--name", "aud", data / "a.csv")
    assert code == 0 and "2 items imported" in out and "0 problems, 1 warning" in out
    assert "warning: odd (odd.wav)" in err
    after = dump(proj)
    _new_rows_only(before, after, proj, 2)
    code, out, _ = cli("items", "--project", proj, "--dataset", "aud", "--json")
    items = {r["id"]: r for r in json.loads(out)}
    assert items["ok"]["warnings"] is None and len(items["odd"]["warnings"]) == 1
    return items["odd"]["warnings"][0]


def test_digital_silence_is_kept_with_a_warning(cli, base):
    w = _audio_case(cli, base, lambda p: sf.write(str(p), np.zeros(8000, np.float32), 16000))
    assert "digital silence" in w and "check the recording" in w


def test_heavily_clipped_audio_is_kept_with_a_warning(cli, base):
    x = np.clip(3 * np.sin(np.arange(8000) / 3.0), -1, 1).astype(np.float32)
    w = _audio_case(cli, base, lambda p: sf.write(str(p), x, 16000, subtype="PCM_16"))
    assert "heavily clipped" in w and "re-record" in w


def test_very_short_audio_is_kept_with_a_warning(cli, base):
    w = _audio_case(cli, base, lambda p: write_wav(p, seconds=0.05))
    assert "very short (50 ms" in w


def test_audio_shorter_than_its_header_is_kept_with_a_warning(cli, base):
    def truncated(p):
        write_wav(p, seconds=1.0)
        b = p.read_bytes()
        p.write_bytes(b[: len(b) // 2])

    w = _audio_case(cli, base, truncated)
    assert "shorter than its header claims" in w and "the header says 16,000" in w


def test_audio_a_few_samples_short_of_its_header_says_how_many(cli, base):
    """Seconds at two decimals printed "1.00 s on disk, the header says 1.00 s"."""

    def cut(p):
        write_wav(p, seconds=1.0)
        p.write_bytes(p.read_bytes()[:-6])  # three 16-bit samples

    w = _audio_case(cli, base, cut)
    assert "(15,997 samples on disk, the header says 16,000: 3 missing, 0.2 ms)" in w


def test_reimport_with_rows_removed_marks_them_stale(cli, base):
    proj, data = base
    _wavs(data, 3)
    (data / "r.csv").write_text(
        "id,path,text,accent\na,w0.wav,one,x\nb,w1.wav,two,y\n"
        "c,w2.wav,three,x\nd,missing.wav,four,y\n"
    )
    code, out, _ = _import(cli, proj, data / "r.csv", "re")
    assert code == 0 and json.loads(out)["imported"] == 3
    assert dump(proj)["import_problems"].__len__() == 1
    before = dump(proj)
    (data / "r.csv").write_text("id,path,text,accent\na,w0.wav,one,x\nc,w2.wav,three,x\n")
    code, out, err = cli("import", "--project", proj, "--name", "re", data / "r.csv")
    assert code == 0 and "1 item no longer listed marked stale" in out
    assert "items --stale" in out
    after = dump(proj)
    assert changed(before, after) == {"item_status", "import_problems"}
    assert len(after["items"]) == len(before["items"])  # never deleted
    assert len(after["import_problems"]) == 0  # the stored list is the last import's
    code, out, _ = cli("items", "--project", proj, "--dataset", "re", "--stale", "--json")
    assert [r["id"] for r in json.loads(out)] == ["b"]
    code, out, _ = cli("items", "--project", proj, "--dataset", "re", "--json")
    assert [r["id"] for r in json.loads(out)] == ["a", "c"]
    code, out, _ = cli("datasets", "--project", proj, "--json")
    s = {d["name"]: d for d in json.loads(out)}["re"]
    assert s["items"] == 2 and s["stale"] == 1
    # listed again: live again
    (data / "r.csv").write_text("id,path,text,accent\na,w0.wav,one,x\nb,w1.wav,two,y\n")
    code, out, _ = _import(cli, proj, data / "r.csv", "re")
    assert json.loads(out)["stale"] == 1  # now c
    code, out, _ = cli("items", "--project", proj, "--dataset", "re", "--stale", "--json")
    assert [r["id"] for r in json.loads(out)] == ["c"]


def test_stale_items_are_left_out_of_new_audits(cli, base, tmp_path):
    proj, data = base
    (data / "m2.csv").write_text((data / "m.csv").read_text().rsplit("\n", 2)[0] + "\n")
    code, out, _ = cli("import", "--project", proj, "--name", "base", data / "m2.csv")
    assert code == 0 and "1 item no longer listed" in out
    pred = tmp_path / "p.csv"
    pred.write_text(
        "item_id,text\n"
        + "".join(
            f"{a}-{s}-{c},play song {c}\n"
            for a in ("north", "south")
            for s in range(2)
            for c in range(2)
        )
    )
    code, out, _ = cli(
        "audit",
        "--project",
        proj,
        "--dataset",
        "base",
        "--model",
        f"predictions:{pred}",
        "--by",
        "accent",
        "--json",
        "-",
        "--quiet",
        "--n-bootstrap",
        "200",
        "--min-items",
        "1",
        "--min-speakers",
        "1",
    )
    res = json.loads(out)
    assert code == 0 and sum(g["n_items"] for g in res["groups"]) == BASE_ITEMS - 1
    assert res["failures"] == []


def test_dataset_reached_through_a_symlink_imports(cli, base, tmp_path):
    proj, data = base
    real = tmp_path / "real"
    _wavs(real, 2)
    (real / "m.csv").write_text("path,text\nw0.wav,one\nw1.wav,two\n")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    before = dump(proj)
    code, out, _ = _import(cli, proj, link / "m.csv", "sym")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 2 and rep["problems"] == []
    _new_rows_only(before, dump(proj), proj, 2)


def test_files_of_a_sibling_folder_are_read_as_their_own_root(cli, base, tmp_path):
    proj, _ = base
    data, private = tmp_path / "data", tmp_path / "data-private"
    _wavs(data, 1)
    _wavs(private, 1, prefix="secret")
    (private / "notes.wav").write_text("not audio")
    (data / "m.csv").write_text(
        f"path,text\nw0.wav,one\n{private / 'secret0.wav'},two\n../data-private/secret0.wav,"
        "three\n../data-private/notes.wav,four\n"
    )
    before = dump(proj)
    code, out, _ = _import(cli, proj, data / "m.csv", "conf")
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 2 and [p["row"] for p in rep["problems"]] == [4, 5]
    # the same file named two ways is one item (its id is its path)
    assert "duplicate item id" in rep["problems"][0]["reason"]
    assert "cannot decode" in rep["problems"][1]["reason"]  # only audio is ever read
    assert rep["audio_roots"] == [str(data.resolve()), str(private)]
    _new_rows_only(before, dump(proj), proj, 2)


@pytest.mark.parametrize("name", ["", "   "])
def test_empty_dataset_name_is_refused(cli, base, name):
    proj, data = base
    before = dump(proj)
    code, _, err = cli("import", "--project", proj, "--name", name, data / "m.csv")
    assert code == 2 and "--name" in err and "give the dataset a name" in err
    assert dump(proj) == before


def test_all_rows_refused_writes_nothing(cli, base):
    proj, data = base
    (data / "bad.csv").write_text("path,text\nnope.wav,one\n")
    before = counts(proj)
    code, out, err = cli("import", "--project", proj, "--name", "bad", data / "bad.csv")
    assert code == 1 and "0 items imported" in out and "line 2" in err and "nope.wav" in err
    assert counts(proj) == before
