"""Coded notes of statistics: what a result says beyond its numbers, as data.

Statistics never write a sentence (docs/METHODS.md; the presentation layer words every
note). A note is a :class:`Notice`: an enumerated ``code`` (``"area.name"``: the area
names the presentation module that words it, see
:func:`fairdesk.presentation.notices.notice_text`) and its context, named numbers and
names (``args``), JSON-ready. Each area keeps its codes as module constants next to the
statistics that raise them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdesk.core.jsonio import ResultJson

from ..core.jsonio import jsonable

__all__ = ["STORED_SENTENCE", "Notice", "note_json", "notice", "stored_notice"]


def _empty() -> Mapping[str, Any]:
    return {}


@dataclass(frozen=True)
class Notice:
    """One coded note: ``code`` (``"area.name"``) and its named context ``args`` (numbers,
    names, lists of them; NaN allowed, written null)."""

    code: str
    args: Mapping[str, Any] = field(default_factory=_empty)

    @property
    def area(self) -> str:
        """The part of ``code`` before the first dot (the presentation module's area)."""
        return self.code.split(".", 1)[0]

    def to_json(self) -> ResultJson:
        """``{"code": ..., "args": {...}}``, JSON-ready."""
        return ResultJson({"code": self.code, "args": jsonable(dict(self.args))})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Notice:
        """The inverse of :meth:`to_json` (lists stay lists, null stays None)."""
        return cls(code=str(data["code"]), args=dict(data.get("args") or {}))


def notice(code: str, **args: Any) -> Notice:
    """``Notice(code, args)`` written as a call: ``notice("minimums.too_few", k=3)``."""
    return Notice(code, args)


#: The code of a note an older version stored as its sentence (worded as it was stored).
STORED_SENTENCE = "stored.sentence"


def stored_notice(data: Any) -> Notice:
    """A note as a result's JSON holds it: a coded one (``{"code", "args"}``), or the
    sentence a version before the codes stored, kept as :data:`STORED_SENTENCE` (a
    :class:`Notice` is returned as it is). Decoders that know an old sentence's code read it
    first and fall back on this."""
    if isinstance(data, Notice):
        return data
    if isinstance(data, Mapping) and "code" in data:
        return Notice.from_json(data)
    return Notice(STORED_SENTENCE, {"text": str(data)})


def note_json(note: Notice) -> Any:
    """A coded note's JSON: ``{"code", "args"}``, or the sentence itself for a note an
    older run stored as its sentence, so that run writes back as it was stored."""
    if note.code == STORED_SENTENCE:
        return note.args["text"]
    return note.to_json()
