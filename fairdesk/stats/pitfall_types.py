"""The typed results of the audit pitfalls' statistics (docs/METHODS.md, "Audit pitfalls"):
a comparison recomputed without the hallucination-flagged items
(:class:`WithoutFlagged`, ``Comparison.without_flagged``) and the coded reasons of a
verdict that could not be recomputed without them, worded by
:mod:`fairdesk.presentation.pitfalls`."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from fairdesk.core.jsonio import ResultJson, json_number
from fairdesk.stats.notices import Notice, notice, stored_notice

__all__ = [
    "DominantItem",
    "NOT_COMPARED",
    "NOT_RECOMPUTED_ALL",
    "NOT_RECOMPUTED_REFERENCE",
    "NOT_RECOMPUTED_REFUSED",
    "OVER_NONSPEECH_NOT_CHECKED",
    "REASON_ALL_FLAGGED",
    "REASON_EXCLUDED",
    "REASON_REFERENCE_FLAGGED",
    "REASON_REFUSED",
    "WithoutFlagged",
    "stored_note",
]

#: A comparison's reason: every item of the run is flagged (no args).
REASON_ALL_FLAGGED = "pitfalls.all_flagged"
#: A comparison's reason: every item of the reference group is flagged (arg ``reference``).
REASON_REFERENCE_FLAGGED = "pitfalls.reference_flagged"
#: A comparison's reason: the group was not compared without the flagged items.
NOT_COMPARED = "pitfalls.not_compared"
#: A comparison's reason: its group was excluded without the flagged items (arg ``text``:
#: the exclusion's reason as the statistics gave it).
REASON_EXCLUDED = "pitfalls.excluded"
#: Nothing recomputed: the statistics refused the unflagged items (arg ``text``: their
#: message).
REASON_REFUSED = "pitfalls.refused"
#: Nothing recomputed: the statistics refused the unflagged items (arg ``text``: their
#: message), as the pitfalls block says it.
NOT_RECOMPUTED_REFUSED = "pitfalls.not_recomputed_refused"
#: Nothing recomputed: every item of the run is flagged (arg ``n_items``).
NOT_RECOMPUTED_ALL = "pitfalls.not_recomputed_all"
#: Nothing recomputed: every item of the reference is flagged (args ``reference``,
#: ``n_reference``).
NOT_RECOMPUTED_REFERENCE = "pitfalls.not_recomputed_reference"
#: The over-non-speech flag was not checked (no word times, or no audio).
OVER_NONSPEECH_NOT_CHECKED = "pitfalls.over_nonspeech_not_checked"


_LONG_ALL = re.compile(
    r"not recomputed: every item of the run \((?P<n>\d+)\) is flagged as a possible "
    r"hallucination, so there are no unflagged items to recompute the verdicts on; read the "
    r"transcripts before trusting any verdict \(the model may loop or run on for every "
    r"input\)"
)
_LONG_REFERENCE = re.compile(
    r"not recomputed: every item of the reference group (?P<ref>'.*'|\".*\") \((?P<n>\d+)\) "
    r"is flagged as a possible hallucination, so without the flagged items there is no "
    r"reference to compare with; read its transcripts before trusting its verdicts"
)
_SHORT_REFERENCE = re.compile(r"every item of the reference group (?P<ref>'.*'|\".*\") is flagged")
_CONSTANT = {
    "every item is flagged": REASON_ALL_FLAGGED,
    "not compared": NOT_COMPARED,
    "over_nonspeech: the backend gives no word times (or the audit had no audio)": (
        OVER_NONSPEECH_NOT_CHECKED
    ),
}


def stored_note(data: Any) -> Notice | None:
    """A note as stored: a coded note (``{"code", "args"}``) as it is; a sentence stored by
    a version before the coded notes as its code with its numbers where it is one of the
    pitfalls' (else kept as a stored sentence, worded as it was); None stays None."""
    if data is None:
        return None
    if isinstance(data, Notice) or (isinstance(data, Mapping) and "code" in data):
        return stored_notice(data)
    text = str(data)
    if text in _CONSTANT:
        return notice(_CONSTANT[text])
    m = _LONG_ALL.fullmatch(text)
    if m is not None:
        return notice(NOT_RECOMPUTED_ALL, n_items=int(m["n"]))
    m = _LONG_REFERENCE.fullmatch(text)
    if m is not None:
        ref = ast.literal_eval(m["ref"])
        return notice(NOT_RECOMPUTED_REFERENCE, reference=ref, n_reference=int(m["n"]))
    m = _SHORT_REFERENCE.fullmatch(text)
    if m is not None:
        return notice(REASON_REFERENCE_FLAGGED, reference=ast.literal_eval(m["ref"]))
    return stored_notice(text)


