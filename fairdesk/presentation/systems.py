"""How a comparison of systems reads (docs/METHODS.md, "Comparing systems"): the system × group
table, one sentence per system difference and per gap difference, and the classical cross-
checks. Every view (console, GUI, report, export) formats a
:class:`~fairdesk.stats.system_results.SystemComparisonResult` through these functions.
Pure: no Qt, no I/O."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..metrics.registry import METRICS
from ..stats.system_results import (
    REASON_FEW_MARKS,
    REASON_GAP_FEW_MARKS,
    REASON_GAP_NO_SPREAD,
    REASON_NO_SPREAD,
    REASON_RESAMPLING,
)
from .bootstrap_words import bootstrap_json
from .labels import metric_short, short_group
from .notices import notice_text
from .numbers import (
    MISSING,
    count,
    finite,
    fmt_ci,
    fmt_count,
    fmt_gap,
    fmt_p,
    fmt_sig,
    fmt_value_ci,
    scale,
)
from .rows import GroupRow, group_rows

__all__ = [
    "CLASSICAL_ASSUMPTION",
    "GAP_WORDS",
    "TEXTS",
    "MISSING",
    "SIGNIFICANT_GAP",
    "SYSTEM_WORDS",
    "classical_line",
    "comparison_head",
    "comparison_lines",
    "comparison_metrics",
    "difference_sentence",
    "disagreement_lines",
    "gap_rows",
    "gap_sentence",
    "incremental_systems_json",
    "reason_text",
    "systems_json",
    "system_rows",
    "system_table",
]

#: What the classical cross-checks assume, shown with their numbers in every view.
CLASSICAL_ASSUMPTION = "assumes independent utterances"


def _label(metric: str | None) -> str:
    spec = METRICS.get(str(metric))
    return spec.label if spec is not None else str(metric)


def _where(group: str | None) -> str:
    return "the corpus" if group is None else str(group)


#: The words of a difference's coded reason (:mod:`fairdesk.presentation.notices`, area
#: ``systems``).
TEXTS: dict[str, Callable[..., str]] = {
    REASON_FEW_MARKS: lambda group, expected, min_basis, metric: (
        _where(group)
        + " has E = "
        + fmt_sig(expected, 6)
        + " expected marks (fewer than "
        + str(min_basis)
        + "), so the "
        + _label(metric)
        + " difference is descriptive: shown, with no interval and no test"
    ),
    REASON_GAP_FEW_MARKS: lambda group, expected_group, expected_reference, min_basis, metric: (
        str(group)
        + " has E = "
        + fmt_sig(expected_group, 6)
        + " and the reference E = "
        + fmt_sig(expected_reference, 6)
        + " expected marks (a side with fewer than "
        + str(min_basis)
        + "), so the "
        + _label(metric)
        + " gap difference is descriptive: shown, with no interval and no test"
    ),
    REASON_NO_SPREAD: lambda group: (
        "the resampled differences do not vary in "
        + _where(group)
        + " (the two systems score alike on every unit drawn), so the data cannot show how "
        "uncertain the difference is"
    ),
    REASON_GAP_NO_SPREAD: lambda: (
        "the resampled gap differences do not vary (the two systems' gaps move together on "
        "every draw), so the data cannot show how uncertain it is"
    ),
    REASON_RESAMPLING: lambda text: str(text),
}


def reason_text(d) -> str | None:
    """A system or gap difference's reason in words (None without one)."""
    return None if d.reason is None else notice_text(d.reason)


