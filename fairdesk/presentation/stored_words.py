"""Notes stored as sentences by fairdesk versions before coded notes.

A result stored before its area's notes were coded kept the sentence itself; decoding it
gives ``Notice("stored.sentence", {"text": ...})``, worded as it was stored. Codecs use it
only where the codes cannot be derived again from the stored numbers.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["TEXTS"]


def _sentence(text: str) -> str:
    return text


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {"stored.sentence": _sentence}
