"""Several systems' hypotheses aligned side by side on the reference words."""

from __future__ import annotations

from fairdesk.review.report import word_alignment
from fairdesk.review.systems_align import systems_alignment


def test_each_system_keeps_its_own_alignment_on_the_shared_reference_words():
    ref = "play the song now"
    hyps = {"A": "play a song", "B": "please play the song now"}
    cols, counts = systems_alignment(ref, hyps)
    assert [c.ref for c in cols] == ["", "play", "the", "song", "now"]
    assert cols[0].words == {"A": "", "B": "please"} and cols[0].ops == {"A": "", "B": "I"}
    assert [c.ops["A"] for c in cols[1:]] == ["=", "S", "=", "D"]
    assert [c.words["A"] for c in cols[1:]] == ["play", "a", "song", ""]
    assert [c.ops["B"] for c in cols[1:]] == ["=", "=", "=", "="]
    # the counts are those of the one alignment each run's WER counted
    for n, h in hyps.items():
        assert counts[n] == word_alignment(ref, h).counts()
    assert counts == {"A": {"S": 1, "D": 1, "I": 0}, "B": {"S": 0, "D": 0, "I": 1}}


def test_insertions_of_two_systems_at_one_place_share_columns_and_the_end_is_kept():
    cols, counts = systems_alignment("go home", {"A": "go red red home", "B": "go big home ok"})
    assert [c.ref for c in cols] == ["go", "", "", "home", ""]
    assert [c.words["A"] for c in cols] == ["go", "red", "red", "home", ""]
    assert [c.words["B"] for c in cols] == ["go", "big", "", "home", "ok"]
    assert counts["A"]["I"] == 2 and counts["B"]["I"] == 2
    empty, c2 = systems_alignment("", {"A": "noise", "B": ""})
    assert [c.words for c in empty] == [{"A": "noise", "B": ""}] and c2["A"]["I"] == 1