def systems_json(payload: Mapping[str, Any], result) -> dict:
    """A comparison's stored JSON (``encode_comparison``) as ``--json`` writes it: each
    difference's ``reason`` in today's words and each cross-check's ``assumption``, where
    earlier versions stored them."""
    out = dict(payload)
    for key, rows in (
        ("differences", result.differences),
        ("gap_differences", result.gap_differences),
    ):
        if isinstance(payload.get(key), list):
            out[key] = [
                {**entry, "reason": reason_text(d)}
                for entry, d in zip(payload[key], rows, strict=True)
            ]
    if isinstance(payload.get("classical"), list):
        out["classical"] = [{**c, "assumption": CLASSICAL_ASSUMPTION} for c in payload["classical"]]
    if isinstance(out.get("audits"), Mapping):  # each system's audit: its rule in words
        out["audits"] = {
            n: bootstrap_json(a) if isinstance(a, Mapping) else a for n, a in out["audits"].items()
        }
    return bootstrap_json(out)  # the bootstrap's rule in words


def incremental_systems_json(payload: Mapping[str, Any], blocks) -> dict:
    """An incremental run's JSON (``IncrementalResult.to_json``) as ``--json`` writes it:
    each ``systems`` block's comparison with its reasons and assumption in words
    (:func:`systems_json`; ``blocks`` the typed blocks, in the same order)."""
    out = dict(payload)
    if not blocks or not isinstance(payload.get("systems"), list):
        return out
    rows = []
    for entry, b in zip(payload["systems"], blocks, strict=True):
        cmp = entry.get("comparison") if isinstance(entry, Mapping) else None
        if isinstance(cmp, Mapping) and b.comparison is not None:
            entry = {**entry, "comparison": systems_json(cmp, b.comparison)}
        rows.append(entry)
    out["systems"] = rows
    return out


#: A system difference's verdict in words.
SYSTEM_WORDS = {
    "better": "better",
    "worse": "worse",
    "difference_small": "significant but small",
    "inconclusive_underpowered": "inconclusive (underpowered)",
    "no_difference_detected": "no difference detected",
    "descriptive": "descriptive (too few marks to test)",
    "not_estimable": "not estimable",
    "no_variation": "no variation",
    "not_computable": "not computable",
}
#: A gap difference's verdict in words.
GAP_WORDS = {
    "fairer": "fairer",
    "less_fair": "less fair",
    "reversed": "reversed (the gap changed sign)",
    "difference_small": "significant but small",
    "inconclusive_underpowered": "inconclusive (underpowered)",
    "no_difference_detected": "no difference detected",
    "descriptive": "descriptive (too few marks to test)",
    "not_estimable": "not estimable",
    "no_variation": "no variation",
    "not_computable": "not computable",
}
_TESTED = {
    "better",
    "worse",
    "difference_small",
    "inconclusive_underpowered",
    "no_difference_detected",
    "fairer",
    "less_fair",
    "reversed",
}


def _tail(d) -> str:
    """``[lo, hi], p_adj 0.01`` of a tested system difference, or its reason."""
    if d.verdict not in _TESTED:
        why = reason_text(d)
        return f"({why})" if why else ""
    ci = fmt_ci(d.metric, d.ci_low, d.ci_high, gap=True, with_unit=False)
    return f"{ci}, p_adj {fmt_p(d.p_adjusted)}"


def difference_sentence(d) -> str:
    """``pocketsphinx-en-us vs whisper-tiny.en, WER among child: +33.3 pp [27.0, 39.1],
    p_adj < 0.001: worse``."""
    where = "corpus-wide" if d.group is None else f"among {short_group(d.group)}"
    head = f"{d.system} vs {d.baseline}, {metric_short(d.metric)} {where}"
    tail = _tail(d)
    word = SYSTEM_WORDS.get(d.verdict, d.verdict)
    return f"{head}: {fmt_gap(d.metric, d.difference)} {tail}: {word}".replace("  ", " ")


def _gap_points(metric: str, x) -> str:
    """The size of a gap change: ``6.1 pp`` (rates), ``0.12`` (ratios)."""
    return fmt_gap(metric, abs(x) if finite(x) is not None else x).lstrip("+")


#: A gap's own verdicts (the per-system audits') that make it significant: only such a gap
#: is read as a disadvantage (docs/METHODS.md, "Gap difference").
SIGNIFICANT_GAP = ("disparity_detected", "significant_but_small")


