"""Typed frozen parts of a finished audit (:class:`fairdesk.jobs.result.AuditRun`).

Each part is what a stage after the statistics adds to the stored result; its fields are
the keys that stage writes today. ``Json`` fields are free-form blocks (lists read back as
tuples); parts with an ``extra`` field keep keys they do not declare (written back as they
came). Read them as read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..stats.notices import Notice

#: A free-form JSON value (read back with lists as tuples).
Json = Any


def _empty() -> dict:
    return {}


def optional():
    """A None-default field its producer writes only sometimes: the JSON leaves it out
    while None (as today's payload does)."""
    return field(default=None, metadata={"omit_none": True})


@dataclass(frozen=True)
class Normaliser:
    """The text normaliser the run used (``analysis.resolve_normaliser``).

    Attributes
    ----------
    name : normaliser id (e.g. ``whisper-english``).
    reason : why it was chosen (words).
    language : the language asked for (None, ``auto`` or a code).
    """

    name: str | None = None
    reason: str | None = None
    language: str | None = None


@dataclass(frozen=True)
class InputProblem:
    """A row left out before scoring (``metrics.inputs.check_transcripts``).

    Attributes
    ----------
    line : the row's line (or index).
    reason : why (words).
    item : the row's item id, where the table has one.
    """

    line: Json = None
    reason: str | None = None
    item: str | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class ConfusionMatrix:
    """One group's confusion matrix (rows true, columns predicted; ``analysis.confusions``)."""

    true: tuple[str, ...] = ()
    predicted: tuple[str, ...] = ()
    matrix: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class NoDiacriticItems:
    """Items whose reference has no diacritic (``analysis.no_diacritic_block``).

    Attributes
    ----------
    overall : ``diacritics_table.nodia_summary`` of the run (n_items, added, letters,
        per_100_letters, ...).
    groups : group → the same summary (None for a group with no such item).
    reading : one sentence.
    """

    overall: Mapping[str, Json] | None = None
    groups: Mapping[str, Mapping[str, Json] | None] = field(default_factory=_empty)
    reading: str | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class WordPosition:
    """Error rate per reference word position of one shared content
    (``stats.positions.word_position_heatmap``).

    Attributes
    ----------
    reference : the reference text; words : its words.
    n_items : items of this content.
    n : group → items; errors : group → error count per position; groups : group → rate
        per position (None where undefined).
    """

    reference: str | None = None
    words: tuple[str, ...] = ()
    n_items: int | None = None
    n: Mapping[str, int] = field(default_factory=_empty)
    errors: Mapping[str, tuple[int, ...]] = field(default_factory=_empty)
    groups: Mapping[str, tuple[float | None, ...]] = field(default_factory=_empty)
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class GroupFlags:
    """One group's hallucination flags (``stats.pitfalls.flag_counts``).

    Attributes
    ----------
    n_items : the group's items.
    loop, runaway, over_nonspeech, unstable : items with each flag.
    hallucinated : items with any flag; rate : hallucinated / n_items (None without items).
    items : the flagged items' ids.
    """

    n_items: int = 0
    loop: int = 0
    runaway: int = 0
    over_nonspeech: int = 0
    unstable: int = 0
    hallucinated: int = 0
    rate: float | None = None
    items: tuple[str, ...] = ()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class WerDominated:
    """A group whose word errors one utterance carries (``stats.pitfalls.dominant_items``).

    Attributes
    ----------
    group, item : the group and the utterance.
    errors : the utterance's word errors; group_errors : the group's; share : their ratio.
    wer, wer_without_item : the group's WER with and without the utterance (None when
        undefined).
    """

    group: str | None = None
    item: str | None = None
    errors: int = 0
    group_errors: int = 0
    share: float | None = None
    wer: float | None = None
    wer_without_item: float | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class VerdictChange:
    """A tested comparison whose verdict changes without the flagged items
    (``stats.pitfalls.verdicts_without_flagged``); ``metric`` None with a ``reason`` when
    nothing could be recomputed.

    Attributes
    ----------
    metric, group : the comparison.
    verdict, verdict_without_flagged : the verdict with and without the flagged items
        (None: not compared without them, ``reason`` says why).
    gap, gap_without_flagged : the gaps.
    reason : why there is no verdict without the flagged items.
    n_flagged_group, n_flagged_reference : flagged items in the group and the reference.
    """

    metric: str | None = None
    group: str | None = None
    verdict: str | None = None
    verdict_without_flagged: str | None = None
    gap: float | None = None
    gap_without_flagged: float | None = None
    reason: str | None = None
    n_flagged_group: int | None = None
    n_flagged_reference: int | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class PredictionProblem:
    """A row an imported predictions file refused or flagged
    (``models.predictions.Problem``).

    Attributes
    ----------
    row : 1-based line of the file; key : the row's item id or path where readable.
    reason : what is wrong; kept : True for a warning (the row was kept).
    """

    row: int | None = None
    key: str | None = None
    reason: str | None = None
    kept: bool = False
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class Pitfalls:
    """Hallucination flags and what they change (``jobs.pitfalls.pitfalls_block``).

    Attributes
    ----------
    settings : the flag thresholds used.
    flags_checked : flag ids computed.
    n_flagged : flagged items of the run.
    by_group : group → its flag counts (:class:`GroupFlags`).
    wer_dominated : groups whose WER one utterance carries (:class:`WerDominated`).
    verdicts_without_flagged : the verdicts that change without the flagged items
        (:class:`VerdictChange`).
    not_checked : why a flag was not computed (None when every one was).
    nonspeech_share_by_group : group → share of items with non-speech information (None
        when the audit measured no audio).
    """

    settings: Mapping[str, Json] = field(default_factory=_empty)
    flags_checked: tuple[str, ...] = ()
    n_flagged: int = 0
    by_group: Mapping[str, GroupFlags] = field(default_factory=_empty)
    wer_dominated: tuple[WerDominated, ...] = ()
    verdicts_without_flagged: tuple[VerdictChange, ...] = ()
    not_checked: str | None = optional()
    nonspeech_share_by_group: Mapping[str, float | None] | None = optional()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class Agreement:
    """The model beside the bootstrap for one level
    (``stats.regression.agreement_with_bootstrap``): whether they ``agree``, whether each
    finds a significant gap, and the coded ``note`` that says so with its numbers (worded by
    fairdesk.presentation.regression_poisson_words); a run stored before the note was coded
    kept its ``sentence`` instead."""

    level: str | None = None
    agree: bool = False
    model_significant: bool = False
    bootstrap_significant: bool = False
    sentence: str | None = optional()
    note: Notice | None = optional()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class ModelBasedFit:
    """The mixed-effects Poisson model of one grouping column (``jobs.model_based``).

    Attributes
    ----------
    error : why the model was not fitted (the other fields are then absent).
    conclusions : the fit's conclusions in words, as a run stored before they were derived
        from the numbers kept them (None since: the views derive them).
    agreement : each level beside the bootstrap (:class:`Agreement`).
    agreement_note : why nothing is set beside (two grouping columns), coded
        (``Notice.to_json``); a run stored before it was coded kept the sentence.
    notes : the fit's data notes and caveats (groups the audit excluded), coded
        (``Notice.to_json``); a run stored before they were coded kept sentences.
    extra : the fit itself as ``MixedPoissonResult.to_json`` writes it (formula,
        group variables and levels, covariates, speaker and content handling, ...); the
        views decode it with ``MixedPoissonResult.from_json``.
    """

    error: str | None = optional()
    conclusions: tuple[str, ...] | None = optional()
    agreement: tuple[Agreement, ...] | None = optional()
    agreement_note: Mapping[str, Any] | str | None = optional()
    notes: tuple[Mapping[str, Any] | str, ...] | None = optional()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class ItemFailure:
    """An item a stage could not process: ``item`` id, ``path`` (inference failures) and
    ``reason``."""

    item: str | None = None
    reason: str | None = None
    path: str | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class Unstable:
    """The sampled decodes of the unstable flag (``jobs.unstable_stage``).

    Attributes
    ----------
    temperature : the sampling temperature(s).
    reproducible : always False (sampling).
    n_decoded : items decoded again; failures : those that could not be.
    """

    temperature: Json = None
    reproducible: bool = False
    n_decoded: int = 0
    failures: tuple[ItemFailure, ...] = ()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class Acoustics:
    """The acoustic covariates stage (``jobs.acoustic_stage.add_acoustics``).

    Attributes
    ----------
    vad : the VAD settings (None when not run).
    n_measured : items measured; failures : items without covariates.
    word_times : whether the backend gave word times.
    unavailable : why the stage did not run (None when it did).
    unstable : the unstable-flag block (None when not asked for).
    """

    vad: Mapping[str, Json] | None = None
    n_measured: int = 0
    failures: tuple[ItemFailure, ...] = ()
    word_times: bool = False
    unavailable: str | None = optional()
    unstable: Unstable | None = optional()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class Counts:
    """Items of the run: ``n_items`` asked, ``n_cached`` answered from the prediction cache,
    ``n_inferred`` run through the model."""

    n_items: int = 0
    n_cached: int = 0
    n_inferred: int = 0
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class TableRows:
    """How many rows of a ``--table`` file the audit used (``jobs.table_audit``).

    Attributes
    ----------
    rows : the file's data rows (readable or not; blank lines not counted).
    used : the rows in the audit's groups.
    refused : the rows left out, each listed in ``problems``.
    warnings : what is suspicious about rows that were used (exact copies of an earlier
        row, an item id used twice), with their first line numbers.
    """

    rows: int = 0
    used: int = 0
    refused: int = 0
    warnings: tuple[str, ...] = ()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class RunSettings:
    """How the run was made (``jobs.audit._run_settings``), beside the statistics'
    ``AuditSettings``.

    Attributes
    ----------
    model, model_key : the model asked for and its cache key; decoding : its decoding
        settings (None when the backend has none); device : where it ran.
    datasets : the datasets audited (several: audited together as one set,
        :mod:`fairdesk.core.dataset_sets`; empty in runs stored before).
    by : the grouping columns; filters : column → allowed values; reference_requested :
        the reference group asked for; sample_per_group : per-group sample size.
    nlu : NLU choice; language : the dataset's language.
    explain, explain_per_group, explain_method : the explain stage's request.
    unstable, model_based, covariates : the optional stages asked for.
    text_source : where the references came from (``annotation`` / ``import`` /
        ``adjudication`` counts).
    reference_text : which reference text was scored (``--reference-text``; None: a run
        stored before the choice existed, which used ``latest``).
    annotators_resampled : items whose annotators' versions each bootstrap replicate drew
        from (``resample``; docs/METHODS.md, "References from several annotators").
    shard_size, engine : inference sharding and engine.
    fairdesk_version, metrics_code_version, cpu_count : the software and machine.
    """

    model: str | None = None
    model_key: str | None = None
    decoding: Json = None
    device: str | None = None
    datasets: tuple[str, ...] = ()
    by: tuple[str, ...] = ()
    filters: Mapping[str, Json] = field(default_factory=_empty)
    reference_requested: str | None = None
    sample_per_group: int | None = None
    nlu: str | None = None
    language: str | None = None
    explain: bool = False
    explain_per_group: int | None = None
    explain_method: str | None = None
    unstable: bool = False
    model_based: bool = False
    covariates: tuple[str, ...] = ()
    text_source: Mapping[str, int] = field(default_factory=_empty)
    reference_text: str | None = None
    annotators_resampled: int = 0
    shard_size: int | None = None
    engine: str | None = None
    fairdesk_version: str | None = None
    metrics_code_version: str | None = None
    cpu_count: int | None = None


#: RunSettings' field names (the keys ``_run_settings`` writes into ``settings``).
RUN_SETTINGS_KEYS = tuple(RunSettings.__dataclass_fields__)

__all__ = [
    "RUN_SETTINGS_KEYS",
    "Acoustics",
    "Agreement",
    "ConfusionMatrix",
    "Counts",
    "GroupFlags",
    "PredictionProblem",
    "VerdictChange",
    "WerDominated",
    "InputProblem",
    "ItemFailure",
    "Json",
    "ModelBasedFit",
    "NoDiacriticItems",
    "Normaliser",
    "Pitfalls",
    "RunSettings",
    "Unstable",
    "WordPosition",
    "optional",
]


#: The typed warnings of a run (codes; :mod:`fairdesk.presentation.warnings` words them).
#: ``no_speaker_ids``: the items have no speaker ids, so each utterance counts as
#: independent and the intervals are too narrow if speakers recorded several utterances.
NO_SPEAKER_IDS = "no_speaker_ids"
WARNING_CODES = (NO_SPEAKER_IDS,)


@dataclass(frozen=True)
class Speakers:
    """Where the run's speaker ids came from (docs/METHODS.md, "Speakers").

    Attributes
    ----------
    column : the input's column that gave the speaker ids (a table's own name, e.g.
        ``speaker``; a project dataset's ``speaker_id``); None: the items have none.
    n_speakers : distinct speaker ids among the analysed items.
    warnings : typed warning codes (:data:`WARNING_CODES`), worded by the views.
    """

    column: str | None = None
    n_speakers: int = 0
    warnings: tuple[str, ...] = ()
