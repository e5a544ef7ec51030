"""Typed frozen blocks of the optional stages of an audit (phones, explain, representation).

Parts of :class:`fairdesk.jobs.result.AuditRun`; like :mod:`fairdesk.jobs.result_parts`,
each field is a key its producer writes today, ``extra`` keeps keys not declared here, and
``Json`` fields are free-form (lists read back as tuples).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from fairdesk.jobs.result_parts import ItemFailure, Json, optional
from fairdesk.stats.notices import Notice
from fairdesk.stats.representation import Leakage


def _empty() -> dict:
    return {}


@dataclass(frozen=True)
class PhoneCount:
    """One reference phone of a group: ``n`` occurrences, ``errors``, ``rate`` (None when
    undefined)."""

    n: int = 0
    errors: int = 0
    rate: float | None = None


@dataclass(frozen=True)
class PhonePair:
    """A confusion: reference phone ``ref`` produced as ``hyp`` (``-`` a gap), ``count``
    times, ``rate`` per occurrence of ``ref``."""

    ref: str | None = None
    hyp: str | None = None
    count: int = 0
    rate: float | None = None


@dataclass(frozen=True)
class PhoneMatrix:
    """Error counts, rows reference phones, columns produced phones (the same ``phones``)."""

    phones: tuple[str, ...] = ()
    counts: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class PhoneTable:
    """One group's phone confusion table (``stats.phone_confusion.tabulate``).

    Attributes
    ----------
    n_ref_phones, n_errors, n_insertions : counts; phone_error_rate : n_errors /
        n_ref_phones (None without phones).
    top : the most frequent confusions; per_phone : phone → PhoneCount; matrix : the
        error counts.
    rates_over : what the rates count over (annotated confusions only).
    """

    n_ref_phones: int = 0
    n_errors: int = 0
    n_insertions: int = 0
    phone_error_rate: float | None = None
    top: tuple[PhonePair, ...] = ()
    per_phone: Mapping[str, PhoneCount] = field(default_factory=_empty)
    matrix: PhoneMatrix | None = None
    rates_over: str | None = optional()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class PhoneConfusion:
    """The model-side phone confusion per group (``stats.phone_confusion.
    model_phone_confusion``): ``groups`` (group → PhoneTable), words phonemised by espeak-ng
    (``from_espeak``), words without phones (``unknown``), ``method`` in words."""

    groups: Mapping[str, PhoneTable] = field(default_factory=_empty)
    from_espeak: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    method: str | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class AnnotatedGroup:
    """Annotated items of a group: ``n_items``, ``n_phones``, ``n_errors`` and
    ``accentedness`` = n_errors / n_phones (None without phones)."""

    n_items: int = 0
    n_phones: int = 0
    n_errors: int = 0
    accentedness: float | None = None


@dataclass(frozen=True)
class Coefficient:
    """One coefficient of an OLS fit: ``coef``, its ``ci`` (low, high) and ``p``."""

    coef: float | None = None
    ci: tuple[float | None, float | None] | None = None
    p: float | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class GroupEffect:
    """A group's WER effect against the reference without and with accentedness in the
    model (``with_`` is the JSON key ``with``); ``survives``: still significant with it;
    ``absorbed``: significant without, not with."""

    without: Coefficient | None = None
    with_: Coefficient | None = field(default=None, metadata={"key": "with"})
    survives: bool = False
    absorbed: bool = False
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class AccentednessRegression:
    """WER on accentedness and group (``stats.phone_confusion.accentedness_regression``).

    Attributes
    ----------
    formula, reference, n, n_per_group, alpha : the model and its data.
    estimable : False when accentedness is a function of the group (``reason``, a coded
        note, says so;
        the fields below are then left out of the JSON).
    beta_accentedness : the accentedness coefficient; r2, r2_without : R² with and without
        it; groups : group → :class:`GroupEffect`; mean_accentedness : group → mean.
    """

    formula: str | None = None
    reference: str | None = None
    n: int = 0
    n_per_group: Mapping[str, int] = field(default_factory=_empty)
    alpha: float | None = None
    estimable: bool = False
    reason: Notice | None = optional()
    beta_accentedness: Coefficient | None = optional()
    r2: float | None = optional()
    r2_without: float | None = optional()
    groups: Mapping[str, GroupEffect] | None = optional()
    mean_accentedness: Mapping[str, float | None] | None = optional()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class PhoneAnnotations:
    """The annotated (L2-ARCTIC) phone errors (``jobs.phone_stage.annotation_blocks``):
    ``groups`` (group → AnnotatedGroup), ``confusion`` (group → PhoneTable of canonical →
    perceived), ``source`` in words."""

    groups: Mapping[str, AnnotatedGroup] = field(default_factory=_empty)
    confusion: Mapping[str, PhoneTable] = field(default_factory=_empty)
    source: str | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class ItemGrounding:
    """Phone-error grounding of one explained item (``explain.grounding.
    phone_error_grounding``): AUROC and AP of saliency for the frames inside annotated
    errors, over all frames and (where a speech mask was found) over speech frames only;
    None where undefined.

    Attributes
    ----------
    auroc, ap : over all frames; n_frames, n_flagged : frames and frames in errors.
    auroc_speech, ap_speech, n_speech, n_flagged_speech : the same within speech (None
        without a speech mask).
    speech_source : where the speech mask came from.
    """

    auroc: float | None = None
    ap: float | None = None
    n_frames: int = 0
    n_flagged: int = 0
    auroc_speech: float | None = None
    ap_speech: float | None = None
    n_speech: int | None = None
    n_flagged_speech: int | None = None
    speech_source: str | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class GroupGrounding:
    """A group's mean phone-error grounding (``jobs.explain_stage.phone_grounding_summary``):
    the mean AUROC / AP (and within speech) of its items, None where no item defines it,
    and how many items each mean is over."""

    auroc: float | None = None
    ap: float | None = None
    auroc_speech: float | None = None
    ap_speech: float | None = None
    n_auroc: int = 0
    n_ap: int = 0
    n_auroc_speech: int = 0
    n_ap_speech: int = 0
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class ExplainItem:
    """One explained item (``jobs.explain_stage``): ``item``, ``group``, ``speaker_id``, ``lift``
    (None when undefined), ``target`` (``error_windows`` or ``reference_words``),
    ``n_regions``, ``cached``, ``saliency_key`` and ``phone_error_grounding`` (only for
    error-window targets)."""

    item: str | None = None
    group: str | None = None
    speaker_id: str | None = None
    lift: float | None = None
    target: str | None = None
    n_regions: int = 0
    cached: bool = False
    saliency_key: Mapping[str, Json] = field(default_factory=_empty)
    phone_error_grounding: ItemGrounding | None = optional()
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class Explain:
    """The explain stage's block (``jobs.explain_stage.explain_stage``).

    Attributes
    ----------
    method, method_key : the saliency method and its cache key; frame_s : frame length;
        the method's own parameters are in ``extra``.
    per_group : items sampled per group; target, regions : what the saliency scores and
        where lift is measured (words); aligner : the forced aligner's key.
    items_explained : group → items with a lift; items : every sampled item; failures :
        the items without one.
    phone_error_grounding : group → the summary over its items with phone-error windows
        (:class:`GroupGrounding`; empty when no item had windows).
    n_sampled, n_cached, n_computed, n_aligned : counts; seconds : wall time.
    """

    method: str | None = None
    method_key: str | None = None
    frame_s: float | None = None
    per_group: int | None = None
    target: str | None = None
    regions: str | None = None
    aligner: str | None = None
    items_explained: Mapping[str, int] = field(default_factory=_empty)
    items: tuple[ExplainItem, ...] = ()
    failures: tuple[ItemFailure, ...] = ()
    phone_error_grounding: Mapping[str, GroupGrounding] | None = None
    n_sampled: int = 0
    n_cached: int = 0
    n_computed: int = 0
    n_aligned: int = 0
    seconds: float | None = None
    extra: Mapping[str, Json] = field(default_factory=_empty)


@dataclass(frozen=True)
class Representation:
    """The representation block (``jobs.representation.representation_block``).

    Attributes
    ----------
    silhouette : cosine silhouette by group; leakage : the probe
        (``stats.representation.Leakage``); threshold, structure : the rule;
        cases : metric id → case label (docs/METHODS.md, "Representation").
    n_items, model_key : the embedded items and the model.
    error : why there is no analysis (fewer than two groups); skipped : why it failed.
    """

    silhouette: float | None = optional()
    leakage: Leakage | None = optional()
    threshold: float | None = optional()
    structure: bool | None = optional()
    cases: Mapping[str, str] | None = optional()
    n_items: int | None = optional()
    model_key: str | None = optional()
    error: str | None = optional()
    skipped: str | None = optional()
    extra: Mapping[str, Json] = field(default_factory=_empty)


__all__ = [
    "AccentednessRegression",
    "Coefficient",
    "GroupEffect",
    "GroupGrounding",
    "ItemGrounding",
    "AnnotatedGroup",
    "Explain",
    "ExplainItem",
    "PhoneAnnotations",
    "PhoneConfusion",
    "PhoneCount",
    "PhoneMatrix",
    "PhonePair",
    "PhoneTable",
    "Representation",
]
