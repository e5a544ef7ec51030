"""Plain-text tables of an audit result (pure: returns text, prints nothing).

``format_groups`` is the console view of ``fairdesk audit``: each group's value of the main
metrics with its own 95% CI, the corpus-wide value with its CI, then the comparisons of the
first metric with their verdicts, and the reasons of ``not_estimable`` / ``no_variation``
comparisons and of the minimums. A diacritic metric's values carry their basis E (expected
marks); its ``descriptive`` comparisons (E < 10 on a side) show the values, no test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..jobs.result_parts import Normaliser
from ..presentation import (
    MISSING_MARK,
    clamped_notes,
    comparison_basis,
    corpus_label,
    corpus_note,
    count,
    fmt_ci,
    fmt_count,
    fmt_gap,
    fmt_p,
    fmt_percent,
    fmt_sig,
    fmt_value,
    fmt_value_ci,
    group_basis,
    missing_row_note,
    plural,
    unit,
    with_basis,
)
from ..presentation.estimability_words import reason_text
from ..presentation.notices import notice_text
from ..presentation.plans import reading_plan
from ..presentation.readings import reading
from ..presentation.warnings import run_warnings, speakers_line
from . import blocks

if TYPE_CHECKING:
    from ..jobs.result import AuditRun

#: Metrics shown in the group table, in this order, when the result has them.
SHOWN = ("wer", "cer", "em", "accuracy", "balanced_accuracy", "der", "ter", "hallucination_rate")
#: Short column heads where the metric id is long.
HEADS = {"balanced_accuracy": "BAL.ACC", "hallucination_rate": "HALLUC"}


def value_with_ci(value, ci, metric: str = "") -> str:
    """``12.3 [10.1, 14.6]`` (in the metric's unit, named by the column head), ``12.3 [–]``
    without a CI, ``–`` without a value (:func:`fairdesk.presentation.fmt_value_ci`)."""
    return fmt_value_ci(metric, value, ci, with_unit=False)


def format_groups(run: AuditRun, metrics=None, readings: bool = True) -> str:
    """The console table of an audit result.

    Parameters
    ----------
    run : the audit.
    metrics : metric ids to show (default: those of ``SHOWN`` the result has).
    readings : print each comparison's plain-English reading under it.

    Returns
    -------
    str
        Lines: a header, one row per group (items, speakers, each metric as ``value [CI]``
        in percent), a ``(corpus)`` row with the corpus-wide values, then the first
        metric's comparisons (gap, CI, p_adjusted, verdict; the reason for
        ``not_estimable``, n and the 3/n bound for ``no_variation``), the minimums message
        and the warnings.
    """
    verbose_off = not readings
    groups = run.groups
    if metrics is None:
        metrics = [m for m in SHOWN if any((g.values or {}).get(m) is not None for g in groups)]
    ref = run.reference
    out = []
    # a diacritic metric's cells carry its basis E, so they are wider
    # (docs/METHODS.md, "When the diacritic metrics apply")
    based = {m for m in metrics if any(group_basis(g, m) is not None for g in groups)}
    width = {m: 30 if m in based else 22 for m in metrics}
    out.append(
        f"{'group':<30}{'items':>7}{'spk':>5}"
        + "".join(
            f"{(HEADS.get(m, m.upper()) + f' {unit(m)} [95% CI]'):>{width[m]}}" for m in metrics
        )
    )
    for g in groups:
        mark = " (reference)" if g.group == ref else (" (excluded)" if g.excluded else "")
        if g.missing:  # the items with no grouping value: described, not a group
            mark = f" {MISSING_MARK}"
        name = str(g.group)[: 29 - len(mark)] + mark
        vals = g.values or {}
        cis = blocks.group_cis(g)
        out.append(
            f"{name:<30}{g.n_items:>7}{(g.n_speakers or 0):>5}"
            + "".join(
                f"{with_basis(value_with_ci(vals.get(m), cis.get(m), m), group_basis(g, m)):>{width[m]}}"
                for m in metrics
            )
        )
    overall = [blocks.overall(run.summary.get(m)) for m in metrics]
    n_missing = max((int(o.get("n_missing") or 0) for o in overall), default=0)
    if any(overall):
        n = sum(g.n_items for g in groups if not g.excluded)
        cells = "".join(
            f"{with_basis(value_with_ci(o.get('value'), o.get('ci'), m), o.get('basis')):>{width[m]}}"
            for m, o in zip(metrics, overall)
        )
        out.append(f"{corpus_label(n_missing):<30}{n:>7}{'':>5}{cells}")
    for g in groups:
        if g.missing:
            out.append(missing_row_note(g.group, g.n_items))
    if n_missing and any(overall):
        out.append(corpus_note(n_missing))
    out.extend(clamped_notes(groups, run.summary, metrics))
    spk = speakers_line(run.speakers)  # the run header names the speaker column used
    if spk:
        out.append(spk)
    # the comparisons of the first shown metric that has any (a --metric der run tests DER
    # alone: its comparisons, not WER's, which has none)
    first = next((m for m in metrics if any(c.metric == m for c in run.comparisons)), None)
    comps = [c for c in run.comparisons if c.metric == first]
    if first is not None and comps:
        out.append("")
        schemes = sorted({str(c.estimator) for c in comps if c.estimator})
        design = run.design
        if design or schemes:
            out.append(
                f"design: {design or 'unknown'}; resampling: "
                f"{', '.join(schemes) or 'none'}"
                + (
                    " (groups said different content: gaps are not causal)"
                    if design == "unmatched"
                    else ""
                )
            )
        out.append(f"{first.upper()} against {ref}:")
        for c in comps:
            head = f"  {str(c.group)[:30]:<30} "
            if c.verdict == "descriptive":
                m = c.metric
                out.append(
                    f"{head}descriptive: {fmt_value(m, c.value)} vs "
                    f"{fmt_value(m, c.reference_value)} on "
                    f"{comparison_basis(c)}, fewer than 10: no interval, no test"
                )
            elif c.verdict == "not_estimable":
                out.append(f"{head}not_estimable: {reason_text(c.reason) or ''}")
            elif c.verdict == "no_variation":
                nv = c.no_variation
                if nv is None:
                    value = n_g = n_ref = b_g = b_r = None
                    noun = ""
                else:
                    value, n_g, n_ref, noun = nv.value, nv.n_group, nv.n_reference, nv.unit
                    b_g, b_r = nv.bound_group, nv.bound_reference
                if noun and n_ref is not None:
                    noun = plural(n_ref, noun.rstrip("s"), noun) if noun.endswith("s") else noun
                out.append(
                    f"{head}no_variation: {fmt_sig(value)} everywhere on "
                    f"{fmt_count(n_g)} + {fmt_count(n_ref)} "
                    f"{noun}; other outcome < "
                    f"{fmt_percent(b_g)} / {fmt_percent(b_r)} (rule of three)"
                )
            else:
                m = c.metric
                on = f"  ({comparison_basis(c)})" if c.basis is not None else ""
                out.append(
                    f"{head}gap {fmt_gap(m, c.gap):>9} "
                    f"{fmt_ci(m, c.ci_low, c.ci_high)} "
                    f"p_adj {fmt_p(c.p_adjusted):>6}  {c.verdict}{on}"
                )
            if not verbose_off:
                # an underpowered comparison's reading ends with its recording plan
                plan = reading_plan(run.plan, c.metric, c.group)
                out.append(f"    {reading(c, run)}" + (f" {plan}" if plan else ""))
    boot = blocks.bootstrap(run)
    if boot is not None and boot.raised:
        out.append(
            f"B raised from {fmt_count(boot.requested)} to {count(boot.used, 'resample')} "
            f"for {count(boot.comparisons, 'comparison')} (B ≥ 5·m/alpha)"
        )
    if run.minimums_message:
        out.append("")
        out.append(notice_text(run.minimums_message))
    for w in run_warnings(run):
        out.append(f"warning: {w}")
    for p in () if run.table_rows is not None else run.input_problems or ():
        where = f"line {p.line}" if p.line is not None else f"item {p.item}"
        out.append(f"problem: {where}: {p.reason}")  # a table's: with its rows (stderr)
    norm = run.normaliser
    if norm is not None and norm != Normaliser():
        why = notice_text(norm.reason) if norm.reason is not None else None
        out.append(f"normaliser: {norm.name} ({why})")
    return "\n".join(out)
