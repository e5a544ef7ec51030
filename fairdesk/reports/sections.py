"""Report sections beyond the bootstrap: optional stages, model-based result, regressions,
pitfalls.

Each reads the typed result (:class:`fairdesk.jobs.result.AuditRun`) by attribute; a block
the type keeps as free-form JSON is read by one function here (named in its docstring).

* :func:`confusion_section`, :func:`representation_section`, :func:`grounding_section`:
  the intent/label confusion matrices, the representation analysis and grounding lift;
* :func:`model_based_section`: the mixed-effects Poisson model per grouping column
  (``run.model_based``): each level's rate ratio with its 95% CI beside the
  bootstrap's WER gap of the same group, and the agreement sentence;
* :func:`regression_sections`: the regressions stored with the run (``fairdesk regress
  --project P --run N`` and the GUI's Regression tab): odds ratios plain vs clustered,
  adjusted odds ratios, Sekkat et al.'s χ² and ANOVA, rate ratios or OLS coefficients, the
  conclusions, and a per-speaker spread chart;
* :func:`pitfalls_section`: the hallucination block (``run.pitfalls``) with each
  group's hallucination rate and WER without flagged items;
* :func:`sensitivity_section`: ``run.normaliser_sensitivity`` when the run has it.

Every value is plain text; the template escapes it. Only the chart SVG is markup.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ..jobs.result import AuditRun
from ..jobs.result_blocks import Representation
from ..jobs.result_parts import GroupFlags, ModelBasedFit, VerdictChange, WerDominated
from ..presentation import (
    MISSING,
    comparison_basis,
    count,
    direction_word,
    finite,
    fmt_ci,
    fmt_estimate_ci,
    fmt_gap,
    fmt_interval,
    fmt_number,
    fmt_p,
    fmt_percent,
    fmt_ratio,
    fmt_value,
    metric_label,
    metric_short,
    unit,
)
from ..presentation.estimability_words import reason_text, sample_text
from ..presentation.notices import notice_text
from ..presentation.pitfalls import note_text
from ..presentation.regression_poisson_words import (
    agreement_note_text,
    agreement_text,
    model_based_conclusions,
    poisson_approximation_text,
    poisson_model_text,
    poisson_overdispersion_text,
)
from ..presentation.regression_words import regression_conclusions
from ..stats.regression.descriptive_results import Descriptive, SpeakerSpread
from ..stats.regression.linear_results import LinearResult
from ..stats.regression.poisson_mixed_result import MixedPoissonResult
from ..stats.regression.results import RegressionResult
from ..stats.representation import Leakage
from ..stats.results import Comparison
from .data import SERIES, group_ci, num, verdict_style


def _n(v) -> str:
    """A count as shown (``–`` when none)."""
    return fmt_number(v, 0)


def _num3(v) -> str:
    return fmt_number(v, 3)


def confusion_section(run: AuditRun) -> list[dict]:
    """One table per group of the intent and label confusion matrices."""
    out = []
    for block, what in ((run.intent_confusion, "Intent"), (run.confusion, "Label")):
        for g, conf in (block or {}).items():
            mat = conf.matrix or ()
            top = max((v for row in mat for v in row), default=0) or 1
            rows = [
                {
                    "true": t,
                    "cells": [{"n": _n(v), "alpha": round(0.08 + 0.8 * v / top, 2)} for v in row],
                }
                for t, row in zip(conf.true or (), mat)
            ]
            out.append({"group": g, "what": what, "predicted": conf.predicted or (), "rows": rows})
    return out


def _leakage_rows(leak: Leakage | None) -> list[tuple[str, str]]:
    """The leakage probe's rows, one per ``Leakage`` field in order (counts as counts,
    words as they are, the rest to three decimals)."""
    if leak is None:
        return []
    rows = []
    for f in dataclasses.fields(leak):
        v = getattr(leak, f.name)
        if f.name == "note":  # a coded note in words (none: empty, as before)
            shown = "" if v is None else notice_text(v)
        elif isinstance(v, str):
            shown = v
        elif isinstance(v, int) and not isinstance(v, bool):
            shown = _n(v)
        else:
            shown = _num3(v)
        rows.append((f"Leakage probe: {f.name.replace('_', ' ')}", shown))
    return rows


def representation_section(run: AuditRun) -> dict | None:
    """The representation analysis (silhouette, leakage probe, cases); None without it."""
    rep = run.representation
    if rep is None or rep == Representation():
        return None
    if rep.error:
        return {"error": rep.error}
    rows = [
        ("Silhouette (cosine, by group)", _num3(rep.silhouette)),
        ("Structure threshold", _num3(rep.threshold)),
        ("Structure", "yes" if rep.structure else "no"),
    ]
    rows += _leakage_rows(rep.leakage)
    cases = [(metric_label(m), str(c).replace("_", " ")) for m, c in (rep.cases or {}).items()]
    return {"error": None, "rows": rows, "cases": cases, "n_items": _n(rep.n_items)}


def grounding_section(run: AuditRun) -> dict | None:
    """Grounding lift per group and its comparisons; None without an explain stage."""
    ex = run.explain
    comps = [c for c in run.comparisons if c.metric == "grounding_lift"]
    if ex is None and not comps:
        return None
    explained = ex.items_explained if ex is not None else {}
    per_group = []
    for g in run.groups:
        v = (g.values or {}).get("grounding_lift")
        if v is not None:
            per_group.append(
                {
                    "group": g.group,
                    "lift": fmt_ratio(v),
                    "ci": fmt_interval("grounding_lift", group_ci(g, "grounding_lift")),
                    "n": _n(explained.get(g.group)),
                }
            )
    return {
        "method": ex.method if ex is not None else None,
        "regions": ex.regions if ex is not None else None,
        "aligner": ex.aligner if ex is not None else None,
        "per_group": per_group,
        "comparisons": [
            {
                "group": c.group,
                "lift": fmt_ratio(c.value),
                "ref": fmt_ratio(c.reference_value),
                "ratio": fmt_ratio(c.ratio),
                "gap": fmt_gap("grounding_lift", c.gap),
                "p_adj": fmt_p(c.p_adjusted),
                "verdict": verdict_style(c.verdict)[0],
                # compared on the explained items alone: the sample and why no verdict
                "sample": sample_text(c.sample) or "",
                "reason": reason_text(c.reason) or "",
            }
            for c in comps
        ],
        "gap_unit": unit("grounding_lift", gap=True),
        "failures": ex.failures if ex is not None else (),
    }


def model_based_section(run: AuditRun) -> list[dict]:
    """One entry per grouping column of ``run.model_based`` (empty when absent)."""
    comps = {c.group: c for c in run.comparisons if c.metric == "wer"}
    return [_model_based_entry(var, m, comps) for var, m in (run.model_based or {}).items()]


def _model_based_entry(var: str, m: ModelBasedFit, comps: dict) -> dict:
    """One grouping column's model (``ModelBasedFit``, its typed ``fit``), each level
    beside the bootstrap's WER comparison of the same group."""
    fit = m.fit
    if m.error or fit is None:
        return {"variable": var, "error": m.error or "not fitted"}
    agree = {a.level: agreement_text(a) or "" for a in m.agreement or ()}
    rows = []
    for g in fit.group_variables:
        for r in g.levels:
            c = comps.get(r.level)
            rows.append(
                {
                    "level": r.level,
                    "reference": g.reference,
                    "rr": fmt_ratio(r.rate_ratio),
                    "ci": fmt_estimate_ci(r.ci_low, r.ci_high),
                    "p_adj": fmt_p(r.p_adjusted, log10=r.p_adjusted_log10),
                    "gap": fmt_gap("wer", c.gap) if c else "–",
                    "gap_ci": fmt_ci("wer", c.ci_low, c.ci_high) if c else "",
                    "boot_p": fmt_p(c.p_adjusted) if c else "–",
                    "verdict": verdict_style(c.verdict)[0] if c else "–",
                    "agreement": agree.get(r.level, ""),
                }
            )
    return {
        "variable": var,
        "error": None,
        "model": poisson_model_text(fit),
        "approximation": poisson_approximation_text(fit),
        "speaker_sd": fmt_number(fit.speaker_sd, 2),
        "n": f"{count(fit.n_utterances, 'utterance')}, {count(fit.n_speakers, 'speaker')}",
        "overdispersion": poisson_overdispersion_text(fit),
        "rows": rows,
        "conclusions": model_based_conclusions(m),
        "note": agreement_note_text(m),
    }


