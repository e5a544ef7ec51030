"""The typed parts of an incremental result (:class:`~fairdesk.incremental.result.IncrementalResult`):
the pooled row per (model ×) policy × stream (:class:`PolicySummary` and its
:class:`StreamTotals`), a column of the models × policies table (:class:`TableColumn`), the
group comparisons of one policy and stream (:class:`GroupComparisons`), the models paired on
the same items (:class:`SystemsBlock`), a model's decoder (:class:`ModelDecoder`), an item
that failed (:class:`FailedItem`) and the add/revoke timeline of one stream
(:class:`Timeline`, :class:`TimelineEvent`).

Each has ``to_json()``, the dict today's layout stores, and ``from_json()``, which reads it
(and the in-memory dict a producer builds: :func:`~fairdesk.incremental.metrics.pooled`'s
row, ``AuditResult.to_dict()``, a timeline), so a fresh result and its stored JSON read
back hold the same values. A key a
stored payload lacks (a run made before the metric existed) reads as None and is left out
again by ``to_json``; a stored null of a metric reads as NaN (undefined) or, for SPR without
revokes, infinity (see :mod:`fairdesk.incremental.result`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from fairdesk.core.jsonio import ResultJson, jsonable
from fairdesk.incremental.metrics import STAT_COLUMNS
from fairdesk.stats.codec import (
    decode_settings,
    decode_system_comparison,
    freeze,
    stats_from_json,
)
from fairdesk.stats.notices import Notice
from fairdesk.stats.results import AuditResult
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.system_results import SystemComparisonResult

__all__ = [
    "METRIC_FIELDS",
    "NOT_COMPARED",
    "SPR_REVOKES",
    "GroupComparisons",
    "FailedItem",
    "ModelDecoder",
    "PolicySummary",
    "StreamTotals",
    "SystemsBlock",
    "TableColumn",
    "Timeline",
    "TimelineEvent",
    "TimedWord",
    "encode_system_comparison",
]

#: The pooled metrics of a summary row (:func:`fairdesk.incremental.metrics.pooled`).
METRIC_FIELDS = (
    "wer",
    "eo",
    "eo_edit",
    "revokes_per_audio_second",
    "rps",
    "rps_edit",
    "lat_pooled",
    "lat_seed001",
    "rtf",
    "spr",
    "spr_edit",
    "revoke_update_share",
    "revoke_update_share_edit",
    "final_word_latency",
    "stabilisation_latency",
)
#: SPR metrics and the revoke count whose zero makes them infinite.
SPR_REVOKES = {"spr": "n_revokes", "spr_edit": "n_revokes_edit"}


def nan_if_none(v):
    """A stored null metric read back: NaN (undefined)."""
    return math.nan if v is None else v


def spr_value(v, revokes):
    """A stored SPR read back: null is infinity without revokes, else NaN."""
    if v is not None:
        return v
    return math.inf if revokes == 0 else math.nan


def _present(obj, names) -> dict:
    """``{name: value}`` of the fields that are not None (a key the payload had)."""
    return {n: getattr(obj, n) for n in names if getattr(obj, n) is not None}


@dataclass(frozen=True)
class StreamTotals:
    """The sums of the per-item statistic columns over one (model ×) policy × stream
    (:data:`~fairdesk.incremental.metrics.STAT_COLUMNS`; counts as ints, seconds as floats;
    None where a stored run lacks the column)."""

    n_updates: float | None = None
    n_decodes: float | None = None
    n_adds: float | None = None
    n_revokes: float | None = None
    n_updates_with_revoke: float | None = None
    n_adds_edit: float | None = None
    n_revokes_edit: float | None = None
    n_updates_with_revoke_edit: float | None = None
    n_final_words: float | None = None
    decode_s: float | None = None
    audio_s: float | None = None
    clock_s: float | None = None
    n_words: float | None = None
    n_sub: float | None = None
    n_del: float | None = None
    n_ins: float | None = None
    fwl_s: float | None = None
    n_fwl: float | None = None
    stab_s: float | None = None
    n_stab: float | None = None
    n_trims: float | None = None
    n_cuts: float | None = None
    n_cuts_inside_word: float | None = None
    n_cuts_forced: float | None = None
    n_straddled: float | None = None
    n_straddled_frozen: float | None = None
    lat_seed_sum: float | None = None
    n_lat_pred: float | None = None
    n_pred_zero: float | None = None

    def to_json(self) -> ResultJson:
        """The stored ``totals`` dict."""
        return ResultJson(jsonable(_present(self, STAT_COLUMNS)))

    @classmethod
    def from_json(cls, d: Mapping | None) -> StreamTotals:
        """The totals of a stored (or in-memory) ``totals`` dict."""
        d = d or {}
        return cls(**{c: d[c] for c in STAT_COLUMNS if c in d})


@dataclass(frozen=True)
class PolicySummary:
    """The pooled metrics of one (model ×) policy × stream
    (:func:`fairdesk.incremental.run.summarise`); a metric is NaN where undefined, ``spr``
    and ``spr_edit`` infinite without revokes, None where a stored run lacks it.

    Attributes
    ----------
    model : the model (None in a stored one-model run without the column).
    policy, stream : what was streamed and which stream was scored.
    n_items : items pooled.
    wer ... stabilisation_latency : the metrics (:data:`METRIC_FIELDS`).
    totals : the sums they come from.
    """

    policy: str
    stream: str
    n_items: int
    totals: StreamTotals = field(default_factory=StreamTotals)
    model: str | None = None
    wer: float | None = None
    eo: float | None = None
    eo_edit: float | None = None
    revokes_per_audio_second: float | None = None
    rps: float | None = None
    rps_edit: float | None = None
    lat_pooled: float | None = None
    lat_seed001: float | None = None
    rtf: float | None = None
    spr: float | None = None
    spr_edit: float | None = None
    revoke_update_share: float | None = None
    revoke_update_share_edit: float | None = None
    final_word_latency: float | None = None
    stabilisation_latency: float | None = None

    def value(self, metric: str) -> float | None:
        """The value of ``metric`` (one of :data:`METRIC_FIELDS`; None for another id)."""
        return getattr(self, metric) if metric in METRIC_FIELDS else None

    @property
    def key(self) -> tuple[str, str, str]:
        """``(model or "", policy, stream)``: the column of the table it fills."""
        return (self.model or "", self.policy, self.stream)

    def to_json(self) -> ResultJson:
        """The stored summary row (NaN and infinity as null)."""
        out: dict[str, Any] = {} if self.model is None else {"model": self.model}
        out.update(policy=self.policy, stream=self.stream)
        out.update(_present(self, METRIC_FIELDS))
        out.update(n_items=self.n_items, totals=self.totals.to_json())
        return ResultJson(jsonable(out))

    @classmethod
    def from_json(cls, d: Mapping) -> PolicySummary:
        """A stored summary row, or one of :func:`~fairdesk.incremental.run.summarise`."""
        raw = d.get("totals") or {}
        vals = {}
        for m in METRIC_FIELDS:
            if m not in d:
                continue
            v = d[m]
            vals[m] = spr_value(v, raw.get(SPR_REVOKES[m])) if m in SPR_REVOKES else nan_if_none(v)
        return cls(
            policy=str(d.get("policy")),
            stream=str(d.get("stream") or "displayed"),
            n_items=int(d.get("n_items") or 0),
            totals=StreamTotals.from_json(raw),
            model=d.get("model"),
            **vals,
        )


@dataclass(frozen=True)
class TableColumn:
    """One column of the models × policies table: an engine, a policy and a stream, and its
    label (``fake-stream local agr., committed``)."""

    model: str
    policy: str
    stream: str
    label: str

    @property
    def key(self) -> tuple[str, str, str]:
        """``(model, policy, stream)``, as :attr:`PolicySummary.key`."""
        return (self.model, self.policy, self.stream)

    def to_json(self) -> ResultJson:
        """The stored column."""
        return ResultJson(
            {
                "model": self.model,
                "policy": self.policy,
                "stream": self.stream,
                "label": self.label,
            }
        )

    @classmethod
    def from_json(cls, d: Mapping) -> TableColumn:
        """A stored column (a missing model is the one-model run's "")."""
        return cls(
            model=str(d.get("model") or ""),
            policy=str(d.get("policy")),
            stream=str(d.get("stream") or "displayed"),
            label=str(d.get("label") or ""),
        )


@dataclass(frozen=True)
class GroupComparisons:
    """The groups compared on one (model ×) policy × stream
    (:func:`fairdesk.incremental.run.compare_by_group`): the statistics of
    :func:`fairdesk.stats.compare_groups` on its items.

    Attributes
    ----------
    policy, stream : which stream the groups were compared on.
    stats : the audit of its items (groups, comparisons, exclusions, reference).
    model : the model (None in a stored one-model run without the key).
    stored_readings : the reading an older fairdesk stored with each comparison (in the
        order of ``stats.comparisons``; a note of code ``stored.sentence``, None where it
        stored none); written back where it was, never made anew here.
    """

    policy: str
    stream: str
    stats: AuditResult
    model: str | None = None
    stored_readings: tuple[Notice | None, ...] = ()

    @property
    def reference(self) -> str | None:
        """The reference group."""
        return self.stats.reference

    def to_json(self) -> ResultJson:
        """The stored block: ``model``, ``policy``, ``stream`` and the audit's
        ``AuditResult.to_dict()`` (a stored reading back in its comparison)."""
        out: dict[str, Any] = {} if self.model is None else {"model": self.model}
        out.update(policy=self.policy, stream=self.stream)
        out.update(self.stats.to_dict())
        for c, r in zip(out["comparisons"], self.stored_readings):
            if r is not None:
                c["reading"] = r.args.get("text")
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping) -> GroupComparisons:
        """A stored block (or the in-memory one of ``compare_by_group``)."""
        # the records AuditResult.to_dict adds to the settings (the B used) come back from
        # its bootstrap; no settings stored: an old block, read with the old defaults
        settings, _records = decode_settings(d.get("settings") or {})
        stats = stats_from_json(d, settings or AuditSettings.from_dict({}))
        assert stats is not None  # with settings, always statistics
        readings = tuple(
            None if c.get("reading") is None else Notice("stored.sentence", {"text": c["reading"]})
            for c in d.get("comparisons") or ()
        )
        return cls(
            policy=str(d.get("policy")),
            stream=str(d.get("stream") or "displayed"),
            stats=stats,
            model=d.get("model"),
            stored_readings=readings if any(r is not None for r in readings) else (),
        )


