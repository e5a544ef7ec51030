"""The plain-English reading of a comparison with the reference (docs/METHODS.md, "Verdicts").

The statistics return numbers and codes (:class:`fairdesk.stats.results.Comparison`: the
verdict, the direction, the flags, the block counts, the basis E, the rule-of-three record);
:func:`reading` writes the sentence from them when a view shows it, so every view (console,
desktop cards, HTML/PDF report, table exports, ``--json``, the Python API's
``fairdesk.reading``) says the same, and a change of wording needs no new statistics: a
cached or stored run reads with today's words.

What a reading says, beside the values: the gap with its 95% CI, p_adjusted, the estimator
and its blocks (and the basis E of a diacritic metric; the sample of a metric computed on
one); then the verdict in words, and the caveats its flags carry (different content, a
single speaker, the shared-sentence subset, a CI that excludes 0 before the Holm step).
The number of comparisons in the Holm family and the practical threshold are the run's:
the comparisons it tested, and ``practical_threshold`` of its settings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..metrics.registry import CLASS_METRIC_IDS, METRICS, MetricSpec, class_metric
from ..stats.results import Basis, BlockCounts, Comparison, NoVariation
from ..stats.settings import AuditSettings
from ..stats.verdicts import practical_threshold
from .estimability_words import reason_text, sample_text
from .interval_words import note_json_text
from .units import MISSING, fmt_bound, fmt_gap, fmt_p, fmt_size, fmt_value

if TYPE_CHECKING:
    from ..jobs.result import AuditRun

__all__ = [
    "ESTIMATOR_LABELS",
    "basis_text",
    "blocks_text",
    "descriptive_sentence",
    "no_variation_sentence",
    "not_estimable_sentence",
    "reading",
    "incremental_notes_json",
    "notes_json",
    "readings_json",
    "systems_readings_json",
    "tested_family",
    "verdict_sentence",
]


#: Each resampling scheme (``Comparison.estimator``) in words; ``content_conditional``: the
#: paired-by-content scheme of a run with speaker ids (``conditional_on_speakers``).
ESTIMATOR_LABELS = {
    "two_way": "two-way bootstrap (speakers × sentences)",
    "speaker": "speaker cluster bootstrap",
    "content": "paired-by-content bootstrap",
    "content_conditional": "paired-by-content bootstrap, conditional on these speakers",
    "utterance": "utterance bootstrap",
}


class _Run(Protocol):
    """What :func:`reading` needs of a run: its comparisons and settings (an
    :class:`~fairdesk.jobs.result.AuditRun` or a :class:`~fairdesk.stats.results.AuditResult`)."""

    @property
    def comparisons(self) -> tuple[Comparison, ...]: ...

    @property
    def settings(self) -> AuditSettings | None: ...


def _said(text: str) -> str:
    """A number as the cards and tables format it (``30.4%``, ``-28.6 pp``), or ``undefined``
    where they show the missing marker: a sentence says so in words."""
    return "undefined" if text == MISSING else text


def _values(metric, label, group, reference, value, reference_value, sample=None) -> str:
    """``WER on <sample> is 30.4% for en-gb vs 58.9% for the reference en-029``: how every
    comparison's sentence begins."""
    where = f" on {sample}" if sample else ""
    return (
        f"{label}{where} is {_said(fmt_value(metric, value))} for {group} vs "
        f"{_said(fmt_value(metric, reference_value))} for the reference {reference}"
    )


def _ci(metric: str, low, high) -> str:
    """``-80.1 to +24.0 pp``: a gap's 95% CI in its unit."""
    return f"{_said(fmt_bound(metric, low, with_unit=False))} to {_said(fmt_bound(metric, high))}"


def _p(p) -> str:
    """A p-value as the cards and tables show it (``0.012``, ``< 0.001``)."""
    return _said(fmt_p(p))


def basis_text(basis: Basis | None) -> str:
    """A diacritic comparison's basis in words, ``E = 12 + 40 expected diacritics`` ('' for
    None)."""
    if basis is None:
        return ""
    return f"E = {basis.group:,.0f} + {basis.reference:,.0f} {basis.unit}"


