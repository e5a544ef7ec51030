"""Seed 003 end to end: M4A recordings imported, hypotheses audited, then the per-category
table (``fairdesk diacritics --project --run``) and the per-item detail of ``fairdesk show``."""

from __future__ import annotations

import json

import pytest

from fairdesk.cli import main
from tests.core.test_m4a import _signal, write_m4a

# references: seed 003's own examples; hypotheses: made-up recogniser outputs
ITEMS = [
    ("akwa", "akwa", "tone"),
    ("akwà", "akwa", "tone"),
    ("àkwà", "akwà", "tone"),
    ("ákwá", "akwa", "tone"),
    ("oke", "òkè", "tone"),
    ("òkè", "oke", "tone"),
    ("ọkè", "ọkè", "tone"),
    ("O na-eri oji n'ututu", "Ọ na-eri ọjị n'ututu", "monotone"),
    ("O na-eri oji n'ututu", "O na-eri oji n'ututu", "monotone"),
    ("oke", "oke", "monotone"),
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("seed003")
    root = tmp / "data"
    root.mkdir()
    rows, preds = ["id,path,text,speaker,category"], ["item_id,text"]
    for k, (ref, hyp, cat) in enumerate(ITEMS):
        write_m4a(root / f"{k:02d}.m4a", _signal(16000, 0.5 + 0.05 * k), 16000)
        rows.append(f'u{k},{k:02d}.m4a,"{ref}",s1,{cat}')
        preds.append(f'u{k},"{hyp}"')
    (root / "manifest.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (tmp / "preds.csv").write_text("\n".join(preds) + "\n", encoding="utf-8")
    proj = str(tmp / "proj")
    assert (
        main(
            [
                "import",
                "--project",
                proj,
                "--name",
                "s3",
                "--language",
                "ig",
                str(root / "manifest.csv"),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "audit",
                "--project",
                proj,
                "--dataset",
                "s3",
                "--model",
                f"predictions:{tmp / 'preds.csv'}",
                "--by",
                "category",
                "--min-items",
                "2",
                "--min-speakers",
                "1",
                "--n-bootstrap",
                "200",
                "--quiet",
            ]
        )
        == 0
    )
    return proj, tmp


def test_table_from_a_run(run, capsys):
    proj, tmp = run
    out = tmp / "table.json"
    assert (
        main(
            [
                "diacritics",
                "--project",
                proj,
                "--run",
                "1",
                "--by",
                "category",
                "--n-bootstrap",
                "1000",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    t = json.loads(out.read_text(encoding="utf-8"))
    cats = {c["category"]: c for c in t["categories"]}
    assert cats["monotone"]["no_diacritics"] and cats["monotone"]["added"] == 3
    tone = cats["tone"]
    # E: 0+1+2+2+0+2+2 = 9; P: 0+0+1+0+2+0+2 = 5
    assert (tone["expected"], tone["produced"]) == (9, 5)
    assert tone["rates"]["net_loss"]["value"] == pytest.approx(4 / 9)
    assert t["overall"]["expected"] == 9 and t["overall"]["produced"] == 8
    assert "these recordings" in capsys.readouterr().out
    assert main(["diacritics", "--project", proj, "--run", "1", "--by", "dialect"]) == 2


def test_show_prints_and_carries_the_marks(run, capsys):
    proj, tmp = run
    out = tmp / "show.json"
    assert main(["show", "--project", proj, "--run", "1", "--item", "u2", "--json", str(out)]) == 0
    (rep,) = json.loads(out.read_text(encoding="utf-8"))
    d = rep["diacritics"]
    assert (d["expected"], d["produced"], d["dropped"]) == (2, 1, 1)
    assert [(e["kind"], e["letter"], e["mark_name"]) for e in d["edits"]] == [
        ("dropped", "à", "grave")
    ]
    assert main(["show", "--project", proj, "--run", "1", "--item", "u7"]) == 0
    text = capsys.readouterr().out
    assert "no diacritics in the reference (DER undefined): 3 added" in text
    assert "added dot below on ọ" in text
