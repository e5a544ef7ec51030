"""The one JSON codec of the typed results, driven by dataclass field annotations (in
``stats`` so that every layer above it, the incremental results included, decodes with it;
:mod:`fairdesk.jobs.result_codec` re-exports it).

:func:`encode` turns a value into JSON-ready data and :func:`decode` reads it back into the
type a field declares (``typing.get_type_hints``): dataclasses (nested), ``tuple[X, ...]``,
``Mapping[str, X]`` / ``dict[str, X]``, ``X | None``, ``float``, ``int``, ``bool``, ``str``
and ``Any`` (free-form JSON, read back with lists as tuples).

Rules
-----
* Non-finite floats are written as None (as :func:`fairdesk.core.jsonio.jsonable` does),
  except for fields declared ``metadata={"nonfinite": "string"}`` (or listed in
  :data:`FIELD_RULES` for classes of other modules): there ±inf is written ``"inf"`` /
  ``"-inf"`` (a ratio over a zero reference is infinite, which None would make read as
  "undefined"); NaN stays None (undefined). :func:`decode` reads ``"inf"``, ``"-inf"`` strings
  back as floats wherever a float is declared.
* A null or NaN number is read back as None (today's consumers read None there too), so an
  in-memory payload (``AuditOutcome.result``, NaN not yet stored as null) and its stored
  JSON open equal; ±inf is kept.
* A missing key takes the field's default (``None`` for a field without one), so the
  payloads of older runs open.
* Unknown keys go to the dataclass's ``extra`` field where it has one (written back as they
  came, so nothing stored is lost); a dataclass without ``extra`` drops them (the statistics'
  own types, whose keys ``compare_groups`` fixes; ``GroupInfo`` repeats its ``values`` as
  top-level keys in today's layout, which are dropped on purpose).
* A coded note (:class:`~fairdesk.stats.notices.Notice`) is written ``{"code", "args"}``;
  a string where one is declared is a sentence an older run stored, read back by
  :func:`decode_notice`.
* A field declared ``metadata={"key": "with"}`` is written and read under that JSON key
  (a key that is a Python keyword).
* A field declared ``metadata={"omit_none": True}`` is left out while None (a key today's
  payload has only where a later stage wrote it).
* A dataclass with its own codec (a class attribute ``JSON_CODEC = True``, with
  ``to_json()`` and ``from_json(data)``: the recording plan's types) is written and read by
  it.
* A coded note (:class:`~fairdesk.stats.notices.Notice`) stored as a sentence by a version
  before the codes reads as its code where a reader of :data:`OLD_SENTENCE_READERS` knows
  its words (the pitfalls', :func:`fairdesk.stats.pitfall_types.stored_note`; a run's
  notes), else as ``stored.sentence`` (its words as stored; written back as the sentence, so an older
  run writes back as it was stored); a :class:`~fairdesk.stats.results.ComparisonSample`
  stored in words (``the 2 + 2 explained items``) reads back as its numbers.
* :class:`~fairdesk.stats.settings.AuditSettings` is read with ``AuditSettings.from_dict``
  (validated) and written with its ``to_dict``; stored settings today's checks refuse (an
  older release's limits) are kept as stored, unchecked: the run opens as it was made. A
  setting whose default changed reads, when its key is missing, as the old default
  (``small_cluster_scaling``: off; ``fairdesk.stats.settings.STORED_DEFAULTS``).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from fairdesk.stats.bootstrap_plan import BootstrapPlan
from fairdesk.stats.notices import Notice, stored_notice
from fairdesk.stats.pitfall_types import stored_note
from fairdesk.stats.results import (
    STORED_SENTENCE,
    AuditResult,
    Comparison,
    ComparisonSample,
    Exclusion,
    GroupInfo,
)
from fairdesk.stats.settings import STORED_DEFAULTS, AuditSettings
from fairdesk.stats.summary import MetricSummary

if TYPE_CHECKING:
    from fairdesk.stats.system_results import SystemComparisonResult

#: (class, field name) → rule, for fields of classes this module does not define.
FIELD_RULES: dict[tuple[type, str], str] = {
    (MetricSummary, "disparity_ratio"): "string",
}

_HINTS: dict[type, dict] = {}


def hints(cls: type) -> dict:
    """``typing.get_type_hints`` of a dataclass, memoised."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _rule(cls: type, f: dataclasses.Field) -> str | None:
    return f.metadata.get("nonfinite") or FIELD_RULES.get((cls, f.name))


def _float_out(x: float, rule: str | None):
    if math.isfinite(x):
        return x
    if rule == "string" and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return None


