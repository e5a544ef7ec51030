"""The representation probe's notes in words (area ``representation``;
:func:`fairdesk.stats.representation.leakage`): why the group-prediction probe was not run,
or ran with fewer folds than asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["TEXTS"]


def _single_speaker_groups(groups: Iterable[str]) -> str:
    return (
        f"probe not run: group(s) {', '.join(groups)} have a single "
        "speaker, and speaker-split folds need two per group; record more "
        "items or speakers per group"
    )


def _too_few_folds(n_splits: int, n_speakers: int | None, min_items: int, max_items: int) -> str:
    what = (
        f"{n_speakers} speaker(s) and at most {max_items} items per group"
        if n_speakers is not None
        else f"a group of {min_items} item(s)"
    )
    return (
        f"probe not run: cross-validation needs at least 2 folds ({n_splits} asked) but "
        f"there are {what}; record more items or speakers per group"
    )


def _fewer_folds(
    k: int, n_splits: int, min_items: int, max_items: int, n_speakers: int | None
) -> str:
    return f"{k} folds instead of {n_splits}: groups of {min_items} to {max_items} items" + (
        f", {n_speakers} speakers" if n_speakers is not None else ""
    )


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "representation.single_speaker_groups": _single_speaker_groups,
    "representation.too_few_folds": _too_few_folds,
    "representation.fewer_folds": _fewer_folds,
}
