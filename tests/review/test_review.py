"""Reviewing failures: the ranking and the item report shared by ``fairdesk show`` and the GUI."""

from __future__ import annotations

import pandas as pd

from fairdesk.review import item_report, rank_failures


def test_rank_failures_worst_error_rate_then_em_failures_then_error_count():
    df = pd.DataFrame(
        {
            "id": ["a", "b", "c", "d", "e"],
            "n_sub": [1, 0, 2, 0, 0],
            "n_del": [0, 0, 0, 0, 0],
            "n_ins": [0, 0, 2, 0, 0],
            "n_words": [2, 4, 8, 4, 4],
            "em": [1, 0, 1, 1, None],
        }
    )
    # error rates: a 0.5, c 0.5 (4 errors), b 0, d 0, e 0; b fails EM
    assert rank_failures(df)["id"].tolist() == ["c", "a", "b", "d", "e"]


def test_item_report_counts_alignment_and_slots():
    row = {
        "id": "u1",
        "group": "g",
        "reference": "play the song by queen",
        "hypothesis": "play a song by",
        "n_sub": 1,
        "n_del": 1,
        "n_ins": 0,
        "n_words": 5,
        "ref_intent": "PlayMusic",
        "hyp_intent": "PlayMusic",
        "em": 0,
        "ref_slots": {"artist": "queen"},
        "hyp_slots": {},
    }
    rep = item_report(row)
    assert (rep["errors"], rep["substitutions"], rep["deletions"], rep["insertions"]) == (
        2,
        1,
        1,
        0,
    )
    assert "REF:" in rep["alignment"] and "HYP:" in rep["alignment"]
    assert rep["slots"] == [
        {"slot": "artist", "status": "missed", "reference": "queen", "hypothesis": None}
    ]
