"""How a run is named, in every view: its grouping, reference, size, filters and every
setting that differs from the default (pure).

One run has one name. The GUI's Results header and run lists, ``fairdesk runs``,
``fairdesk show`` and the HTML/PDF report all build it with :func:`run_name` from a
:class:`RunSpec`, read either from the stored request of the ``runs`` table
(:meth:`RunSpec.from_stored`) or from the run's typed result (:meth:`RunSpec.from_run`).
A run made with ``--filter age_group=adult --min-items 10`` reads::

    whisper-tiny.en on l2-english · by gender · reference female · 400 items ·
    only age_group = adult · min. 10 items per group

so nobody mistakes it for a gender result over all ages with the default minimums.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from .numbers import count, fmt_count, fmt_number

if TYPE_CHECKING:
    from ..jobs.result import AuditRun
    from ..stats.settings import AuditSettings

__all__ = [
    "SEPARATOR",
    "SHORT_PATH",
    "RunSpec",
    "comparison_sample",
    "reference_text_conditions",
    "run_conditions",
    "run_name",
    "sample_text",
    "short_model",
]

#: Between the parts of a run's name.
SEPARATOR = " · "
#: The characters of a long model path a run list keeps (:func:`short_model`).
SHORT_PATH = 34
#: Normaliser settings that are the default (the CLI's ``auto``; the GUI's English one).
_DEFAULT_NORMALISERS = ("auto", "whisper-english")


def _filters(value) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``{col: [v, ...]}`` or ``((col, (v, ...)), ...)`` as sorted tuples of strings."""
    items = value.items() if isinstance(value, Mapping) else (value or ())
    out = []
    for col, vals in items:
        vals = (vals,) if isinstance(vals, (str, int, float)) else tuple(vals or ())
        out.append((str(col), tuple(str(v) for v in vals)))
    return tuple(sorted(out))


def _settings(value) -> AuditSettings | None:
    from ..stats.settings import AuditSettings  # the statistics stack: on first use

    if isinstance(value, AuditSettings):
        return value
    if isinstance(value, Mapping):
        try:
            return AuditSettings.from_dict(dict(value))
        except (TypeError, ValueError):
            return None  # written by another fairdesk: the settings are not named
    return None


def datasets_label(names) -> str | None:
    """``pilot + session``: the datasets of a run as every view names them (the one name for
    one dataset; None for none)."""
    if isinstance(names, (list, tuple)) and names:
        return " + ".join(str(n) for n in names)
    return None


def dataset_label(run: AuditRun) -> str | None:
    """What a run was audited on, as every view names it: ``pilot + session`` for several
    datasets, the dataset or the table otherwise (None: neither)."""
    rs = run.run_settings
    return datasets_label(rs.datasets if rs is not None else None) or run.dataset or run.table


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@dataclass(frozen=True)
class RunSpec:
    """What names a run (the request it was made from).

    Attributes
    ----------
    by : the grouping columns.
    filters : ``((column, (value, ...)), ...)``: only the items with one of those values.
    sample : a stratified sample of this many items per group (None: every item).
    settings : the statistics settings (None: not known; no setting is named).
    model, dataset : what was audited (None: left out of the name).
    reference : the reference group (None: left out).
    n_items : the items analysed (None: left out).
    annotated : the items whose reference is a transcript annotated in fairdesk (None: none,
        the dataset's imported references).
    reference_text : which reference text was scored (``--reference-text``; None or
        ``latest``, the default: not named).
    """

    by: tuple[str, ...] = ()
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    sample: int | None = None
    settings: AuditSettings | None = None
    model: str | None = None
    dataset: str | None = None
    reference: str | None = None
    n_items: int | None = None
    annotated: int | None = None
    reference_text: str | None = None

    @classmethod
    def from_stored(cls, settings, model: str | None = None, dataset: str | None = None) -> RunSpec:
        """The spec of a ``runs`` row: its ``settings`` column (the JSON text or the decoded
        dict: ``by``, ``filters``, ``sample``, ``settings``); unreadable text names nothing."""
        if not isinstance(settings, Mapping):
            try:
                settings = json.loads(settings or "{}")
            except (TypeError, ValueError):
                settings = {}
        if not isinstance(settings, Mapping):
            settings = {}
        by = settings.get("by") or ()
        return cls(
            by=tuple(str(b) for b in (by if isinstance(by, (list, tuple)) else [by])),
            filters=_filters(settings.get("filters")),
            sample=_int(settings.get("sample")),
            settings=_settings(settings.get("settings")),
            model=model,
            dataset=datasets_label(settings.get("datasets")) or dataset,
            annotated=_int(settings.get("annotated")),
            reference_text=_text(settings.get("reference_text")),
        )

    @classmethod
    def from_run(cls, run: AuditRun) -> RunSpec:
        """The spec of a finished run's typed result: its model, dataset, grouping,
        reference, analysed items and the request recorded with it (``run_settings``)."""
        rs = run.run_settings
        rs_model = rs.model if rs is not None else None
        return cls(
            by=tuple(run.by) or (tuple(rs.by) if rs is not None else ()),
            filters=_filters(rs.filters if rs is not None else None),
            sample=_int(rs.sample_per_group if rs is not None else None),
            settings=run.settings,
            model=run.model or rs_model,
            dataset=dataset_label(run),
            reference=run.reference,
            n_items=sum(g.n_items or 0 for g in run.groups),
            annotated=_int((rs.text_source or {}).get("annotation") if rs is not None else None),
            reference_text=rs.reference_text if rs is not None else None,
        )