#: The code of a systems block whose models could not be compared (``error``: the
#: statistics' reason).
NOT_COMPARED = "incremental.models_not_compared"


def encode_system_comparison(res: SystemComparisonResult) -> dict:
    """A comparison of models as JSON-ready data: its typed fields (no draws), its settings,
    and each model's audit as ``AuditResult.to_dict`` writes it
    (:func:`fairdesk.stats.codec.decode_system_comparison` reads it back)."""
    data = jsonable(replace(res, audits=None, draws=None))
    data["settings"] = res.settings.to_dict()
    if res.audits is not None:
        data["audits"] = {name: a.to_dict() for name, a in res.audits.items()}
    return data


@dataclass(frozen=True)
class SystemsBlock:
    """The models paired on the same items for one policy × stream
    (:func:`fairdesk.incremental.pairing.compare_models_by_group`).

    Attributes
    ----------
    policy, stream : the stream compared.
    comparison : every model against the first (None when not compared).
    error : why the models could not be compared (code :data:`NOT_COMPARED`, the
        statistics' reason in ``args["error"]``), else None.
    """

    policy: str
    stream: str
    comparison: SystemComparisonResult | None = None
    error: Notice | None = None

    def to_json(self) -> ResultJson:
        """The stored block."""
        out: dict[str, Any] = {"policy": self.policy, "stream": self.stream}
        if self.error is not None:
            out["error"] = self.error.args.get("error")
        if self.comparison is not None:
            out["comparison"] = encode_system_comparison(self.comparison)
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping) -> SystemsBlock:
        """A stored block."""
        cmp = d.get("comparison")
        err = d.get("error")
        return cls(
            policy=str(d.get("policy")),
            stream=str(d.get("stream") or "displayed"),
            comparison=None if cmp is None else decode_system_comparison(cmp),
            error=None if err is None else Notice(NOT_COMPARED, {"error": err}),
        )


