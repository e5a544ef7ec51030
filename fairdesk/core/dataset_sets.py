"""Several datasets audited as one (docs/METHODS.md, "Several datasets"):
a pilot and the recordings made to grow it (``fairdesk audit --dataset pilot --dataset
session``).

Within a set of more than one dataset an item is keyed by its dataset: its id is
``<dataset>/<item key>`` (:func:`qualify`; the views look it up through :func:`set_items`,
never by splitting it), its rows carry the ``dataset`` they come from and its audio path
stays relative to that dataset's root. A set of one dataset is that dataset, with the item
keys as they are, so every run audited before stays as it was.

Speaker and content ids are not keyed by dataset: a speaker id that two datasets share is
one speaker (the resampling keeps their items together, the cautious reading of a corpus
split into datasets), and a content id they share is one sentence (a matched recording plan
records the pilot's own prompts under their content ids). :func:`shared_speakers` lists the
speaker ids found in several datasets, for the run's notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import audio_paths
from .errors import FairdeskError
from .store import Dataset, Project

__all__ = [
    "DatasetSet",
    "audio_file",
    "check_by_columns",
    "job_paths",
    "open_set",
    "qualify",
    "run_dataset_names",
    "run_set",
    "set_items",
    "shared_speakers",
]


def qualify(dataset: str, key: str) -> str:
    """The id of item ``key`` of ``dataset`` within a set of several datasets."""
    return f"{dataset}/{key}"


@dataclass(frozen=True)
class DatasetSet:
    """The datasets of one audit, the first being the one the run is filed under."""

    datasets: tuple[Dataset, ...]

    @property
    def first(self) -> Dataset:
        return self.datasets[0]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.datasets)

    @property
    def several(self) -> bool:
        return len(self.datasets) > 1

    @property
    def label(self) -> str:
        """``pilot + session`` (the one name for a single dataset)."""
        return " + ".join(self.names)

    @property
    def said(self) -> str:
        """``dataset 'pilot'`` or ``datasets pilot + session``, for messages."""
        return f"dataset {self.first.name!r}" if not self.several else f"datasets {self.label}"

    @property
    def language(self) -> str:
        return self.first.language

    def root_of(self, name: str | None) -> Path:
        """The audio root of dataset ``name`` (the first dataset's for None or '')."""
        if not name:
            return Path(self.first.root)
        for d in self.datasets:
            if d.name == name:
                return Path(d.root)
        raise FairdeskError(f"dataset {name!r} is not one of {', '.join(self.names)}")


def open_set(project: Project, names: Sequence[str]) -> DatasetSet:
    """The datasets ``names`` (in order, each once), checked to exist and to share one
    language.

    Raises
    ------
    FairdeskError
        No name, an unknown dataset (the store's message lists them), or datasets of
        different languages (their metrics would be normalised differently).
    """
    names = list(dict.fromkeys(str(n).strip() for n in names if str(n).strip()))
    if not names:
        raise FairdeskError("give a dataset name (`fairdesk datasets` lists them)")
    sets = tuple(project.dataset(n) for n in names)
    langs = {d.language for d in sets}
    if len(langs) > 1:
        said = ", ".join(f"{d.name} ({d.language})" for d in sets)
        raise FairdeskError(
            f"datasets of different languages cannot be audited together: {said}; audit "
            "each alone, or re-import one with the other's --language"
        )
    return DatasetSet(sets)


def set_items(
    project: Project,
    dset: DatasetSet,
    filters: dict[str, list[str]] | None = None,
    stale: bool | None = False,
):
    """The items of the set as one frame (:meth:`Project.items` of each dataset).

    For several datasets the ``id`` is :func:`qualify`'d, ``item_key`` keeps the dataset's
    own key and ``dataset`` names the dataset; one dataset's frame is returned unchanged.
    """
    import pandas as pd

    if not dset.several:
        return project.items(dset.first, filters, stale=stale)
    frames = []
    for d in dset.datasets:
        f = project.items(d, filters, stale=stale).copy()
        f.insert(1, "item_key", f["id"].astype(str))
        f.insert(1, "dataset", d.name)
        f["id"] = [qualify(d.name, k) for k in f["item_key"]]
        frames.append(f)
    return pd.concat(frames, ignore_index=True, sort=False)


def shared_speakers(frame) -> dict[str, tuple[str, ...]]:
    """Speaker id -> the datasets it is found in, for the ids found in more than one."""
    if "dataset" not in frame.columns or "speaker_id" not in frame.columns or frame.empty:
        return {}
    sub = frame[frame["speaker_id"].notna()]
    per = sub.groupby(sub["speaker_id"].astype(str))["dataset"].unique()
    return {str(s): tuple(sorted(map(str, v))) for s, v in per.items() if len(v) > 1}


def run_dataset_names(run) -> tuple[str, ...]:
    """The datasets an :class:`~fairdesk.jobs.result.AuditRun` was audited on (older runs
    and table audits: their one ``dataset``, or none)."""
    rs = getattr(run, "run_settings", None)
    names = tuple(getattr(rs, "datasets", None) or ()) if rs is not None else ()
    if names:
        return names
    return (str(run.dataset),) if getattr(run, "dataset", None) else ()


def run_set(project: Project, run) -> DatasetSet:
    """The :class:`DatasetSet` of a stored run.

    Raises
    ------
    FairdeskError
        The run has no dataset (a table audit) or one of them is gone.
    """
    names = run_dataset_names(run)
    if not names:
        raise FairdeskError(f"run {getattr(run, 'run_id', '?')} was not audited on a dataset")
    return DatasetSet(tuple(project.dataset(n) for n in names))


def audio_file(dset: DatasetSet, row) -> Path | None:
    """The audio file of a per-item row of a run of ``dset`` (None without a path, or for a
    row of a dataset the set does not hold)."""
    rel = row.get("path") if hasattr(row, "get") else None
    if rel is None or rel != rel or not str(rel):
        return None
    name = row.get("dataset") if dset.several else None
    name = name if isinstance(name, str) else None
    if name and name not in dset.names:
        return None
    return audio_paths.audio_file(dset.root_of(name), rel)


def check_by_columns(items, by, dset: DatasetSet) -> None:
    """Every grouping column has values in every dataset of the set (an import keeps no
    column without any value; a recording dataset gets its speakers' metadata).

    Raises
    ------
    FairdeskError
        A column no item has, or a dataset with no value in one.
    """
    absent = [c for c in by if c not in items.columns]
    if absent:
        raise FairdeskError(
            f"--by {', '.join(absent)}: no item of {dset.said} has a value there "
            f"(an import keeps no column without values); columns: {', '.join(items.columns)}"
        )
    if not dset.several:
        return
    for name in dset.names:
        sub = items[items["dataset"] == name]
        empty = [c for c in by if len(sub) and sub[c].isna().all()]
        if empty:
            raise FairdeskError(
                f"dataset {name!r} has no value for {', '.join(empty)}, so its items belong "
                "to no group: give its speakers those columns (the Record tab's speaker "
                "form, or the import's metadata), or audit the datasets apart"
            )


def job_paths(frame, dset: DatasetSet):
    """The frame an audit job reads audio through: for several datasets each ``path`` made
    absolute under its own dataset's root, the relative one kept as ``rel_path`` (the
    stored rows and a predictions file use it); one dataset's frame as it is."""
    if not dset.several:
        return frame
    frame = frame.copy()
    frame["rel_path"] = frame["path"]
    frame["path"] = [
        str(audio_paths.audio_file(dset.root_of(d), rel))
        for d, rel in zip(frame["dataset"], frame["rel_path"])
    ]
    return frame
