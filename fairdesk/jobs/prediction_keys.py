"""How the items of several datasets are found in a predictions file (docs/METHODS.md,
"Several datasets"): their ids are ``<dataset>/<key>``, and a file keyed by the datasets'
own keys is used where a key names one item of the set."""

from __future__ import annotations

__all__ = ["prediction_keys", "set_key_hint", "set_prediction_keys"]


def prediction_keys(backend, frame):
    """``(keys, refused, hint)`` of an audit's items: the key each is looked up by, the
    items refused before any lookup (row → reason) and a function that adds to a shard's
    "no prediction" reasons how the items are keyed. ``backend``: a predictions file's
    (None for a model: the items' ids, nothing refused or added)."""
    if backend is None or "item_key" not in frame.columns:  # one dataset: its own keys
        return list(frame["id"]), {}, lambda results: results
    keys, refused = set_prediction_keys(backend, frame)
    return keys, refused, lambda results: [(i, p, set_key_hint(frame, i, r)) for i, p, r in results]


def set_prediction_keys(backend, frame) -> tuple[list[str], dict[int, str]]:
    """The key each item of several datasets is looked up by in a predictions file, and the
    items refused at once (docs/METHODS.md, "Several datasets").

    Items are ``<dataset>/<key>`` in such an audit; a file keyed by the datasets' own keys
    is still used where a key is unambiguous: the row's plain key names one item of the set
    and the file has no ``<dataset>/<key>`` row for it. A plain key that two datasets share
    is refused for both items, saying how to key the rows.
    """
    from collections import Counter

    from ..core.dataset_sets import qualify

    plain = [str(k) for k in frame["item_key"]]
    seen = Counter(plain)
    keys: list[str] = []
    refused: dict[int, str] = {}
    for idx, (qid, key, ds) in enumerate(zip(frame["id"].astype(str), plain, frame["dataset"])):
        if backend.lookup(qid, None) is not None or backend.lookup(key, None) is None:
            keys.append(qid)
        elif seen[key] == 1:
            keys.append(key)
        else:
            keys.append(qid)
            refused[idx] = (
                f"the predictions file keys this item {key!r}, an id that {seen[key]} of the "
                f"audited datasets share; in an audit of several datasets items are "
                f"<dataset>/<id>: key its row {qualify(str(ds), key)!r}"
            )
    return keys, refused


def set_key_hint(frame, idx: int, reason: str | None) -> str | None:
    """A predictions file's "no prediction" for an item of several datasets, with how the
    item is keyed there."""
    from ..models.predictions import NO_PREDICTION

    if reason != NO_PREDICTION:
        return reason
    qid = str(frame["id"].iloc[idx])
    return (
        f"{reason}: in an audit of several datasets items are <dataset>/<id> ({qid!r}); "
        "key the file's rows that way, or by the item's own id where no other dataset "
        "has it"
    )
