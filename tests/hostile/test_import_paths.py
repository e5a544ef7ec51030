"""Paths and records at import (issue 29): a JSONL record repeating a key, a symbolic-link loop
inside the dataset folder, names with leading spaces, Windows-style ``sub\\a.wav``, a NUL byte
in a path, a FIFO given as the dataset, files fairdesk may not read, and a manifest with a
header but no rows. Each says the line (or item), what is wrong and what to do; the good rows
are imported; only the import's own tables change; no traceback (the ``cli`` fixture)."""

from __future__ import annotations

import errno
import json
import os

import pytest

from tests.conftest import write_wav

from .conftest import BASE_ITEMS, changed, counts, dump

IMPORT_TABLES = {"datasets", "items", "item_status", "import_problems", "audio_roots"}


def _import(cli, proj, source, name="new", *extra):
    code, out, err = cli("import", "--project", proj, "--name", name, source, "--json", *extra)
    return code, (json.loads(out) if out.strip() else None), err


def _only_new_rows(before, after, n_new):
    assert changed(before, after) <= IMPORT_TABLES
    assert len(after["items"]) - len(before["items"]) == n_new
    assert [r for r in after["items"] if r in before["items"]] == before["items"]


def _wavs(root, *names):
    for i, n in enumerate(names):
        write_wav(root / n, seconds=0.3, freq=300 + 30 * i)


def test_jsonl_record_repeating_a_key_is_refused_naming_line_and_key(cli, base):
    proj, data = base
    _wavs(data, "w0.wav", "w1.wav", "w2.wav")
    lines = [
        '{"path": "w0.wav", "text": "one"}',
        '{"path": "w1.wav", "text": "two", "text": "second thoughts"}',
        '{"path": "w2.wav", "text": "three", "meta": {"age": 30, "age": 31}}',
    ]
    src = data / "dup.jsonl"
    src.write_text("\n".join(lines) + "\n")
    before = dump(proj)
    code, rep, err = _import(cli, proj, src)
    assert code == 0 and rep["imported"] == 1
    assert [(p["row"], p["source"]) for p in rep["problems"]] == [(2, str(src)), (3, str(src))]
    says = (
        "appears more than once in this record; JSON keeps only the last value, so the others "
        "would be lost without a word: keep one value per key"
    )
    assert rep["problems"][0]["reason"] == f"the key 'text' {says}"
    assert rep["problems"][1]["reason"] == f"the key 'age' {says}"
    _only_new_rows(before, dump(proj), 1)
    code, _rep, err = cli("import", "--project", proj, "--name", "new2", src)
    assert f"{src}: line 2: the key 'text' appears more than once" in err


def test_symlink_loop_in_the_dataset_folder_is_one_row_problem(cli, base):
    proj, data = base
    root = data / "loops"
    _wavs(root, "w0.wav", "w1.wav")
    os.symlink("self.wav", root / "self.wav")  # a link to itself
    os.symlink("b.wav", root / "a.wav")
    os.symlink("a.wav", root / "b.wav")  # two links to each other
    (root / "sub").mkdir()
    os.symlink("..", root / "sub" / "up")  # a folder cycle: fine to walk once
    rows = ["path,text", "w0.wav,one", "self.wav,two", "a.wav,three", "w1.wav,four"]
    (root / "m.csv").write_text("\n".join(rows) + "\n")
    before = dump(proj)
    code, rep, _err = _import(cli, proj, root / "m.csv")
    assert code == 0 and rep["imported"] == 2
    assert [(p["row"], p["path"]) for p in rep["problems"]] == [(3, "self.wav"), (4, "a.wav")]
    for p in rep["problems"]:
        assert p["reason"].endswith(
            "cannot be resolved: a symbolic link in it leads back to itself (a loop); fix or "
            "remove the link"
        )
    _only_new_rows(before, dump(proj), 2)


def test_symlink_loop_beside_an_audiofolder_does_not_sink_the_import(cli, base):
    proj, data = base
    root = data / "af"
    _wavs(root / "train", "w0.wav", "w1.wav")
    (root / "train" / "metadata.csv").write_text("file_name,text\nw0.wav,one\nw1.wav,two\n")
    os.symlink("loop", root / "loop")
    os.symlink("..", root / "train" / "parent")
    before = dump(proj)
    code, rep, _err = _import(cli, proj, root, "af")
    assert code == 0 and (rep["format"], rep["imported"], rep["problems"]) == ("audiofolder", 2, [])
    _only_new_rows(before, dump(proj), 2)


def test_leading_and_trailing_spaces_are_part_of_the_name_when_the_file_has_them(cli, base):
    proj, data = base
    _wavs(data, " leading space.wav", "trailing.wav", "plain.wav")
    rows = ["id,path,text", "a, leading space.wav,one", "b,trailing.wav ,two", "c, plain.wav,three"]
    (data / "sp.csv").write_text("\n".join(rows) + "\n")
    before = dump(proj)
    code, rep, _err = _import(cli, proj, data / "sp.csv")
    assert code == 0 and rep["imported"] == 3 and rep["problems"] == []
    code, out, _ = cli("items", "--project", proj, "--dataset", "new", "--json")
    paths = {r["id"]: r["path"] for r in json.loads(out)}
    # the name as it is on disk: the space kept where the file has it, trimmed where not
    assert paths == {"a": " leading space.wav", "b": "trailing.wav", "c": "plain.wav"}
    _only_new_rows(before, dump(proj), 3)


