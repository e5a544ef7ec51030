"""``fairdesk audit --normaliser-sensitivity`` and the pitfalls in the console and ``show``."""

import json

import pandas as pd

from fairdesk.cli import main

LOOP = "do not know " * 10


def _table(tmp_path):
    rows = []
    for g in ("a", "b"):
        for s in range(12):
            for c in range(5):
                ref = f"i have twenty dollars and it is late number {c}"
                hyp = ref if g == "a" else f"I have $20 and it's late number {c}"
                if g == "b" and s == 0 and c == 0:
                    hyp += " " + LOOP
                rows.append(
                    {
                        "accent": g,
                        "speaker_id": f"{g}{s}",
                        "content_id": f"c{c}",
                        "reference": ref,
                        "hypothesis": hyp,
                    }
                )
    path = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_sensitivity_flag_and_pitfalls_in_the_console(tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main(
        [
            "audit",
            "--table",
            str(_table(tmp_path)),
            "--by",
            "accent",
            "--normaliser-sensitivity",
            "--n-bootstrap",
            "300",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "HALLUC" in printed and "Hallucination flags (checked: loop, runaway)" in printed
    assert "wer b vs a: VERDICT CHANGES" in printed
    res = json.loads(out.read_text())
    sens = res["normaliser_sensitivity"]
    assert sens["normalisers"] == ["whisper-english", "whisper-basic", "tone-preserving", "none"]
    wer = [r for r in sens["rows"] if r["metric"] == "wer"][0]
    assert not wer["holds"]
    assert res["pitfalls"]["by_group"]["b"]["items"] == ["62"]  # 61st data row = file line 62
    b = [g for g in res["groups"] if g["group"] == "b"][0]
    assert b["values"]["hallucination_rate"] == 1 / 60
    # default audit: hallucination_rate reported, not tested
    assert "hallucination_rate" in res["descriptive_metrics"]
    assert all(c["metric"] != "hallucination_rate" for c in res["comparisons"])
