"""``--table`` rows that cannot be used (issue 29): ragged rows, an unclosed quote and a
Latin-1 row are said on the command's stderr (counted, the first ten, "see --json for all")
with "N of M rows used", by ``audit --table`` and ``regress --table``; exact copies of a row
and reused item ids are warned about (counted, first lines); a file with no usable row says
why (not UTF-8, no rows below the header, a semicolon or UTF-16 file)."""

from __future__ import annotations

import json

import pytest

QUICK = ("--n-bootstrap", "200", "--min-items", "1", "--min-speakers", "1")
HEADER = "item_id,reference,hypothesis,speaker_id,accent"


def _good_rows(n: int) -> list[str]:
    """``n`` usable rows: two accents, two speakers each, one error in every fourth row."""
    return [
        f"u{i},play the song now,play {'a' if i % 4 == 0 else 'the'} song now,"
        f"s{i % 4},{'north' if i % 2 else 'south'}"
        for i in range(n)
    ]


def _write(path, lines: list[str], tail: bytes = b"") -> str:
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8") + tail)
    return str(path)


def _bad_table(tmp_path):
    """8 good rows, then a ragged row (line 10), an unclosed quote (line 11) and a Latin-1
    row (line 13, after the unclosed quote's line 12 is read again as a row of its own)."""
    lines = [HEADER, *_good_rows(8), "u90,too,few", 'u91,"never closed,x,s1,north']
    lines.append("u92,play the song now,play the song now,s2,south")
    return _write(
        tmp_path / "bad.csv", lines, "u93,caf\xe9 au lait,cafe,s3,north\n".encode("latin-1")
    )


def test_audit_table_says_rows_used_and_refused_on_stderr(cli, tmp_path):
    table = _bad_table(tmp_path)
    code, out, err = cli(
        "audit", "--table", table, "--by", "accent", *QUICK, "--json", tmp_path / "a.json"
    )
    assert code == 0
    # 13 data rows: 9 good (8 + the row after the unclosed quote), 3 refused
    assert f"--table {table}: 9 of 12 rows used; 3 refused:" in err
    assert f"{table}: line 10: row has 3 fields but the header has 5" in err
    assert f"{table}: line 11: a quoted field opened on this line is never closed" in err
    assert "close the quote" in err
    assert f"{table}: line 13: column 'reference': text is not valid UTF-8 (byte 0xe9" in err
    assert "re-save the file as UTF-8" in err
    assert "see --json for all" not in err  # all three shown
    run = json.loads((tmp_path / "a.json").read_text())
    assert run["table_rows"] == {"rows": 12, "used": 9, "refused": 3, "warnings": []}
    assert [p["line"] for p in run["problems"]] == [10, 11, 13]
    assert sum(g["n_items"] for g in run["groups"]) == 9
    assert "problem: line" not in out  # said once, with the rows, on stderr


def test_many_refused_rows_show_ten_and_point_at_json(cli, tmp_path):
    lines = [HEADER, *_good_rows(8), *[f"u{100 + i},ragged" for i in range(14)]]
    table = _write(tmp_path / "ragged.csv", lines)
    code, _out, err = cli("audit", "--table", table, "--by", "accent", *QUICK, "--json", "-")
    assert code == 0
    assert f"--table {table}: 8 of 22 rows used; 14 refused:" in err
    shown = [ln for ln in err.splitlines() if "row has 2 fields" in ln]
    assert len(shown) == 10 and shown[0].endswith("fix the quoting or separators")
    assert f"{table}: line 10:" in shown[0] and f"{table}: line 19:" in shown[-1]
    assert "  ... and 4 more (see --json for all)" in err


def test_filter_left_out_rows_are_counted_apart(cli, tmp_path):
    table = _write(tmp_path / "t.csv", [HEADER, *_good_rows(8), "u90,too,few"])
    code, _out, err = cli(
        "audit", "--table", table, "--by", "speaker_id", "--filter", "accent=north", *QUICK
    )
    assert code == 0
    assert f"--table {table}: 4 of 9 rows used (4 left out by --filter); 1 refused:" in err


