"""The notes of a value's own 95% CI in words (area ``interval``;
:mod:`fairdesk.stats.groupci`): why a group's or the corpus's value has no interval, or how
a rule-of-three one was made (``GroupInfo.ci_note``, ``MetricSummary.overall["note"]``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .units import fmt_value

__all__ = ["TEXTS", "ci_note_text", "note_json_text"]


def _few_speakers(k: int) -> str:
    return (
        ("one speaker" if k == 1 else "no speaker")
        + ": speaker and group cannot be told apart, so the group's value has no estimable "
        "interval; record more speakers (--resampling utterance describes these recordings "
        "only)"
    )


def _one_utterance() -> str:
    return "one utterance: nothing to resample"


def _descriptive_basis(e: float, unit: str, minimum: int) -> str:
    return f"E = {e:g} {unit} (fewer than {minimum}): descriptive, no interval"


def _rule_of_three(metric: str, value: float, n: float) -> str:
    return (
        f"every unit gives {fmt_value(metric, value)}: the interval is the "
        f"rule-of-three bound 3/n (n = {n:g})"
    )


def _constant(metric: str, value: float) -> str:
    return (
        f"every unit gives {fmt_value(metric, value)}, so the resampled values "
        "do not vary: no interval"
    )


def _no_spread() -> str:
    return "the resampled values do not vary although the items do: no interval"


def _corpus_group(reason: Mapping[str, Any]) -> str:
    return "a group of the corpus has " + (note_json_text(reason) or "")


def note_json_text(data: Any) -> str | None:
    """A note as a result's JSON holds it (``{"code", "args"}``, or the sentence a run
    stored before the notes were coded) in words; None for None."""
    if data is None:
        return None
    from ..stats.results import stored_notice
    from .notices import notice_text

    return notice_text(stored_notice(data))


def ci_note_text(group: Any, metric: str) -> str | None:
    """Why a group's value of ``metric`` has no CI, or how its rule-of-three one was made
    (``GroupInfo.ci_note``), in words; None without a note."""
    note = (group.ci_note or {}).get(metric)
    if note is None:
        return None
    from .notices import notice_text

    return notice_text(note)


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "interval.few_speakers": _few_speakers,
    "interval.one_utterance": _one_utterance,
    "interval.descriptive_basis": _descriptive_basis,
    "interval.rule_of_three": _rule_of_three,
    "interval.constant": _constant,
    "interval.no_spread": _no_spread,
    "interval.corpus_group": _corpus_group,
}
