"""predictions:<file>: imported hypotheses with good and bad rows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairdesk.models import get_backend
from fairdesk.models.predictions import PredictionsBackend

CSV = (
    "item_id,path,text,confidence,intent,slots,label\n"  # line 1
    'u1,a/u1.wav,play the song,0.9,play_music,"{""song"": ""yesterday""}",\n'  # 2 good
    "u2,a/u2.wav,,0.1,,,\n"  # 3 empty text: kept, flagged
    "u1,a/u1b.wav,duplicate,0.5,,,\n"  # 4 item_id u1 again, another text: u1 refused
    ",,no key here,0.5,,,\n"  # 5 missing key
    'u5,a/u5.wav,bad slots,0.5,x,"{not json}",\n'  # 6 malformed JSON
    "u6,a/u6.wav,bad conf,high,,,\n"  # 7 confidence not a number
    "u7,a/u7.wav,too,many,fields,here,x,y\n"  # 8 wrong field count
    'u8,b\\u8.wav,"multi\nline",,,,\n'  # 9-10 good, quoted newline, Windows path
)


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_csv_keeps_good_rows_and_reports_bad_ones(tmp_path):
    # line 11: a Latin-1 byte, not UTF-8
    path = write(tmp_path, "preds.csv", CSV.encode() + b"u9,c/u9.wav,caf\xe9 bad bytes,,,,\n")
    b = get_backend(f"predictions:{path}")
    assert isinstance(b, PredictionsBackend)
    # two rows give u1 different texts: neither is used, and the reason names both lines
    assert b.lookup("u1", None) is None
    why = b.missing_reason("u1", None)
    assert "conflicting predictions for item_id 'u1' in preds.csv" in why
    assert "line 2" in why and "line 4" in why
    p = b.lookup(None, "a/u1.wav")  # row 2 is still keyed by its own path
    assert p.text == "play the song" and p.confidence == 0.9
    assert p.intent == "play_music" and p.slots == {"song": "yesterday"} and p.label is None
    assert b.lookup("u2", None).text == ""
    assert b.lookup("nope", "a/u1.wav") is p  # by path when the id is unknown
    assert b.lookup(None, "./a/u1.wav") is p
    assert b.lookup(None, "b/u8.wav").text == "multi\nline"
    assert b.lookup(None, "/data/corpus/b/u8.wav").text == "multi\nline"  # unique suffix match
    assert b.lookup("u5", None) is None and b.lookup("u6", None) is None
    bad = {pr.row: pr for pr in b.problems if not pr.kept}
    warn = {pr.row: pr for pr in b.problems if pr.kept}
    assert sorted(bad) == [4, 5, 6, 7, 8, 11]
    assert "conflicting predictions for item_id 'u1'" in bad[4].reason
    assert "line 2" in bad[4].reason and "line 4" in bad[4].reason
    assert "missing key" in bad[5].reason
    assert "slots is not valid JSON" in bad[6].reason and bad[6].key == "u5"
    assert "not a number" in bad[7].reason
    assert "fields" in bad[8].reason
    assert "UTF-8" in bad[11].reason and bad[11].key == "u9"
    assert list(warn) == [3] and "empty text" in warn[3].reason
    assert len(b) == 3 and b.n_rows == 9  # data records
    assert "3 predictions kept, 6 rows skipped, 1 warning" in b.summary()
    assert str(bad[5]).startswith("line 5")


def test_jsonl_and_tsv(tmp_path):
    lines = [
        json.dumps({"item_id": "x1", "hypothesis": "hello", "slots": {"a": "b"}, "label": "yes"}),
        "{broken json",
        json.dumps(["not", "an", "object"]),
        "",
        json.dumps({"path": "p/x2.wav", "text": "hi", "slots": "[1, 2]"}),
        json.dumps({"path": "p/x3.wav", "text": "ok", "confidence": 1.5}),
    ]
    path = write(tmp_path, "p.jsonl", "\n".join(lines) + "\n")
    b = get_backend(f"predictions:{path}")
    assert b.lookup("x1").text == "hello" and b.lookup("x1").slots == {"a": "b"}
    assert b.lookup("x1").label == "yes"
    assert b.lookup(None, "p/x3.wav").confidence == 1.5
    rows = {p.row: p for p in b.problems}
    assert sorted(rows) == [2, 3, 5, 6]
    assert "not valid JSON" in rows[2].reason and "object" in rows[3].reason
    assert "JSON object" in rows[5].reason and rows[6].kept
    tsv = write(tmp_path, "p.tsv", "path\thypothesis\nq/1.wav\tgood morning\n")
    t = get_backend(f"predictions:{tsv}")
    assert t.lookup("1", "q/1.wav").text == "good morning" and not t.problems


def test_fingerprint_is_content_hash(tmp_path):
    a = write(tmp_path, "a.csv", "item_id,text\nu1,hi\n")
    b = write(tmp_path, "b.csv", "item_id,text\nu1,hi\n")
    c = write(tmp_path, "c.csv", "item_id,text\nu1,ho\n")
    fa, fb, fc = (PredictionsBackend(p).fingerprint for p in (a, b, c))
    assert fa == fb != fc


def test_file_level_errors_and_no_audio(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        get_backend(f"predictions:{tmp_path / 'missing.csv'}")
    with pytest.raises(ValueError, match="unknown predictions format"):
        get_backend(f"predictions:{write(tmp_path, 'x.xlsx', 'a')}")
    no_key = write(tmp_path, "k.csv", "name,text\nu,hi\n")
    with pytest.raises(ValueError, match="no key column.*columns found: name, text"):
        get_backend(f"predictions:{no_key}")
    no_text = write(tmp_path, "n.csv", "item_id,notes\nu,hi\n")
    with pytest.raises(ValueError, match="nothing to import"):
        get_backend(f"predictions:{no_text}")
    b = get_backend(f"predictions:{write(tmp_path, 'ok.csv', 'item_id,text' + chr(10) + 'u,hi')}")
    assert b.capabilities == frozenset() and b.device == "none"
    with pytest.raises(NotImplementedError, match="imported predictions"):
        b.transcribe([np.zeros(10, np.float32)])
    with pytest.raises(TypeError, match="no settings"):
        get_backend(f"predictions:{tmp_path / 'ok.csv'}", beam_size=3)


def test_a_repeated_id_with_the_same_text_is_used_once_with_one_warning(tmp_path):
    path = write(
        tmp_path,
        "preds.csv",
        "item_id,text\nu1,hello there\nu2,good morning\nu1,hello there\nu3,fine\n",
    )
    b = get_backend(f"predictions:{path}")
    assert b.lookup("u1").text == "hello there" and b.lookup("u1").row == 2
    (w,) = b.problems
    assert w.kept and w.row == 4 and "repeats line 2 with the same prediction" in w.reason
    assert len(b) == 3 and "3 predictions kept, 0 rows skipped, 1 warning" in b.summary()


def test_a_repeated_id_with_another_text_is_refused_naming_both_rows(tmp_path):
    path = write(
        tmp_path,
        "preds.jsonl",
        "\n".join(
            json.dumps(r)
            for r in (
                {"item_id": "a", "text": "one two"},
                {"item_id": "b", "text": "three"},
                {"item_id": "a", "text": "one too"},
                {"item_id": "a", "text": "one two"},
            )
        )
        + "\n",
    )
    b = get_backend(f"predictions:{path}")
    assert b.lookup("a") is None and b.lookup("b").text == "three"
    why = b.missing_reason("a")
    assert why.startswith("conflicting predictions for item_id 'a' in preds.jsonl: line 1")
    assert "'one two'" in why and "line 3 says 'one too'" in why
    assert [(p.row, p.kept) for p in b.problems] == [(3, False), (4, False)]
    assert "again" in b.problems[1].reason