def _rate_rows(fit: MixedPoissonResult) -> list[dict]:
    """Each level of a mixed Poisson fit against its reference: rate ratio, CI, Holm p."""
    return [
        {
            "level": r.level + " vs " + g.reference,
            "rr": fmt_ratio(r.rate_ratio),
            "ci": fmt_estimate_ci(r.ci_low, r.ci_high),
            "p_adj": fmt_p(r.p_adjusted, log10=r.p_adjusted_log10),
        }
        for g in fit.group_variables
        for r in g.levels
    ]


def _or_rows(result: RegressionResult) -> list[dict]:
    clustered = {
        u.variable: {lev.level: lev for lev in u.levels}
        for u in (result.clustered.univariate if result.clustered is not None else ())
    }
    adjusted: dict[tuple, list[str]] = {}
    for a in result.adjustments:
        for lev in a.levels:
            adjusted.setdefault((a.variable, lev.level), []).append(
                f"{fmt_ratio(lev.odds_ratio)} on {a.adjusted_on}"
            )
    rows = []
    for u in result.univariate:
        for lev in u.levels:
            cl = clustered.get(u.variable, {}).get(lev.level)
            rows.append(
                {
                    "variable": u.variable,
                    "level": f"{lev.level} vs {u.reference}",
                    "or": fmt_ratio(lev.odds_ratio),
                    "ci": fmt_estimate_ci(lev.ci_low, lev.ci_high),
                    "p": fmt_p(lev.p_value, log10=finite(lev.p_log10)),
                    "or_cl": fmt_ratio(cl.odds_ratio) if cl else "–",
                    "ci_cl": fmt_estimate_ci(cl.ci_low, cl.ci_high) if cl else MISSING,
                    "p_cl": fmt_p(cl.p_value, log10=finite(cl.p_log10)) if cl else "–",
                    "adjusted": "; ".join(adjusted.get((u.variable, lev.level), [])) or "–",
                }
            )
    return rows


