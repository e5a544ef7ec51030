"""Files with no record each say why (issue 44, point 8), instead of "no audio-path column
found" for all: an empty JSONL, one of blank lines, a one-record JSONL repeating a key, and
a JSONL whose only record is nested too deeply for format detection (once a
RecursionError traceback). Nothing is written."""

from __future__ import annotations

import pytest

from .conftest import dump

DEEP = '{"path": "w1.wav", "text": "x", "m": ' + "[" * 100000 + "]" * 100000 + "}\n"


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("empty.jsonl", "", "the file is empty (0 bytes): no records to import"),
        ("blank.jsonl", "\n\n  \n", "the file holds only blank lines: no records to import"),
        ("blank.csv", "\n\n", "the file holds only blank lines: no records to import"),
        (
            "dup.jsonl",
            '{"path": "a.wav", "path": "b.wav", "text": "x"}\n',
            "no usable record: the one record was refused (first: line 1: the key 'path' "
            "appears more than once in this record",
        ),
        (
            "deep.jsonl",
            DEEP,
            "no usable record: the one record was refused (first: line 1: JSON nested "
            "deeper than 64 levels",
        ),
    ],
)
def test_a_file_without_records_says_why(cli, base, name, content, said):
    proj, data = base
    f = data / name
    f.write_text(content, encoding="utf-8")
    before = dump(proj)
    code, _out, err = cli("import", "--project", proj, "--name", "new", f)
    assert code != 0
    assert f"{f}: {said}" in err
    assert "no audio-path column" not in err and "RecursionError" not in err
    assert dump(proj) == before
