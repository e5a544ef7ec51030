"""Minimums that teach, checked before inference (docs/METHODS.md, "Minimums").

Group sizes are known from the item metadata before any model runs, so the minimums, the
reference group and the grouping columns are checked first; when minimums exclude groups the
message lists each group against the thresholds, names the flags and says what a lower
minimum costs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from fairdesk.core.errors import FairdeskError
from fairdesk.stats.notices import Notice
from fairdesk.stats.slicing import (
    MISSING_LABEL,
    choose_reference,
    group_sizes,
    has_speaker_ids,
    minimums_from_counts,
    missing_groups,
    slice_frame,
)


@dataclass(frozen=True)
class GroupShortfall:
    """One group against the minimums (a row of the refusal's table).

    Attributes
    ----------
    group : the group's label.
    items, speakers : its items and distinct speakers (speakers None without speaker ids).
    few_items, few_speakers : whether it misses the items / speakers minimum.
    """

    group: str
    items: int
    speakers: int | None
    few_items: bool
    few_speakers: bool

    @property
    def excluded(self) -> bool:
        return self.few_items or self.few_speakers


@dataclass(frozen=True)
class Shortfall:
    """What the minimums exclude: the one source of the numbers that the command line's
    text (:func:`fairdesk.presentation.minimums_words.shortfall_text`) and the GUI's table
    both format.

    Attributes
    ----------
    rows : every group, largest first (then by label).
    min_items, min_speakers : the thresholds.
    has_speakers : whether the items have speaker ids (else no speakers minimum applies).
    lower_items, lower_speakers : the lowered minimums that would keep every group (None
        where that minimum excludes no group, or cannot go lower).
    """

    rows: tuple[GroupShortfall, ...]
    min_items: int
    min_speakers: int
    has_speakers: bool
    lower_items: int | None
    lower_speakers: int | None

    @property
    def excluded(self) -> list[GroupShortfall]:
        return [r for r in self.rows if r.excluded]

    @property
    def kept(self) -> list[GroupShortfall]:
        return [r for r in self.rows if not r.excluded]

    def to_args(self) -> dict:
        """The numbers as a note's ``args`` (rows as ``(group, items, speakers, few_items,
        few_speakers)``)."""
        return {
            "rows": tuple(
                (r.group, r.items, r.speakers, r.few_items, r.few_speakers) for r in self.rows
            ),
            "min_items": self.min_items,
            "min_speakers": self.min_speakers,
            "has_speakers": self.has_speakers,
            "lower_items": self.lower_items,
            "lower_speakers": self.lower_speakers,
        }

    @classmethod
    def from_args(cls, **args) -> Shortfall:
        """The inverse of :meth:`to_args` (lists read as tuples)."""
        return cls(
            tuple(
                GroupShortfall(str(g), int(n), None if k is None else int(k), bool(fi), bool(fs))
                for g, n, k, fi, fs in args["rows"]
            ),
            int(args["min_items"]),
            int(args["min_speakers"]),
            bool(args["has_speakers"]),
            args.get("lower_items"),
            args.get("lower_speakers"),
        )


def shortfall(
    sizes: Mapping[str, int],
    speakers: Mapping[str, int] | None,
    min_items: int,
    min_speakers: int,
) -> Shortfall:
    """The groups against the minimums (see :class:`Shortfall`; the hint lowers only the
    minimums that exclude a group, never to the value given)."""
    rows = []
    for g, n in sorted(sizes.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        k = None if speakers is None else int(speakers.get(g, 0))
        rows.append(
            GroupShortfall(
                str(g), int(n), k, int(n) < min_items, k is not None and k < min_speakers
            )
        )
    ex = [r for r in rows if r.excluded]
    few_items = [r.items for r in ex if r.few_items]
    few_spk = [r.speakers for r in ex if r.few_speakers and r.speakers is not None]
    lower_spk = max(1, min(few_spk)) if few_spk else None
    return Shortfall(
        tuple(rows),
        int(min_items),
        int(min_speakers),
        speakers is not None,
        min(few_items) if few_items else None,
        lower_spk if lower_spk is not None and lower_spk < min_speakers else None,
    )


class MinimumsRefused(FairdeskError, ValueError):
    """Fewer than two groups meet the minimums. ``shortfall`` holds the numbers every view
    words (:func:`fairdesk.presentation.minimums_words.shortfall_text`: the command line's
    text, the GUI's table)."""

    def __init__(self, short: Shortfall, message: str):
        self.shortfall = short
        super().__init__(message)


#: Note code: what the minimums excluded and what lowering them costs (``args``: the
#: :class:`Shortfall`'s numbers, :meth:`Shortfall.to_args`; worded by
#: fairdesk.presentation.minimums_words).
SHORTFALL = "minimums.shortfall"


def exclusion_notice(
    sizes: Mapping[str, int],
    speakers: Mapping[str, int] | None,
    min_items: int,
    min_speakers: int,
) -> Notice | None:
    """What the minimums excluded, as a coded note (``minimums.shortfall``; None when
    nothing is).

    Parameters
    ----------
    sizes : items per group (the groups only: the descriptive row of the items with no
        grouping value has no minimums, docs/METHODS.md, "Missing values").
    speakers : speakers per group (None without speaker ids).
    min_items, min_speakers : the thresholds.

    The hint lowers only the minimums that exclude a group, never to the value given.
    """
    short = shortfall(sizes, speakers, min_items, min_speakers)
    return Notice(SHORTFALL, short.to_args()) if short.excluded else None


@dataclass(frozen=True)
class Precheck:
    """What the metadata says before inference.

    Attributes
    ----------
    sizes, speakers : items and speakers per group (speakers None without ids).
    kept, excluded : groups meeting the minimums / ``(group, reason)`` for the others (the
        reason a coded note, ``minimums.excluded``).
    reference : the reference group the run will use.
    shortfall : what the minimums exclude (None when no group is excluded; in words:
        :func:`fairdesk.presentation.minimums_words.shortfall_text`).
    """

    sizes: dict
    speakers: dict | None
    kept: list
    excluded: list
    reference: str
    shortfall: Shortfall | None


def check_groups_before_inference(
    items: pd.DataFrame,
    by: Sequence[str] | str,
    min_items: int,
    min_speakers: int,
    reference: str | None = None,
    filters: Mapping[str, Sequence] | None = None,
    *,
    speaker_col: str = "speaker_id",
    include_missing: bool = False,
) -> Precheck:
    """Check ``--by``, the minimums and ``--reference`` on item metadata, before the model.

    Parameters
    ----------
    items : item metadata (one row per item; no predictions needed). A frame that already
        has a ``group`` column (sliced) is used as is when ``by`` is ``"group"``.
    by : the grouping column(s).
    min_items, min_speakers : the minimums.
    reference : the requested reference group (None: the largest kept group with a value).
    filters : ``{column: allowed values}``.
    include_missing : the items with no grouping value form the group ``(missing)``
        (checked like the others, never the default reference); by default they are no
        group and left out of these checks (docs/METHODS.md, "Missing values").

    Returns
    -------
    Precheck

    Raises
    ------
    ValueError
        An unknown grouping or filter column (the message lists the columns), a column
        without any value, fewer than two groups meeting the minimums
        (:class:`MinimumsRefused`, its ``shortfall`` the numbers), or a reference that is not a group or is excluded.
    """
    if by == "group" and "group" in items.columns and not filters:
        frame = items
    else:
        frame = slice_frame(items, by, filters, include_missing=include_missing)
    missing = missing_groups(frame)
    if not include_missing:
        frame = frame[~frame["group"].astype(object).map(str).isin(missing)]
    sizes = {str(g): int(n) for g, n in group_sizes(frame).items()}
    speakers = None
    if has_speaker_ids(frame, speaker_col):
        g = frame["group"].astype(object).map(str)
        speakers = {
            str(k): int(v) for k, v in frame[speaker_col].groupby(g).nunique(dropna=True).items()
        }
        speakers = {k: speakers.get(k, 0) for k in sizes}
    kept, excluded = minimums_from_counts(sizes, speakers, min_items, min_speakers)
    short = shortfall(sizes, speakers, min_items, min_speakers)
    if len(kept) < 2:
        if len(sizes) < 2:
            raise ValueError(
                f"Grouping by {by!r} gives a single group ({', '.join(sizes) or 'none'}"
                + (" and items with no value" if missing and not include_missing else "")
                + "): nothing to compare; group by a column with at least two values."
            )
        raise MinimumsRefused(
            short,
            f"The minimums (--min-items {min_items}, --min-speakers {min_speakers}) exclude "
            f"{len(short.excluded)} of {len(short.rows)} group(s): nothing is left to compare ("
            + "; ".join(
                f"{r.group}: {r.items} items"
                + ("" if r.speakers is None else f", {r.speakers} speakers")
                for r in short.rows
            )
            + ").",
        )
    if reference is not None and not include_missing and reference in missing | {MISSING_LABEL}:
        raise ValueError(
            f"Reference group {reference!r}: the items with no value for the grouping column "
            "are not a group; compare them as the group '(missing)' with --include-missing."
        )
    ref = choose_reference(
        sizes,
        reference,
        eligible=kept,
        by=[by] if isinstance(by, str) else list(by),
        not_default=missing,
    )
    return Precheck(sizes, speakers, kept, excluded, ref, short if short.excluded else None)
