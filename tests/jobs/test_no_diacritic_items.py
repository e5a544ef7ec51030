"""Seed 003's first category: a no-diacritic category shows its added-diacritic count."""

from __future__ import annotations

import json
import unicodedata

import pandas as pd
import pytest

from fairdesk.cli import main

# the seed's monotone sentence (written without diacritics) and its akwa set
MONO = "O na-eri oji n'ututu"


def _letters(text):
    return sum(1 for c in unicodedata.normalize("NFD", text) if c.isalpha())


def test_no_diacritic_category_reports_added_count(tmp_path, capsys):
    rows = []
    for i in range(40):
        # odd items: the model puts a dot below on the first O (1 added)
        rows.append((MONO, "Ọ na-eri oji n'ututu" if i % 2 else MONO, "orthographic", f"s{i % 6}"))
        rows.append(("àkwà ákwá", "akwa akwa" if i % 2 else "àkwà ákwá", "tone", f"t{i % 6}"))
    src = tmp_path / "t.csv"
    pd.DataFrame(rows, columns=["reference", "hypothesis", "category", "speaker_id"]).to_csv(
        src, index=False
    )
    out = tmp_path / "a.json"
    assert (
        main(
            [
                "audit",
                "--table",
                str(src),
                "--by",
                "category",
                "--json",
                str(out),
                "--n-bootstrap",
                "200",
            ]
        )
        == 0
    )
    d = json.loads(out.read_text(encoding="utf-8"))
    block = d["no_diacritic_items"]
    letters = 40 * _letters(MONO)
    ortho = block["groups"]["orthographic"]
    assert ortho == {
        "n_items": 40,
        "added": 20,
        "letters": letters,
        "per_100_letters": pytest.approx(100 * 20 / letters),
    }
    assert block["groups"]["tone"] is None
    g = {x["group"]: x for x in d["groups"]}
    assert g["orthographic"]["values"]["dia_added_no_dia"] == 20
    assert g["orthographic"]["values"]["dia_added_per_100_letters"] == pytest.approx(
        100 * 20 / letters
    )
    assert g["orthographic"]["values"].get("der") is None  # undefined without E
    printed = capsys.readouterr().out
    assert "orthographic" in printed and "20 added on 40 items" in printed


def test_english_run_has_no_block(tmp_path):
    rows = [
        ("play some music", "play sum music", "a" if i % 2 else "b", f"s{i % 6}") for i in range(60)
    ]
    src = tmp_path / "e.csv"
    pd.DataFrame(rows, columns=["reference", "hypothesis", "g", "speaker_id"]).to_csv(
        src, index=False
    )
    out = tmp_path / "e.json"
    assert (
        main(
            ["audit", "--table", str(src), "--by", "g", "--json", str(out), "--n-bootstrap", "200"]
        )
        == 0
    )
    assert "no_diacritic_items" not in json.loads(out.read_text(encoding="utf-8"))