@dataclass(frozen=True)
class ModelDecoder:
    """One model's decoder: the policies it ran, its warm-up seconds (never counted as
    decode time) and its decoder settings (``beam_size``, ``cpu_threads``, ...)."""

    model: str
    policies: tuple[str, ...] = ()
    warm_up_s: float | None = None
    decoder: Mapping[str, Any] = field(default_factory=dict)

    @property
    def cpu_threads(self) -> int | None:
        """The decoder's CPU threads (None where the engine keeps its own)."""
        return self.decoder.get("cpu_threads") or None

    def to_json(self) -> ResultJson:
        """The stored entry of ``decoders``."""
        return ResultJson(
            jsonable(
                {
                    "model": self.model,
                    "policies": list(self.policies),
                    "warm_up_s": self.warm_up_s,
                    "decoder": dict(self.decoder),
                }
            )
        )

    @classmethod
    def from_json(cls, d: Mapping) -> ModelDecoder:
        """A stored entry of ``decoders``."""
        return cls(
            model=str(d.get("model") or ""),
            policies=tuple(d.get("policies") or ()),
            warm_up_s=d.get("warm_up_s"),
            decoder=dict(d.get("decoder") or {}),
        )


@dataclass(frozen=True)
class FailedItem:
    """An item whose audio could not be used: its id, the error it raised and the model
    (None in a one-model run)."""

    item: Any
    reason: str
    model: str | None = None

    def to_json(self) -> ResultJson:
        """The stored entry of ``failures``."""
        out = {"item": self.item, "reason": self.reason}
        if self.model is not None:
            out["model"] = self.model
        return ResultJson(jsonable(out))

    @classmethod
    def from_json(cls, d: Mapping) -> FailedItem:
        """A stored entry of ``failures``."""
        return cls(item=d.get("item"), reason=str(d.get("reason") or ""), model=d.get("model"))