def blocks_text(estimator: str, n_blocks: BlockCounts) -> str:
    """Block counts in words, e.g. ``12 + 14 speakers × 30 shared sentences``."""
    sg, sr, c = n_blocks.group_speakers, n_blocks.reference_speakers, n_blocks.contents
    if estimator == "two_way":
        return f"{sg} + {sr} speakers × {c} shared sentences"
    if estimator == "speaker":
        return f"{sg} + {sr} speakers"
    if estimator == "content":
        return f"{c} shared sentences"
    return f"{n_blocks.group_items} + {n_blocks.reference_items} utterances"


def verdict_sentence(
    *,
    metric: str,
    label: str,
    group: str,
    reference: str,
    value: float | None,
    reference_value: float | None,
    gap: float | None,
    ci_low: float | None,
    ci_high: float | None,
    p_adjusted: float | None,
    mde: float | None,
    threshold: float,
    estimator: str,
    conditional: bool,
    n_blocks: BlockCounts,
    verdict: str,
    direction_: str,
    design: str,
    multiplicity: int = 0,
    single_speaker: bool = False,
    basis: Basis | None = None,
    sample: str | None = None,
    shared_subset: bool = False,
) -> str:
    """The sentence of a tested comparison: the CI, p_adjusted, estimator and block counts
    (and the basis E of a diacritic metric; the sample of a metric computed on one), every
    number of ``metric`` in its unit as the cards show it (``30.4%``, a gap ``-28.6 pp``).
    ``shared_subset``: the values compared are those of the sentences both groups said
    (``shared_content_subset``), which the sentence says, since the group table's count
    every item; ``multiplicity``: the comparisons of the Holm family, where the CI excludes 0
    but the adjusted test is not significant (0: it does not)."""
    scheme = "content_conditional" if conditional else estimator
    est = ESTIMATOR_LABELS.get(scheme, str(scheme))
    if shared_subset and not sample:
        sample = f"the {n_blocks.contents} sentences both groups said"
    on_basis = f"; {basis_text(basis)}" if basis is not None else ""
    head = (
        f"{_values(metric, label, group, reference, value, reference_value, sample)} (gap "
        f"{_said(fmt_gap(metric, gap))}, 95% CI {_ci(metric, ci_low, ci_high)}, p_adjusted "
        f"{_p(p_adjusted)}; {est}, {blocks_text(estimator, n_blocks)}{on_basis})"
    )
    if verdict == "speaker_confounded":
        tail = (
            f"the gap is significant ({direction_} than the reference) but rests on too few "
            "speakers or on a single speaker, so get more speakers before concluding"
        )
    elif verdict == "disparity_detected":
        tail = f"a disparity of practical size: {group} does {direction_} than the reference"
    elif verdict == "significant_but_small":
        tail = (
            f"a significant but small difference ({direction_}), below the practical "
            f"threshold of {_said(fmt_size(metric, threshold))}"
        )
    elif verdict == "inconclusive_underpowered" and not threshold > 0:
        tail = (  # the reference at 0: the ratio criterion makes any gap practical
            "inconclusive, not fine: the reference's value is 0, so by the disparity ratio "
            "any gap above 0 is of practical size and no sample can rule every such gap "
            f"out; this sample could detect gaps of {_said(fmt_size(metric, mde))} or more"
        )
    elif verdict == "inconclusive_underpowered":
        tail = (
            "inconclusive, not fine: this sample could only detect gaps of "
            f"{_said(fmt_size(metric, mde))} or more, above the practical threshold of "
            f"{_said(fmt_size(metric, threshold))}"
        )
    elif verdict == "no_disparity_detected":
        tail = (
            "no disparity detected, and the sample could have detected a gap of "
            f"{_said(fmt_size(metric, mde))} (practical threshold "
            f"{_said(fmt_size(metric, threshold))})"
        )
    else:
        tail = "not computable (the metric is undefined on one side, e.g. a zero denominator)"
    caveat = ""
    if design == "unmatched" and verdict != "not_computable":
        caveat = (
            "; the groups said different content, so the gap may reflect harder "
            "sentences rather than the group and is not causal"
        )
    if single_speaker:
        caveat += (
            "; a side has a single speaker, so the interval describes these recordings of "
            "this speaker, not the group"
        )
    if shared_subset:
        caveat += (
            "; these values are of the sentences both groups said, so they can differ from "
            "the group table's, which count every item"
        )
    if multiplicity:
        caveat += (
            f"; the 95% CI excludes 0 on its own, but not once the {multiplicity} comparisons "
            "of this run are taken into account (Holm), so treat it as a lead to confirm"
        )
    return f"{head}: {tail}{caveat}."


