"""The add/revoke timeline of one stream (Whetten et al.'s Figure 1), as plain data.

For every update: the words added and revoked, and when. Words are compared as in
:mod:`fairdesk.incremental.edits` (normalised tokens), at word level: ``k`` = the number of
leading words of the old and new lists whose token lists are equal; the old list's words
from ``k`` on are *revoked*, the new list's words from ``k`` on are *added*. Each update is
shown at ``shown_s`` (the end of its decode on the computation clock) for the audio that had
arrived by ``arrival_s``. Word-level counts can differ from the token-level prefix counts of
the metrics only when one word gives several tokens ("well-known").
"""

from __future__ import annotations

from fairdesk.incremental.edits import common_prefix, word_tokens
from fairdesk.incremental.simulate import Simulation
from fairdesk.models.base import Word

__all__ = ["timeline"]


def _w(w: Word) -> list:
    return [w.text, w.start, w.end]


def timeline(sim: Simulation, stream: str = "displayed") -> dict:
    """``{"policy", "stream", "duration_s", "chunk_s", "events": [...], "final": [...]}``.

    Each event: ``update``, ``arrival_s``, ``shown_s``, ``is_flush``, ``n_words``,
    ``n_committed``, ``added`` (``[text, start, end]`` per word), ``revoked`` (the same for
    the words taken back) and ``position`` (the index of the first changed word).
    """
    events: list[dict] = []
    prev: tuple[Word, ...] = ()
    for u, words in zip(sim.updates, sim.stream(stream)):
        k = common_prefix(word_tokens(prev), word_tokens(words))
        events.append(
            {
                "update": u.index,
                "arrival_s": u.arrival_s,
                "shown_s": u.end_s,
                "is_flush": u.is_flush,
                "n_words": len(words),
                "n_committed": u.n_committed if stream == "displayed" else len(words),
                "position": k,
                "added": [_w(w) for w in words[k:]],
                "revoked": [_w(w) for w in prev[k:]],
            }
        )
        prev = words
    return {
        "policy": sim.policy,
        "stream": stream,
        "duration_s": sim.duration_s,
        "chunk_s": sim.chunk_s,
        "events": events,
        "final": [_w(w) for w in prev],
    }