def test_windows_backslashes_are_separators_when_the_file_is_there(cli, base):
    proj, data = base
    _wavs(data / "sub" / "deeper", "a.wav")
    _wavs(data, "back\\slash.wav")  # a name that holds a backslash itself is found as is
    rows = ["id,path,text", "w,sub\\deeper\\a.wav,one", "n,back\\slash.wav,two", "x,sub\\b.wav,3"]
    (data / "win.csv").write_text("\n".join(rows) + "\n")
    before = dump(proj)
    code, rep, _err = _import(cli, proj, data / "win.csv")
    assert code == 0 and rep["imported"] == 2
    (p,) = rep["problems"]
    assert (p["row"], p["path"]) == (4, "sub\\b.wav")
    assert "file not found" in p["reason"]
    code, out, _ = cli("items", "--project", proj, "--dataset", "new", "--json")
    assert {r["id"]: r["path"] for r in json.loads(out)} == {
        "w": "sub/deeper/a.wav",
        "n": "back\\slash.wav",
    }
    _only_new_rows(before, dump(proj), 2)


def test_nul_byte_in_a_path_is_named_not_called_outside_the_folder(cli, base):
    proj, data = base
    _wavs(data, "w0.wav", "w1.wav")
    src = data / "nul.csv"
    src.write_bytes(b"id,path,text\na,w0.wav,one\nb,w1\x00.wav,two\nc,w1.wav,three\n")
    before = dump(proj)
    code, rep, err = _import(cli, proj, src)
    assert code == 0 and rep["imported"] == 2
    (p,) = rep["problems"]
    assert (p["row"], p["path"]) == (3, "w1\x00.wav")
    assert p["reason"] == (
        "the path holds a NUL byte (character 3), which no file name can; the cell is "
        "damaged: retype the path"
    )
    assert "outside the dataset folder" not in err
    _only_new_rows(before, dump(proj), 2)


def test_fifo_given_as_the_dataset_is_named_as_such(cli, base):
    proj, data = base
    fifo = data / "dataset.csv"
    os.mkfifo(fifo)
    before = dump(proj)
    code, out, err = cli("import", "--project", proj, "--name", "f", fifo)
    assert code == 1 and out == ""
    assert err == (
        f"fairdesk import: {fifo}: is a named pipe (FIFO), not a regular file or folder; give "
        "the dataset's manifest (CSV, TSV, JSONL) or its folder\n"
    )
    loop = data / "loop"
    os.symlink("loop", loop)
    code, out, err = cli("import", "--project", proj, "--name", "f", loop)
    assert code == 1 and "a symbolic link to loop, which does not exist (or leads back" in err
    assert dump(proj) == before


def _deny(monkeypatch, denied):
    """``open`` and ``Path.read_bytes`` of ``denied`` raise PermissionError (CI runs as root,
    which chmod does not stop)."""
    import builtins
    from pathlib import Path

    real_open, real_read = builtins.open, Path.read_bytes

    def fake_open(file, *a, **k):
        if str(file) == str(denied):
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real_open(file, *a, **k)

    def fake_read(self):
        if str(self) == str(denied):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_read(self)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(Path, "read_bytes", fake_read)


PERMISSION = (
    "permission denied: fairdesk may not read this file; give your user read permission "
    "(chmod u+r, or ask the file's owner) or copy {} somewhere you can read"
)


@pytest.mark.parametrize("how", ["injected", "chmod"])
def test_audio_one_may_not_read_says_permission_denied(cli, base, monkeypatch, how):
    proj, data = base
    _wavs(data, "w0.wav", "locked.wav")
    (data / "p.csv").write_text("id,path,text\na,w0.wav,one\nb,locked.wav,two\n")
    if how == "chmod":
        if os.geteuid() == 0:
            pytest.skip("root reads files whatever their mode")
        os.chmod(data / "locked.wav", 0)
    else:
        _deny(monkeypatch, data / "locked.wav")
    before = dump(proj)
    code, rep, _err = _import(cli, proj, data / "p.csv")
    assert code == 0 and rep["imported"] == 1
    (p,) = rep["problems"]
    assert (p["row"], p["path"]) == (3, "locked.wav")
    assert p["reason"] == PERMISSION.format("the audio")
    assert "corrupt" not in p["reason"] and "unsupported" not in p["reason"]
    _only_new_rows(before, dump(proj), 1)


def test_manifest_one_may_not_read_says_permission_denied(cli, base, monkeypatch):
    proj, data = base
    src = data / "m.csv"
    _deny(monkeypatch, src)
    before = counts(proj)
    code, out, err = cli("import", "--project", proj, "--name", "x", src)
    assert code == 1 and out == ""
    assert err == f"fairdesk import: {src}: " + PERMISSION.format("it") + "\n"
    assert counts(proj) == before


def test_header_only_manifest_says_it_has_no_rows(cli, base):
    proj, data = base
    src = data / "empty.csv"
    src.write_text("id,path,text\n")
    before = counts(proj)
    code, out, err = cli("import", "--project", proj, "--name", "empty", src)
    assert code == 1
    assert "0 items imported" in out
    assert (
        f"{src}: the manifest has a header but no rows below it; add one row per audio file" in err
    )
    assert counts(proj) == before and counts(proj)["items"] == BASE_ITEMS
