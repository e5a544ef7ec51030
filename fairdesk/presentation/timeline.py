"""The add/revoke timeline of one streamed item (the incremental stage), as points."""

from __future__ import annotations

from ..incremental.result_parts import Timeline


def timeline_points(tl: Timeline) -> tuple[list, list]:
    """``(adds, revokes)``: ``(time, position, text)`` per added / revoked word.

    Parameters
    ----------
    tl : a timeline (its ``events``: ``shown_s``, ``position``, ``added`` and ``revoked``
        words as ``(text, start, end)``).

    Returns
    -------
    tuple of lists
        A word revoked at an update sits at its old position.
    """
    adds, revs = [], []
    for e in tl.events:
        t, k = float(e.shown_s), int(e.position)
        for i, w in enumerate(e.revoked):
            revs.append((t, k + i, str(w[0])))
        for i, w in enumerate(e.added):
            adds.append((t, k + i, str(w[0])))
    return adds, revs