def _filter_text(col: str, values: tuple[str, ...]) -> str:
    if len(values) == 1:
        return f"only {col} = {values[0]}"
    return f"only {col} = {', '.join(values[:-1])} or {values[-1]}"


#: How a setting that is not the default is said (the value as stored).
_SAID = {
    "n_bootstrap": lambda v: count(v, "resample"),
    "seed": lambda v: f"seed {v}",
    "alpha": lambda v: f"α = {fmt_number(v, 3).rstrip('0').rstrip('.')}",
    "absolute_error_gap": lambda v: f"practical gap {fmt_number(100 * v, 1)} pp",
    "disparity_ratio": lambda v: f"practical ratio {fmt_number(v, 2)}×",
    "grounding_gap": lambda v: f"practical grounding gap {fmt_number(v, 2)}",
    "min_items": lambda v: f"min. {count(v, 'item')} per group",
    "min_speakers": lambda v: f"min. {count(v, 'speaker')} per group",
    "resampling": lambda v: f"resampling by {str(v).replace('_', '-')}",
    "structure_threshold": lambda v: f"structure threshold {fmt_number(v, 2)}",
    "max_items": lambda v: f"run cap {fmt_count(v)} items",
    "normaliser": lambda v: f"normaliser {v}",
    "small_cluster_scaling": lambda v: f"small-cluster scaling {'on' if v else 'off'}",
    "include_missing": lambda v: "missing values as a group" if v else "missing values described",
}


def _setting_texts(s: AuditSettings) -> list[str]:
    """The settings of ``s`` that differ from the defaults, in words (a field without its
    own wording by its name and value)."""
    from ..stats.settings import AuditSettings

    d = AuditSettings()
    out = []
    for f in fields(AuditSettings):
        v, v0 = getattr(s, f.name), getattr(d, f.name)
        if f.name == "max_items_lifted":
            continue  # the cap says it
        if (v in _DEFAULT_NORMALISERS) if f.name == "normaliser" else (v == v0):
            continue
        said = _SAID.get(f.name)
        out.append(said(v) if said else f"{f.name.replace('_', ' ')} {v}")
    return out


def sample_text(per_group: int) -> str:
    """A run's stratified sample in words: ``sample of 20 per group``."""
    return f"sample of {per_group} per group"


def comparison_sample(c, per_group: int | None) -> str:
    """What a comparison was computed on, for the Comparisons table's ``sample`` column: a
    sampled metric's own sample (``the 2 + 2 explained items``), else the run's stratified
    sample (``sample of 20 per group``), '' for every item."""
    own = getattr(c, "sample", None)
    if own:
        return str(own)
    return sample_text(per_group) if per_group else ""


def run_conditions(spec: RunSpec) -> tuple[str, ...]:
    """What restricts or changes the run, in words: each filter (``only age_group =
    adult``), the references annotated in fairdesk (``3 items with an annotated reference``:
    the same audit of the imported texts is named differently), the sample (``sample of 20
    per group``) and every statistics setting that is not the default (``min. 10 items per group``, ``small-cluster scaling off``, ``missing
    values as a group`` ...). Empty for a run of every item with the defaults."""
    out = [_filter_text(c, v) for c, v in spec.filters if v]
    if spec.annotated:
        out.append(f"{count(spec.annotated, 'item')} with an annotated reference")
    if spec.sample:
        out.append(sample_text(spec.sample))
    if spec.settings is not None:
        out += _setting_texts(spec.settings)
    out += reference_text_conditions(spec.reference_text)
    return tuple(out)


def reference_text_conditions(choice: str | None) -> list[str]:
    """Which reference text a run scored, in words, where it is not the default ``latest``
    (``--reference-text``; docs/METHODS.md, "References from several annotators"):
    ``references: imported text``, ``references: Ada's versions``, ``references:
    adjudicated``, ``references: annotators resampled``."""
    if not choice or choice == "latest":
        return []
    if choice.startswith("annotator:"):
        return [f"references: {choice[len('annotator:') :]}'s versions"]
    said = {
        "imported": "imported text",
        "adjudicated": "adjudicated",
        "resample": "annotators resampled",
    }
    return [f"references: {said.get(choice, choice)}"]


def short_model(model: str) -> str:
    """A model id for a list: a long ``predictions:`` / ``hf:`` / ``ct2:`` path keeps its
    last :data:`SHORT_PATH` characters (``predictions:…/runs/preds.csv``)."""
    head, sep, rest = str(model).partition(":")
    if sep and len(model) > SHORT_PATH + len(head) + 8:
        return f"{head}:…{rest[-SHORT_PATH:]}"
    return str(model)


def run_name(spec: RunSpec, short: bool = False) -> str:
    """The one-line name of a run: ``model on dataset · by X · reference R · N items``
    followed by :func:`run_conditions` (each part only where the spec knows it).

    ``short``: the model as :func:`short_model` gives it (the run lists)."""
    parts = []
    if spec.model or spec.dataset:
        model = short_model(spec.model) if short and spec.model else spec.model
        parts.append(f"{model or '?'} on {spec.dataset or '?'}")
    parts.append(f"by {' × '.join(spec.by) or '?'}")
    if spec.reference is not None:
        parts.append(f"reference {spec.reference}")
    if spec.n_items is not None:
        parts.append(count(spec.n_items, "item"))
    return SEPARATOR.join(parts + list(run_conditions(spec)))
