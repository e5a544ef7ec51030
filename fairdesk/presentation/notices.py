"""Every coded note of statistics (:class:`fairdesk.stats.notices.Notice`) in words.

A note's code is ``"area.name"``; :data:`AREAS` maps each area to the presentation module
that words it. Such a module defines ``TEXTS``: code → function of the note's ``args``
(keyword arguments) returning the sentence. Every view (console, GUI, HTML/PDF report,
exports, ``--json``, the API) calls :func:`notice_text`, so a note reads the same
everywhere, and a stored result is worded with today's words.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..stats.notices import Notice

__all__ = ["AREAS", "notice_text", "notice_texts"]

#: area → the presentation module (relative to this package) whose ``TEXTS`` words it.
AREAS: dict[str, str] = {
    "stored": ".stored_words",
    "estimability": ".estimability_words",
    "minimums": ".minimums_words",
    "interval": ".interval_words",
    "diacritics": ".diacritics_words",
    "representation": ".representation_words",
    "poisson": ".regression_poisson_words",
    "incremental": ".incremental",
    "regression": ".regression_notes",
    "run": ".run_notes",
    "plans": ".plans",
    "systems": ".systems",
    "pitfalls": ".pitfalls",
    "sensitivity": ".sensitivity_words",
    "bootstrap": ".bootstrap_words",
}


def _texts(area: str) -> Mapping[str, Callable[..., str]]:
    module = AREAS.get(area)
    if module is None:
        raise KeyError(f"no presentation module words notes of area {area!r}")
    texts: Mapping[str, Callable[..., str]] = importlib.import_module(module, __package__).TEXTS
    return texts


def notice_text(note: Notice) -> str:
    """The sentence of one coded note."""
    words = _texts(note.area).get(note.code)
    if words is None:
        raise KeyError(f"no words for the note code {note.code!r}")
    return words(**dict(note.args))


def notice_texts(notes: Iterable[Notice | Any]) -> list[str]:
    """The sentences of several notes, in order."""
    return [notice_text(n) for n in notes]
