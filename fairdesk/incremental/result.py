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
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from fairdesk.core.jsonio import jsonable

__all__ = ["SCHEMA", "IncrementalResult", "ModelsTable"]

#: The version ``to_json`` writes; ``from_json`` reads it and payloads without one.
SCHEMA = 1

#: Summary keys that are not metrics.
_NOT_METRICS = frozenset({"model", "policy", "stream", "n_items", "totals"})
#: SPR metrics and the revoke count whose zero makes them infinite.
_SPR = {"spr": "n_revokes", "spr_edit": "n_revokes_edit"}
_SEGMENT_NAN = ("n_words", "n_sub", "n_del", "n_ins")


def _nan(v):
    return math.nan if v is None else v


def _spr(v, revokes):
    if v is not None:
        return v
    return math.inf if revokes == 0 else math.nan


def _summary_row(r: dict) -> dict:
    totals = r.get("totals") or {}
    out = {}
    for k, v in r.items():
        if k in _SPR:
            out[k] = _spr(v, totals.get(_SPR[k]))
        elif k in _NOT_METRICS:
            out[k] = v
        else:
            out[k] = _nan(v)
    return out


def _check_schema(d: dict, what: str) -> None:
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
    columns : ``{"model", "policy", "stream", "label"}`` per column.
    values : metric id -> one value per column (``spr`` is inf without revokes).
    """

    rows: tuple[str, ...] = ()
    columns: tuple[dict, ...] = ()
    values: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """The JSON-ready table (NaN and infinity as null)."""
        return jsonable(
            {"rows": list(self.rows), "columns": list(self.columns), "values": self.values}
        )

    @classmethod
    def from_json(cls, d: dict | None, summary=()) -> ModelsTable:
        """The table of ``to_json()`` (or :func:`~fairdesk.incremental.run.models_table`'s
        dict); ``summary`` (its rows) tells an infinite SPR from an undefined one."""
        d = d or {}
        cols = tuple(d.get("columns") or ())
        revokes = {
            (r.get("model", ""), r.get("policy"), r.get("stream")): (r.get("totals") or {})
            for r in summary or ()
        }
        values = {}
        for m, vals in (d.get("values") or {}).items():
            out = []
            for j, v in enumerate(vals):
                if m in _SPR and j < len(cols):
                    c = cols[j]
                    tot = revokes.get((c.get("model", ""), c.get("policy"), c.get("stream")))
                    # no summary row to tell: an old table's null SPR was shown as inf
                    out.append(_spr(v, 0 if tot is None else tot.get(_SPR[m])))
                else:
                    out.append(_nan(v))
            values[m] = out
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
        (:func:`fairdesk.incremental.run.summarise`).
    table : the models × policies table.
    hardware : the machine the timings come from.
    decoders : per model ``{"model", "policies", "warm_up_s", "decoder"}``.
    settings : statistics settings, ``by``, ``filters``, ``sample``, ``metrics`` (and
        ``items`` when chosen by id).
    failures : ``{"item", "reason", "model"}`` per item whose audio could not be used.
    items : one row per item × model × policy × stream (statistic columns, hypothesis).
    timelines : one add/revoke timeline per item × model × policy.
    split : the silence-split settings, None when recordings were streamed whole.
    policy_options : options by policy name.
    groups : per (model ×) policy × stream the group comparisons (None without ``by``).
    systems : per policy × stream with several models, the models paired on the same items
        (``fairdesk.incremental.pairing``; None with one model or without ``by``).
    segments : per-segment rows (None without ``split``).
    logs : every update log (None unless asked for).
    run_id : the stored run (None when not stored).
    """

    dataset: str
    models: tuple[str, ...]
    policies: tuple[str, ...]
    chunk_s: float | None
    n_items: int
    summary: tuple[dict, ...]
    table: ModelsTable
    hardware: dict = field(default_factory=dict)
    decoders: tuple[dict, ...] = ()
    settings: dict = field(default_factory=dict)
    failures: tuple[dict, ...] = ()
    items: tuple[dict, ...] = ()
    timelines: tuple[dict, ...] = ()
    split: dict | None = None
    policy_options: dict = field(default_factory=dict)
    groups: tuple[dict, ...] | None = None
    systems: tuple[dict, ...] | None = None
    segments: tuple[dict, ...] | None = None
    logs: tuple[dict, ...] | None = None
    run_id: int | None = None

    @property
    def model(self) -> str:
        """The first model (today's layout's ``model``)."""
        return self.models[0] if self.models else ""

    @property
    def decoder(self) -> dict:
        """The first model's decoder settings."""
        return dict(self.decoders[0].get("decoder") or {}) if self.decoders else {}

    @property
    def warm_up_s(self) -> float | None:
        """The first model's warm-up seconds (never counted as decode time)."""
        return self.decoders[0].get("warm_up_s") if self.decoders else None

    @property
    def metrics(self) -> list[str]:
        """The metrics compared across groups."""
        return list(self.settings.get("metrics") or [])

    def with_run_id(self, run_id: int | None) -> IncrementalResult:
        """This result, stored as run ``run_id``."""
        return replace(self, run_id=None if run_id is None else int(run_id))

    def to_json(self, timelines: bool = True) -> dict:
        """The JSON-ready payload: today's layout plus ``schema`` (see the module docstring).

        Parameters
        ----------
        timelines : include the timelines (``fairdesk incremental --json`` leaves them out
            without ``--logs``).
        """
        out = {
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
            "decoders": list(self.decoders),
            "warm_up_s": self.warm_up_s,
            "n_items": self.n_items,
            "summary": list(self.summary),
            "table": self.table.to_json(),
            "failures": list(self.failures),
            "settings": self.settings,
        }
        for name in ("groups", "systems", "logs"):
            if getattr(self, name) is not None:
                out[name] = list(getattr(self, name))
        out["items"] = list(self.items)
        if self.segments is not None:
            out["segments"] = list(self.segments)
        if timelines:
            out["timelines"] = list(self.timelines)
        if self.run_id is not None:
            out["run_id"] = self.run_id
        return jsonable(out)

    @classmethod
    def from_json(cls, d: dict) -> IncrementalResult:
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
        summary = tuple(_summary_row(r) for r in d.get("summary") or [])
        segments = d.get("segments")
        if segments is not None:
            segments = tuple(
                {k: (_nan(v) if k in _SEGMENT_NAN else v) for k, v in s.items()} for s in segments
            )
        known = {f.name for f in fields(cls)}
        opt = {
            k: tuple(d[k])
            for k in ("groups", "systems", "logs")
            if d.get(k) is not None and k in known
        }
        return cls(
            dataset=d.get("dataset") or "",
            models=models,
            policies=tuple(d.get("policies") or ()),
            chunk_s=d.get("chunk_s"),
            n_items=int(d.get("n_items") or 0),
            summary=summary,
            table=ModelsTable.from_json(d.get("table"), summary),
            hardware=dict(d.get("hardware") or {}),
            decoders=tuple(decoders),
            settings=dict(d.get("settings") or {}),
            failures=tuple(d.get("failures") or ()),
            items=tuple(d.get("items") or ()),
            timelines=tuple(d.get("timelines") or ()),
            split=d.get("split"),
            policy_options=dict(d.get("policy_options") or {}),
            segments=segments,
            run_id=None if d.get("run_id") is None else int(d["run_id"]),
            **opt,
        )