def _own_gap(metric: str, system: str, gap, ci, verdict, baseline: bool) -> str:
    """``A's gap of -11.5 pp [-32.0, +7.3] was inconclusive_underpowered`` (the baseline) or
    ``B's is +14.7 pp [+2.0, +27.0], disparity_detected`` (the system)."""
    bounds = ""
    if ci is not None and len(ci) == 2:
        shown = fmt_ci(metric, ci[0], ci[1], gap=True, with_unit=False)
        bounds = "" if shown == MISSING else f" {shown}"
    if baseline:
        said = f" was {verdict}" if verdict else ""
        return f"{system}'s gap of {fmt_gap(metric, gap)}{bounds}{said}"
    said = f", {verdict}" if verdict else ""
    return f"{system}'s is {fmt_gap(metric, gap)}{bounds}{said}"


def _disadvantage(g, a: float, b: float, d: float) -> str:
    """What happened to the baseline's disadvantage, said only where its gap is itself
    significant (and a move to the other side only where the system's gap is too); '' else."""
    if g.verdict not in _TESTED or g.baseline_gap_verdict not in SIGNIFICANT_GAP or a == 0:
        return ""
    if b != 0 and (a < 0) != (b < 0):
        if g.gap_verdict in SIGNIFICANT_GAP:
            return "the disadvantage moved to the other side"
        return ""
    sign = 1.0 if a >= 0 else -1.0
    change = sign * d  # > 0: the gap grew
    if change == 0:
        return "the disadvantage is unchanged"
    k = 1.0 if change > 0 else -1.0
    ci = ""
    lo, hi = finite(g.ci_low), finite(g.ci_high)
    if lo is not None and hi is not None:
        ends = sorted((k * sign * lo, k * sign * hi))
        ci = " " + fmt_ci(g.metric, ends[0], ends[1], gap=False, with_unit=False)
    verb = "widened" if change > 0 else "narrowed"
    return f"the disadvantage {verb} by {_gap_points(g.metric, change)}{ci}"


def gap_sentence(g) -> str:
    """One gap difference in words (docs/METHODS.md, "Gap difference"): both gaps with their
    own CIs and verdicts, ΔGap with its CI, p_adj and verdict, and what happened to the
    disadvantage only where the baseline's gap is itself significant:

    ``B vs A, child-vs-adult WER gap: A's gap of +10.0 pp [+4.0, +16.0] was
    disparity_detected; B's is +3.9 pp [-1.0, +8.8], inconclusive_underpowered; ΔGap -6.1 pp
    [-10.3, -2.0], p_adj 0.010: fairer; the disadvantage narrowed by 6.1 pp [2.0, 10.3]``.

    Where the baseline's gap was not significant the sentence says what changed in numbers
    only (``A's gap of -11.5 pp [-32.0, +7.3] was inconclusive_underpowered; B's is +14.7 pp
    [+2.0, +27.0], disparity_detected``). Each gap's CI and verdict come from its system's
    own audit (``GapDifference.gap_ci``, ``gap_verdict``, ...); without them the gaps are
    given as numbers."""
    pair = f"{short_group(g.group)}-vs-{short_group(g.reference)} {metric_short(g.metric)} gap"
    a, b, d = finite(g.baseline_gap), finite(g.gap), finite(g.difference)
    tested = g.verdict in _TESTED
    lo, hi = finite(g.ci_low), finite(g.ci_high)
    why = reason_text(g)
    tail = f", p_adj {fmt_p(g.p_adjusted)}" if tested else (f" ({why})" if why else "")
    word = GAP_WORDS.get(g.verdict, g.verdict)
    head = f"{g.system} vs {g.baseline}, {pair}"
    if a is None or b is None or d is None:
        return f"{head} unmeasured{tail}: {word}"
    both = (
        _own_gap(g.metric, g.baseline, a, g.baseline_gap_ci, g.baseline_gap_verdict, True)
        + "; "
        + _own_gap(g.metric, g.system, b, g.gap_ci, g.gap_verdict, False)
    )
    ci = ""
    if tested and lo is not None and hi is not None:
        ci = " " + fmt_ci(g.metric, lo, hi, gap=True, with_unit=False)
    out = f"{head}: {both}; ΔGap {fmt_gap(g.metric, d)}{ci}{tail}: {word}"
    said = _disadvantage(g, a, b, d)
    return f"{out}; {said}" if said else out


