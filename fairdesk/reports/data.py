"""What a report or an export reads from a project: one finished run, plainly.

:func:`load_run` gathers the stored audit result (``results`` of kind ``audit``, read once
into the typed :class:`fairdesk.jobs.result.AuditRun`), the per-item rows (kind ``items``),
the run's row (dates, model fingerprint), the dataset's summary and its items (audio paths,
content hashes, database ids). The views read ``RunData.audit`` (attributes only); fields
added to results by later fairdesk versions (per-group CIs, ``not_estimable`` and
``no_variation`` verdicts) take their defaults when absent, so older runs still render.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.store import Dataset, Project
from ..jobs.result import AuditRun
from ..presentation import MISSING
from ..stats.results import GroupInfo
from ..stats.summary import MetricSummary
from .palette import VERDICTS  # noqa: E402, F401 - the GUI's colours

if TYPE_CHECKING:
    import pandas as pd

    from ..core.dataset_sets import DatasetSet

REFERENCE_COLOUR = "#222222"
#: Series colours (colour-blind safe, Okabe-Ito; the GUI's).
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]


def verdict_style(verdict) -> tuple[str, str, str]:
    """(label, background, foreground) of a verdict id (unknown ids in grey)."""
    v = str(verdict or "")
    return VERDICTS.get(v, (v.replace("_", " ") or MISSING, "#e0e0e0", "#1a1a1a"))


@dataclass(frozen=True)
class Overall:
    """A metric's corpus-wide value: ``value``, its 95% ``ci`` (``(low, high)`` or None),
    the ``scheme`` that resampled it and ``n_missing``, the items with no grouping value it
    includes (docs/METHODS.md, "Missing values"; 0 for older runs)."""

    value: float | None
    ci: tuple | None
    scheme: str | None
    n_missing: int = 0
    #: the basis E of a diacritic metric's corpus value (None for any other metric)
    basis: float | None = None
    #: the CI's flags (``bound_clamped``: a bound clamped to the metric's range)
    flags: tuple[str, ...] = ()


def summary_overall(s: MetricSummary | None) -> Overall | None:
    """The corpus-wide value of a metric (``MetricSummary.overall``, a free-form block:
    this is its one reader); None when the run has none."""
    o = s.overall if s is not None else None
    if not o:
        return None
    return Overall(
        o.get("value"),
        o.get("ci"),
        o.get("scheme"),
        int(o.get("n_missing") or 0),
        o.get("basis"),
        tuple(o.get("flags") or ()),
    )


def group_ci(g: GroupInfo, metric: str) -> tuple | None:
    """A group's own 95% CI of ``metric``, ``(low, high)``, or None (``GroupInfo.ci``
    values are free-form: this is their one reader)."""
    return (g.ci or {}).get(metric)


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
    payload : the audit result as given: the stored JSON (a dict, kept as read) or an
        :class:`~fairdesk.jobs.result.AuditRun`. The views read :attr:`audit`, decoded from
        it on the first read (assigning a new payload decodes again; an edit in place after
        that first read is not seen).
    items : per-item rows of the run (DataFrame), joined to the dataset's items
        (``db_id``, ``audio_hash``, ``duration``, ``path``) where the dataset still has them.
    run : the ``runs`` row as a dict (``created_at``, ``finished_at``, ``model_fingerprint``,
        ``status``), empty when missing.
    dataset : the dataset (``core.store.Dataset``) or None when it was deleted; for a run of
        several datasets, the first (the one the run is filed under).
    dataset_summary : ``Project.dataset_summary`` of it (empty dict when deleted).
    dataset_set : every dataset of the run (:class:`fairdesk.core.dataset_sets.DatasetSet`;
        None when one was deleted).
    """

    project: Project
    run_id: int
    payload: Mapping | AuditRun
    items: pd.DataFrame
    run: dict = field(default_factory=dict)
    dataset: Dataset | None = None
    dataset_summary: dict = field(default_factory=dict)
    dataset_set: DatasetSet | None = None

    _audit: AuditRun | None = field(default=None, init=False, repr=False, compare=False)

    def __setattr__(self, name, value) -> None:
        if name == "payload":  # a new payload: decode it again on the next read
            object.__setattr__(self, "_audit", None)
        object.__setattr__(self, name, value)

    @property
    def audit(self) -> AuditRun:
        """The typed audit result (``AuditRun.from_json(payload)``, decoded once)."""
        audit = self._audit
        if audit is None:
            p = self.payload
            audit = p if isinstance(p, AuditRun) else AuditRun.from_json(p)
            object.__setattr__(self, "_audit", audit)
        return audit

    @property
    def language(self) -> str:
        """The dataset's language as the run recorded it (``en`` when it did not)."""
        rs = self.audit.run_settings
        return str((rs.language if rs is not None else None) or "en")

    @property
    def normaliser_name(self) -> str | None:
        """The WER normaliser setting of the run (None for a run without statistics)."""
        s = self.audit.settings
        return s.normaliser if s is not None else None

    @property
    def scoring(self) -> tuple[str, str | None]:
        """(language, normaliser) the run's WER was counted with, as ``fairdesk show``
        aligns the items (:func:`fairdesk.review.run_language`, ``run_normaliser``)."""
        from ..review import run_language, run_normaliser

        return run_language(self.audit), run_normaliser(self.audit)

    @property
    def model_key(self) -> str:
        """The model's cache key (``name@fingerprint``; '' when unknown)."""
        a = self.audit
        rs = a.run_settings
        return str(a.model_key or (rs.model_key if rs is not None else None) or "")

    @property
    def reference(self):
        """The reference group."""
        return self.audit.reference

    def audio_path(self, row) -> Path | None:
        """Absolute audio path of a per-item row (None without a dataset)."""
        if self.dataset is None or not row.get("path"):
            return None
        if self.dataset_set is not None:
            from ..core.dataset_sets import audio_file

            return audio_file(self.dataset_set, row)
        from ..core.audio_paths import audio_file as join

        return join(self.dataset.root, row["path"])

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
    from ..core.dataset_sets import run_set, set_items

    ds, summary, dset = None, {}, None
    audit = AuditRun.from_json(payload)
    if audit.dataset:
        try:
            dset = run_set(project, audit)
            ds = dset.first
            summary = project.dataset_summary(ds)
        except StoreError:
            ds = dset = None
    if dset is not None and not items.empty and "id" in items.columns:
        from ..core.rehash import refresh_frame

        # a file changed since it was hashed: its alignments and saliency are keyed anew
        known = refresh_frame(project, set_items(project, dset))
        known = known[["id", "db_id", "audio_hash", "duration", "path"]]
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
    from ..jobs.plan_run import with_stored_plan

    planned = with_stored_plan(project, run_id, audit)
    if planned is not audit:  # the resampling plan made since replaces the stored estimate
        payload = planned
    # ``audit`` is decoded again on first read, so a caller may still edit the payload
    return RunData(project, run_id, payload, items, run, ds, summary, dset)
