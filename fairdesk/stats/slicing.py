"""Grouping an audit frame into slices, minimums, reference choice and the run cap.

docs/METHODS.md, "Items, groups and the reference" and "Minimums". One or two grouping keys; two keys give the cross product
labelled ``accent=en-gb × gender=female`` (U+00D7 between the parts).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from fairdesk.stats.notices import Notice, notice

#: Label of the group of items whose key value is missing, where missing values are asked
#: to form a tested group (``include_missing``; docs/METHODS.md, "Missing values").
MISSING_LABEL = "(missing)"
#: Separator between the parts of a two-key label.
CROSS = " \u00d7 "
#: Column ``slice_frame`` adds: True where an item has no value for a grouping key.
MISSING_COL = "group_missing"


def is_missing_value(v) -> bool:
    """Whether a grouping value is missing: None/NaN, empty or only whitespace, or not a
    scalar (a list, tuple, set, dict or array, as JSON metadata can hold)."""
    if v is None:
        return True
    if isinstance(v, (list, tuple, set, frozenset, dict, np.ndarray)):
        return True
    if isinstance(v, str):
        return not v.strip()
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def missing_mask(series: pd.Series) -> np.ndarray:
    """Per row, whether the key value is missing (:func:`is_missing_value`)."""
    return np.fromiter(
        (is_missing_value(v) for v in series.astype(object)), dtype=bool, count=len(series)
    )


def no_value_label(keys: Sequence[str]) -> str:
    """The descriptive row of items with no value for ``keys``: ``no value for accent``,
    ``no value for accent and gender``."""
    return "no value for " + " and ".join(map(str, keys))


def is_missing_label(label) -> bool:
    """Whether a group label is that of missing values: ``(missing)`` or a two-key label
    with a ``(missing)`` part (``accent=(missing) × gender=m``)."""
    parts = str(label).split(CROSS)
    return any(p.split("=", 1)[-1] == MISSING_LABEL for p in parts)


def _value_labels(series: pd.Series) -> pd.Series:
    """String labels of a key column, ``(missing)`` where the value is missing."""
    missing = missing_mask(series)
    # a copy: pandas hands an empty column out read-only
    # NFC: a label typed two ways (precomposed / combining marks) is one group
    labels = series.astype(object).map(_nfc_text).to_numpy(dtype=object, copy=True)
    labels[missing] = MISSING_LABEL
    stripped = np.array([s.strip() for s in labels], dtype=object)
    return pd.Series(stripped, index=series.index, dtype=object)


def _nfc_text(value) -> str:
    return unicodedata.normalize("NFC", str(value))


def _check_columns(frame: pd.DataFrame, wanted: Sequence[str], role: str) -> None:
    unknown = [c for c in wanted if c not in frame.columns]
    if unknown:
        raise ValueError(
            f"Unknown {role} column(s) {unknown}; the frame has columns: "
            f"{', '.join(map(str, frame.columns))}."
        )


def slice_frame(
    frame: pd.DataFrame,
    by: Sequence[str] | str,
    filters: Mapping[str, Sequence] | None = None,
    *,
    include_missing: bool = False,
) -> pd.DataFrame:
    """Filter rows and add the ``group`` label column (and ``group_missing``).

    Parameters
    ----------
    frame : the per-item audit frame.
    by : one or two grouping columns.
    filters : ``{column: allowed values}``; a row is kept when its value (compared as text)
        is among the allowed values of every filter column. A filter column can't be a key.
        ``None`` or ``(missing)`` among the allowed values keeps the missing ones.
    include_missing : label the items with a missing key value (:func:`is_missing_value`)
        ``(missing)``, a group like the others (docs/METHODS.md, "Missing values"); by
        default they are the descriptive row ``no value for <key(s)>``, which
        ``compare_groups`` shows but does not compare.

    Returns
    -------
    DataFrame
        A copy of the kept rows with a ``group`` column: the value itself for one key,
        ``key1=v1 × key2=v2`` for two keys; an item missing a key value (either key, with
        two) is ``no value for <the missing key(s)>``, or with ``include_missing``
        ``(missing)`` in that key's place. ``group_missing`` (:data:`MISSING_COL`) is True
        for those items.

    Raises
    ------
    ValueError
        No key or more than two, an unknown column, a column both filter and key, no row
        left after filtering, or a key column without any value.
    """
    keys = [by] if isinstance(by, str) else list(by)
    filters = dict(filters or {})
    if not 1 <= len(keys) <= 2:
        raise ValueError(f"Group by one or two columns, got {len(keys)}: {keys}.")
    if len(set(keys)) != len(keys):
        raise ValueError(f"The grouping keys repeat a column: {keys}.")
    _check_columns(frame, keys, "grouping")
    _check_columns(frame, list(filters), "filter")
    both = [c for c in filters if c in keys]
    if both:
        raise ValueError(
            f"Column(s) {both} can't be both a filter and a grouping key; filter on another "
            "column or group by it without filtering."
        )
    keep = np.ones(len(frame), dtype=bool)
    for col, allowed in filters.items():
        if isinstance(allowed, str) or not isinstance(allowed, Sequence | set | frozenset):
            allowed = [allowed]
        allowed_text = {MISSING_LABEL if a is None else _nfc_text(a) for a in allowed}
        keep &= _value_labels(frame[col]).isin(allowed_text).to_numpy()
    out = frame.loc[keep].copy()
    if out.empty:
        raise ValueError(
            f"No rows left after the filters {filters}; check the allowed values against the "
            "values present in those columns."
        )
    masks = {k: missing_mask(out[k]) for k in keys}
    for k in keys:
        if masks[k].all():
            n = len(out)
            raise ValueError(
                f"The grouping column {k!r} has no values: "
                + ("the item has" if n == 1 else f"all {n:,} items have")
                + " none (empty, only whitespace, or a list or dict)"
                + (" after the filters" if filters else "")
                + "; group by a column that has values."
            )
    labels = {k: _value_labels(out[k]) for k in keys}
    if len(keys) == 1:
        group = labels[keys[0]]
    else:
        a, b = keys
        group = (a + "=") + labels[a] + CROSS + (b + "=") + labels[b]
    any_missing = np.logical_or.reduce([masks[k] for k in keys])
    if not include_missing and any_missing.any():
        group = group.to_numpy(dtype=object, copy=True)
        for i in np.flatnonzero(any_missing):
            group[i] = no_value_label([k for k in keys if masks[k][i]])
        group = pd.Series(group, index=out.index, dtype=object)
    out["group"] = group
    out[MISSING_COL] = any_missing
    return out


def missing_groups(frame: pd.DataFrame, group_col: str = "group") -> set[str]:
    """The group labels of items with no value for a grouping key: those ``group_missing``
    marks (``slice_frame``), or without that column the ``(missing)`` labels."""
    groups = frame[group_col].astype(object).map(str)
    if MISSING_COL in frame.columns:
        mask = frame[MISSING_COL].fillna(False).astype(bool).to_numpy()
        return set(groups[mask])
    return {g for g in set(groups) if is_missing_label(g)}


def group_sizes(frame: pd.DataFrame, group_col: str = "group") -> pd.Series:
    """Items per group, sorted by size (descending) then name."""
    sizes = frame[group_col].astype(object).map(str).value_counts()
    return _order_sizes(dict(sizes.items()))


def _order_sizes(sizes: Mapping[str, int]) -> pd.Series:
    order = sorted(sizes, key=lambda g: (-int(sizes[g]), str(g)))
    return pd.Series({g: int(sizes[g]) for g in order}, dtype="int64")


def choose_reference(
    frame: pd.DataFrame | Mapping[str, int],
    reference: str | None = None,
    *,
    group_col: str = "group",
    by: Sequence[str] | str | None = None,
    eligible: Sequence[str] | None = None,
    not_default: Collection[str] = (),
) -> str:
    """The reference group: the user's choice, or the largest group by items.

    Parameters
    ----------
    frame : frame with the group column, or a mapping group label → item count.
    reference : a full group label, or for one key its value (``en-gb`` or ``accent=en-gb``);
        None picks the largest group (ties broken by name).
    group_col : the group label column.
    by : the grouping keys (lets ``accent=en-gb`` name a one-key group).
    eligible : groups allowed as reference (e.g. those meeting the minimums); default all.
    not_default : groups never picked when ``reference`` is None (the ``(missing)`` group:
        docs/METHODS.md, "Missing values"); they can still be named.

    Raises
    ------
    ValueError
        The named reference is not a group (the message lists the groups) or not eligible.
    """
    if isinstance(frame, pd.DataFrame):
        sizes = group_sizes(frame, group_col)
        not_default = set(map(str, not_default)) | missing_groups(frame, group_col)
    else:
        sizes = _order_sizes(frame)
    labels = [str(g) for g in sizes.index]
    allowed = labels if eligible is None else [g for g in labels if g in set(map(str, eligible))]
    if reference is None:
        if not allowed:
            raise ValueError("No group is eligible as reference (all are excluded).")
        skip = set(map(str, not_default))
        for g in allowed:
            if g not in skip:
                return g
        raise ValueError(
            "No group with a value is eligible as reference; name one with --reference."
        )
    chosen = None
    reference = _nfc_text(reference)
    if reference in labels:
        chosen = reference
    else:
        keys = [by] if isinstance(by, str) else list(by or [])
        if len(keys) == 1 and "=" in reference:
            key, _, value = reference.partition("=")
            if key.strip() == keys[0] and value.strip() in labels:
                chosen = value.strip()
    if chosen is None:
        raise ValueError(
            f"Reference group {reference!r} is not one of the groups: {', '.join(labels)}."
        )
    if chosen not in allowed:
        raise ValueError(
            f"Reference group {chosen!r} is excluded by the minimums; pick one of: "
            f"{', '.join(allowed) or '(none)'}."
        )
    return chosen


def has_speaker_ids(frame: pd.DataFrame, speaker_col: str = "speaker_id") -> bool:
    """Whether the frame has any known speaker id."""
    return speaker_col in frame.columns and bool(frame[speaker_col].notna().any())


def apply_minimums(
    frame: pd.DataFrame,
    min_items: int,
    min_speakers: int,
    *,
    group_col: str = "group",
    speaker_col: str = "speaker_id",
    include_missing: bool = False,
) -> tuple[list[str], list[tuple[str, Notice]]]:
    """Split the groups into kept and excluded by the minimums of docs/METHODS.md, "Minimums".

    A group needs ``min_items`` items and, where speaker ids exist, ``min_speakers`` distinct
    known speakers. The items with no grouping value (:func:`missing_groups`) are no group
    and in neither list, unless ``include_missing`` (then ``(missing)`` is a group).

    Returns
    -------
    kept : group labels meeting both minimums (largest first, ties by name).
    excluded : ``(group, reason)`` for the others, the reason a coded note saying which
        minimum failed (``minimums.excluded``).
    """
    sizes = dict(group_sizes(frame, group_col).items())
    if not include_missing:
        for g in missing_groups(frame, group_col):
            sizes.pop(g, None)
    speakers = None
    if has_speaker_ids(frame, speaker_col):
        g = frame[group_col].astype(object).map(str)
        speakers = dict(frame[speaker_col].groupby(g).nunique(dropna=True).items())
    return minimums_from_counts(sizes, speakers, min_items, min_speakers)


#: Note code of a group the minimums exclude: ``short``, ``(setting, n, minimum)`` per
#: minimum it misses (``min_items`` with its items, ``min_speakers`` with its speakers);
#: worded by fairdesk.presentation.minimums_words.
EXCLUDED = "minimums.excluded"


def minimums_from_counts(
    sizes: Mapping[str, int], speakers: Mapping[str, int] | None, min_items: int, min_speakers: int
) -> tuple[list[str], list[tuple[str, Notice]]]:
    """``apply_minimums`` on precomputed items (and speakers, None without ids) per group."""
    kept: list[str] = []
    excluded: list[tuple[str, Notice]] = []
    for g, n in _order_sizes(sizes).items():
        short = []
        if n < min_items:
            short.append(("min_items", int(n), int(min_items)))
        if speakers is not None:
            k = int(speakers.get(g, 0))
            if k < min_speakers:
                short.append(("min_speakers", k, int(min_speakers)))
        if short:
            excluded.append((str(g), notice(EXCLUDED, short=tuple(short))))
        else:
            kept.append(str(g))
    return kept, excluded


def check_run_cap(frame: pd.DataFrame, max_items: int, *, group_col: str = "group") -> None:
    """Refuse a run larger than ``max_items``, offering a stratified sample.

    Raises
    ------
    ValueError
        The frame has more than ``max_items`` rows; the message suggests ``--sample N``.
    """
    n = len(frame)
    if n <= max_items:
        return
    n_groups = frame[group_col].nunique() if group_col in frame.columns else 1
    per_group = max(1, max_items // max(1, n_groups))
    raise ValueError(
        f"The run has {n:,} items, more than the cap of {max_items:,} (max_items). Analyse a "
        f"stratified sample instead: `--sample N` draws N items per group spread over its "
        f"speakers, e.g. `--sample {per_group}` for {n_groups} group(s), or lift the cap "
        f"explicitly with `--max-items N`."
    )


def stratified_sample(
    frame: pd.DataFrame,
    by: Sequence[str] | str,
    n_per_group: int,
    seed: int = 0,
    *,
    speaker_col: str = "speaker_id",
    content_col: str = "content_id",
) -> pd.DataFrame:
    """At most ``n_per_group`` items per group, spread over speakers and aligned on content.

    Within a group the speakers are visited in a random order and take turns giving one item
    each, so every speaker contributes before any gives a second item. Which item a speaker
    gives follows one random order of the content ids shared by every group (each turn asks
    for the next content in that order; a speaker who lacks it gives the nearest one after
    it), so in a matched corpus the groups' samples cover the same sentences and the
    comparison keeps its pairing (two-way resampling). Items without a speaker id count as
    their own speakers. Deterministic for a given seed.

    Parameters
    ----------
    frame : the audit frame.
    by : the grouping column(s) (e.g. ``"group"`` or ``["accent", "gender"]``).
    n_per_group : items to keep per group (a group with fewer keeps them all).
    seed : random seed.
    speaker_col, content_col : column names (either may be absent).
    """
    if (
        isinstance(n_per_group, bool)
        or not isinstance(n_per_group, int | np.integer)
        or n_per_group < 1
    ):
        raise ValueError(f"n_per_group must be a positive integer, got {n_per_group!r}.")
    keys = [by] if isinstance(by, str) else list(by)
    _check_columns(frame, keys, "grouping")
    rng = np.random.default_rng(seed)
    n = len(frame)
    labels = pd.Series([""] * n)
    for k in keys:
        labels = labels + "\0" + _value_labels(frame[k]).astype(str).reset_index(drop=True)
    if speaker_col in frame.columns:
        spk = frame[speaker_col].astype(object).to_numpy(dtype=object)
        spk = np.array(
            ["\0item" + str(i) if pd.isna(v) else str(v) for i, v in enumerate(spk)], dtype=object
        )
    else:
        spk = np.array(["\0item" + str(i) for i in range(n)], dtype=object)
    if content_col in frame.columns:
        cont = frame[content_col].astype(str).to_numpy()
        uniq = np.unique(cont)
        order = dict(zip(uniq[rng.permutation(len(uniq))], range(len(uniq)), strict=True))
        rank = np.array([order[c] for c in cont])
        n_ranks = len(uniq)
    else:
        rank = rng.permutation(n)
        n_ranks = n
    tie = rng.random(n)
    chosen: list[int] = []
    for _label, idx in sorted(pd.Series(np.arange(n)).groupby(labels.to_numpy()).groups.items()):
        idx = np.asarray(idx)
        if len(idx) <= n_per_group:
            chosen.extend(int(i) for i in idx)
            continue
        speakers = sorted(set(spk[idx]))
        speakers = [speakers[i] for i in rng.permutation(len(speakers))]
        pending: dict[str, list[int]] = {s_: [] for s_ in speakers}
        for i in idx[np.lexsort((tie[idx], rank[idx]))]:
            pending[spk[i]].append(int(i))
        target, taken = 0, 0
        while taken < n_per_group and any(pending.values()):
            for s_ in speakers:
                if taken >= n_per_group:
                    break
                items = pending[s_]
                if not items:
                    continue
                j = min(range(len(items)), key=lambda k: (rank[items[k]] - target) % n_ranks)
                chosen.append(items.pop(j))
                target = (target + 1) % n_ranks
                taken += 1
    return frame.iloc[np.sort(np.asarray(chosen, dtype=int))].copy()