def classical_line(c) -> str:
    """The sign and Wilcoxon tests of one system against the baseline, labelled."""
    return (
        f"{c.system} vs {c.baseline}, {metric_short(c.metric)} per utterance "
        f"({count(c.n_items, 'utterance')}: {c.n_positive} better for {c.system}, "
        f"{c.n_negative} worse, {c.n_ties} tied): sign test p {fmt_p(c.sign_p)}, "
        f"Wilcoxon signed-rank p {fmt_p(c.wilcoxon_p)} ({CLASSICAL_ASSUMPTION})"
    )


def system_table(result, metric: str) -> tuple[list[str], list[list[str]]]:
    """The system × group table of one metric: header and rows (``group``, each system's
    value [CI] on the common items, then each B − A difference [CI] and its verdict).

    The values are each system's own audit on the common items (``result.audits``); a
    system without one shows :data:`~fairdesk.presentation.numbers.MISSING`.
    """
    systems = list(result.systems)
    head = ["group", *systems]
    others = systems[1:]
    head += [f"{s} − {result.baseline}" for s in others]
    rows = []
    for g in [*result.groups, None]:
        label = "corpus" if g is None else short_group(g)
        if g is not None and g == result.reference:
            label += " (reference)"
        row = [label]
        for s in systems:
            row.append(_value_cell(result, s, metric, g))
        for s in others:
            try:
                d = result.difference(s, metric, g)
            except KeyError:
                row.append(MISSING)
                continue
            ci = fmt_ci(metric, d.ci_low, d.ci_high, gap=True, with_unit=False)
            cell = fmt_gap(metric, d.difference)
            if ci != MISSING:
                cell += f" {ci}"
            row.append(f"{cell} {SYSTEM_WORDS.get(d.verdict, d.verdict)}")
        rows.append(row)
    return head, rows


def _value_cell(result, system: str, metric: str, group) -> str:
    audit = (result.audits or {}).get(system)
    if audit is None:
        return MISSING
    if group is None:
        s = audit.summary.get(metric) if audit.summary else None
        # a MetricSummary in a fresh result, its dict in a stored one (AuditResult.summary
        # is declared ``dict``, so the codec reads it back as plain data)
        overall = s.get("overall") if isinstance(s, dict) else getattr(s, "overall", None)
        if not overall:
            return MISSING
        return fmt_value_ci(metric, overall.get("value"), overall.get("ci"))
    for gi in audit.groups:
        if gi.group == group:
            return fmt_value_ci(metric, gi.values.get(metric), gi.ci.get(metric))
    return MISSING


def comparison_metrics(result) -> list[str]:
    """The metrics of a comparison, in the order the baseline tested them."""
    return list(dict.fromkeys(d.metric for d in result.differences))


def comparison_head(result) -> list[str]:
    """The comparison's opening lines: the common items per system, the baseline and the
    reference, the bootstrap and Holm family, and each system's failed items."""
    c = result.common
    per = ", ".join(f"{s}: {fmt_count(c.per_system.get(s, 0))}" for s in result.systems)
    out = [
        f"Systems compared on {count(c.n_items, 'common item')} ({per}); baseline "
        f"{result.baseline}; gaps against {short_group(result.reference)}."
    ]
    b = result.bootstrap
    if b is not None:
        raised = f", raised from {fmt_count(b.requested)}" if b.raised else ""
        out.append(
            f"Paired bootstrap, B = {fmt_count(b.used or 0)}{raised}; Holm over the "
            f"{count(b.comparisons or 0, 'system-difference and gap-difference test')}."
        )
    for s, ids in sorted(c.failed.items()):
        if ids:
            out.append(
                f"  {s} failed on {count(len(ids), 'item')}, left out of the common set: "
                + ", ".join(map(str, list(ids)[:5]))
                + (" …" if len(ids) > 5 else "")
            )
    return out


