"""The one typed result of a finished audit (:class:`AuditRun`) and its JSON form.

Layout: old payload key → attribute
-----------------------------------
Statistics (``compare_groups``; ``run.result`` is the ``stats.results.AuditResult``, None
when every item failed; the properties below read empty then)::

    comparisons            → run.comparisons (tuple[Comparison]); run.comparison(m, g)
    summary                → run.summary (metric → MetricSummary)
    groups                 → run.groups (tuple[GroupInfo]); run.group(name)
    groups[i][<metric>]    → run.group(name).values[<metric>] (the top-level copies of
                             ``values`` are not kept: they are the same numbers)
    excluded               → run.excluded (tuple[Exclusion])
    reference, design      → run.reference, run.design
    bootstrap              → run.bootstrap (the B used and why; settings.bootstrap_raise is
                             the same dict and is not kept twice)
    settings.<AuditSettings field> → run.settings (AuditSettings; None for an all-failed run)
    settings.normaliser_reason     → run.normaliser_reason (a coded note, as
                             normaliser.reason)
    settings.n_bootstrap_used      → run.n_bootstrap_used
    settings.<_run_settings key>   → run.run_settings.<key> (RunSettings)
    settings.<anything else>       → run.settings_extra[<key>]

Later stages (``result_parts``)::

    tested_metrics, descriptive_metrics → run.tested_metrics, run.descriptive_metrics
    normaliser             → run.normaliser (Normaliser: name, reason, language)
    input_problems         → run.input_problems (tuple[InputProblem])
    warnings, notes        → run.warnings, run.notes (tuple[Notice]: coded notes, area
                             ``run``, codes in ``fairdesk.jobs.run_notes``; worded by
                             ``fairdesk.presentation.run_notes``)
    speakers               → run.speakers (Speakers: the column the speaker ids came from,
                             how many, and the typed warning ``no_speaker_ids``)
    minimums_message       → run.minimums_message
    intent_confusion, confusion → run.intent_confusion, run.confusion
                             (group → ConfusionMatrix; None when absent)
    no_diacritic_items     → run.no_diacritic_items (NoDiacriticItems)
    word_positions         → run.word_positions (content id → WordPosition)
    phone_confusion        → run.phone_confusion (PhoneConfusion: groups → PhoneTable)
    pitfalls               → run.pitfalls (Pitfalls: by_group → GroupFlags, wer_dominated →
                             WerDominated, verdicts_without_flagged → VerdictChange)
    acoustics, acoustics.unstable → run.acoustics (Acoustics), run.acoustics.unstable
    phone_annotations      → run.phone_annotations (PhoneAnnotations)
    accentedness_regression → run.accentedness_regression (AccentednessRegression)
    explain                → run.explain (Explain; .items: tuple[ExplainItem])
    representation         → run.representation (Representation)
    model_based            → run.model_based (grouping column → ModelBasedFit)
    plan                   → run.plan (stats.planning_types.Plan: the closed-form recording
                             plan of the underpowered comparisons; None when there are none)
    timings                → run.timings (str → seconds)
    prediction_problems    → run.prediction_problems (tuple[PredictionProblem] or None)
    groups[i].wer_dominated_by → run.group(name).wer_dominated_by (pitfalls stage)
    comparisons[i].without_flagged → run.comparison(m, g).without_flagged (pitfalls stage)
    pitfalls: {} (a run without transcripts) → run.pitfalls None
    table, problems, table_rows, normaliser_sensitivity (``fairdesk audit --table``) → same
                             names (table_rows: TableRows; normaliser_sensitivity:
                             NormaliserSensitivity; a
                             table audit's JSON has no run_id, dataset, model, model_key,
                             counts or notes while they are empty)
    run_id, dataset, model, model_key, device, by, notes → same names
    failures               → run.failures (tuple[ItemFailure])
    counts                 → run.counts (Counts)
    from_cache, cached_from_run → run.from_cache, run.cached_from_run
    schema_version         → run.schema_version (2 once written by to_json; 1 read from a
                             payload without one)
    <any other key>        → run.extra[<key>]

The typed blocks live in ``result_parts`` (Normaliser ... RunSettings) and ``result_blocks``
(PhoneConfusion, PhoneAnnotations, Explain, Representation); a ``Json`` block is free-form
JSON read back with its lists as tuples; a part's ``extra`` keeps keys it does not declare.
Values JSON cannot hold: NaN is None everywhere; ±inf is None too except in the fields
declared to keep it (``Comparison.ratio``, ``Comparison.effect_size``,
``MetricSummary.disparity_ratio``: written ``"inf"`` / ``"-inf"``). ``AuditResult.to_dict``
(today's producers) already turns them into None, so a producer keeps them only by building
the run from the ``AuditResult`` itself (:meth:`AuditRun.from_parts`).

Stored runs written before this change
--------------------------------------
A payload without ``schema_version`` is the layout that :func:`fairdesk.jobs.audit.run_audit`
wrote until now; :meth:`AuditRun.from_json` reads it as is (missing keys take the defaults,
the duplicated group value keys are dropped, unknown keys go to ``extra``). Its values JSON
could not hold were stored as null and read back as None (an infinite ratio of an old run
stays None: the information was not stored); nothing is rewritten in the store.
:meth:`AuditRun.to_json` writes the same keys as today plus ``schema_version: 2``, without
the duplicated group value keys, with the infinite ratios as ``"inf"`` / ``"-inf"``. A
payload with a ``schema_version`` above :data:`SCHEMA_VERSION` is refused (ValueError: a
newer fairdesk wrote it). ``schema_version`` takes no part in ``==``.

Coded notes (still ``schema_version`` 2)
----------------------------------------
``notes`` and ``warnings`` (and the notes of the blocks that had a sentence: see
``result_parts``) are stored coded, ``{"code": ..., "args": {...}}``
(:class:`fairdesk.stats.notices.Notice`), no longer as sentences, so a stored run reads
with today's words and a wording change leaves cached runs cached. A payload stored before
holds the sentences: each is read back into its code where the old words give its numbers
(:func:`fairdesk.jobs.run_notes.old_sentence`), else as ``stored.sentence`` (worded as
stored). The schema version is not raised: the JSON ``--json`` prints is unchanged (it
writes the sentences in at output time: :func:`fairdesk.presentation.readings.readings_json`),
and a reader of version 2 that expects sentences finds objects only in the stored runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdesk.core.jsonio import ResultJson
from fairdesk.jobs import run_notes as _run_notes  # noqa: F401 - its old-sentence reader
from fairdesk.jobs.result_blocks import (
    AccentednessRegression,
    Explain,
    PhoneAnnotations,
    PhoneConfusion,
    Representation,
)
from fairdesk.jobs.result_codec import decode, decode_settings, encode, freeze, hints
from fairdesk.jobs.result_parts import (
    RUN_SETTINGS_KEYS,
    Acoustics,
    ConfusionMatrix,
    Counts,
    InputProblem,
    ItemFailure,
    Json,
    ModelBasedFit,
    NoDiacriticItems,
    Normaliser,
    Pitfalls,
    PredictionProblem,
    RunSettings,
    Speakers,
    TableRows,
    WordPosition,
)
from fairdesk.stats.bootstrap_plan import BootstrapPlan
from fairdesk.stats.codec import stats_from_json as _stats_from_json
from fairdesk.stats.codec import stats_json as _stats_json
from fairdesk.stats.notices import Notice
from fairdesk.stats.planning_types import Plan
from fairdesk.stats.results import AuditResult, Comparison, Exclusion, GroupInfo
from fairdesk.stats.sensitivity_types import NormaliserSensitivity
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.summary import MetricSummary

SCHEMA_VERSION = 2

#: Top-level keys of the statistics (read into ``AuditRun.result``).
STATS_KEYS = ("comparisons", "summary", "groups", "excluded", "reference", "design", "bootstrap")
#: Top-level keys written only when the block is there (None: the stage did not run).
OPTIONAL_KEYS = (
    "no_diacritic_items",
    "intent_confusion",
    "confusion",
    "word_positions",
    "phone_confusion",
    "acoustics",
    "phone_annotations",
    "accentedness_regression",
    "explain",
    "representation",
    "model_based",
    "plan",
    "prediction_problems",
    "table",
    "problems",
    "table_rows",
    "normaliser_sensitivity",
    "cached_from_run",
    "pitfalls",
    "normaliser",
    "device",
    "speakers",
)
#: Keys of a project audit that a table audit (``table`` set) does not have.
PROJECT_KEYS = ("run_id", "dataset", "model", "model_key", "counts", "notes")
#: Keys of the analysis, which an all-failed run (no statistics) does not have.
ANALYSIS_KEYS = (
    "tested_metrics",
    "descriptive_metrics",
    "input_problems",
    "warnings",
    "minimums_message",
)
#: The ``RunSettings`` a table audit records (written alone for a table audit).
TABLE_RUN_SETTINGS = ("language", "by", "filters")


def _empty() -> dict:
    return {}


@dataclass(frozen=True, repr=False)
class AuditRun:
    """A finished audit: the statistics and everything the later stages added.

    Build it with :meth:`from_json` (a stored payload), or with :meth:`from_parts` and
    ``dataclasses.replace`` (never mutate). See the module docstring for the layout.
    """

    result: AuditResult | None = None
    normaliser_reason: Notice | None = None
    n_bootstrap_used: int | None = None
    run_settings: RunSettings | None = None
    settings_extra: Mapping[str, Json] = field(default_factory=_empty)
    tested_metrics: tuple[str, ...] = ()
    descriptive_metrics: tuple[str, ...] = ()
    normaliser: Normaliser | None = None
    input_problems: tuple[InputProblem, ...] = ()
    warnings: tuple[Notice, ...] = ()
    speakers: Speakers | None = None
    minimums_message: Notice | None = None
    intent_confusion: Mapping[str, ConfusionMatrix] | None = None
    confusion: Mapping[str, ConfusionMatrix] | None = None
    no_diacritic_items: NoDiacriticItems | None = None
    word_positions: Mapping[str, WordPosition] | None = None
    phone_confusion: PhoneConfusion | None = None
    pitfalls: Pitfalls | None = None
    acoustics: Acoustics | None = None
    phone_annotations: PhoneAnnotations | None = None
    accentedness_regression: AccentednessRegression | None = None
    explain: Explain | None = None
    representation: Representation | None = None
    model_based: Mapping[str, ModelBasedFit] | None = None
    plan: Plan | None = None
    timings: Mapping[str, float] = field(default_factory=_empty)
    prediction_problems: tuple[PredictionProblem, ...] | None = None
    table: str | None = None
    problems: tuple[Json, ...] | None = None
    table_rows: TableRows | None = None
    normaliser_sensitivity: NormaliserSensitivity | None = None
    run_id: int | None = None
    dataset: str | None = None
    model: str | None = None
    model_key: str | None = None
    device: str | None = None
    by: tuple[str, ...] = ()
    failures: tuple[ItemFailure, ...] = ()
    notes: tuple[Notice, ...] = ()
    counts: Counts | None = None
    from_cache: bool = False
    cached_from_run: int | None = None
    schema_version: int = field(default=SCHEMA_VERSION, compare=False)
    extra: Mapping[str, Json] = field(default_factory=_empty)

    # -- the statistics, empty for an all-failed run ------------------------------------
    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        """Every group × metric comparison (empty when every item failed)."""
        return self.result.comparisons if self.result is not None else ()

    @property
    def groups(self) -> tuple[GroupInfo, ...]:
        """Every group, excluded ones included (empty when every item failed)."""
        return self.result.groups if self.result is not None else ()

    @property
    def excluded(self) -> tuple[Exclusion, ...]:
        """The excluded groups with reasons."""
        return self.result.excluded if self.result is not None else ()

    @property
    def summary(self) -> Mapping[str, MetricSummary]:
        """Metric id → corpus summary."""
        return self.result.summary if self.result is not None else {}

    @property
    def reference(self) -> str | None:
        """The reference group."""
        return self.result.reference if self.result is not None else None

    @property
    def design(self) -> str | None:
        """The run-level design."""
        return self.result.design if self.result is not None else None

    @property
    def bootstrap(self) -> BootstrapPlan | None:
        """The B used and why (``compare.planned_bootstrap``)."""
        return self.result.bootstrap if self.result is not None else None

    @property
    def settings(self) -> AuditSettings | None:
        """The statistics' settings (None when every item failed)."""
        return self.result.settings if self.result is not None else None

    @property
    def all_failed(self) -> bool:
        """Whether no statistics were computed (every item failed)."""
        return self.result is None

    def comparison(self, metric: str, group: str) -> Comparison:
        """The comparison of ``group`` on ``metric`` (KeyError if absent)."""
        for c in self.comparisons:
            if c.metric == metric and c.group == group:
                return c
        raise KeyError(f"No comparison for metric {metric!r} and group {group!r}.")

    def group(self, name: str) -> GroupInfo:
        """The group called ``name`` (KeyError if absent)."""
        for g in self.groups:
            if str(g.group) == str(name):
                return g
        raise KeyError(f"No group {name!r}.")

    def groups_frame(self):
        """One row per group: group, n_items, n_speakers, excluded, reason, missing (the
        descriptive row of the items with no grouping value) and one column per metric
        value (a pandas DataFrame)."""
        import pandas as pd

        rows = [
            {
                "group": g.group,
                "n_items": g.n_items,
                "n_speakers": g.n_speakers,
                "excluded": g.excluded,
                "reason": g.reason,
                "missing": g.missing,
                **{m: (float("nan") if v is None else v) for m, v in g.values.items()},
            }
            for g in self.groups
        ]
        return pd.DataFrame(rows, columns=None if rows else ["group", "n_items"])

    def comparisons_frame(self):
        """One row per comparison, one column per ``Comparison`` field (pandas DataFrame;
        None numbers as NaN)."""
        import pandas as pd

        names = [f.name for f in dataclasses.fields(Comparison)]
        rows = [{n: getattr(c, n) for n in names} for c in self.comparisons]
        return pd.DataFrame(rows, columns=names).fillna(
            {n: float("nan") for n in ("value", "reference_value", "gap", "ratio", "effect_size")}
        )

    # -- tables (fairlearn's MetricFrame is the model) -----------------------------------
    @property
    def by_group(self):
        """One row per group (index ``group``), one column per metric value, as fairlearn's
        ``MetricFrame.by_group`` (pandas DataFrame; undefined values NaN). The group sizes
        and exclusions are in :meth:`groups_frame`."""
        frame = self.groups_frame()
        drop = ["n_items", "n_speakers", "excluded", "reason", "missing"]
        frame = frame.drop(columns=[c for c in drop if c in frame.columns])
        return frame.set_index("group")

    @property
    def overall(self):
        """Metric id → the corpus-wide value of the analysed groups and the items with no
        grouping value (pandas Series)."""
        import pandas as pd

        values = {
            m: (s.overall or {}).get("value") for m, s in self.summary.items() if s is not None
        }
        return pd.Series(
            {m: float("nan") if v is None else v for m, v in values.items()}, dtype=float
        )

    @property
    def comparisons_table(self):
        """One row per comparison (group × metric against the reference): metric, group,
        reference, value, reference_value, gap, ci_low, ci_high, p_adjusted, verdict,
        direction, estimator (pandas DataFrame; every field in :meth:`comparisons_frame`)."""
        cols = [
            "metric",
            "group",
            "reference",
            "value",
            "reference_value",
            "gap",
            "ci_low",
            "ci_high",
            "p_adjusted",
            "verdict",
            "direction",
            "estimator",
        ]
        return self.comparisons_frame()[cols]

    def difference(self, metric: str | None = None, method: str = "to_reference"):
        """Each group's gap to the reference group with its 95% CI, Holm-adjusted p and
        verdict (pandas DataFrame indexed by metric and group; by group for one ``metric``).
        ``method="between_groups"``: fairlearn's max − min of the groups' values per metric,
        descriptive (a Series; no interval, no test)."""
        from .result_tables import comparison_table

        return comparison_table(self, "difference", metric, method)

    def ratio(self, metric: str | None = None, method: str = "to_reference"):
        """Each group's value ÷ the reference group's with the ratio's 95% CI (from the same
        replicates as the gap's; NaN where there is none), and the gap's p and verdict.
        ``method="between_groups"``: fairlearn's min ÷ max, descriptive."""
        from .result_tables import comparison_table

        return comparison_table(self, "ratio", metric, method)

    def __repr__(self) -> str:
        verdicts: dict[str, int] = {}
        for c in self.comparisons:
            verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
        if self.table is not None:
            where = "a table" if self.table == "table" else f"table {self.table!r}"
        else:
            what = f"{self.model or '?'} on {self.dataset or '?'}"
            where = what if self.run_id is None else f"run {self.run_id}: {what}"
        n_groups = sum(1 for g in self.groups if not g.missing)
        told = ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items()))
        return (
            f"<AuditRun of {where} by {' × '.join(self.by) or '?'}: {n_groups} groups, "
            f"reference {self.reference!r}, {len(self.comparisons)} comparisons"
            + (f" ({told})" if told else "")
            + ">"
        )

    def _repr_html_(self) -> str:
        """Jupyter: the group table (values in percent) and the verdicts."""
        from html import escape

        head = escape(repr(self))
        if self.all_failed:
            return f"<p><code>{head}</code></p><p>every item failed: no statistics</p>"
        groups = self.groups_frame().set_index("group")
        metrics = [m for m in (*self.tested_metrics, "wer", "cer") if m in groups.columns]
        metrics = list(dict.fromkeys(metrics)) or [
            c
            for c in groups.columns
            if c not in ("n_items", "n_speakers", "excluded", "reason", "missing")
        ]
        table = groups[["n_items", "n_speakers", *metrics]].to_html(
            float_format=lambda v: f"{v:.4g}", na_rep="-"
        )
        comps = self.comparisons_table
        verdicts = comps[["metric", "group", "reference", "gap", "p_adjusted", "verdict"]]
        vt = verdicts.to_html(index=False, float_format=lambda v: f"{v:.3g}", na_rep="-")
        return f"<p><code>{head}</code></p>{table}<p>Verdicts</p>{vt}"

    # -- assembly ------------------------------------------------------------------------
    @classmethod
    def from_parts(cls, result: AuditResult | None = None, **parts) -> AuditRun:
        """A run from the statistics and keyword parts (the field names); later stages add
        theirs with ``dataclasses.replace(run, name=value)``. A result's ``bootstrap``
        gives ``n_bootstrap_used`` unless it is passed. The statistics are taken as their
        stored JSON reads back (NaN as None, lists as tuples; infinite ratios kept), so the
        run equals the run its ``to_json`` opens as."""
        if result is not None:
            result = _stats_from_json(_stats_json(result), result.settings)
        if result is not None and "n_bootstrap_used" not in parts and result.bootstrap:
            parts["n_bootstrap_used"] = result.bootstrap.used
        return cls(result=result, **parts)

    # -- JSON ----------------------------------------------------------------------------
    def to_json(self) -> ResultJson:
        """The JSON-ready payload (``schema_version`` 2; layout in the module docstring)."""
        own = {f.name: f for f in dataclasses.fields(self)}
        skip = {"result", "normaliser_reason", "n_bootstrap_used", "run_settings"}
        skip |= {"settings_extra", "extra"}

        h = hints(type(self))
        out: dict[str, Any] = {}
        if self.result is not None:
            out.update(_stats_json(self.result))
        else:
            out.update({"groups": [], "comparisons": []})
        for name in own:
            if name in skip:
                continue
            value = getattr(self, name)
            if value is None and name in OPTIONAL_KEYS:
                continue
            if self.table is not None and name in PROJECT_KEYS and not value:
                continue  # a table audit: no project, model or run
            if self.result is None and name in ANALYSIS_KEYS and not value:
                continue  # every item failed: no analysis
            out[name] = encode(value, h[name])
        settings: dict[str, Any] = {}
        if self.result is not None:
            settings.update(self.result.settings.to_dict())
            if self.n_bootstrap_used is not None:
                settings["n_bootstrap_used"] = self.n_bootstrap_used
            if self.result.bootstrap is not None:
                settings["bootstrap_raise"] = encode(self.result.bootstrap)
        if self.normaliser_reason is not None:
            settings["normaliser_reason"] = encode(self.normaliser_reason)
        if self.run_settings is not None:
            rs = encode(self.run_settings)
            if self.table is not None:  # a table audit has no model, engine, ...
                rs = {k: rs[k] for k in TABLE_RUN_SETTINGS}
            settings.update(rs)
        for k, v in self.settings_extra.items():
            settings.setdefault(k, encode(v))
        out["settings"] = settings
        for k, v in self.extra.items():
            out.setdefault(k, encode(v))
        out["schema_version"] = SCHEMA_VERSION
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping) -> AuditRun:
        """A run from a payload of any version (see the module docstring)."""

        version = d.get("schema_version", 1)
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise ValueError(
                f"This audit result has schema_version {version!r}; this fairdesk reads "
                f"versions up to {SCHEMA_VERSION}: update fairdesk to open it."
            )
        settings = dict(d.get("settings") or {})
        audit_settings, rest = decode_settings(settings)
        run_part = {k: rest.pop(k) for k in RUN_SETTINGS_KEYS if k in rest}
        reason = rest.pop("normaliser_reason", None)
        used = rest.pop("n_bootstrap_used", None)
        raise_ = rest.pop("bootstrap_raise", None)
        if raise_ is not None and raise_ != d.get("bootstrap"):
            rest["bootstrap_raise"] = raise_  # not the same dict: keep it
        result = _stats_from_json(d, audit_settings)
        h = hints(cls)
        names = {f.name for f in dataclasses.fields(cls)}
        kw: dict[str, Any] = {}
        for name in names - {"result", "normaliser_reason", "n_bootstrap_used"}:
            if name in ("run_settings", "settings_extra", "extra", "schema_version"):
                continue
            if name == "pitfalls" and d.get(name) == {}:
                continue  # a run without transcripts has no pitfalls block
            if name in d:
                kw[name] = decode(d[name], h[name])
        known = names | set(STATS_KEYS) | {"settings"}
        return cls(
            result=result,
            normaliser_reason=None if reason is None else decode(reason, Notice),
            n_bootstrap_used=None if used is None else int(used),
            run_settings=decode(run_part, RunSettings) if run_part else None,
            settings_extra=freeze(rest),
            schema_version=version,
            extra={k: freeze(v) for k, v in d.items() if k not in known},
            **kw,
        )


def as_audit_run(x) -> AuditRun:
    """``x`` as an :class:`AuditRun`: itself when it is one, else read as a payload.

    The entry point of a consumer that may be handed a run or its stored JSON.

    Parameters
    ----------
    x : AuditRun or Mapping
        A run, or a payload of any version (:meth:`AuditRun.from_json`).

    Returns
    -------
    AuditRun
    """
    if isinstance(x, AuditRun):
        return x
    return AuditRun.from_json(x)


__all__ = ["SCHEMA_VERSION", "AuditRun", "RunSettings", "as_audit_run"]
