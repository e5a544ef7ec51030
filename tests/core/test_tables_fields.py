"""The one table reader, message by message and field by field (kills what the mutation
check of bench/mutation.py found unchecked)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from fairdesk.core.tables import (
    Table,
    TableError,
    TableProblem,
    decode_text,
    read_table,
    undecodable,
)


def write(path, data):
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_jsonl_messages_and_keys(tmp_path):
    p = write(tmp_path / "m.ndjson",
              b'{"a": 1, "2": true}\n{bad\n"text"\n{"t": "caf\xe9"}\n\r\n  \n{"a": 2}\n')
    t = read_table(p)
    assert t.format == "jsonl" and t.path == p
    assert t.rows == [(1, {"a": 1, "2": True}), (7, {"a": 2})] and t.columns == ["a", "2"]
    assert t.problems == [
        TableProblem(2, "not valid JSON (Expecting property name enclosed in double quotes "
                        "at column 2)"),
        TableProblem(3, "not a JSON object (a JSON str); write one object per line"),
        TableProblem(4, "text is not valid UTF-8 (byte 0xe9 at character 11); re-save the "
                        "file as UTF-8"),
    ]
    assert str(t.problems[0]).startswith("line 2: not valid JSON")
    assert read_table(write(tmp_path / "x.json", '{"k": 1}\n')).format == "jsonl"


def test_parquet_rows_are_numbered_from_one(tmp_path):
    p = tmp_path / "t.PQ"
    pd.DataFrame({"path": ["a.wav", "b.wav"], 3: [1.5, 2.5]}).rename(columns=str).to_parquet(p)
    t = read_table(p)
    assert (t.format, t.columns, t.problems) == ("parquet", ["path", "3"], [])
    assert t.rows == [(1, {"path": "a.wav", "3": 1.5}), (2, {"path": "b.wav", "3": 2.5})]
    df = t.frame("line")
    assert list(df.index) == [1, 2] and list(df["line"]) == [1, 2]


def test_format_and_delimiter_choice(tmp_path):
    tsv_in_csv = write(tmp_path / "a.txt", "x\ty\n1\t2\n")
    t = read_table(tsv_in_csv)
    assert t.format == "csv" and t.rows == [(2, {"x": "1", "y": "2"})]
    both = write(tmp_path / "b.csv", "x,y\tz\n1,2\t3\n")  # a comma on line 1: commas
    assert read_table(both).rows == [(2, {"x": "1", "y\tz": "2\t3"})]
    t = read_table(write(tmp_path / "c.TSV", "x,y\tz\n1,2\t3\n"))
    assert t.format == "tsv" and t.columns == ["x,y", "z"]
    t = read_table(write(tmp_path / "d.dat", "x;y\n1;2\n"), fmt="csv", delimiter=";")
    assert t.rows == [(2, {"x": "1", "y": "2"})]
    with pytest.raises(ValueError, match="quoting must be one of"):
        read_table(both, quoting="QUOTE_ALL")


def test_delimited_problems_say_what_and_where(tmp_path):
    p = write(tmp_path / "m.csv",
              ' a , b \n1,2\n\n , \n1,2,3\n"x\ny",2\n"x\ny"z,2\n3,caf\xe9\n'.encode("latin-1"))
    t = read_table(p)
    assert t.columns == ["a", "b"]
    # a multi-line record is numbered by its first line; after a malformed quote (line 8)
    # reading goes on from the next line
    assert t.rows == [(2, {"a": "1", "b": "2"}), (6, {"a": "x\ny", "b": "2"}),
                      (9, {"a": 'y"z', "b": "2"})]
    by_line = {pr.line: pr for pr in t.problems}
    assert by_line[5].reason == ("row has 3 fields but the header has 2; fix the quoting or "
                                 "separators")
    assert by_line[8].reason.startswith("malformed quoting (") and by_line[8].record is None
    assert set(by_line) == {5, 8, 10}
    assert by_line[8].reason.endswith("; quote the whole field and double any \" inside it")
    assert by_line[10].reason == ("column 'b': text is not valid UTF-8 (byte 0xe9 at "
                                  "character 4); re-save the file as UTF-8")
    assert by_line[10].record == {"a": "3", "b": "caf\udce9"}


def test_header_problems(tmp_path):
    with pytest.raises(TableError) as e:
        read_table(write(tmp_path / "e.csv", ""))
    assert str(e.value) == f"{tmp_path / 'e.csv'}: the file is empty; it needs a header row"
    with pytest.raises(TableError) as e:
        read_table(write(tmp_path / "d.csv", "a,b,a,b,c\n"))
    assert str(e.value) == f"{tmp_path / 'd.csv'}: duplicate column names ['a', 'b']; rename them"
    with pytest.raises(TableError) as e:
        read_table(write(tmp_path / "q.csv", '"a\nb",c\n1,2\n'))
    assert str(e.value) == (f"{tmp_path / 'q.csv'}: the header's quoted names run over several "
                            "lines; close the quote on line 1")
    with pytest.raises(TableError) as e:
        read_table(write(tmp_path / "h.csv", '"a"x,b\n'))
    assert str(e.value).startswith(f"{tmp_path / 'h.csv'}: line 1 (the header) cannot be read")
    assert str(e.value).endswith("; fix its quoting")


def test_decoding_policy():
    assert decode_text(b"\xef\xbb\xbfa,b", "f") == "a,b"
    assert decode_text("a,é".encode("utf-16"), "f") == "a,é"
    assert decode_text("a".encode("utf-16-be").join([b"\xfe\xff", b""]), "f") == "a"
    with pytest.raises(TableError) as e:
        decode_text(b"\xff\xfea", "f.csv")
    assert str(e.value) == ("f.csv: starts with a UTF-16 byte-order mark but does not decode "
                            "as UTF-16 (byte 2); re-save it as UTF-8")
    assert decode_text(b"a\xe9", "f") == "a\udce9"
    assert undecodable("a\udce9") == ("text is not valid UTF-8 (byte 0xe9 at character 2); "
                                      "re-save the file as UTF-8")
    assert undecodable("a\udc80") is not None and undecodable("a\udcff") is not None
    assert undecodable("a\udc7f") is None and undecodable("a\ud800"[:1]) is None
    assert undecodable(3) is None and undecodable("plain") is None


def test_frame_adds_missing_columns_and_keeps_lines():
    t = Table("p", "jsonl", ["a", "b"], [(3, {"a": 1}), (5, {"a": 2})])
    df = t.frame()
    assert list(df.columns) == ["a", "b"] and list(df.index) == [3, 5]
    assert df["b"].isna().all() and "line" not in df.columns
    assert str(TableProblem(4, "why", unit="row")) == "row 4: why"
    assert json.loads(json.dumps(t.frame("n")["n"].tolist())) == [3, 5]


def test_parquet_rows_on_demand_match_the_records(tmp_path):
    p = tmp_path / "t.parquet"
    pd.DataFrame({"id": ["u1", "u2", "u3"], "n": [1, 2, 3], "x": [0.5, None, 2.0]}).to_parquet(p)
    t = read_table(p)
    assert len(t.rows) == 3 and bool(t.rows)
    assert t.rows[0] == (1, {"id": "u1", "n": 1, "x": 0.5})
    assert t.rows[-1] == (3, {"id": "u3", "n": 3, "x": 2.0})
    assert [n for n, _ in t.rows[1:]] == [2, 3] and type(t.rows[0][1]["n"]) is not float
    assert (2, {"id": "u2", "n": 2, "x": None}) != t.rows[1]  # NaN, not None, as pandas reads it
    df = t.frame("line")
    assert list(df.index) == [1, 2, 3] and list(df["line"]) == [1, 2, 3]
    assert list(df["id"]) == ["u1", "u2", "u3"] and list(df.columns) == ["id", "n", "x", "line"]
