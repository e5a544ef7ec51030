"""Adds, revokes and stabilisation of a stream of word lists (docs/METHODS.md, "Incremental stability").

A *stream* is the sequence of full word lists an incremental recogniser shows, one per
update. Consecutive lists are compared on *normalised tokens*:

* :func:`tokens` -- lower case, hyphens and dashes become spaces, only letters, digits and
  apostrophes are kept (every other character is removed), split on whitespace. A word may
  give several tokens ("well-known" -> "well", "known") or none ("--").
* **prefix counts** (the headline definition): with ``k`` = the longest common prefix of the
  old and new token lists, ``revokes = |old| - k`` and ``adds = |new| - k``. Starting from
  the empty list, ``sum(adds) - sum(revokes)`` is the final token count (checked).
* **edit-distance counts**: an alignment of old to new from rapidfuzz's Levenshtein
  ``editops`` (unit costs); ``revokes = deletions + substitutions``,
  ``adds = insertions + substitutions`` (also sums to the final count). The prefix count
  cascades: one changed early word revokes everything after it, the alignment does not.
* **stabilisation**: final token ``i`` is stable from the first update ``u`` after which every
  list starts with the final list's first ``i + 1`` tokens; its stabilisation time is when
  update ``u`` was shown (the end of its decode on the computation clock).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

__all__ = [
    "StreamCounts",
    "common_prefix",
    "count_stream",
    "edit_counts",
    "prefix_counts",
    "stable_from",
    "tokens",
    "word_tokens",
]

_DASHES = re.compile(r"[-\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_APOSTROPHES = re.compile(r"[\u2019\u2018\u02bc`]")


def _norm_word(text: str) -> str:
    s = _APOSTROPHES.sub("'", _DASHES.sub(" ", str(text).lower()))
    return "".join(c for c in s if c.isalnum() or c == "'" or c.isspace())


def tokens(words) -> list[str]:
    """Normalised tokens of a word list (strings, or objects with a ``text`` attribute)."""
    out: list[str] = []
    for w in words:
        out.extend(_norm_word(getattr(w, "text", w)).split())
    return out


def word_tokens(words) -> list[list[str]]:
    """The normalised tokens of each word, one list per word (possibly empty)."""
    return [_norm_word(getattr(w, "text", w)).split() for w in words]


def common_prefix(a: Sequence[object], b: Sequence[object]) -> int:
    """Length of the longest common prefix of two token lists (or of two lists of words'
    token lists)."""
    k = 0
    for x, y in zip(a, b):
        if x != y:
            break
        k += 1
    return k


def prefix_counts(old: Sequence[str], new: Sequence[str]) -> tuple[int, int]:
    """``(adds, revokes)`` between two token lists by the longest common prefix."""
    k = common_prefix(old, new)
    return len(new) - k, len(old) - k


def edit_counts(old: Sequence[str], new: Sequence[str]) -> tuple[int, int]:
    """``(adds, revokes)`` from rapidfuzz's Levenshtein alignment of ``old`` to ``new``:
    adds = insertions + substitutions, revokes = deletions + substitutions."""
    ins = dels = subs = 0
    for op in Levenshtein.editops(list(old), list(new)):
        if op.tag == "insert":
            ins += 1
        elif op.tag == "delete":
            dels += 1
        else:
            subs += 1
    return ins + subs, dels + subs


@dataclass(frozen=True)
class StreamCounts:
    """Edit counts of one stream (every update, the first against the empty list).

    Attributes
    ----------
    n_updates : lists compared (one per update).
    adds, revokes : prefix counts, per update.
    adds_edit, revokes_edit : edit-distance counts, per update.
    final_tokens : the last list's tokens.
    """

    n_updates: int
    adds: tuple[int, ...]
    revokes: tuple[int, ...]
    adds_edit: tuple[int, ...]
    revokes_edit: tuple[int, ...]
    final_tokens: tuple[str, ...]

    @property
    def n_adds(self) -> int:
        return sum(self.adds)

    @property
    def n_revokes(self) -> int:
        return sum(self.revokes)

    @property
    def n_updates_with_revoke(self) -> int:
        return sum(1 for r in self.revokes if r > 0)

    @property
    def n_updates_with_revoke_edit(self) -> int:
        return sum(1 for r in self.revokes_edit if r > 0)


def count_stream(word_lists: Sequence[Sequence]) -> StreamCounts:
    """Prefix and edit-distance adds/revokes of a stream of word lists.

    Raises
    ------
    AssertionError
        If ``sum(adds) - sum(revokes)`` differs from the final token count (either variant);
        that can only be a bug.
    """
    prev: list[str] = []
    adds, revs, adds_e, revs_e = [], [], [], []
    for words in word_lists:
        cur = tokens(words)
        a, r = prefix_counts(prev, cur)
        ae, re_ = edit_counts(prev, cur)
        adds.append(a)
        revs.append(r)
        adds_e.append(ae)
        revs_e.append(re_)
        prev = cur
    assert sum(adds) - sum(revs) == len(prev), "prefix adds - revokes != final token count"
    assert sum(adds_e) - sum(revs_e) == len(prev), "edit adds - revokes != final token count"
    return StreamCounts(
        len(adds), tuple(adds), tuple(revs), tuple(adds_e), tuple(revs_e), tuple(prev)
    )


def stable_from(token_lists: Sequence[Sequence[str]]) -> list[int]:
    """For each token of the last list, the first update index from which it is stable.

    Token ``i`` is stable from update ``u`` when every list ``v >= u`` starts with the last
    list's first ``i + 1`` tokens. An empty stream or final list gives ``[]``.
    """
    if not token_lists:
        return []
    final = list(token_lists[-1])
    lcps = [common_prefix(t, final) for t in token_lists]
    # token i (1-based j = i + 1) is stable after the last update whose prefix is shorter
    return [
        1 + max((v for v, k in enumerate(lcps) if k < j), default=-1)
        for j in range(1, len(final) + 1)
    ]