def not_estimable_sentence(
    metric: str,
    label: str,
    group: str,
    reference: str,
    value: float | None,
    reference_value: float | None,
    reason: str,
    sample: str | None = None,
) -> str:
    """The sentence of a ``not_estimable`` comparison: values, no verdict, the reason (and
    the sample of a metric computed on one)."""
    head = _values(metric, label, group, reference, value, reference_value, sample)
    return f"{head}, but no verdict is possible: {reason}."


def descriptive_sentence(
    metric: str,
    label: str,
    group: str,
    reference: str,
    value: float | None,
    reference_value: float | None,
    basis: Basis,
) -> str:
    """The sentence of a ``descriptive`` comparison (a diacritic metric on fewer than 10
    expected marks on a side): the values with their basis E, no interval, no test."""
    return (
        f"{_values(metric, label, group, reference, value, reference_value)} "
        f"({basis_text(basis)}): fewer than 10 on a side, so the values are descriptive, with "
        "no interval, no test and no verdict; a mark or two decides them."
    )


def no_variation_sentence(
    metric: str, label: str, group: str, reference: str, nv: NoVariation
) -> str:
    """The sentence of a ``no_variation`` comparison: both constant, n and the 3/n bound (a
    rate of the other outcome, in percent as the metric's values are)."""
    unit = nv.unit
    return (
        f"{label} is {_said(fmt_value(metric, nv.value))} on every item of both {group} and the "
        f"reference {reference}: there is no variation to compare, which is not evidence of no "
        f"disparity. With {nv.n_group:g} and {nv.n_reference:g} {unit}, the rate of "
        f"the other outcome is below {_said(fmt_value(metric, nv.bound_group))} in {group} and "
        f"{_said(fmt_value(metric, nv.bound_reference))} in {reference} (rule of three, 95%); test more "
        "or harder material to tell the groups apart."
    )


def _spec(metric: str) -> MetricSpec | None:
    """The registry's spec of a metric id (a class metric's with any label: its label, family
    and direction do not depend on the classes); None for an id the registry lacks."""
    if metric in CLASS_METRIC_IDS:
        return class_metric(metric, ("_",))
    return METRICS.get(metric)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def tested_family(run: _Run) -> int:
    """The comparisons of the run's Holm family: those tested with a p-value (not
    ``not_estimable``, ``no_variation``, ``descriptive`` or ``not_computable``)."""
    return sum(1 for c in run.comparisons if _finite(c.p_value))


def _threshold(c: Comparison, spec: MetricSpec | None, settings: AuditSettings | None) -> float:
    """The practical threshold the verdict of ``c`` was decided with (its run's settings)."""
    settings = settings if settings is not None else AuditSettings()
    ref = c.reference_value if _finite(c.reference_value) else math.nan
    if spec is None:
        return settings.absolute_error_gap
    return practical_threshold(ref, spec, settings)


