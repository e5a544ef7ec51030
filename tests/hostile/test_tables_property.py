"""Property-based tests of the one table reader (fairdesk/core/tables.py): any bytes in any
cell give a row or a problem naming its line, never an exception."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fairdesk.core.tables import Table, TableError, read_table  # noqa: E402

HEADER = ["path", "text", "speaker"]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _read(data: bytes, suffix: str, **kw) -> Table:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"t{suffix}"
        p.write_bytes(data)
        return read_table(p, **kw)


def _well_formed(t: Table, n_lines: int, header) -> None:
    assert isinstance(t, Table)
    for line, rec in t.rows:
        assert 1 <= line <= n_lines and isinstance(rec, dict)
        if header is not None:
            assert list(rec) == header
    for pr in t.problems:
        assert 1 <= pr.line <= n_lines and isinstance(pr.reason, str) and pr.reason
        assert f"line {pr.line}" in str(pr)


cells = st.lists(st.binary(max_size=40), min_size=3, max_size=3)


@SETTINGS
@given(
    rows=st.lists(cells, min_size=1, max_size=8),
    sep=st.sampled_from([",", "\t"]),
    quoting=st.sampled_from(["rfc4180", "none"]),
)
def test_any_bytes_in_any_cell_give_rows_or_problems(rows, sep, quoting):
    head = sep.join(HEADER).encode()
    data = b"\n".join([head] + [sep.encode().join(r) for r in rows]) + b"\n"
    t = _read(data, ".tsv" if sep == "\t" else ".csv", quoting=quoting)
    _well_formed(t, data.count(b"\n") + data.count(b"\r") + 1, HEADER)


safe_bytes = st.binary(max_size=40).map(lambda b: bytes(c for c in b if c not in b'",\t\r\n'))


@SETTINGS
@given(
    rows=st.lists(st.lists(safe_bytes, min_size=3, max_size=3), min_size=1, max_size=8),
    quoting=st.sampled_from(["rfc4180", "none"]),
)
def test_each_line_is_exactly_one_row_or_one_problem(rows, quoting):
    """Without quotes, separators or line breaks in a cell (any other byte, UTF-8 or not),
    every non-blank line N is either the row of line N or a problem at line N."""
    data = b"\n".join([b",".join(h.encode() for h in HEADER)] + [b",".join(r) for r in rows])
    t = _read(data + b"\n", ".csv", quoting=quoting)
    _well_formed(t, len(rows) + 1, HEADER)
    got = [n for n, _ in t.rows] + [p.line for p in t.problems]
    want = [
        i + 2
        for i, r in enumerate(rows)
        if any(c.decode("utf-8", "surrogateescape").strip() for c in r)
    ]
    assert sorted(got) == want
    for n, rec in t.rows:  # a row is the line's text, exactly
        assert [rec[h].encode("utf-8") for h in HEADER] == rows[n - 2]


@SETTINGS
@given(
    lines=st.lists(
        st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")),
        min_size=1,
        max_size=8,
    )
)
def test_any_jsonl_line_is_a_row_or_a_problem(lines):
    data = b"\n".join(lines) + b"\n"
    if data.startswith(UTF16_BOMS):
        with pytest.raises(TableError):  # (or reads as UTF-16: a file-wide choice)
            _read(data, ".jsonl")
            raise TableError("decoded as UTF-16")
        return
    t = _read(data, ".jsonl")
    _well_formed(t, len(lines), None)
    got = sorted([n for n, _ in t.rows] + [p.line for p in t.problems])
    text_lines = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogateescape").split("\n")
    assert got == [i + 1 for i, x in enumerate(text_lines[:-1]) if x.strip()]


@SETTINGS
@given(
    obj=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(), c, max_size=3),
        max_leaves=20,
    )
)
def test_any_json_value_with_any_code_point_is_a_row_or_a_problem(obj):
    import json

    line = json.dumps({"path": "a.wav", "text": obj})  # ensure_ascii: surrogates as \\udXXX
    t = _read(line.encode() + b"\n", ".jsonl")
    assert len(t.rows) + len(t.problems) == 1
    for _, rec in t.rows:
        json.dumps(rec, ensure_ascii=False).encode("utf-8")  # storable as UTF-8
