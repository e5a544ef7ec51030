"""What a report or an export reads from a project: one finished run, plainly.

:func:`load_run` gathers the stored audit result (``results`` of kind ``audit``), the per-item
rows (kind ``items``), the run's row (dates, model fingerprint), the dataset's summary and
its items (audio paths, content hashes, database ids). Fields added to results by later
fairdesk versions (per-group CIs, ``not_estimable`` and ``no_variation`` verdicts) are read
when present and skipped when absent, so older runs still render.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core.store import Project
from ..presentation import MISSING
from .palette import VERDICTS  # noqa: E402, F401 - the GUI's colours

REFERENCE_COLOUR = "#222222"
#: Series colours (colour-blind safe, Okabe-Ito; the GUI's).
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]


def verdict_style(verdict) -> tuple[str, str, str]:
    """(label, background, foreground) of a verdict id (unknown ids in grey)."""
    v = str(verdict or "")
    return VERDICTS.get(v, (v.replace("_", " ") or MISSING, "#e0e0e0", "#1a1a1a"))


def num(v) -> float:
    """A stored number as float (None, text and non-finite values → NaN)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return math.nan
    return x if math.isfinite(x) else math.nan


@dataclass
class RunData:
    """One finished run as the reports read it.

    Attributes
    ----------
    project : the open project.
    run_id : the run.
    payload : the stored audit result (JSON-ready dict).
    items : per-item rows of the run (DataFrame), joined to the dataset's items
        (``db_id``, ``audio_hash``, ``duration``, ``path``) where the dataset still has them.
    run : the ``runs`` row as a dict (``created_at``, ``finished_at``, ``model_fingerprint``,
        ``status``), empty when missing.
    dataset : the dataset (``core.store.Dataset``) or None when it was deleted.
    dataset_summary : ``Project.dataset_summary`` of it (empty dict when deleted).
    """

    project: Project
    run_id: int
    payload: dict
    items: object
    run: dict = field(default_factory=dict)
    dataset: object = None
    dataset_summary: dict = field(default_factory=dict)

    @property
    def settings(self) -> dict:
        return self.payload.get("settings") or {}

    @property
    def language(self) -> str:
        return str(self.settings.get("language") or "en")

    @property
    def model_key(self) -> str:
        return str(self.payload.get("model_key") or self.settings.get("model_key") or "")

    @property
    def reference(self):
        return self.payload.get("reference")

    def audio_path(self, row) -> Path | None:
        """Absolute audio path of a per-item row (None without a dataset)."""
        if self.dataset is None or not row.get("path"):
            return None
        return Path(self.dataset.root) / str(row["path"])

    def words(self, item_db_id) -> list[dict]:
        """The model's word timings of an item in this run (``predictions.words``)."""
        if item_db_id is None or num(item_db_id) != num(item_db_id):
            return []
        from ..core.run_items import run_item_words

        words = run_item_words(self.project, self.run_id, int(item_db_id))
        return json.loads(words) if words else []

    def date(self) -> str:
        t = self.run.get("finished_at") or self.run.get("created_at")
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t)) if t else "unknown"


def load_run(project: Project, run_id: int) -> RunData:
    """Everything a report or export of ``run_id`` needs (see :class:`RunData`).

    Raises
    ------
    ValueError
        The run does not exist or has no stored result (the message lists the finished runs).
    """
    from ..core.errors import StoreError
    from ..core.runs import run_items_frame, run_payload, run_row

    run_id = int(run_id)
    payload = run_payload(project, run_id)
    items = run_items_frame(project, run_id)
    run = run_row(project, run_id) or {}
    ds, summary = None, {}
    name = payload.get("dataset")
    if name:
        try:
            ds = project.dataset(str(name))
            summary = project.dataset_summary(ds)
        except StoreError:
            ds = None
    if ds is not None and not items.empty and "id" in items.columns:
        known = project.items(ds)[["id", "db_id", "audio_hash", "duration", "path"]]
        known = known.rename(columns={"duration": "_duration", "path": "_path"})
        known["id"] = known["id"].astype(str)
        items = items.assign(id=items["id"].astype(str))
        items = items.drop(columns=[c for c in ("db_id", "audio_hash") if c in items.columns])
        items = items.merge(known, how="left", on="id")
        if "path" not in items.columns:
            items["path"] = items["_path"]
        if "duration" not in items.columns:
            items["duration"] = items["_duration"]
        items = items.drop(columns=["_path", "_duration"])
    return RunData(project, run_id, payload, items, run, ds, summary)
