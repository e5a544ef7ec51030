"""The one table reader, message by message and field by field (kills what the mutation
check of bench/mutation.py found unchecked)."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from fairdesk.core import tables
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
    p = write(
        tmp_path / "m.ndjson",
        b'{"a": 1, "2": true}\n{bad\n"text"\n{"t": "caf\xe9"}\n\r\n  \n{"a": 2}\n',
    )
    t = read_table(p)
    assert t.format == "jsonl" and t.path == p
    assert t.rows == [(1, {"a": 1, "2": True}), (7, {"a": 2})] and t.columns == ["a", "2"]
    assert t.problems == [
        TableProblem(
            2, "not valid JSON (Expecting property name enclosed in double quotes at column 2)"
        ),
        TableProblem(3, "not a JSON object (a JSON str); write one object per line"),
        TableProblem(
            4, "text is not valid UTF-8 (byte 0xe9 at character 11); re-save the file as UTF-8"
        ),
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
    p = write(
        tmp_path / "m.csv",
        ' a , b \n1,2\n\n , \n1,2,3\n"x\ny",2\n"x\ny"z,2\n3,caf\xe9\n'.encode("latin-1"),
    )
    t = read_table(p)
    assert t.columns == ["a", "b"]
    # a multi-line record is numbered by its first line; after a malformed quote (line 8)
    # reading goes on from the next line
    assert t.rows == [
        (2, {"a": "1", "b": "2"}),
        (6, {"a": "x\ny", "b": "2"}),
        (9, {"a": 'y"z', "b": "2"}),
    ]
    by_line = {pr.line: pr for pr in t.problems}
    assert by_line[5].reason == (
        "row has 3 fields but the header has 2; fix the quoting or separators"
    )
    assert by_line[8].reason.startswith("malformed quoting (") and by_line[8].record is None
    assert set(by_line) == {5, 8, 10}
    assert by_line[8].reason.endswith('; quote the whole field and double any " inside it')
    assert by_line[10].reason == (
        "column 'b': text is not valid UTF-8 (byte 0xe9 at character 4); re-save the file as UTF-8"
    )
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
    assert str(e.value) == (
        f"{tmp_path / 'q.csv'}: the header's quoted names run over several "
        "lines; close the quote on line 1"
    )
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
    assert str(e.value) == (
        "f.csv: starts with a UTF-16 byte-order mark but does not decode "
        "as UTF-16 (byte 2); re-save it as UTF-8"
    )
    assert decode_text(b"a\xe9", "f") == "a\udce9"
    assert undecodable("a\udce9") == (
        "text is not valid UTF-8 (byte 0xe9 at character 2); re-save the file as UTF-8"
    )
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


# -- the JSONL reader's guards --------------------------------------------------------------------------
def test_json_depth_counts_brackets_outside_strings_only():
    d = tables._json_depth
    assert d("") == 0 and d("]]") == 0
    assert d('{"a": 1}') == 1
    assert d('{"a": [1, [2]]}') == 3
    assert d('{"a": [], "b": {}, "c": [[]]}') == 3
    assert d('{"a": "[[[{{{"}') == 1
    assert d('{"a": "x\\"[[[", "b": 1}') == 1  # an escaped quote does not end the string
    assert d('{"a": "x\\\\", "b": [[1]]}') == 3  # an escaped backslash does not escape the quote
    assert d('{"a": "\\n"}[[') == 2


def test_jsonl_nesting_limits_and_lone_surrogates(tmp_path, monkeypatch):
    deep = "[" * 63 + "]" * 63
    lines = [
        '{"a": ' + deep + "}",  # 64 levels: read
        '{"a": [' + deep + "]}",  # 65: refused
        '{"t": "\\ud800"}',
        '{"t": "ok", "\\udfff": 1}',
        '{"t": {"k\\ud800": 1}}',
        '{"t": [["x", "\\udfff"]]}',
        '{"t": "\\ud7ff\\ue000 \\ud83d\\ude00"}',  # not surrogates / a complete pair: read
        "X" * 70,  # not JSON: letters are not brackets
        "[X" * 65,  # 65 brackets deep, whatever lies between
    ]
    p = tmp_path / "m.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = read_table(p)
    assert [n for n, _ in t.rows] == [1, 7] and t.columns == ["a", "t"]
    tail = (
        " holds a lone surrogate (an escape such as \\ud800 that is half of a UTF-16 pair, "
        "not a character); write the character itself or its complete pair"
    )
    assert t.problems == [
        TableProblem(
            2,
            "JSON nested deeper than 64 levels; write one flat object per line "
            "(values may be objects or lists a few levels deep)",
        ),
        TableProblem(3, "column 't'" + tail),
        TableProblem(4, "a column name" + tail),
        TableProblem(5, "the key of column 't'" + tail),
        TableProblem(6, "column 't'" + tail),
        TableProblem(8, "not valid JSON (Expecting value at column 1)"),
        TableProblem(
            9,
            "JSON nested deeper than 64 levels; write one flat object per line "
            "(values may be objects or lists a few levels deep)",
        ),
    ]
    assert tables._lone_surrogate("\ud800") == "a key"
    assert tables._lone_surrogate({"t": "\udfff"}) == "column 't'"
    assert tables._lone_surrogate({"t": ["\ud7ff", "\ue000"]}) is None
    # past the cheap count, the parser's own recursion limit is a row problem too
    monkeypatch.setattr(tables, "MAX_JSON_DEPTH", 10**9)
    p.write_text("[" * 100_000 + "]" * 100_000 + '\n{"a": 1}\n', encoding="utf-8")
    t = read_table(p)
    assert t.problems == [TableProblem(1, "JSON nested too deeply; write one flat object per line")]
    assert t.rows == [(2, {"a": 1})]


def test_jsonl_lines_may_end_in_a_carriage_return_only(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_bytes(b'{"a": 1}\r{"a": 2}\r\n{"a": 3}\n')
    assert read_table(p).rows == [(1, {"a": 1}), (2, {"a": 2}), (3, {"a": 3})]


def test_quote_reasons_word_for_word(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text('a,b\n"' + "x" * 140_000 + '",1\n2,3\n', encoding="utf-8")
    t = read_table(p)
    assert t.problems[0] == TableProblem(
        2,
        "a field is longer than 128 KiB; most likely a quote opened here runs over many "
        "lines (close it), else shorten the field",
    )
    p.write_text('a,b\n1,2\n"x,1\n', encoding="utf-8")
    t = read_table(p)
    assert t.problems == [
        TableProblem(
            3,
            "a quoted field opened on this line is never closed; close the quote, or double it "
            '("") inside the field',
        )
    ]


def test_parquet_table_names_its_file(tmp_path):
    p = tmp_path / "t.parquet"
    pd.DataFrame({"path": ["a.wav"], "text": ["hi"]}).to_parquet(p)
    t = read_table(p)
    assert t.path == p and t.rows == [(1, {"path": "a.wav", "text": "hi"})]


def test_read_table_refusals_word_for_word(tmp_path, monkeypatch):
    missing = tmp_path / "nope.csv"
    with pytest.raises(TableError) as e:
        read_table(missing)
    assert (
        str(e.value) == f"{missing}: cannot be opened (No such file or directory); check the path"
    )
    with pytest.raises(TableError) as e:
        read_table(tmp_path)
    assert str(e.value) == f"{tmp_path}: is a folder; give a CSV, TSV, JSONL or Parquet file"
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(TableError) as e:
        read_table(fifo)
    assert str(e.value) == (
        f"{fifo}: is not a regular file (a FIFO, device or socket); give a "
        "CSV, TSV, JSONL or Parquet file"
    )
    bad16 = write(tmp_path / "u.csv", b"\xff\xfea")
    with pytest.raises(TableError) as e:
        read_table(bad16)
    assert str(e.value).startswith(f"{bad16}: starts with a UTF-16 byte-order mark")
    ok = write(tmp_path / "ok.csv", "a\n1\n")

    def eio(self):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(type(ok), "read_bytes", eio)
    with pytest.raises(TableError) as e:
        read_table(ok)
    assert str(e.value) == f"{ok}: cannot be read (Input/output error)"


def test_the_given_format_wins_and_the_delimiter_comes_from_line_one(tmp_path):
    p = write(tmp_path / "x.csv", "a\tb\n1\t2\n")
    t = read_table(p, fmt="tsv")
    assert t.format == "tsv" and t.rows == [(2, {"a": "1", "b": "2"})]
    # line 1 has a tab and no comma: tabs, though a later line has a comma
    t = read_table(write(tmp_path / "y.txt", "a\tb\n1,5\t2\n"))
    assert t.rows == [(2, {"a": "1,5", "b": "2"})]


def test_blank_header_cells_are_named_only_when_asked(tmp_path):
    p = write(tmp_path / "s.csv", "a,,b, \n1,2,3,4\n")
    with pytest.raises(TableError) as e:
        read_table(p)
    assert str(e.value) == f"{p}: duplicate column names ['']; rename them"
    t = read_table(p, name_blank=True)
    assert t.columns == ["a", "unnamed_2", "b", "unnamed_4"]
    assert t.rows == [(2, {"a": "1", "unnamed_2": "2", "b": "3", "unnamed_4": "4"})]
    bad = write(tmp_path / "h.csv", b"a,caf\xe9\n1,2\n")
    with pytest.raises(TableError) as e:
        read_table(bad)
    assert str(e.value) == (
        f"{bad}: line 1 (the header), column 2: text is not valid UTF-8 "
        "(byte 0xe9 at character 4); re-save the file as UTF-8"
    )


def test_unquoted_headers_keep_their_quotes(tmp_path):
    t = read_table(write(tmp_path / "v.tsv", '"a"\tb\n"x\t2\n'), quoting="none")
    assert t.columns == ['"a"', "b"] and t.rows == [(2, {'"a"': '"x', "b": "2"})]
    assert t.path == tmp_path / "v.tsv"


def test_a_quote_closed_on_the_next_line_reads_both_lines_again(tmp_path):
    p = write(tmp_path / "q.csv", 'a,b\n"x,1\ny",2,3\n5,6\n')
    t = read_table(p)
    assert t.problems == [
        TableProblem(
            2,
            "a quote opened on this line is closed only on line 3, which leaves 3 "
            'fields (the header has 2); close the quote or double it ("") inside '
            "the field",
        ),
        TableProblem(3, "row has 3 fields but the header has 2; fix the quoting or separators"),
    ]
    assert t.rows == [(4, {"a": "5", "b": "6"})]


def test_line_ends_crlf_inside_a_field_and_cr_only(tmp_path):
    t = read_table(write(tmp_path / "w.csv", b'a,b\r\n"x\r\ny",2\r\n'))
    assert t.rows == [(2, {"a": "x\r\ny", "b": "2"})]  # the field's own line end is kept
    t = read_table(write(tmp_path / "m.csv", b"a,b\r1,2\r3,4\r"))
    assert t.rows == [(2, {"a": "1", "b": "2"}), (3, {"a": "3", "b": "4"})] and t.problems == []


def test_parquet_rows_behave_as_the_list_they_stand_for(tmp_path):
    p = tmp_path / "t.parquet"
    pd.DataFrame({"a": [10, 20, 30, 40], "b": ["w", "x", "y", "z"]}).to_parquet(p)
    rows = read_table(p).rows
    as_list = [
        (1, {"a": 10, "b": "w"}),
        (2, {"a": 20, "b": "x"}),
        (3, {"a": 30, "b": "y"}),
        (4, {"a": 40, "b": "z"}),
    ]
    assert rows == as_list and list(rows) == as_list and len(rows) == 4
    assert rows[1:3] == as_list[1:3] and rows[::2] == as_list[::2] and rows[-2] == as_list[-2]
    assert rows != as_list[:3] and rows != "not rows" and (rows == 3) is False
    with pytest.raises(IndexError):
        rows[4]
    with pytest.raises(TypeError):
        hash(rows)
    empty = tmp_path / "e.parquet"
    pd.DataFrame({"a": pd.Series([], dtype=int)}).to_parquet(empty)
    t = read_table(empty)
    assert not t.rows and t.frame().empty and list(t.frame().columns) == ["a"]
