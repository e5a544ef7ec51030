"""Imported NLU predictions (``table:<file>``): good rows read, bad rows reported."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from fairdesk.nlu import NluResult, get_nlu, parse_frame
from fairdesk.nlu.table import TableNlu


def test_csv_with_json_slots_and_bad_rows(tmp_path):
    path = tmp_path / "pred.csv"
    path.write_text(
        "item_id,intent,slots,confidence\n"
        'u1,PlayMusic,"{""artist"": ""queen""}",0.9\n'  # line 2: fine
        "u2,Pause,,\n"  # line 3: fine, no slots
        ",Pause,,\n"  # line 4: no item id
        "u4,,,\n"  # line 5: no intent
        'u5,PlayMusic,"{not json",\n'  # line 6: bad slots
        'u6,PlayMusic,"[1, 2]",\n'  # line 7: slots not an object
        "u7,Pause,,1.7\n"  # line 8: confidence out of range
        "u1,Next,,\n"  # line 9: repeated id
        "u9,Pause,,high\n"  # line 10: confidence not a number
    )
    nlu = get_nlu(f"table:{path}")
    assert isinstance(nlu, TableNlu)
    assert nlu.id == "table:pred.csv"
    assert len(nlu.fingerprint) == 64
    assert nlu.parse_items(["u1", "u2"], []) == [
        NluResult("PlayMusic", {"artist": "queen"}, 0.9),
        NluResult("Pause", {}, None),
    ]
    bad = {(b.row, b.column) for b in nlu.bad_rows}
    assert bad == {
        (4, "item_id"), (5, "intent"), (6, "slots"), (7, "slots"),
        (8, "confidence"), (9, "item_id"), (10, "confidence"),
    }  # fmt: skip
    report = nlu.report()
    assert "2 predictions read, 7 rows skipped" in report
    assert "line 6, column 'slots'" in report


def test_csv_with_one_column_per_slot(tmp_path):
    path = tmp_path / "pred.tsv"
    path.write_text(
        "item_id\thyp_intent\tslot:artist\tslot:song\n"
        "a\tPlayMusic\tadele\trolling in the deep\n"
        "b\tPlayMusic\tabba\t\n"
    )
    nlu = TableNlu.from_file(path)
    a, b = nlu.parse_items(["a", "b"])
    assert a.slots == {"artist": "adele", "song": "rolling in the deep"}
    assert b.slots == {"artist": "abba"}
    assert nlu.bad_rows == []


def test_jsonl_and_missing_items(tmp_path):
    path = tmp_path / "pred.jsonl"
    rows = [
        {"item_id": "x1", "intent": "SetVolume", "slots": {"volume": 7}},
        {"item_id": "x2", "intent": "Pause"},
    ]
    lines = [json.dumps(r) for r in rows] + ["{broken", "[1]", ""]
    path.write_text("\n".join(lines) + "\n")
    nlu = get_nlu(f"table:{path}")
    assert [(b.row, b.reason.split(" (")[0]) for b in nlu.bad_rows] == [
        (3, "not valid JSON"),
        (4, "not a JSON object"),
    ]
    frame = pd.DataFrame({"item_id": ["x1", "x2", "x3"], "hypothesis": ["", "", ""]})
    out = parse_frame(nlu, frame)
    assert out["hyp_intent"].tolist() == ["SetVolume", "Pause", ""]
    assert out["hyp_slots"].tolist()[0] == {"volume": "7"}
    assert nlu.missing(frame["item_id"]) == ["x3"]
    with pytest.raises(TypeError, match="parse_items"):
        nlu.parse(["pause"])


def test_unusable_files_are_refused_with_a_reason(tmp_path):
    empty = tmp_path / "none.jsonl"
    empty.write_text('{"item_id": "a"}\n')
    with pytest.raises(ValueError, match="no usable prediction.*missing intent"):
        get_nlu(f"table:{empty}")
    header = tmp_path / "h.csv"
    header.write_text("id,label\n1,Pause\n")
    with pytest.raises(ValueError, match="must name 'item_id' and 'intent'"):
        get_nlu(f"table:{header}")
    odd = tmp_path / "p.xlsx"
    odd.write_text("x")
    with pytest.raises(ValueError, match="unknown predictions format"):
        get_nlu(f"table:{odd}")
    with pytest.raises(FileNotFoundError):
        get_nlu(f"table:{tmp_path / 'absent.csv'}")
