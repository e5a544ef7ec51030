"""The result of an incremental run, typed: :class:`IncrementalResult` and its models ×
policies table :class:`ModelsTable`, with their JSON form.

``to_json()`` gives the layout ``fairdesk incremental --json`` writes and the project stores
(:mod:`fairdesk.incremental.store`) with ``"schema": SCHEMA`` added; ``from_json()`` reads
it back, and a payload without ``schema`` is today's layout (every run stored before the
version existed). JSON has no NaN or infinity, so ``to_json`` writes them as null and
``from_json`` restores them field by field:

- ``spr`` / ``spr_edit`` (a summary row's, and the table's ``spr`` row): null is infinity when
  the row has no revokes (``totals.n_revokes`` / ``n_revokes_edit`` is 0: decode seconds per
  revoke without a revoke), else NaN;
- every other metric of a summary row and every other table value: null is NaN (undefined,
  e.g. WER without reference words);
- a segment row's ``n_words``, ``n_sub``, ``n_del``, ``n_ins``: null is NaN (no reference per
  segment);
- everything else (items, timelines, group comparisons, settings) is kept as stored.

Every part a view reads is typed (:mod:`fairdesk.incremental.result_parts`): the summary rows
(:class:`~.result_parts.PolicySummary` with :class:`~.result_parts.StreamTotals`), the table's
columns, the group comparisons (:class:`~.result_parts.GroupComparisons`, whose statistics are
a ``stats.results.AuditResult``), the decoders, the failures and the timelines. The rows of
items, segments and logs (an item's own columns beside its statistics) and the settings,
hardware and decoder settings stay mappings, as stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fairdesk.core.jsonio import ResultJson, jsonable
from fairdesk.incremental.result_parts import (
    SPR_REVOKES,
    FailedItem,
    GroupComparisons,
    ModelDecoder,
    PolicySummary,
    SystemsBlock,
    TableColumn,
    Timeline,
    frozen,
    nan_if_none,
    spr_value,
)

__all__ = ["SCHEMA", "IncrementalResult", "ModelsTable"]

#: The version ``to_json`` writes; ``from_json`` reads it and payloads without one.
SCHEMA = 1

_SEGMENT_NAN = ("n_words", "n_sub", "n_del", "n_ins")


def _empty() -> Mapping[str, Any]:
    return {}


def _check_schema(d: Mapping, what: str) -> None:
    v = d.get("schema")
    if v is not None and (not isinstance(v, int) or v > SCHEMA):
        raise ValueError(
            f"{what} has schema {v!r}; this fairdesk reads schema {SCHEMA} or none "
            "(a newer fairdesk wrote it: update fairdesk)"
        )


@dataclass(frozen=True)
class ModelsTable:
    """Whetten et al.'s Table 2 (:func:`fairdesk.incremental.run.models_table`).

    Attributes
    ----------
    rows : metric ids, one per table row.
    columns : one :class:`~.result_parts.TableColumn` (model, policy, stream, label) per
        column.
    values : metric id -> one value per column (``spr`` is inf without revokes).
    """

    rows: tuple[str, ...] = ()
    columns: tuple[TableColumn, ...] = ()
    values: Mapping[str, tuple[float, ...]] = field(default_factory=_empty)

    def to_json(self) -> ResultJson:
        """The JSON-ready table (NaN and infinity as null)."""
        return ResultJson(
            jsonable(
                {
                    "rows": list(self.rows),
                    "columns": [c.to_json() for c in self.columns],
                    "values": {m: list(v) for m, v in self.values.items()},
                }
            )
        )

    @classmethod
    def from_json(
        cls, d: Mapping | None, summary: Sequence[PolicySummary | Mapping] = ()
    ) -> ModelsTable:
        """The table of ``to_json()`` (or :func:`~fairdesk.incremental.run.models_table`'s
        dict); ``summary`` (its rows) tells an infinite SPR from an undefined one."""
        d = d or {}
        cols = tuple(TableColumn.from_json(c) for c in d.get("columns") or ())
        rows = [r if isinstance(r, PolicySummary) else PolicySummary.from_json(r) for r in summary]
        totals = {r.key: r.totals for r in rows}
        values = {}
        for m, vals in (d.get("values") or {}).items():
            out = []
            for j, v in enumerate(vals):
                if m in SPR_REVOKES and j < len(cols):
                    tot = totals.get(cols[j].key)
                    # no summary row to tell: an old table's null SPR was shown as inf
                    out.append(spr_value(v, 0 if tot is None else getattr(tot, SPR_REVOKES[m])))
                else:
                    out.append(nan_if_none(v))
            values[m] = tuple(out)
        return cls(tuple(d.get("rows") or ()), cols, values)


@dataclass(frozen=True)
class IncrementalResult:
    """Everything an incremental run computed (docs/METHODS.md, "Incremental recognition").

    Attributes
    ----------
    dataset : the dataset's name.
    models, policies : what was run (a model runs the policies it can: ``decoders``).
    chunk_s : seconds per chunk (None when a stored payload lacks it).
    n_items : items streamed.
    summary : pooled metrics per (model,) policy and stream
        (:class:`~.result_parts.PolicySummary`, :func:`fairdesk.incremental.run.summarise`).
    table : the models × policies table.
    hardware : the machine the timings come from (as :func:`~.run.hardware` wrote it).
    decoders : per model its :class:`~.result_parts.ModelDecoder`.
    settings : statistics settings, ``by``, ``filters``, ``sample``, ``metrics`` (and
        ``items`` when chosen by id); read through :attr:`by`, :attr:`filters`,
        :attr:`sample`, :attr:`metrics`.
    failures : per item whose audio could not be used, its :class:`~.result_parts.FailedItem`.
    items : one row per item × model × policy × stream (the item's columns, the statistic
        columns, hypothesis).
    timelines : one :class:`~.result_parts.Timeline` per item × model × policy.
    split : the silence-split settings, None when recordings were streamed whole.
    policy_options : options by policy name.
    groups : per (model ×) policy × stream the group comparisons
        (:class:`~.result_parts.GroupComparisons`; None without ``by``).
    systems : per policy × stream with several models, the models paired on the same items
        (:class:`~.result_parts.SystemsBlock`; None with one model or without ``by``).
    segments : per-segment rows (None without ``split``).
    logs : every update log (None unless asked for).
    run_id : the stored run (None when not stored).
    """

    dataset: str
    models: tuple[str, ...]
    policies: tuple[str, ...]
    chunk_s: float | None
    n_items: int
    summary: tuple[PolicySummary, ...]
    table: ModelsTable
    hardware: Mapping[str, Any] = field(default_factory=_empty)
    decoders: tuple[ModelDecoder, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=_empty)
    failures: tuple[FailedItem, ...] = ()
    items: tuple[Mapping[str, Any], ...] = ()
    timelines: tuple[Timeline, ...] = ()
    split: Mapping[str, Any] | None = None
    policy_options: Mapping[str, Any] = field(default_factory=_empty)
    groups: tuple[GroupComparisons, ...] | None = None
    systems: tuple[SystemsBlock, ...] | None = None
    segments: tuple[Mapping[str, Any], ...] | None = None
    logs: tuple[Mapping[str, Any], ...] | None = None
    run_id: int | None = None

    @property
    def model(self) -> str:
        """The first model (today's layout's ``model``)."""
        return self.models[0] if self.models else ""

    @property
    def decoder(self) -> dict:
        """The first model's decoder settings."""
        return dict(self.decoders[0].decoder) if self.decoders else {}

    @property
    def warm_up_s(self) -> float | None:
        """The first model's warm-up seconds (never counted as decode time)."""
        return self.decoders[0].warm_up_s if self.decoders else None

    @property
    def machine(self) -> str | None:
        """The processor the timings come from (the machine type where it is unknown)."""
        return self.hardware.get("cpu") or self.hardware.get("machine")

    @property
    def usable_cpus(self) -> int | None:
        """The CPUs the run could use."""
        return self.hardware.get("usable_cpus")

    @property
    def metrics(self) -> list[str]:
        """The metrics compared across groups."""
        return list(self.settings.get("metrics") or [])

    @property
    def by(self) -> list[str]:
        """The grouping columns (empty without groups)."""
        return list(self.settings.get("by") or [])

    @property
    def filters(self) -> dict:
        """The item filters the run was made with."""
        return dict(self.settings.get("filters") or {})

    @property
    def sample(self) -> int | None:
        """The sample size asked for (None: every chosen item)."""
        return self.settings.get("sample")

    @property
    def max_segments(self) -> int:
        """The most segments an item was split into (1 without ``split``)."""
        return max((int(i.get("n_segments", 1)) for i in self.items), default=1)

    def summary_row(self, column: TableColumn) -> PolicySummary | None:
        """The summary row of a table column (None when the run has none)."""
        return next((r for r in self.summary if r.key == column.key), None)

    def with_run_id(self, run_id: int | None) -> IncrementalResult:
        """This result, stored as run ``run_id``."""
        return replace(self, run_id=None if run_id is None else int(run_id))

    def to_json(self, timelines: bool = True) -> ResultJson:
        """The JSON-ready payload: today's layout plus ``schema`` (see the module docstring).

        Parameters
        ----------
        timelines : include the timelines (``fairdesk incremental --json`` leaves them out
            without ``--logs``).
        """
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "dataset": self.dataset,
            "model": self.model,
            "models": list(self.models),
            "policies": list(self.policies),
            "chunk_s": self.chunk_s,
            "split": self.split,
            "policy_options": self.policy_options,
            "hardware": self.hardware,
            "decoder": self.decoder,
            "decoders": [d.to_json() for d in self.decoders],
            "warm_up_s": self.warm_up_s,
            "n_items": self.n_items,
            "summary": [r.to_json() for r in self.summary],
            "table": self.table.to_json(),
            "failures": [f.to_json() for f in self.failures],
            "settings": self.settings,
        }
        if self.groups is not None:
            out["groups"] = [g.to_json() for g in self.groups]
        if self.systems is not None:
            out["systems"] = [b.to_json() for b in self.systems]
        if self.logs is not None:
            out["logs"] = list(self.logs)
        out["items"] = list(self.items)
        if self.segments is not None:
            out["segments"] = list(self.segments)
        if timelines:
            out["timelines"] = [t.to_json() for t in self.timelines]
        if self.run_id is not None:
            out["run_id"] = self.run_id
        return ResultJson(jsonable(out))

    @classmethod
    def from_json(cls, d: Mapping) -> IncrementalResult:
        """The result of a payload of ``to_json()`` or of today's layout (no ``schema``).

        Raises
        ------
        ValueError
            A schema newer than this fairdesk reads.
        """
        _check_schema(d, "this incremental result")
        models = tuple(d.get("models") or ([d["model"]] if d.get("model") else []))
        decoders = d.get("decoders")
        if decoders is None:  # one model, before per-model decoders
            decoders = [
                {
                    "model": models[0] if models else "",
                    "policies": list(d.get("policies") or []),
                    "warm_up_s": d.get("warm_up_s"),
                    "decoder": d.get("decoder") or {},
                }
            ]
        summary = tuple(PolicySummary.from_json(r) for r in d.get("summary") or [])
        segments = d.get("segments")
        if segments is not None:
            segments = [
                {k: (nan_if_none(v) if k in _SEGMENT_NAN else v) for k, v in s.items()}
                for s in segments
            ]
        groups, systems = d.get("groups"), d.get("systems")
        return cls(
            dataset=d.get("dataset") or "",
            models=models,
            policies=tuple(d.get("policies") or ()),
            chunk_s=d.get("chunk_s"),
            n_items=int(d.get("n_items") or 0),
            summary=summary,
            table=ModelsTable.from_json(d.get("table"), summary),
            hardware=dict(d.get("hardware") or {}),
            decoders=tuple(ModelDecoder.from_json(x) for x in decoders),
            settings=dict(d.get("settings") or {}),
            failures=tuple(FailedItem.from_json(f) for f in d.get("failures") or ()),
            items=frozen(d.get("items") or ()) or (),
            timelines=tuple(Timeline.from_json(t) for t in d.get("timelines") or ()),
            split=d.get("split"),
            policy_options=dict(d.get("policy_options") or {}),
            groups=None if groups is None else tuple(GroupComparisons.from_json(g) for g in groups),
            systems=None if systems is None else tuple(SystemsBlock.from_json(b) for b in systems),
            segments=frozen(segments),
            logs=frozen(d.get("logs")),
            run_id=None if d.get("run_id") is None else int(d["run_id"]),
        )
