"""How the audit pitfalls read (docs/METHODS.md, "Audit pitfalls"): the words of their coded
notes (:data:`TEXTS`, area ``pitfalls``), why a comparison was not recomputed without the
flagged items, and the ``--json`` form that writes those words where earlier versions
stored them (:func:`pitfalls_json`). Pure: takes the typed run."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..stats.pitfall_types import (
    NOT_COMPARED,
    NOT_RECOMPUTED_ALL,
    NOT_RECOMPUTED_REFERENCE,
    NOT_RECOMPUTED_REFUSED,
    OVER_NONSPEECH_NOT_CHECKED,
    REASON_ALL_FLAGGED,
    REASON_EXCLUDED,
    REASON_REFERENCE_FLAGGED,
    REASON_REFUSED,
)
from .notices import notice_text
from .numbers import fmt_sig, number

__all__ = [
    "TEXTS",
    "evidence_line",
    "evidence_lines",
    "note_text",
    "pitfalls_json",
    "without_flagged_json",
]

#: The words of the pitfalls' coded notes (:mod:`fairdesk.presentation.notices`).
TEXTS: dict[str, Callable[..., str]] = {
    REASON_ALL_FLAGGED: lambda: "every item is flagged",
    REASON_REFERENCE_FLAGGED: lambda reference: (
        "every item of the reference group " + repr(reference) + " is flagged"
    ),
    NOT_COMPARED: lambda: "not compared",
    REASON_EXCLUDED: lambda text: str(text),
    REASON_REFUSED: lambda text: str(text),
    NOT_RECOMPUTED_REFUSED: lambda text: "not recomputed: " + str(text),
    NOT_RECOMPUTED_ALL: lambda n_items: (
        "not recomputed: every item of the run ("
        + str(n_items)
        + ") is flagged as a possible hallucination, so there are no unflagged items to "
        "recompute the verdicts on; read the transcripts before trusting any verdict (the "
        "model may loop or run on for every input)"
    ),
    NOT_RECOMPUTED_REFERENCE: lambda reference, n_reference: (
        "not recomputed: every item of the reference group "
        + repr(reference)
        + " ("
        + str(n_reference)
        + ") is flagged as a possible hallucination, so without the flagged items there is "
        "no reference to compare with; read its transcripts before trusting its verdicts"
    ),
    OVER_NONSPEECH_NOT_CHECKED: lambda: (
        "over_nonspeech: the backend gives no word times (or the audit had no audio)"
    ),
}


def note_text(note) -> str | None:
    """A pitfalls note (a reason, ``not_checked``) in words; None without one."""
    return None if note is None else notice_text(note)


def without_flagged_json(wf) -> dict[str, Any]:
    """A comparison's ``without_flagged`` as ``--json`` and the exports write it: its
    stored form with the reason in words."""
    out = wf.to_json()
    if "reason" in out:
        out["reason"] = note_text(wf.reason)
    return out


def pitfalls_json(payload: Mapping[str, Any], run) -> dict[str, Any]:
    """A run's JSON (``AuditRun.to_json``) with the pitfalls' notes in today's words where
    earlier versions stored sentences: each comparison's ``without_flagged`` reason, the
    block's ``verdicts_without_flagged`` reasons and ``not_checked``."""
    out = dict(payload)
    comps = payload.get("comparisons")
    if isinstance(comps, list) and len(comps) == len(run.comparisons):
        rows = []
        for entry, c in zip(comps, run.comparisons, strict=True):
            if isinstance(entry, Mapping) and c.without_flagged is not None:
                entry = {**entry, "without_flagged": without_flagged_json(c.without_flagged)}
            rows.append(entry)
        out["comparisons"] = rows
    block, typed = payload.get("pitfalls"), run.pitfalls
    if isinstance(block, Mapping) and typed is not None:
        block = dict(block)
        changes = block.get("verdicts_without_flagged")
        if isinstance(changes, list):
            block["verdicts_without_flagged"] = [
                {**row, "reason": note_text(c.reason)}
                for row, c in zip(changes, typed.verdicts_without_flagged, strict=True)
            ]
        if "not_checked" in block:
            block["not_checked"] = note_text(typed.not_checked)
        out["pitfalls"] = block
    return out


def evidence_line(evidence: Mapping[str, Any]) -> str:
    """One hallucination evidence record of an item in words (``fairdesk show``, the item
    view, the review report): ``loop: "and then" x6 in a row from word 9 (0x in the
    reference)``."""
    e = evidence
    f = e.get("flag")
    if f == "loop":
        return (
            'loop: "' + str(e["ngram"]) + '" x' + str(e["repeats"]) + " in a row from word "
            + str(e["start_word"] + 1) + " (" + str(e["repeats_in_reference"])
            + "x in the reference)"
        )  # fmt: skip
    if f == "runaway":
        return (
            "runaway: " + str(e["hyp_words"]) + " hypothesis words for " + str(e["ref_words"])
            + " reference words (limit " + fmt_sig(e["limit"], 6) + ")"
        )  # fmt: skip
    if f == "over_nonspeech":
        a, b = e["nonspeech"]
        return (
            'over non-speech: "' + str(e["word"]) + '" at ' + number(e["start"], 2) + "-"
            + number(e["end"], 2) + " s lies in the non-speech stretch " + number(a, 2) + "-"
            + number(b, 2) + " s"
        )  # fmt: skip
    if f == "unstable":
        return (
            "unstable: two decodes differ by a word edit rate of " + number(e["edit_rate"], 2)
            + ' ("' + str(e["decode_a"]) + '" vs "' + str(e["decode_b"]) + '")'
        )  # fmt: skip
    return json.dumps(dict(e))


def evidence_lines(evidence: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every evidence record of an item in words, in order."""
    return [evidence_line(e) for e in evidence]