def system_rows(result, metric: str) -> dict[str, list[GroupRow]]:
    """Each system's analysed groups' values of ``metric`` with their own 95% CIs, in
    display units (the rows the GUI's and the report's side-by-side charts draw; the same
    numbers as :func:`system_table`). A system without an audit has no rows."""
    out = {}
    wanted = set(result.groups)
    for s in result.systems:
        audit = (result.audits or {}).get(s)
        if audit is None:
            continue
        groups = [g for g in audit.groups if g.group in wanted]
        out[s] = group_rows(groups, metric, result.reference)
    return out


@dataclass(frozen=True)
class GapRow:
    """One gap difference in display units (pp for rates): ``difference`` [``low``,
    ``high``] = gap(system) − gap(baseline); None where not measured. ``label``:
    ``child vs adult · B`` and ``text`` the sentence of :func:`gap_sentence`."""

    metric: str
    system: str
    group: str
    label: str
    difference: float | None
    low: float | None
    high: float | None
    verdict: str
    text: str


def gap_rows(result, metric: str | None = None) -> list[GapRow]:
    """The gap differences (of ``metric``, or all) as :class:`GapRow` (the report's
    gap-difference chart)."""
    several = len(result.systems) > 2
    out = []
    for g in result.gap_differences:
        if metric is not None and g.metric != metric:
            continue
        k = scale(g.metric)

        def shown(x, k=k):
            x = finite(x)
            return None if x is None else x * k

        label = f"{short_group(g.group)} vs {short_group(g.reference)}"
        if metric is None:
            label = f"{metric_short(g.metric)} {label}"
        if several:
            label += f" · {g.system}"
        out.append(
            GapRow(
                g.metric,
                g.system,
                g.group,
                label,
                shown(g.difference),
                shown(g.ci_low),
                shown(g.ci_high),
                g.verdict,
                gap_sentence(g),
            )
        )
    return out


def comparison_lines(result) -> list[str]:
    """The comparison as console lines: the common items, per metric the system × group
    table, the gap-difference sentences, then the classical cross-checks."""
    out = comparison_head(result)
    for m in comparison_metrics(result):
        head, rows = system_table(result, m)
        out.append("")
        out.append(f"{metric_short(m)} by group (value [95% CI]; differences in pp):")
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        for r in [head, *rows]:
            out.append("  " + "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
    gaps = [g for g in result.gap_differences]
    if gaps:
        out.append("")
        out.append(
            "Gap differences (how each system changes the baseline's gap against the "
            "reference; 95% CI of the change):"
        )
        out += [f"  {gap_sentence(g)}" for g in gaps]
    if result.classical:
        out.append("")
        out.append("Classical cross-checks, corpus-wide:")
        out += [f"  {classical_line(t)}" for t in result.classical]
    return out


def disagreement_lines(by_group: dict) -> list[str]:
    """The utterances where the systems disagree most, per group
    (:func:`fairdesk.review.ranking.disagreements`), as console lines."""
    out = []
    for g, rows in by_group.items():
        out.append(f"  where the systems disagree most among {short_group(g)}:")
        for r in rows:
            mark = "one right, one wrong" if r["one_right"] else "both wrong"
            errs = ", ".join(f"{n} {e}" for n, e in r["errors"].items())
            out.append(
                f"    {r['item_id']} (speaker {r['speaker_id']}): {mark}; word errors {errs} "
                f"of {count(r['n_words'], 'word')}"
            )
            out.append(f"      REF: {r['reference']}")
            for n, h in r["hypotheses"].items():
                out.append(f"      {n}: {h}")
    if not by_group:
        out.append("  the systems make the same number of word errors on every common item")
    return out