def test_regress_table_says_rows_used_and_refused(cli, tmp_path):
    table = _bad_table(tmp_path)
    code, out, err = cli(
        "regress", "--table", table, "--vars", "accent", "--outcome", "wer", "--json", "-"
    )
    assert code == 0
    assert f"--table {table}: 9 of 12 rows used; 3 refused:" in err
    assert f"{table}: line 10: row has 3 fields" in err
    assert f"{table}: line 13: column 'reference': text is not valid UTF-8" in err
    d = json.loads(out)
    assert d["table_rows"]["rows"] == 12 and d["table_rows"]["refused"] == 3
    assert [p["line"] for p in d["table_problems"]] == [10, 11, 13]


def test_duplicate_rows_and_reused_ids_are_warned(cli, tmp_path):
    rows = _good_rows(8)
    # lines 10-12 copy lines 2-4 exactly; line 13 reuses u5's id with another text
    lines = [HEADER, *rows, rows[0], rows[1], rows[2], "u5,stop the song,stop the song,s1,north"]
    table = _write(tmp_path / "dup.csv", lines)
    code, _out, err = cli("audit", "--table", table, "--by", "accent", *QUICK, "--json", "-")
    assert code == 0
    assert f"--table {table}: 12 of 12 rows used" in err  # warned, not dropped
    assert (
        f"warning: {table}: 3 exact copies of an earlier row (line 10 = line 2, "
        "line 11 = line 3, line 12 = line 4); each copy is counted as another item" in err
    )
    assert (
        f"warning: {table}: 1 item id used again by a later row ('u5' on lines 7 and 13); "
        "each row is counted as its own item: give every row a unique id" in err
    )
    code, out, err = cli("regress", "--table", table, "--vars", "accent", "--outcome", "wer")
    assert code == 0 and "3 exact copies of an earlier row" in err


def test_duplicates_without_an_id_column_are_whole_row_copies(cli, tmp_path):
    body = [r.split(",", 1)[1] for r in _good_rows(4)]  # four different rows
    lines = ["reference,hypothesis,speaker_id,accent", *body, *body[:2] * 4]
    table = _write(tmp_path / "noid.csv", lines)
    code, _out, err = cli("audit", "--table", table, "--by", "accent", *QUICK)
    assert code == 0
    assert (
        f"{table}: 8 exact copies of an earlier row (line 6 = line 2, line 7 = line 3, "
        "line 8 = line 2, line 9 = line 3, line 10 = line 2 and 3 more)" in err
    )
    assert "item id used again" not in err  # items named by their lines


@pytest.mark.parametrize("command", ["audit", "regress"])
def test_latin1_file_says_resave_as_utf8(cli, tmp_path, command):
    text = HEADER + "\n" + "".join(f"u{i},caf\xe9 {i},cafe,s{i},north\n" for i in range(5))
    path = tmp_path / "latin1.csv"
    path.write_bytes(text.encode("latin-1"))
    extra = ("--by", "accent") if command == "audit" else ("--vars", "accent")
    code, out, err = cli(command, "--table", path, *extra)
    assert code == 2 and out == ""
    assert f"--table {path}: no usable rows: all 5 rows were refused (first: line 2: " in err
    assert "the file is not UTF-8 (most likely Latin-1 or Windows-1252): re-save it as UTF-8" in err


@pytest.mark.parametrize("command", ["audit", "regress"])
def test_header_only_table_says_it_has_no_rows(cli, tmp_path, command):
    path = tmp_path / "empty.csv"
    path.write_text(HEADER + "\n")
    extra = ("--by", "accent") if command == "audit" else ("--vars", "accent")
    code, _out, err = cli(command, "--table", path, *extra)
    assert code == 2
    assert f"--table {path}: no usable rows: the file has a header but no rows below it" in err


def test_semicolon_file_names_the_separator(cli, tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("reference;hypothesis;accent\nplay it;play it;north\n")
    code, _out, err = cli("audit", "--table", path, "--by", "accent")
    assert code == 2
    assert f"--table {path}: no column 'reference' (columns: reference;hypothesis;accent)" in err
    assert "the header is one column holding semicolons" in err
    assert "re-save it separated by commas, or by tabs as .tsv" in err


def test_utf16_without_bom_names_the_encoding(cli, tmp_path):
    path = tmp_path / "u16.csv"
    path.write_bytes("reference,hypothesis,accent\nplay it,play it,north\n".encode("utf-16-le"))
    code, _out, err = cli("audit", "--table", path, "--by", "accent")
    assert code == 2
    assert f"--table {path}: no column 'reference'" in err
    assert "\x00" not in err  # the NUL bytes are shown escaped
    assert "most likely UTF-16 without a byte-order mark: re-save it as UTF-8" in err