def encode(value, hint: Any = Any, rule: str | None = None):
    """JSON-ready data of ``value`` (declared as ``hint``; ``rule`` is the field's
    non-finite rule, see the module docstring)."""
    if value is None:
        return None
    if isinstance(value, AuditSettings):
        return value.to_dict()
    if isinstance(value, Notice) and value.code == STORED_SENTENCE:
        return value.args["text"]  # an older run's sentence: written back as it was stored
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if getattr(type(value), "JSON_CODEC", False):
            own: Any = value  # a type with its own codec (to_json)
            return own.to_json()
        return encode_dataclass(value)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _float_out(float(value), rule)
    if isinstance(value, str):
        return value
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        hint = inner[0] if len(inner) == 1 else Any
        args, origin = typing.get_args(hint), typing.get_origin(hint)
    if isinstance(value, Mapping):
        vh = args[1] if origin in (dict, Mapping) and len(args) == 2 else Any
        return {str(k): encode(v, vh, rule) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return [encode(v, args[0], rule) for v in value]
        if origin is tuple and args and len(args) == len(value):
            return [encode(v, a, rule) for v, a in zip(value, args, strict=True)]
        return [encode(v, Any, rule) for v in value]
    return value


def encode_dataclass(obj) -> dict:
    """A dataclass as a dict, keyed by field name; its ``extra`` mapping merged in."""
    cls = type(obj)
    h = hints(cls)
    out = {}
    for f in dataclasses.fields(obj):
        if f.name == "extra":
            continue
        if f.metadata.get("omit_none") and getattr(obj, f.name) is None:
            continue
        out[f.metadata.get("key", f.name)] = encode(getattr(obj, f.name), h[f.name], _rule(cls, f))
    extra = getattr(obj, "extra", None)
    if isinstance(extra, Mapping):
        for k, v in extra.items():
            out.setdefault(str(k), encode(v))
    return out


def freeze(data):
    """Free-form JSON as read back: lists (nested too) as tuples, dicts as dicts."""
    if isinstance(data, Mapping):
        return {k: freeze(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return tuple(freeze(v) for v in data)
    return data


def _float_in(data):
    if data is None:
        return None
    x = float(data)  # also "inf", "-inf", "nan"
    return None if math.isnan(x) else x  # undefined: None, as a stored payload has it


def decode(data, hint: Any):
    """``data`` (JSON) read as the type ``hint``; see the module docstring."""
    if hint is Any or hint is object:
        return freeze(data)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if data is None:
            return None
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return decode(data, inner[0])
        if float in inner and isinstance(data, (int, float, str)) and not isinstance(data, bool):
            return decode(data, float) if not isinstance(data, str) or str not in inner else data
        return freeze(data)
    if data is None:
        return None
    if hint is AuditSettings:
        return decode_settings(data)[0]
    if hint is Notice:  # a coded note, or the sentence an older run stored
        note = decode_notice(data)
        return Notice(note.code, freeze(dict(note.args)))
    if hint is ComparisonSample:  # typed, or the words an older run stored
        return ComparisonSample.from_json(data)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if getattr(hint, "JSON_CODEC", False):
            typed: Any = hint  # a type with its own codec (from_json)
            return typed.from_json(data)
        return decode_dataclass(hint, data)
    if hint is float:
        return _float_in(data)
    if hint is bool:
        return bool(data)
    if hint is int:
        return int(data) if not isinstance(data, bool) else data
    if hint is str:
        return str(data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(v, args[0]) for v in data)
        if args and len(args) == len(data):
            return tuple(decode(v, a) for v, a in zip(data, args, strict=True))
        return freeze(data)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        vh = args[1] if len(args) == 2 else Any
        return {str(k): decode(v, vh) for k, v in data.items()}
    return freeze(data)


def _pitfalls_sentence(text: str) -> Notice | None:
    """The pitfalls' note an older run stored as ``text`` (None: not one of theirs)."""
    note = stored_note(text)
    return None if note is None or note.code == STORED_SENTENCE else note


#: Readers of the sentences older runs stored where a coded note is declared: each returns
#: the note (code and numbers) its old wording gives, or None; the first that knows it wins.
#: The module that owns the codes adds its reader (the pitfalls' here, below ``jobs``;
#: ``fairdesk.jobs.run_notes`` adds a run's notes).
OLD_SENTENCE_READERS: list[Callable[[str], Notice | None]] = [_pitfalls_sentence]


def decode_notice(data) -> Notice:
    """A stored coded note (``{"code", "args"}``), or a sentence stored before its notes
    were coded: read back into its code where a reader of :data:`OLD_SENTENCE_READERS`
    knows its words, else ``Notice("stored.sentence", {"text": ...})`` (worded as stored)."""
    if isinstance(data, Mapping):
        return Notice(str(data["code"]), freeze(dict(data.get("args") or {})))
    text = str(data)
    for read in OLD_SENTENCE_READERS:
        note = read(text)
        if note is not None:
            return note
    return stored_notice(text)


def decode_dataclass(cls: type, data: Mapping):
    """An instance of ``cls`` from a dict; missing keys take the defaults, unknown keys go
    to ``extra`` (where the class has it) or are dropped."""
    h = hints(cls)
    kw = {}
    names = set()
    for f in dataclasses.fields(cls):
        key = f.metadata.get("key", f.name)  # the JSON key (a Python keyword: "with")
        names.add(key)
        if f.name == "extra":
            continue
        if key in data:
            kw[f.name] = decode(data[key], h[f.name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kw[f.name] = None  # an older run without this key
    if "extra" in names:
        kw["extra"] = {k: freeze(v) for k, v in data.items() if k not in names}
    return cls(**kw)


def canonical(value, hint: Any = Any):
    """``value`` as its stored JSON reads back (``decode(encode(value, hint), hint)``):
    NaN as None, lists as tuples, numpy numbers as Python ones, typed blocks built. A
    producer passes its blocks through it, so the run it returns equals the run its
    stored JSON opens as."""
    return decode(encode(value, hint), hint)


#: Keys ``AuditResult.to_dict`` adds to the stored ``settings`` beside AuditSettings'.
SETTINGS_RECORDS = ("normaliser_reason", "n_bootstrap_used", "bootstrap_raise")


def decode_settings(data: Mapping) -> tuple[AuditSettings | None, dict]:
    """(AuditSettings from the keys it knows, or None where the dict holds none of them;
    the other keys)."""
    known = {f.name for f in dataclasses.fields(AuditSettings)}
    mine = {k: v for k, v in data.items() if k in known}
    rest = {k: v for k, v in data.items() if k not in known}
    if not mine:
        return None, rest
    try:
        return AuditSettings.from_dict(mine), rest
    except ValueError:
        return _as_stored(mine), rest


def _as_stored(values: Mapping) -> AuditSettings:
    """The settings a stored run was made with, even where today's checks refuse them (a
    run is a record: it opens as it was; a new run built from them is checked again). A
    missing key takes the default it had before (``STORED_DEFAULTS``), else today's."""
    obj = object.__new__(AuditSettings)
    for f in dataclasses.fields(AuditSettings):
        default = f.default if f.default is not dataclasses.MISSING else None
        default = STORED_DEFAULTS.get(f.name, default)
        object.__setattr__(obj, f.name, values.get(f.name, default))
    return obj


def stats_json(r: AuditResult) -> dict:
    """The statistics' keys (as ``AuditResult.to_dict`` writes them, less ``settings``,
    with the field-wise non-finite rules)."""
    return {
        "comparisons": encode(r.comparisons, tuple[Comparison, ...]),
        "summary": encode(r.summary, Mapping[str, MetricSummary]),
        "groups": encode(r.groups, tuple[GroupInfo, ...]),
        "excluded": encode(r.excluded, tuple[Exclusion, ...]),
        "reference": r.reference,
        "design": r.design,
        "bootstrap": encode(r.bootstrap),
    }


def stats_from_json(d: Mapping, settings: AuditSettings | None) -> AuditResult | None:
    """The statistics of a payload; None for a run without them (every item failed: no
    audit settings and no groups)."""
    if settings is None and not d.get("groups") and not d.get("comparisons"):
        return None
    return AuditResult(
        comparisons=decode(d.get("comparisons") or [], tuple[Comparison, ...]),
        summary=decode(d.get("summary") or {}, Mapping[str, MetricSummary]),
        groups=decode(d.get("groups") or [], tuple[GroupInfo, ...]),
        excluded=decode(d.get("excluded") or [], tuple[Exclusion, ...]),
        reference=d.get("reference"),
        design=d.get("design"),
        # no settings stored at all: an old run, read with the old defaults (scaling off)
        settings=settings if settings is not None else AuditSettings.from_dict({}),
        bootstrap=BootstrapPlan.from_json(d["bootstrap"]) if d.get("bootstrap") else None,
    )


def decode_system_comparison(data: Mapping) -> SystemComparisonResult:
    """A comparison of systems from its encoded data (the typed fields, and each system's
    audit in the layout of :func:`stats_json` or ``AuditResult.to_dict``), typed."""
    from fairdesk.stats.system_results import SystemComparisonResult, stored_reason

    audits = data.get("audits")
    body = {**data, "audits": None}
    for key in ("differences", "gap_differences"):  # reasons stored as sentences before
        body[key] = [
            {**d, "reason": stored_reason(d.get("reason"), d.get("metric"))}
            if isinstance(d, Mapping)
            else d
            for d in data.get(key) or ()
        ]
    res = decode_dataclass(SystemComparisonResult, body)
    if audits is not None:
        res = dataclasses.replace(
            res,
            audits={name: stats_from_json(a, res.settings) for name, a in audits.items()},
        )
    return res


__all__ = [
    "FIELD_RULES",
    "canonical",
    "SETTINGS_RECORDS",
    "decode",
    "decode_dataclass",
    "decode_notice",
    "OLD_SENTENCE_READERS",
    "decode_settings",
    "decode_system_comparison",
    "encode",
    "encode_dataclass",
    "freeze",
    "hints",
    "stats_from_json",
    "stats_json",
]
