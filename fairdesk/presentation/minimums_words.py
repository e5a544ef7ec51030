"""The minimums' notes in words (area ``minimums``; docs/METHODS.md, "Minimums").

What the minimums leave out and what lowering them costs, written from the numbers the
statistics return.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..core.plurals import count

__all__ = ["TEXTS"]


def _short(setting: str, name: str, n: int, minimum: int, items: str) -> str:
    if setting == "min_items":
        return f"{n} {items} in {name} < min_items {minimum}"
    return f"{count(n, 'speaker')} in {name}'s sample < min_speakers {minimum}"


def _sample_below(
    label: str,
    items: str,
    group: int,
    reference: int,
    short: Iterable[tuple[str, str, int, int]],
) -> str:
    missed = "; ".join(_short(s, name, n, m, items) for s, name, n, m in short)
    return (
        f"the {label.lower()} is computed on a sample, {group} + {reference} "
        f"{items}, and the minimums apply to it ({missed}); a larger sample "
        "per group (--explain-per-group) or lower minimums (--min-items, --min-speakers) "
        "would allow a test"
    )


def _excluded(short: Iterable[tuple[str, int, int]]) -> str:
    nouns = {"min_items": "item", "min_speakers": "speaker"}
    return "; ".join(f"{count(n, nouns[s])} < {s} {minimum}" for s, n, minimum in short)


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "minimums.sample_below": _sample_below,
    "minimums.excluded": _excluded,
}
