"""The one table reader: quoting per format, one encoding policy, rows named by their line."""

from __future__ import annotations

import json

import pytest

from fairdesk.core.tables import TableError, read_table


def write(path, data):
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_common_voice_quote_is_text(tmp_path):
    """Common Voice TSVs are unquoted: a " opening a sentence is part of it, and the rows
    after it stay rows."""
    p = write(
        tmp_path / "validated.tsv",
        'path\tsentence\na.mp3\t"Hello," she said.\nb.mp3\tHe wrote "yes\nc.mp3\tplain\n',
    )
    t = read_table(p, quoting="none")
    assert [(n, r["sentence"]) for n, r in t.rows] == [
        (2, '"Hello," she said.'),
        (3, 'He wrote "yes'),
        (4, "plain"),
    ]
    assert t.problems == []


def test_unclosed_quote_is_a_problem_naming_its_line_and_swallows_nothing(tmp_path):
    p = write(tmp_path / "m.csv", 'id,text\nu1,fine\nu2,"never closed\nu3,after\nu4,also after\n')
    t = read_table(p)
    assert [(n, r["id"]) for n, r in t.rows] == [(2, "u1"), (4, "u3"), (5, "u4")]
    assert [pr.line for pr in t.problems] == [3]
    assert str(t.problems[0]).startswith("line 3: ") and "never closed" in str(t.problems[0])


def test_quote_closed_lines_later_in_the_wrong_place(tmp_path):
    # the quote on line 3 is closed by a stray quote on line 5: the record would swallow
    # lines 4 and 5; it is reported at line 3 and lines 4-5 are read on their own.
    p = write(tmp_path / "m.csv", 'id,text\nu1,ok\nu2,"open\nu3,middle\nu4,x"y\nu5,last\n')
    t = read_table(p)
    assert [pr.line for pr in t.problems][0] == 3
    assert [r["id"] for _, r in t.rows][:2] == ["u1", "u3"]
    assert (6, {"id": "u5", "text": "last"}) in t.rows


def test_rfc4180_quoted_field_spanning_lines_is_named_by_its_first_line(tmp_path):
    p = write(
        tmp_path / "m.csv", 'id,text\r\nu1,"two\r\nlines"\r\nu2,"say ""hi"", then, go"\r\nu3,z\r\n'
    )
    t = read_table(p)
    assert [(n, r["id"]) for n, r in t.rows] == [(2, "u1"), (4, "u2"), (5, "u3")]
    assert t.rows[1][1]["text"] == 'say "hi", then, go'


def test_encodings_bom_utf16_and_a_bad_byte(tmp_path):
    rows = "id,text\nu1,àkwà\nu2,ákwá\n"
    for data in (
        rows.encode("utf-8"),
        b"\xef\xbb\xbf" + rows.encode("utf-8"),
        rows.encode("utf-16"),
    ):
        t = read_table(write(tmp_path / "e.csv", data))
        assert [r["text"] for _, r in t.rows] == ["àkwà", "ákwá"] and t.columns == ["id", "text"]
    t = read_table(write(tmp_path / "b.csv", b"id,text\nu1,caf\xe9\nu2,ok\n"))
    assert [n for n, _ in t.rows] == [3]
    (pr,) = t.problems
    assert pr.line == 2 and "0xe9" in pr.reason and "UTF-8" in pr.reason
    assert pr.record["id"] == "u1"
    with pytest.raises(TableError, match="UTF-16"):
        read_table(write(tmp_path / "x.csv", b"\xff\xfe\x00\xd8"))


def test_jsonl_lines_have_no_header(tmp_path):
    p = write(
        tmp_path / "m.jsonl",
        json.dumps({"a": 1}) + "\n\n{broken\n[1]\n" + json.dumps({"b": "x"}) + "\n",
    )
    t = read_table(p)
    assert t.rows == [(1, {"a": 1}), (5, {"b": "x"})] and t.columns == ["a", "b"]
    assert [(pr.line, pr.reason.split(" (")[0]) for pr in t.problems] == [
        (3, "not valid JSON"),
        (4, "not a JSON object"),
    ]


def test_file_level_problems(tmp_path):
    with pytest.raises(TableError, match="empty"):
        read_table(write(tmp_path / "e.csv", ""))
    with pytest.raises(TableError, match="duplicate column"):
        read_table(write(tmp_path / "d.csv", "a,a\n1,2\n"))


def test_table_audit_keeps_the_file_line_numbers_after_dropped_rows(tmp_path):
    """``--table``: rows after a dropped one keep their own line numbers (not renumbered)."""
    from fairdesk.core.table_input import table_frame

    p = write(
        tmp_path / "t.csv",
        b"reference,hypothesis\n"
        b"one two,one two\n"  # line 2
        b'bad,"open\n'  # line 3: unclosed quote
        b"caf\xe9,x\n"  # line 4: not UTF-8
        b"three,three\n"  # line 5
        b"a,b,c\n"  # line 6: too many fields
        b"four,for\n",
    )  # line 7
    frame, problems = table_frame(p, ref_col="reference", hyp_col="hypothesis")
    assert frame["item_id"].tolist() == ["2", "5", "7"]
    assert frame["reference"].tolist() == ["one two", "three", "four"]
    assert [pr["line"] for pr in problems] == [3, 4, 6]


def test_table_input_renames_the_named_columns_and_names_what_is_missing(tmp_path):
    """Plain keyword arguments: the named columns become reference / hypothesis /
    speaker_id / content_id; a missing one is a MissingColumn naming it (the CLI adds which
    option names it)."""
    from fairdesk.cli.common import UsageError
    from fairdesk.cli.tables import usage_error
    from fairdesk.core.table_input import MissingColumn, read_any_table, table_frame

    p = write(tmp_path / "t.csv", "ref,hyp,who,sent\na b,a b,s1,c1\nc d,c,s2,c2\n")
    frame, problems = table_frame(
        p, ref_col="ref", hyp_col="hyp", speaker_col="who", content_col="sent"
    )
    assert problems == []
    assert frame["reference"].tolist() == ["a b", "c d"]
    assert frame["hypothesis"].tolist() == ["a b", "c"]
    assert frame["speaker_id"].tolist() == ["s1", "s2"]
    assert frame["content_id"].tolist() == ["c1", "c2"]
    with pytest.raises(MissingColumn, match="no column 'reference'") as err:
        table_frame(p)
    assert err.value.column == "reference"
    cli = usage_error(err.value)
    assert isinstance(cli, UsageError) and str(cli).startswith(f"--table {p}: no column")
    assert str(cli).endswith("name it with --ref-col / --hyp-col")
    with pytest.raises(TableError, match="no such file"):
        read_any_table(tmp_path / "nope.csv")
    with pytest.raises(TableError, match="is a folder"):
        read_any_table(tmp_path)
