"""The minimums' notes in words (area ``minimums``; docs/METHODS.md, "Minimums").

What the minimums leave out and what lowering them costs, written from the numbers the
statistics return (:class:`fairdesk.stats.minimums.Shortfall`): the command line's
refusal and a run's minimums message (:func:`shortfall_text`), the GUI refusal's cost line
(:func:`lower_minimum_cost`), each excluded group's reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ..core.plurals import count
from ..stats.minimums import Shortfall, shortfall
from ..stats.verdicts import MIN_SPEAKERS_FOR_TRUST

__all__ = [
    "FLAG_ITEMS",
    "FLAG_SPEAKERS",
    "TEXTS",
    "exclusion_message",
    "lower_minimum_cost",
    "shortfall_text",
]

#: The command-line flags of the minimums (``fairdesk audit``).
FLAG_ITEMS = "--min-items"
FLAG_SPEAKERS = "--min-speakers"


def shortfall_text(short: Shortfall) -> str:
    """The command line's text of a :class:`~fairdesk.stats.minimums.Shortfall` (its flags,
    a table, the cost)."""
    min_items, min_speakers = short.min_items, short.min_speakers
    has_spk = short.has_speakers
    flags = f"{FLAG_ITEMS} {min_items}" + (f", {FLAG_SPEAKERS} {min_speakers}" if has_spk else "")
    n_ex, n_all = len(short.excluded), len(short.rows)
    lines = [
        f"The minimums ({flags}) exclude {n_ex} of {n_all} group(s)"
        + (": nothing is left to compare." if len(short.kept) < 2 else "."),
    ]
    width = max(len("group"), *(len(r.group) for r in short.rows))
    head = f"  {'group':<{width}}  {'items':>12}"
    if has_spk:
        head += f"  {'speakers':>12}"
    lines.append(head)
    for r in short.rows:
        cell = f"{r.items} {'<' if r.few_items else '≥'} {min_items}"
        row = f"  {r.group:<{width}}  {cell:>12}"
        if has_spk:
            spk = f"{r.speakers} {'<' if r.few_speakers else '≥'} {min_speakers}"
            row += f"  {spk:>12}"
        lines.append(f"{row}  {'excluded' if r.excluded else 'ok'}")
    hint = []
    if short.lower_items is not None:
        hint.append(f"{FLAG_ITEMS} {short.lower_items}")
    if short.lower_speakers is not None:
        hint.append(f"{FLAG_SPEAKERS} {short.lower_speakers}")
    if not hint:
        lines.append(
            "To analyse every group, record more: the minimums cannot go lower for the "
            "excluded group(s) (a group without a known speaker can't meet "
            f"{FLAG_SPEAKERS} 1)."
        )
        return "\n".join(lines)
    lines.append(
        f"To analyse every group, lower the minimums (e.g. {' '.join(hint)}) or record more. "
        + lower_minimum_cost(has_spk)
    )
    return "\n".join(lines)


def lower_minimum_cost(has_speakers: bool) -> str:
    """What a lower minimum costs, in words (the CLI's and the GUI's refusal)."""
    return (
        "A lower minimum costs: wider intervals (fewer items and speakers, so more "
        "comparisons end inconclusive_underpowered)"
        + (
            f"; a significant gap in a group with fewer than {MIN_SPEAKERS_FOR_TRUST} speakers "
            "reads as speaker_confounded (get more speakers, not 'bias'); and a group with "
            "one speaker is not_estimable (speaker and group cannot be told apart)."
            if has_speakers
            else "; and a group with one item is not_estimable."
        )
    )


def exclusion_message(
    sizes: Mapping[str, int],
    speakers: Mapping[str, int] | None,
    min_items: int,
    min_speakers: int,
) -> str | None:
    """What the minimums excluded and what lowering them costs, in words (None when
    nothing is): :func:`shortfall_text` of :func:`fairdesk.stats.minimums.shortfall`.

    Parameters
    ----------
    sizes : items per group (the groups only: the descriptive row of the items with no
        grouping value has no minimums, docs/METHODS.md, "Missing values").
    speakers : speakers per group (None without speaker ids).
    min_items, min_speakers : the thresholds.
    """
    short = shortfall(sizes, speakers, min_items, min_speakers)
    return shortfall_text(short) if short.excluded else None


def _shortfall(**args) -> str:
    return shortfall_text(Shortfall.from_args(**args))


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
    "minimums.shortfall": _shortfall,
}