@dataclass(frozen=True)
class WithoutFlagged:
    """A tested comparison recomputed without the hallucination-flagged items.

    Attributes
    ----------
    recomputed : whether it was (False: ``reason`` says why not; no numbers then).
    verdict : its verdict without them (None where not recomputed).
    gap, ci_low, ci_high, p_adjusted : its numbers without them (None where undefined).
    reason : why it was not recomputed (a coded note; None where it was).
    n_flagged_group, n_flagged_reference : the flagged items in the group and the
        reference (None where nothing was recomputed for the run: not written then).
    """

    JSON_CODEC: ClassVar[bool] = True

    recomputed: bool
    verdict: str | None = None
    gap: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_adjusted: float | None = None
    reason: Notice | None = None
    n_flagged_group: int | None = None
    n_flagged_reference: int | None = None

    def to_json(self) -> ResultJson:
        """As stored in a comparison (``without_flagged``): ``verdict, gap, ci_low,
        ci_high, p_adjusted`` where recomputed, else ``verdict`` null and the ``reason``
        (coded); then the flagged counts."""
        out: dict[str, Any]
        if self.recomputed:
            out = {
                "verdict": self.verdict,
                "gap": json_number(self.gap),
                "ci_low": json_number(self.ci_low),
                "ci_high": json_number(self.ci_high),
                "p_adjusted": json_number(self.p_adjusted),
            }
        else:
            out = {
                "verdict": None,
                "reason": None if self.reason is None else self.reason.to_json(),
            }
        if self.n_flagged_group is not None:
            out["n_flagged_group"] = int(self.n_flagged_group)
        if self.n_flagged_reference is not None:
            out["n_flagged_reference"] = int(self.n_flagged_reference)
        return ResultJson(out)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WithoutFlagged:
        """The inverse of :meth:`to_json`; a reason stored as a sentence by an earlier
        version is kept as a stored sentence."""

        def num(key: str) -> float | None:
            v = data.get(key)
            return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

        recomputed = "reason" not in data and data.get("verdict") is not None
        return cls(
            recomputed=recomputed,
            verdict=None if data.get("verdict") is None else str(data["verdict"]),
            gap=num("gap"),
            ci_low=num("ci_low"),
            ci_high=num("ci_high"),
            p_adjusted=num("p_adjusted"),
            reason=None if recomputed else stored_note(data.get("reason")),
            n_flagged_group=_count(data.get("n_flagged_group")),
            n_flagged_reference=_count(data.get("n_flagged_reference")),
        )


def _count(x: Any) -> int | None:
    return None if x is None else int(x)


def _num(x: Any) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


@dataclass(frozen=True)
class DominantItem:
    """The utterance that carries a group's word errors
    (:func:`fairdesk.stats.pitfalls.dominant_items`; ``GroupInfo.wer_dominated_by``).

    Attributes
    ----------
    item : the utterance's item id.
    errors : its word errors (S+D+I); group_errors : the group's; share : their ratio.
    wer, wer_without_item : the group's pooled WER with and without the utterance (None
        where undefined).
    """

    JSON_CODEC: ClassVar[bool] = True

    item: str
    errors: int
    group_errors: int
    share: float | None
    wer: float | None = None
    wer_without_item: float | None = None

    def to_json(self) -> ResultJson:
        """``item, errors, group_errors, share, wer, wer_without_item`` (NaN as null)."""
        return ResultJson(
            {
                "item": self.item,
                "errors": int(self.errors),
                "group_errors": int(self.group_errors),
                "share": json_number(self.share),
                "wer": json_number(self.wer),
                "wer_without_item": json_number(self.wer_without_item),
            }
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DominantItem:
        """The inverse of :meth:`to_json`."""
        return cls(
            item=str(data.get("item")),
            errors=int(data.get("errors") or 0),
            group_errors=int(data.get("group_errors") or 0),
            share=_num(data.get("share")),
            wer=_num(data.get("wer")),
            wer_without_item=_num(data.get("wer_without_item")),
        )
