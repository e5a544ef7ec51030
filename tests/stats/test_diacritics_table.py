"""Seed 003's per-category table: counts by hand, CIs against an independent numpy bootstrap."""

from __future__ import annotations

import json
import unicodedata

import numpy as np
import pandas as pd
import pytest

from fairdesk.presentation.diacritics_words import format_table, table_json
from fairdesk.stats.diacritics_table import diacritic_table

# References from seed 003's own examples (akwa/akwà/àkwà/ákwá, oke/òkè/ọkè, the monotone
# "O na-eri oji n'ututu"); hypotheses are made-up recogniser outputs.
ROWS = [
    ("akwà àkwà", "akwa àkwà", "tone"),  # E 3, P 2
    ("ákwá", "akwa", "tone"),  # E 2, P 0
    ("òkè ọkè", "òkè ọkè", "tone"),  # E 4 (ò, è, ọ, è), P 4
    ("oke", "òkè", "tone"),  # E 0, P 2 (no-diacritic item inside a tonal category)
    ("O na-eri oji n'ututu", "Ọ na-eri ọjị n'ụtụtụ", "monotone"),  # E 0, P 6
    ("O na-eri oji n'ututu", "O na-eri oji n'ututu", "monotone"),  # E 0, P 0
    ("akwa", "ákwà", "monotone"),  # E 0, P 2
]


def _frame():
    return pd.DataFrame(ROWS, columns=["reference", "hypothesis", "category"])


def _marked(text, marks=False):
    """Independent count: letters followed by combining marks (or the marks) in NFD."""
    nfd = unicodedata.normalize("NFD", text.lower())
    n = 0
    prev_letter = False
    for i, c in enumerate(nfd):
        if unicodedata.combining(c):
            if prev_letter and (marks or not unicodedata.combining(nfd[i - 1])):
                n += 1
        else:
            prev_letter = c.isalpha()
    return n


def _letters(text):
    return sum(1 for c in unicodedata.normalize("NFD", text) if c.isalpha())


def _numpy_bootstrap(E, P, B, seed):
    """Utterance bootstrap of the pooled net loss, written from scratch."""
    rng = np.random.default_rng(seed)
    n = len(E)
    # fairdesk draws block indices as 16-bit integers below 32,768 blocks (draw_counts)
    idx = rng.integers(0, n, size=(B, n), dtype=np.int16)
    e, p = E[idx].sum(axis=1), P[idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = (e - p) / e
    loss = loss[np.isfinite(loss)]
    return np.percentile(loss, [2.5, 97.5]), loss.mean()


def test_counts_and_rates_by_hand():
    t = table_json(diacritic_table(_frame(), "category", n_bootstrap=2000, seed=3))
    cats = {c["category"]: c for c in t["categories"]}
    tone = cats["tone"]
    assert (tone["expected"], tone["produced"], tone["n_items"]) == (9, 8, 4)
    # D per item: 1, 2, 0, 0 ; H per item: 0, 0, 0, 2
    assert (tone["dropped"], tone["added"]) == (3, 2)
    assert tone["rates"]["net_loss"]["value"] == pytest.approx(1 / 9)
    assert tone["rates"]["rdd"]["value"] == pytest.approx(3 / 9)
    assert tone["rates"]["der"]["value"] == pytest.approx(5 / 9)
    assert tone["items_without_diacritics"] == 1
    assert tone["added_on_items_without_diacritics"] == 2
    mono = cats["monotone"]
    assert mono["no_diacritics"] and mono["expected"] == 0
    assert mono["rates"]["net_loss"]["value"] is None  # DER/loss undefined without E
    assert mono["added"] == 6 + 0 + 2
    letters = sum(_letters(r) for r, _, c in ROWS if c == "monotone")
    assert mono["letters"] == letters
    assert mono["rates"]["added_per_100_letters"]["value"] == pytest.approx(800 / letters)
    ov = t["overall"]
    assert (ov["expected"], ov["produced"]) == (9, 8 + 8)
    assert ov["rates"]["net_loss"]["value"] == pytest.approx((9 - 16) / 9)
    assert "these recordings" in t["scheme_reading"]
    lines = "\n".join(format_table(t))
    assert "no diacritics in the references: 8 added" in lines


def test_counts_match_independent_count_in_both_modes():
    for count, marks in (("letters", False), ("marks", True)):
        t = diacritic_table(_frame(), "category", count=count, n_bootstrap=200)
        for c in t["categories"]:
            sub = [r for r in ROWS if r[2] == c["category"]]
            assert c["expected"] == sum(_marked(r, marks) for r, _, _ in sub)
            assert c["produced"] == sum(_marked(h, marks) for _, h, _ in sub)
    t = diacritic_table(
        pd.DataFrame([("ọ̀kọ̀", "ọkọ", "x")] * 2, columns=["reference", "hypothesis", "category"]),
        "category",
        count="marks",
        n_bootstrap=200,
    )
    assert t["categories"][0]["expected"] == 8  # ọ̀ = dot below + grave, twice per word


def test_ci_matches_independent_numpy_bootstrap():
    rng = np.random.default_rng(11)
    words = ["àkwà", "ákwá", "akwà", "òkè", "ọkè", "oke", "akwa"]
    refs, hyps = [], []
    for _ in range(21):
        ws = list(rng.choice(words, size=rng.integers(2, 6)))
        refs.append(" ".join(ws))
        hyps.append(
            " ".join(
                w
                if rng.random() < 0.5
                else "".join(
                    ch for ch in unicodedata.normalize("NFD", w) if not unicodedata.combining(ch)
                )
                for w in ws
            )
        )
    f = pd.DataFrame({"reference": refs, "hypothesis": hyps, "category": "tone"})
    B, seed = 10_000, 5
    t = diacritic_table(f, "category", n_bootstrap=B, seed=seed)
    E = np.array([_marked(r) for r in refs], dtype=float)
    P = np.array([_marked(h) for h in hyps], dtype=float)
    (lo, hi), mean = _numpy_bootstrap(E, P, B, seed)
    got = t["categories"][0]["rates"]["net_loss"]
    assert got["value"] == pytest.approx((E.sum() - P.sum()) / E.sum())
    assert got["ci"] == pytest.approx([lo, hi], abs=1e-12)
    assert got["bootstrap_mean"] == pytest.approx(mean, abs=1e-12)
    assert got["n_replicates"] == B
    assert lo < got["value"] < hi


def test_cli_table_json_and_count(tmp_path, capsys):
    from fairdesk.cli import main

    src = tmp_path / "items.csv"
    _frame().to_csv(src, index=False)
    out = tmp_path / "t.json"
    assert (
        main(
            [
                "diacritics",
                "--table",
                str(src),
                "--by",
                "category",
                "--count",
                "marks",
                "--n-bootstrap",
                "500",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["settings"]["count"] == "marks"
    assert {c["category"] for c in data["categories"]} == {"tone", "monotone"}
    printed = capsys.readouterr().out
    assert "monotone" in printed and "per 100 letters" in printed
    assert main(["diacritics", "--table", str(src), "--by", "nope"]) == 2


def test_bad_requests():
    with pytest.raises(ValueError, match="category column"):
        diacritic_table(_frame().drop(columns="category"), "category")
    with pytest.raises(ValueError, match="200-20,000"):
        diacritic_table(_frame(), "category", n_bootstrap=50)
