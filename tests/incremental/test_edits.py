"""Adds, revokes and stabilisation on hand-made word-list sequences (METHODS.md §6)."""

from __future__ import annotations

import pytest

from fairdesk.incremental.edits import (
    count_stream,
    edit_counts,
    prefix_counts,
    stable_from,
    tokens,
)


def test_tokens_normalisation():
    words = ["Well-known", "U.S.", "Don\u2019t", "Hello!", "--", "7th", "co\u2014op"]
    assert tokens(words) == ["well", "known", "us", "don't", "hello", "7th", "co", "op"]


def test_prefix_counts_by_hand():
    assert prefix_counts([], ["a", "b"]) == (2, 0)
    assert prefix_counts(["a", "b"], ["a", "b", "c"]) == (1, 0)
    assert prefix_counts(["a", "b", "c"], ["a", "x", "c"]) == (2, 2)
    assert prefix_counts(["a", "b"], []) == (0, 2)


def test_stream_counts_and_identity():
    lists = [
        ["The"],
        ["the", "cat"],
        ["the", "bat", "sat"],
        ["The", "cat", "sat."],
    ]
    c = count_stream(lists)
    # prefix: (1,0), (1,0), k=1 -> (2,1), k=1 -> (2,2)
    assert c.adds == (1, 1, 2, 2)
    assert c.revokes == (0, 0, 1, 2)
    assert c.n_adds - c.n_revokes == len(c.final_tokens) == 3
    assert c.n_updates == 4
    assert c.n_updates_with_revoke == 2
    # edit distance: cat->bat + insert sat = (2,1); bat->cat = (1,1)
    assert c.adds_edit == (1, 1, 2, 1)
    assert c.revokes_edit == (0, 0, 1, 1)
    assert sum(c.adds_edit) - sum(c.revokes_edit) == 3


def test_prefix_and_edit_variants_differ_on_an_early_change():
    # one early word changes: the prefix count cascades over everything after it
    old, new = ["a", "b", "c", "d"], ["x", "b", "c", "d", "e"]
    assert prefix_counts(old, new) == (5, 4)
    assert edit_counts(old, new) == (2, 1)
    c = count_stream([old, new])
    assert c.n_revokes == 4 and sum(c.revokes_edit) == 1
    assert c.n_adds - c.n_revokes == sum(c.adds_edit) - sum(c.revokes_edit) == 5


def test_insertion_inside_is_a_revoke_only_for_the_prefix_count():
    c = count_stream([["a", "c"], ["a", "b", "c"]])
    assert c.n_revokes == 1  # "c" is no longer at position 2
    assert sum(c.revokes_edit) == 0  # the alignment only inserts "b"
    assert c.n_updates_with_revoke == 1 and c.n_updates_with_revoke_edit == 0


def test_empty_stream_and_words_without_tokens():
    c = count_stream([[], ["--"], ["ok"]])
    assert c.n_adds == 1 and c.n_revokes == 0 and c.final_tokens == ("ok",)


@pytest.mark.parametrize(
    "lists, expected",
    [
        ([["a"], ["a", "b"], ["a", "b", "c"]], [0, 1, 2]),
        ([["a", "x"], ["a", "b"], ["a", "b", "c"]], [0, 1, 2]),
        ([["a", "b"], ["z"], ["a", "b"]], [2, 2]),
        ([["a"], ["a", "b", "q"], ["a", "b"], ["a", "b"]], [0, 1]),
        ([["a"], []], []),
    ],
)
def test_stable_from(lists, expected):
    assert stable_from(lists) == expected
