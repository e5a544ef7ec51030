"""On the embedded demo (matched): word positions and model-side phone confusion per accent."""

from __future__ import annotations

import json

import pytest

from fairdesk.cli import main
from fairdesk.core.demo import open_demo
from fairdesk.core.store import Project


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    p = Project(tmp_path_factory.mktemp("demo") / "proj")
    open_demo(p)
    return p


def test_demo_audit_has_word_positions_and_phone_confusion(demo, tmp_path):
    items = demo.items(demo.dataset("demo"))
    # imported predictions: every accent is heard right except en-gb-scotland, whose
    # "play" is always heard "pay" (P L EY -> P EY: L deleted)
    lines = ["item_id,text"]
    for i, t, a in zip(items["id"], items["text"], items["accent"], strict=True):
        hyp = t.replace("play", "pay") if a == "en-gb-scotland" else t
        lines.append(f'{i},"{hyp}"')
    preds = tmp_path / "p.csv"
    preds.write_text("\n".join(lines) + "\n")
    out = tmp_path / "a.json"
    code = main(
        [
            "audit",
            "--project",
            str(demo.folder),
            "--dataset",
            "demo",
            "--model",
            f"predictions:{preds}",
            "--by",
            "accent",
            "--sample",
            "40",
            "--n-bootstrap",
            "200",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    res = json.loads(out.read_text())
    assert res["design"] == "matched"
    wp = res["word_positions"]
    assert wp and all(len(set(v["groups"])) == 6 for v in wp.values())
    with_play = [v for v in wp.values() if "play" in v["words"]]
    assert with_play
    for v in with_play:
        k = v["words"].index("play")
        assert v["groups"]["en-gb-scotland"][k] == 1.0 and v["groups"]["en-us"][k] == 0.0
        assert all(
            r == 0.0 for g, rates in v["groups"].items() if g != "en-gb-scotland" for r in rates
        )
    pc = res["phone_confusion"]["groups"]
    assert set(pc) == set(items["accent"])
    top = pc["en-gb-scotland"]["top"][0]
    assert (top["ref"], top["hyp"]) == ("L", "-")
    assert pc["en-us"]["n_errors"] == 0
    # the report shows both (a section of its own)
    html = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                "--project",
                str(demo.folder),
                "--run",
                str(res["run_id"]),
                "--html",
                str(html),
            ]
        )
        == 0
    )
    text = html.read_text()
    assert 'id="phones"' in text and "Word-position errors" in text
    assert "Phone confusions of the model" in text and "L→- ×" in text