def _tests(block: Descriptive) -> list[dict]:
    rows = []
    for c in block.outcome_chi2:
        if finite(c.p_value) is not None:
            rows.append(
                {
                    "test": f"χ² outcome × {c.variable} ({c.unit})",
                    "stat": f"χ² = {fmt_number(c.chi2, 2)}, df {c.df}",
                    "p": fmt_p(c.p_value, log10=finite(c.p_log10)),
                }
            )
    for a in block.anova:
        if finite(a.p_value) is not None:
            rows.append(
                {
                    "test": f"one-way ANOVA by {a.variable} ({a.per})",
                    "stat": f"F({a.df_between}, {a.df_within}) = {fmt_number(a.f, 2)}",
                    "p": fmt_p(a.p_value, log10=finite(a.p_log10)),
                }
            )
    return rows


def _spread_chart(spread: SpeakerSpread, prefix: str) -> str | None:
    """Each speaker's value within each level of one variable, as a strip chart (SVG)."""
    from .charts import _figure, plain, svg_text

    levels = spread.levels
    if not levels:
        return None
    fig, ax = _figure(6.4, 0.5 + 0.42 * len(levels))
    for i, lev in enumerate(levels):
        vals = [num(s.value) for s in lev.speakers]
        vals = [v for v in vals if not math.isnan(v)]
        jitter = [((k * 0.618) % 1 - 0.5) * 0.35 for k in range(len(vals))]
        ax.scatter(
            [100 * v for v in vals],
            [i + j for j in jitter],
            s=14,
            alpha=0.75,
            color=SERIES[i % len(SERIES)],
        )
        if not math.isnan(num(lev.median)):
            ax.plot([100 * num(lev.median)] * 2, [i - 0.3, i + 0.3], color="#222222", lw=1.5)
    ax.set_yticks(range(len(levels)), [plain(f"{lv.level} ({lv.n_speakers})") for lv in levels])
    ax.set_xlabel(plain(f"{spread.measure or 'value'} per speaker (%)"))
    ax.invert_yaxis()
    return svg_text(fig, prefix=prefix)


