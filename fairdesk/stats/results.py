"""Immutable result objects of an audit and their JSON-ready form."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from fairdesk.core.jsonio import ResultJson, jsonable
from fairdesk.stats.bootstrap_plan import BootstrapPlan
from fairdesk.stats.notices import STORED_SENTENCE, Notice, note_json, stored_notice
from fairdesk.stats.pitfall_types import DominantItem, WithoutFlagged
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.summary import MetricSummary


def _fields_dict(obj, later: tuple[str, ...]) -> dict:
    """JSON-ready dict of a dataclass; the ``later`` fields (written by a later stage) left
    out while None, so ``compare_groups``' dicts keep their keys. Coded notes are written
    as the result codec writes them (:func:`note_json`)."""
    return {
        f.name: jsonable(_notes_json(getattr(obj, f.name)))
        for f in dataclasses.fields(obj)
        if not (f.name in later and getattr(obj, f.name) is None)
    }


def _notes_json(value):
    if isinstance(value, Notice):
        return note_json(value)
    if isinstance(value, dict):
        return {k: _notes_json(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class BlockCounts:
    """The resampling blocks of one comparison (``Comparison.n_blocks``).

    Attributes
    ----------
    group_speakers, reference_speakers : speakers drawn in the group and the reference
        (None where the scheme draws no speakers).
    contents : shared content ids drawn (None where the scheme draws none).
    group_items, reference_items : items the scheme analyses in the group and the
        reference (every item of the pair where no scheme applies).
    """

    group_speakers: int | None
    reference_speakers: int | None
    contents: int | None
    group_items: int | None
    reference_items: int | None


@dataclass(frozen=True)
class NoVariation:
    """The rule-of-three record of a ``no_variation`` comparison (``Comparison.no_variation``;
    built by ``stats.estimability.rule_of_three``).

    Attributes
    ----------
    value : the constant value both sides take.
    unit : what n counts (``items``, ``reference words``, ...).
    n_group, n_reference : n per side (items for proportions, the denominator's sum for
        rates).
    bound_group, bound_reference : the rule-of-three bound 3/n on the other outcome's rate
        (NaN where n is 0).
    """

    value: float
    unit: str
    n_group: float
    n_reference: float
    bound_group: float
    bound_reference: float


@dataclass(frozen=True)
class Basis:
    """The basis E of a diacritic metric's comparison (``Comparison.basis``;
    docs/METHODS.md, "When the diacritic metrics apply").

    Attributes
    ----------
    unit : what E counts (``expected diacritics``, ``expected tone marks``).
    group, reference : E on the analysed items of the group and of the reference.
    descriptive : whether a side has fewer than 10 (``stats.estimability.MIN_BASIS``): the
        comparison is then ``descriptive`` (value shown, no interval, no test, not in Holm).
    """

    unit: str
    group: float
    reference: float
    descriptive: bool


@dataclass(frozen=True)
class ComparisonSample:
    """The sample a sampled metric (grounding lift: the explained items) was compared on
    (``Comparison.sample``); worded ``the 2 + 2 explained items`` by
    :func:`fairdesk.presentation.estimability_words.sample_words`.

    Attributes
    ----------
    group, reference : the sample's items in the group and in the reference.
    items : what the sample counts (the metric's ``MetricSpec.sample``: ``explained items``).
    """

    group: int
    reference: int
    items: str

    @classmethod
    def from_json(cls, data) -> ComparisonSample:
        """From ``{"group", "reference", "items"}``, or from the words a run stored before
        the sample was typed (``the 2 + 2 explained items``)."""
        if isinstance(data, str):
            m = _STORED_SAMPLE.match(data)
            if m is None:
                raise ValueError(f"not a stored comparison sample: {data!r}")
            return cls(int(m.group(1)), int(m.group(2)), m.group(3))
        return cls(int(data["group"]), int(data["reference"]), str(data["items"]))


_STORED_SAMPLE = re.compile(r"^the (\d+) \+ (\d+) (.+)$")


#: The code of a note an older run stored as its sentence (fairdesk.presentation.stored_words).
@dataclass(frozen=True)
class Comparison:
    """One group × metric compared with the reference (docs/METHODS.md, "Comparisons with the reference"):
    numbers and codes; its reading in words is :func:`fairdesk.presentation.readings.reading`.

    Attributes
    ----------
    metric : metric id.
    group, reference : group labels.
    value, reference_value : pooled metric values (on the shared content for paired schemes).
    gap : value − reference_value.
    ratio : value / reference_value.
    effect_size : Cohen's h (proportion metrics) or gap / pooled SD of block-level metric
        values (speakers for two_way/speaker, shared contents for content, items for
        utterance; on the analysed subset).
    ci_low, ci_high : percentile 95% bootstrap CI of the gap.
    p_value : two-sided bootstrap p, (1 + #{|gap* − gap| ≥ |gap|}) / (B + 1).
    p_adjusted : Holm-adjusted over every group × metric comparison of the run.
    mde : minimum detectable effect, (z.975 + z.80) × bootstrap SD of the gap.
    estimator : resampling scheme id (``two_way``, ``speaker``, ``content``, ``utterance``).
    n_blocks : block counts (``BlockCounts``: group_speakers, reference_speakers, contents,
        group_items, reference_items; None where the scheme has no such block).
    design : ``matched``, ``partially_matched`` or ``unmatched`` for this pair.
    verdict : see ``fairdesk.stats.verdicts``.
    direction : ``worse``, ``better`` or ``equal`` (respects higher_is_better).
    flags : caveats: ``content_confounded`` (unmatched design), ``shared_content_subset``
        (paired scheme dropped unshared items), ``conditional_on_speakers`` (content scheme
        with speaker ids), ``small_cluster_scaled`` (speaker scheme, small-cluster scaling),
        ``bound_clamped`` (the CI cut at the largest gap the metric's range allows), ``fewer_than_10_speakers``, ``speaker_jackknife_flip``,
        ``undefined_replicates_dropped`` (NaN replicates left out), ``p_unresolvable``
        (comparisons / (n_bootstrap + 1) ≥ alpha: no p_adjusted can fall below alpha).
    n_items, n_speakers : the group's analysed items and speakers (None without ids).
    reason : why the comparison is ``not_estimable`` or ``descriptive`` (a coded note,
        :class:`~fairdesk.stats.notices.Notice`, worded by
        :func:`fairdesk.presentation.notices.notice_text`), else None. A run stored before
        the notes were coded kept the sentence: it reads as ``stored.sentence``.
    no_variation : for ``no_variation``: a ``NoVariation`` (value, unit, n_group,
        n_reference, bound_group, bound_reference: the rule-of-three bound 3/n on the other
        outcome), else None.
    basis : for a diacritic metric (DER, RDD, net loss, TER), its basis E on each side
        (``Basis``); None for every other metric (left out of the JSON then).
    sample : for a metric computed on a sample (grounding lift: the explained items), the
        sample it was compared on (``ComparisonSample``: its sizes, worded ``the 2 + 2
        explained items``); its blocks are ``n_blocks``. None for a metric of every item
        (left out of the JSON then).
    ratio_ci_low, ratio_ci_high : the 95% percentile interval of the ratio, from the replicate
        values of the two sides the gap's CI uses; None where no bootstrap ran or a
        replicate's reference value is 0 (docs/METHODS.md, "Comparisons with the reference").
    without_flagged : the comparison recomputed without the hallucination-flagged items
        (:class:`~fairdesk.stats.pitfall_types.WithoutFlagged`); written by the pitfalls
        stage (``jobs.pitfalls.pitfalls_stage``), None before it.
    """

    metric: str
    group: str
    reference: str
    value: float
    reference_value: float
    gap: float
    # ±inf is meaningful here (a ratio over a zero reference): the typed result's JSON
    # writes it as "inf"/"-inf" (fairdesk.jobs.result_codec), where None would read undefined
    ratio: float = dataclasses.field(metadata={"nonfinite": "string"})
    effect_size: float = dataclasses.field(metadata={"nonfinite": "string"})
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    mde: float
    estimator: str
    n_blocks: BlockCounts
    design: str
    verdict: str
    direction: str
    flags: tuple[str, ...]
    n_items: int
    n_speakers: int | None
    reason: Notice | None = None
    no_variation: NoVariation | None = None
    basis: Basis | None = dataclasses.field(default=None, metadata={"omit_none": True})
    sample: ComparisonSample | None = dataclasses.field(default=None, metadata={"omit_none": True})
    # only where the pitfalls stage recomputed the verdict (the typed JSON leaves it out
    # while None, as today's payload does)
    without_flagged: WithoutFlagged | None = dataclasses.field(
        default=None, metadata={"omit_none": True}
    )
    # the ratio's 95% CI from the same replicates as the gap's (left out of the JSON where
    # there is none: no bootstrap, a reference of 0 in some replicate; a run made before has
    # neither key, and opens and writes back as it was stored)
    ratio_ci_low: float | None = dataclasses.field(default=None, metadata={"omit_none": True})
    ratio_ci_high: float | None = dataclasses.field(default=None, metadata={"omit_none": True})

    def to_dict(self) -> ResultJson:
        """JSON-ready dict (NaN/inf → None; ``without_flagged`` only once set, ``basis``
        only for diacritic metrics, the ratio's CI only where there is one)."""
        return ResultJson(
            _fields_dict(
                self, ("without_flagged", "basis", "sample", "ratio_ci_low", "ratio_ci_high")
            )
        )


@dataclass(frozen=True)
class GroupInfo:
    """One group of the run, analysed or excluded, with its full-data metric values.

    Attributes
    ----------
    values : metric id → the group's pooled value.
    ci : metric id → ``[low, high]`` 95% CI of the group's own value (None when not
        estimable), resampled within the group.
    ci_scheme : metric id → scheme of that CI (``two_way``, ``speaker``, ``content``,
        ``utterance``, ``rule_of_three`` for a constant group, ``not_estimable``,
        ``descriptive`` for a diacritic metric on fewer than 10 expected marks).
    ci_note : metric id → why there is no CI, or how a rule-of-three one was made (a coded
        note; a run stored before the notes were coded kept the sentence:
        ``stored.sentence``).
    ci_flags : metric id → the CI's flags: ``bound_clamped`` where a bound was clamped to
        the metric's range (docs/METHODS.md, "Bounds stay inside the metric's range");
        metrics without a flag are absent; None (left out of the JSON) in runs stored before
        the flags were recorded.
    wer_dominated_by : the item that dominates the group's WER (:class:`DominantItem`:
        ``item, errors, group_errors, share, wer, wer_without_item``), None when none does;
        written by the pitfalls stage (``jobs.pitfalls.pitfalls_stage``).
    missing : the row of the items with no value for the grouping column(s) (``no value
        for accent``): descriptive (values and CIs), not a group: no minimums, never the
        reference, not compared, not in Holm; its items are in the corpus value
        (docs/METHODS.md, "Missing values"). False for every group, ``(missing)`` with
        ``include_missing`` included.
    basis : metric id → the group's basis E (expected marks) for the diacritic metrics
        (docs/METHODS.md, "When the diacritic metrics apply"); None when the run has none.
    """

    group: str
    n_items: int
    n_speakers: int | None
    excluded: bool
    reason: Notice | None
    values: dict
    ci: dict = dataclasses.field(default_factory=dict)
    ci_scheme: dict = dataclasses.field(default_factory=dict)
    ci_note: dict[str, Notice] = dataclasses.field(default_factory=dict)
    ci_flags: dict | None = dataclasses.field(default=None, metadata={"omit_none": True})
    wer_dominated_by: DominantItem | None = None
    missing: bool = False
    basis: dict | None = dataclasses.field(default=None, metadata={"omit_none": True})

    @property
    def compared(self) -> bool:
        """Whether the group takes part in the comparisons (neither excluded by the
        minimums nor the descriptive row of missing values)."""
        return not (self.excluded or self.missing)

    def to_dict(self) -> ResultJson:
        """JSON-ready dict (NaN/inf → None; ``wer_dominated_by`` only once set, ``basis``
        only where the run has diacritic metrics)."""
        return ResultJson(_fields_dict(self, ("wer_dominated_by", "basis", "ci_flags")))


@dataclass(frozen=True)
class Exclusion:
    """A group left out of the analysis and why (a coded note, ``minimums.excluded``; a run
    stored before the notes were coded kept the sentence: ``stored.sentence``)."""

    group: str
    reason: Notice

    def to_dict(self) -> ResultJson:
        """JSON-ready dict."""
        return ResultJson({"group": self.group, "reason": note_json(self.reason)})


@dataclass(frozen=True)
class AuditResult:
    """Everything ``compare_groups`` found.

    Attributes
    ----------
    comparisons : every non-excluded group ≠ reference × metric.
    summary : metric id → ``MetricSummary``.
    groups : every group, excluded ones included, then the descriptive rows of the items
        with no grouping value (``GroupInfo.missing``).
    excluded : the excluded groups with reasons.
    reference : the reference group (None when every group is excluded).
    design : run-level design: ``matched`` (every comparison matched), ``unmatched`` (none
        shares ≥ 5 content ids with the reference), else ``partially_matched``; None without
        comparisons.
    settings : the settings used.
    bootstrap : the B used and why (``compare.planned_bootstrap``).
    """

    comparisons: tuple[Comparison, ...]
    summary: dict
    groups: tuple[GroupInfo, ...]
    excluded: tuple[Exclusion, ...]
    reference: str | None
    design: str | None
    settings: AuditSettings
    bootstrap: BootstrapPlan | None = None

    def to_dict(self) -> ResultJson:
        """JSON-ready dict (NaN/inf → None); ``settings`` also records the B used."""
        settings = self.settings.to_dict()
        if self.bootstrap is not None:
            settings["n_bootstrap_used"] = self.bootstrap.used
            settings["bootstrap_raise"] = jsonable(self.bootstrap)
        return ResultJson(
            {
                "comparisons": [c.to_dict() for c in self.comparisons],
                "summary": {m: jsonable(s) for m, s in self.summary.items()},
                "groups": [g.to_dict() for g in self.groups],
                "excluded": [e.to_dict() for e in self.excluded],
                "reference": self.reference,
                "design": self.design,
                "settings": settings,
                "bootstrap": jsonable(self.bootstrap),
            }
        )

    def comparison(self, metric: str, group: str) -> Comparison:
        """The comparison of ``group`` on ``metric`` (KeyError if absent)."""
        for c in self.comparisons:
            if c.metric == metric and c.group == group:
                return c
        raise KeyError(f"No comparison for metric {metric!r} and group {group!r}.")


__all__ = [
    "AuditResult",
    "Basis",
    "BlockCounts",
    "Comparison",
    "ComparisonSample",
    "Exclusion",
    "GroupInfo",
    "MetricSummary",
    "NoVariation",
    "STORED_SENTENCE",
    "jsonable",
    "note_json",
    "stored_notice",
]
