"""The estimability notes of statistics in words (area ``estimability``;
:mod:`fairdesk.stats.estimability`, docs/METHODS.md, "Estimability").

Why a comparison or a group's value has no interval: too few resampling units on a side,
resampled gaps that do not vary, a diacritic metric's basis E under the minimum.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..stats.notices import Notice
    from ..stats.results import ComparisonSample

__all__ = ["TEXTS", "count_words", "reason_text", "sample_text", "sample_words"]


def count_words(k: int, noun: str) -> str:
    """``no speaker``, ``one speaker``, ``3 speakers``."""
    if k == 0:
        return "no " + noun
    return "one " + noun if k == 1 else f"{k} {noun}s"


def sample_words(group: int, reference: int, items: str) -> str:
    """A sampled metric's sample: ``the 2 + 2 explained items``."""
    return f"the {group} + {reference} {items}"


def sample_text(sample: ComparisonSample | None) -> str | None:
    """A comparison's sample in words (``Comparison.sample``; None for a metric of every
    item)."""
    if sample is None:
        return None
    return sample_words(sample.group, sample.reference, sample.items)


def reason_text(note: Notice | None) -> str | None:
    """Why a comparison has no verdict, in words (``Comparison.reason``; None without one)."""
    if note is None:
        return None
    from .notices import notice_text

    return notice_text(note)


def _descriptive_basis(
    label: str, unit: str, minimum: int, sides: Iterable[tuple[str, float]]
) -> str:
    named = " and ".join(f"{name} has E = {e:g}" for name, e in sides)
    return (
        f"{named} {unit} (fewer than {minimum}), so the {label} is descriptive: shown, "
        "with no interval and no test"
    )


def _no_shared_items(name: str) -> str:
    return (
        f"{name} has no item on the sentences shared with the other side, so "
        "nothing can be compared; record the shared sentences in both groups"
    )


def _one_utterance(k: int, name: str) -> str:
    return (
        f"only {k} utterance in {name}: there is nothing to resample and no "
        "uncertainty can be estimated; record more utterances"
    )


def _few_speakers(k: int, name: str) -> str:
    return (
        f"{count_words(k, 'speaker')} in {name}: speaker and group cannot be told apart, so "
        "no interval for the group can be estimated; record more speakers "
        "(--resampling utterance gives an interval that describes these recordings "
        "of this speaker only)"
    )


def _few_shared(k: int) -> str:
    return f"only {count_words(k, 'shared sentence')}: nothing to resample"


def _no_spread() -> str:
    return (
        "the resampled gaps do not vary although the items do, so the data cannot show "
        "how uncertain the gap is; record more speakers and sentences"
    )


def _on_sample(group: int, reference: int, items: str, reason: Mapping[str, Any]) -> str:
    from ..stats.notices import Notice
    from .notices import notice_text

    return f"on {sample_words(group, reference, items)}: {notice_text(Notice.from_json(reason))}"


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "estimability.descriptive_basis": _descriptive_basis,
    "estimability.no_shared_items": _no_shared_items,
    "estimability.one_utterance": _one_utterance,
    "estimability.few_speakers": _few_speakers,
    "estimability.few_shared": _few_shared,
    "estimability.no_spread": _no_spread,
    "estimability.on_sample": _on_sample,
}