def reading(
    comparison: Comparison,
    run: AuditRun | _Run,
    specs: Iterable[MetricSpec] | None = None,
) -> str:
    """The plain-English reading of ``comparison``, one of ``run``'s, in today's words.

    Parameters
    ----------
    comparison : a comparison with the reference (``run.comparisons``).
    run : the run it belongs to (an ``AuditRun``, or the ``AuditResult`` of
        ``compare_groups``): its settings give the practical threshold, its tested
        comparisons the size of the Holm family a caveat names.
    specs : the metric specs the comparisons were made with, where they are not the
        registry's (``compare_groups`` called with specs of one's own): their labels and
        practical thresholds; None: the registry's, as every audit uses.

    Returns
    -------
    str
        One sentence with the values, the gap's CI, p_adjusted, the estimator and its blocks,
        the verdict and its caveats (docs/METHODS.md, "Verdicts"); for a comparison without
        a verdict, its values and why (``not_estimable``: the reason; ``no_variation``: n
        and the rule-of-three bound; ``descriptive``: the basis E).
    """
    c = comparison
    own = {s.id: s for s in specs or ()}
    spec = own.get(c.metric) or _spec(c.metric)
    label = spec.label if spec is not None else str(c.metric).replace("_", " ")
    if c.verdict == "no_variation" and c.no_variation is not None:
        return no_variation_sentence(c.metric, label, c.group, c.reference, c.no_variation)
    if c.verdict == "descriptive" and c.basis is not None:
        return descriptive_sentence(
            c.metric, label, c.group, c.reference, c.value, c.reference_value, c.basis
        )
    if c.verdict in ("not_estimable", "no_variation", "descriptive"):
        return not_estimable_sentence(
            c.metric,
            label,
            c.group,
            c.reference,
            c.value,
            c.reference_value,
            reason_text(c.reason) or "",
            sample_text(c.sample),
        )
    flags = set(c.flags or ())
    # a payload written by hand may lack the blocks: the items alone
    n_blocks = c.n_blocks or BlockCounts(None, None, None, c.n_items, None)
    multiplicity = (
        tested_family(run) if "significant_before_multiplicity_adjustment" in flags else 0
    )
    return verdict_sentence(
        metric=c.metric,
        label=label,
        group=c.group,
        reference=c.reference,
        value=c.value,
        reference_value=c.reference_value,
        gap=c.gap,
        ci_low=c.ci_low,
        ci_high=c.ci_high,
        p_adjusted=c.p_adjusted,
        mde=c.mde,
        threshold=_threshold(c, spec, run.settings),
        estimator=c.estimator,
        conditional=c.estimator == "content" and n_blocks.group_speakers is not None,
        n_blocks=n_blocks,
        verdict=c.verdict,
        direction_=c.direction,
        design=c.design,
        multiplicity=multiplicity,
        single_speaker="single_speaker_recordings" in flags,
        basis=c.basis,
        sample=sample_text(c.sample),
        shared_subset="shared_content_subset" in flags,
    )


#: The key before which ``--json`` writes a comparison's reading (where the result held it).
_READING_AFTER = "n_speakers"


def readings_json(payload: Mapping[str, Any], run: AuditRun | _Run) -> dict:
    """``payload`` (a run's JSON, ``AuditRun.to_json``) with each comparison's ``reading``
    written in, after ``n_speakers`` as the stored results had it, its ``reason`` and
    ``sample`` and the statistics' other notes in words, and the run's notes and warnings in
    words (:func:`fairdesk.presentation.run_notes.words_json`): what ``--json`` writes
    (docs/METHODS.md asks a reading with every verdict)."""
    out = dict(payload)
    comps = list(payload.get("comparisons") or ())
    written = []
    for entry, c in zip(comps, run.comparisons, strict=True):
        row: dict = {}
        for k, v in entry.items():
            if k == "reading":
                continue
            if k == "reason":  # the note in words, as the results stored it
                v = reason_text(c.reason)
            elif k == "sample":
                v = sample_text(c.sample)
            row[k] = v
            if k == _READING_AFTER:
                row["reading"] = reading(c, run)
        row.setdefault("reading", reading(c, run))
        written.append(row)
    if "comparisons" in payload:
        out["comparisons"] = written
    out = interval_notes_json(out)  # the statistics' notes in words
    if hasattr(run, "pitfalls"):
        from .pitfalls import pitfalls_json

        out = pitfalls_json(out, run)  # the pitfalls' notes in today's words
    plan = getattr(run, "plan", None)
    if isinstance(payload.get("plan"), Mapping) and plan is not None:
        from .plans import plan_json

        out["plan"] = plan_json(plan)  # its notes in today's words, where they were stored
    from .run_notes import words_json

    return words_json(out, run)  # the run's coded notes and warnings in words