#: A word of a timeline: ``(text, start, end)`` (None where the model gives no times).
TimedWord = tuple[str, float | None, float | None]


def _words(ws) -> tuple[TimedWord, ...]:
    return tuple((str(w[0]), w[1], w[2]) for w in ws or ())


@dataclass(frozen=True)
class TimelineEvent:
    """One update of a timeline (:func:`fairdesk.incremental.timeline.timeline`)."""

    update: int
    arrival_s: float
    shown_s: float
    is_flush: bool
    n_words: int
    n_committed: int
    position: int
    added: tuple[TimedWord, ...] = ()
    revoked: tuple[TimedWord, ...] = ()

    def to_json(self) -> ResultJson:
        """The stored event."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["added"] = [list(w) for w in self.added]
        out["revoked"] = [list(w) for w in self.revoked]
        return ResultJson(jsonable(out))

    @classmethod
    def from_json(cls, d: Mapping) -> TimelineEvent:
        """A stored event."""
        return cls(
            update=d["update"],
            arrival_s=d["arrival_s"],
            shown_s=d["shown_s"],
            is_flush=d["is_flush"],
            n_words=d["n_words"],
            n_committed=d["n_committed"],
            position=d["position"],
            added=_words(d.get("added")),
            revoked=_words(d.get("revoked")),
        )


@dataclass(frozen=True)
class Timeline:
    """The add/revoke timeline of one item × (model ×) policy, its displayed stream
    (Whetten et al.'s Figure 1).

    Attributes
    ----------
    item : the item id (None when the timeline was made outside a run).
    model : the model (None in a one-model run without it).
    policy, stream : what was streamed (``stream`` None in a stored timeline without it:
        the displayed one).
    duration_s, chunk_s : the clip's seconds and the seconds per chunk (None where a stored
        timeline lacks them).
    events : one per update.
    final : the final words.
    has_final : False for a stored timeline without its final words (written back so).
    """

    policy: str
    stream: str | None = None
    duration_s: float | None = None
    chunk_s: float | None = None
    events: tuple[TimelineEvent, ...] = ()
    final: tuple[TimedWord, ...] = ()
    item: Any = None
    model: str | None = None
    has_final: bool = True

    @property
    def final_text(self) -> str:
        """The final words, joined by spaces."""
        return " ".join(w[0] for w in self.final)

    def to_json(self) -> ResultJson:
        """The stored timeline."""
        out: dict[str, Any] = {} if self.item is None else {"item": self.item}
        if self.model is not None:
            out["model"] = self.model
        out["policy"] = self.policy
        for name in ("stream", "duration_s", "chunk_s"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        out["events"] = [e.to_json() for e in self.events]
        if self.final or self.has_final:
            out["final"] = [list(w) for w in self.final]
        return ResultJson(jsonable(out))

    @classmethod
    def from_json(cls, d: Mapping) -> Timeline:
        """A stored timeline (or one of :func:`~fairdesk.incremental.timeline.timeline`)."""
        return cls(
            policy=str(d.get("policy")),
            stream=d.get("stream"),
            duration_s=d.get("duration_s"),
            chunk_s=d.get("chunk_s"),
            events=tuple(TimelineEvent.from_json(e) for e in d.get("events") or ()),
            final=_words(d.get("final")),
            item=d.get("item"),
            model=d.get("model"),
            has_final="final" in d,
        )


def frozen(rows) -> tuple[Mapping[str, Any], ...] | None:
    """Free rows (items, segments, logs) as read back: None stays None."""
    return None if rows is None else tuple(freeze(r) for r in rows)
