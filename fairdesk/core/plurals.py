"""A count with its noun, singular for one: the one plural rule of every message and view.

It lives below every layer that writes a count into a sentence (the notes of ``jobs`` and
``stats``, the views of ``presentation``, which re-exports it), so none says ``1 items``.
"""

from __future__ import annotations

import math

__all__ = ["count", "plural", "verb"]


def plural(n, noun: str, many: str | None = None) -> str:
    """``noun`` for a count of one, else its plural (``many``, default ``noun + "s"``)."""
    return noun if int(n) == 1 else (many or f"{noun}s")


def count(n, noun: str, many: str | None = None, missing: str = "–") -> str:
    """A count with its noun: ``1 item``, ``2 items``, ``1,234 words``; ``– items`` (with
    ``missing``) when ``n`` is None, NaN, infinite or not a number.

    Parameters
    ----------
    n : the count.
    noun : the singular noun.
    many : the plural, when it is not ``noun + "s"`` (``"analyses"``).
    missing : the text of a missing count.
    """
    try:
        x = float(n)
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x):
        return f"{missing} {many or noun + 's'}"
    k = int(x)
    return f"{k:,} {plural(k, noun, many)}"


def verb(n, one: str, many: str) -> str:
    """The verb that agrees with a count: ``one`` for 1 (``was``), else ``many`` (``were``)."""
    return one if int(n) == 1 else many