def regression_sections(d) -> list[dict]:
    """The regressions stored with the run, newest first."""
    from ..jobs.regression_run import stored_regressions

    try:
        stored = stored_regressions(d.project, d.run_id)
    except Exception:  # noqa: BLE001 - an old project without the results kind: no section
        return []
    out = []
    for k, s in enumerate(stored):
        req, res, family = s.request, s.result, s.family
        entry: dict[str, Any] = {
            "family": family,
            "outcome": req.outcome,
            "variables": ", ".join(req.variables) or "–",
            "covariates": ", ".join(req.covariates) or "–",
            "filters": ", ".join(req.filters) or "none",
            "cluster": req.cluster or "none",
            "conclusions": regression_conclusions(s),
            "odds": [],
            "tests": [],
            "rates": [],
            "coefficients": [],
            "charts": [],
        }
        if isinstance(res, RegressionResult):
            entry["odds"] = _or_rows(res)
            entry["tests"] = _tests(res.descriptive)
            for j, sp in enumerate(res.descriptive.speaker_spread):
                svg = _spread_chart(sp, prefix=f"r{k}s{j}")
                if svg:
                    entry["charts"].append(
                        {"title": f"Per-speaker {sp.measure} by {sp.variable}", "svg": svg}
                    )
        elif isinstance(res, LinearResult):
            entry["coefficients"] = [
                {
                    "term": c.term,
                    "estimate": fmt_number(c.estimate, 4, signed=True),
                    "ci": fmt_estimate_ci(c.ci_low, c.ci_high, 4),
                    "p": fmt_p(c.p_value, log10=finite(c.p_log10)),
                }
                for c in res.coefficients
            ]
        elif isinstance(res, MixedPoissonResult):
            entry["rates"] = _rate_rows(res)
        out.append(entry)
    return out


def pitfalls_section(run: AuditRun) -> dict | None:
    """The hallucination flags per group and the verdicts that change without them."""
    block = run.pitfalls
    if block is None:
        return None
    groups = {str(g.group): g for g in run.groups}
    return {
        "n_flagged": _n(block.n_flagged),
        "flagged_items": count(block.n_flagged, "item"),
        "checked": ", ".join(block.flags_checked),
        "not_checked": note_text(block.not_checked) or "",
        "rows": [_pitfall_row(g, c, groups.get(g)) for g, c in block.by_group.items()],
        "changed": _changed_verdicts(block.verdicts_without_flagged),
        "dominated": _dominated(block.wer_dominated),
    }


def _pitfall_row(group: str, c: GroupFlags, info) -> dict:
    """One group's flags beside its WER with and without the flagged items (``info``: its
    ``GroupInfo``)."""
    vals = (info.values if info is not None else None) or {}
    return {
        "group": group,
        "n": _n(c.n_items),
        "flagged": _n(c.hallucinated),
        "rate": fmt_value("wer", vals.get("hallucination_rate", c.rate)),
        "loop": _n(c.loop),
        "runaway": _n(c.runaway),
        "nonspeech": _n(c.over_nonspeech),
        "unstable": _n(c.unstable),
        "wer": fmt_value("wer", vals.get("wer")),
        "wer_unflagged": fmt_value("wer", vals.get("wer_unflagged")),
        "items": ", ".join(map(str, c.items[:8])),
    }


def _changed_verdicts(rows: tuple[VerdictChange, ...]) -> list[str]:
    """``metric group: verdict → verdict without the flagged items`` (with the reason when
    there is none without them); a row without a metric is left out."""
    return [
        f"{c.metric} {c.group}: "
        f"{verdict_style(c.verdict)[0]} → "
        f"{verdict_style(c.verdict_without_flagged)[0]}"
        + (f" ({note_text(c.reason)})" if c.reason else "")
        for c in rows
        if c.metric
    ]


def _dominated(rows: tuple[WerDominated, ...]) -> list[str]:
    """The groups whose WER one item dominates."""
    return [
        f"{w.group}: item {w.item} carries "
        f"{fmt_percent(w.share, 0)} of the group's {_n(w.group_errors)} "
        f"word errors (WER {fmt_value('wer', w.wer)}, without it "
        f"{fmt_value('wer', w.wer_without_item)})"
        for w in rows
    ]


