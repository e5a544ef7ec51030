"""How an audit's items are looked up, and what their failure reasons add: in an audit of
several datasets their ids are ``<dataset>/<key>`` (docs/METHODS.md, "Several datasets")
and a predictions file keyed by the datasets' own keys is used where a key names one item
of the set; an item whose dataset folder is gone (a moved project) names
``fairdesk relink``."""

from __future__ import annotations

from pathlib import Path

__all__ = ["prediction_keys", "relink_hint", "set_key_hint", "set_prediction_keys"]


def prediction_keys(prep, frame, project_folder, from_file: bool):
    """``(keys, refused, hint)`` of an audit's items: the key each is looked up by, the
    items refused before any lookup (row → reason) and a function that words a shard's
    failure reasons (:func:`set_key_hint`, :func:`relink_hint`).

    Parameters
    ----------
    prep : the run's ``Prepared`` (backend, dataset set).
    frame : its items.
    project_folder : the project's folder (named in the relink command).
    from_file : the backend is a predictions file (looked up by key, no audio read).
    """
    dset = prep.dataset_set
    several = "item_key" in frame.columns
    if from_file and several:
        keys, refused = set_prediction_keys(prep.backend, frame)
        return keys, refused, lambda res: [(i, p, set_key_hint(frame, i, r)) for i, p, r in res]
    names = frame["dataset"] if several else [prep.dataset.name] * len(frame)
    roots = {
        n: Path(dset.root_of(n) if dset is not None else prep.dataset.root) for n in set(names)
    }
    gone = {n: r for n, r in roots.items() if not r.is_dir()}
    if from_file or not gone:
        return list(frame["id"]), {}, lambda res: res
    names = list(names)

    def hint(res):
        return [
            (i, p, relink_hint(r, names[i], gone.get(names[i]), project_folder)) for i, p, r in res
        ]

    return list(frame["id"]), {}, hint


def relink_hint(reason: str | None, dataset: str, root: Path | None, project_folder) -> str | None:
    """An item's "file not found" when its dataset's folder ``root`` is gone: the folder is
    missing, and ``fairdesk relink`` points the dataset at its new place."""
    if reason is None or root is None or not reason.startswith("file not found"):
        return reason
    return (
        f"file not found: the dataset's audio folder {root} is missing (moved, renamed or "
        f"not mounted); point the dataset at its new place with `fairdesk relink --project "
        f"{project_folder} --dataset {dataset!r} NEW_FOLDER`"
    )


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