def notes_json(payload: Mapping[str, Any]) -> dict:
    """A statistics payload (``AuditResult.to_dict`` layout: an incremental group block, say)
    with every coded note in words, read from the JSON alone: each comparison's ``reason``
    and ``sample``, then :func:`interval_notes_json`."""
    from ..stats.results import ComparisonSample

    out = dict(payload)
    if isinstance(out.get("comparisons"), list):
        rows = []
        for c in out["comparisons"]:
            if isinstance(c, Mapping):
                c = dict(c)
                if c.get("reason") is not None:
                    c["reason"] = note_json_text(c["reason"])
                if c.get("sample") is not None:
                    c["sample"] = sample_text(ComparisonSample.from_json(c["sample"]))
            rows.append(c)
        out["comparisons"] = rows
    return interval_notes_json(out)


def incremental_notes_json(payload: Mapping[str, Any]) -> dict:
    """An incremental run's JSON (``IncrementalResult.to_json``) with the notes of each
    group block in words (:func:`notes_json`): what ``fairdesk incremental --json`` writes."""
    out = dict(payload)
    if isinstance(out.get("groups"), list):
        out["groups"] = [notes_json(b) if isinstance(b, Mapping) else b for b in out["groups"]]
    return out


def _group_words(g: Any) -> Any:
    if not isinstance(g, Mapping):
        return g
    out = dict(g)
    if "reason" in out:
        out["reason"] = note_json_text(out["reason"])
    if isinstance(out.get("ci_note"), Mapping):
        out["ci_note"] = {m: note_json_text(n) for m, n in out["ci_note"].items()}
    return out


def interval_notes_json(payload: Mapping[str, Any]) -> dict:
    """``payload`` with the groups' notes in words (each group's ``reason`` for being
    excluded and its ``ci_note``, each exclusion's ``reason``, each summary's
    ``overall.note``, the run's ``minimums_message``, the bootstrap's ``rule``), where the
    result holds coded notes."""
    out = dict(payload)
    if isinstance(out.get("groups"), list):
        out["groups"] = [_group_words(g) for g in out["groups"]]
    if isinstance(out.get("excluded"), list):
        out["excluded"] = [
            {**e, "reason": note_json_text(e.get("reason"))} if isinstance(e, Mapping) else e
            for e in out["excluded"]
        ]
    rep = out.get("representation")
    if isinstance(rep, Mapping) and isinstance(rep.get("leakage"), Mapping):
        leak = rep["leakage"]  # the probe's note in words ("" when it ran as asked)
        note = leak.get("note")
        out["representation"] = {
            **rep,
            "leakage": {**leak, "note": "" if note is None else note_json_text(note)},
        }
    acc = out.get("accentedness_regression")
    if isinstance(acc, Mapping) and acc.get("reason") is not None:
        out["accentedness_regression"] = {**acc, "reason": note_json_text(acc["reason"])}
    if out.get("minimums_message") is not None:  # what the minimums excluded, in words
        out["minimums_message"] = note_json_text(out["minimums_message"])
    if isinstance(out.get("summary"), Mapping):
        summary = {}
        for m, s in out["summary"].items():
            o = s.get("overall") if isinstance(s, Mapping) else None
            if isinstance(o, Mapping) and "note" in o:
                s = {**s, "overall": {**o, "note": note_json_text(o["note"])}}
            summary[m] = s
        out["summary"] = summary
    from .bootstrap_words import bootstrap_json

    return bootstrap_json(out)  # the bootstrap's rule in words


def systems_readings_json(payload: Mapping[str, Any], result: Any) -> dict:
    """A stored comparison of systems' payload (``StoredComparison.to_json``) with the
    readings of each system's own audit on the common items written in
    (:func:`readings_json`; ``result`` is its ``SystemComparisonResult``)."""
    from .systems import systems_json

    out = dict(payload)
    body = out.get("result")
    if isinstance(body, Mapping) and result is not None:
        out["result"] = body = systems_json(body, result)  # reasons in today's words
    audits = getattr(result, "audits", None)
    if isinstance(body, Mapping) and isinstance(body.get("audits"), Mapping) and audits:
        out["result"] = {
            **body,
            "audits": {n: readings_json(a, audits[n]) for n, a in body["audits"].items()},
        }
    return out