def sensitivity_section(run: AuditRun) -> dict | None:
    """The verdicts under each normaliser, when the run was re-scored (the one reader of
    typed ``run.normaliser_sensitivity``)."""
    s = run.normaliser_sensitivity
    if s is None or not s.rows:
        return None
    names = list(s.normalisers)
    rows = [
        {
            "metric": r.metric,
            "group": r.group,
            "verdicts": [verdict_style(r.verdict.get(n))[0] for n in names],
            "holds": "yes" if r.holds else "no",
        }
        for r in s.rows
    ]
    return {
        "normalisers": names,
        "run": s.run_normaliser,
        "rows": rows,
        "n_flipped": _n(s.n_flipped),
        "n": _n(s.n_comparisons),
    }


def agreement_section(d) -> dict | None:
    """The annotators' agreement on the run's dataset when it has two annotators' versions
    (docs/METHODS.md, "References from several annotators"): overall and per group of the
    run's grouping column, each statistic with its 95% interval and basis, then the items
    where they disagree most. The numbers are ``fairdesk agreement``'s
    (:func:`fairdesk.jobs.agreement.run_agreement`), the words
    :mod:`fairdesk.presentation.agreement`'s, as the console prints them. ``result`` keeps
    the typed result for the lines beside the diacritic comparisons. None: no agreement."""
    from ..jobs.agreement import run_agreement
    from ..presentation.agreement import (
        STATISTICS,
        agreement_blocks,
        agreement_head,
        agreement_method,
        disagreement_lines,
    )

    result = run_agreement(d.project, d.audit)
    if result is None:
        return None
    return {
        "result": result,
        "head": agreement_head(result, d.audit.dataset),
        "method": agreement_method(result),
        "headings": [heading for _field, heading, _share in STATISTICS],
        "rows": [
            {"name": name, "basis": basis, "stats": [text for _h, text in stats]}
            for name, basis, stats in agreement_blocks(result)
        ],
        "disagreements": disagreement_lines(result),
    }


def card(c: Comparison, run: AuditRun, agreement=None, resampled: bool = False) -> dict:
    """A verdict card of the report (``c`` one of ``run``'s comparisons, read by
    :func:`fairdesk.presentation.readings.reading`); beside a diacritic comparison, the
    annotators' agreement (``agreement``: an :class:`~fairdesk.stats.agreement.AgreementResult`,
    or None)."""
    from ..presentation.agreement import comparison_agreement, is_diacritic
    from ..presentation.readings import reading

    label, bg, fg = verdict_style(c.verdict)
    m = c.metric or ""
    arrow = direction_word(c.verdict, c.direction, c.gap)  # "worse" only for found gaps
    return {
        "metric": metric_short(m),
        "group": c.group,
        "label": label,
        "bg": bg,
        "fg": fg,
        "gap": fmt_gap(m, c.gap),
        "ci": fmt_ci(m, c.ci_low, c.ci_high),
        "values": f"{fmt_value(m, c.value)} vs {fmt_value(m, c.reference_value)}"
        + (f" ({comparison_basis(c)})" if c.basis is not None else "")
        + (f", on {sample_text(c.sample)}" if c.sample else ""),
        "p_adj": fmt_p(c.p_adjusted),
        "arrow": arrow,
        "reading": reading(c, run) or reason_text(c.reason) or label,
        "agreement": comparison_agreement(agreement, c.group, resampled)
        if agreement is not None and is_diacritic(m)
        else "",
    }


def definitions(run: AuditRun) -> list[dict]:
    """The definitions of the metrics the run used (resources/reports/definitions.md)."""
    from ..core.demo import resources_dir

    path = resources_dir() / "reports" / "definitions.md"
    sections: list[dict] = []
    cur: dict[str, Any] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            key, _, title = line[3:].partition("|")
            cur = {"id": key.strip(), "title": title.strip(), "text": []}
            sections.append(cur)
        elif cur is not None and line.strip():
            cur["text"].append(line.strip())
    used = set(run.tested_metrics) | set(run.descriptive_metrics)
    if representation_section(run) is not None:
        used.add("representation")
    if run.explain is not None:
        used.add("grounding_lift")
    if "ter" in used or "der" in used:
        used |= {"der", "ter"}
    keep = [s for s in sections if "(always)" in s["title"] or s["id"] in used]
    for s in keep:
        s["title"] = s["title"].replace(" (always)", "")
        s["text"] = " ".join(s["text"])
    return keep
