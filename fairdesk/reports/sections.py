"""Report sections beyond the bootstrap: model-based result, stored regressions, pitfalls.

* :func:`model_based_section`: the mixed-effects Poisson model per grouping column
  (``payload["model_based"]``): each level's rate ratio with its 95% CI beside the
  bootstrap's WER gap of the same group, and the agreement sentence;
* :func:`regression_sections`: the regressions stored with the run (``fairdesk regress
  --project P --run N`` and the GUI's Regression tab): odds ratios plain vs clustered,
  adjusted odds ratios, seed 000's χ² and ANOVA, rate ratios or OLS coefficients, the
  conclusions, and a per-speaker spread chart;
* :func:`pitfalls_section`: the hallucination block (``payload["pitfalls"]``) with each
  group's hallucination rate and WER without flagged items;
* :func:`sensitivity_section`: ``normaliser_sensitivity`` when the run has it.

Every value is plain text; the template escapes it. Only the chart SVG is markup.
"""

from __future__ import annotations

import math

from ..presentation import (
    count,
    fmt_ci,
    fmt_gap,
    fmt_number,
    fmt_p,
    fmt_percent,
    fmt_ratio,
    fmt_value,
)
from .data import SERIES, num, verdict_style


def _ci(lo, hi, digits: int = 2) -> str:
    a, b = num(lo), num(hi)
    return "" if math.isnan(a) or math.isnan(b) else f"[{a:.{digits}f}, {b:.{digits}f}]"


def model_based_section(d) -> list[dict]:
    """One entry per grouping column of ``payload["model_based"]`` (empty when absent)."""
    p = d.payload
    block = p.get("model_based") or {}
    comps = {c.get("group"): c for c in p.get("comparisons") or [] if c.get("metric") == "wer"}
    out = []
    for var, m in block.items():
        if m.get("error"):
            out.append({"variable": var, "error": m["error"]})
            continue
        agree = {a["level"]: a for a in m.get("agreement") or []}
        rows = []
        for g in m.get("group_variables") or []:
            for r in g.get("levels") or []:
                c = comps.get(r["level"]) or {}
                rows.append(
                    {
                        "level": r["level"],
                        "reference": g.get("reference"),
                        "rr": fmt_ratio(r.get("rate_ratio")),
                        "ci": _ci(r.get("ci_low"), r.get("ci_high")),
                        "p_adj": fmt_p(r.get("p_adjusted")),
                        "gap": fmt_gap("wer", c.get("gap")) if c else "–",
                        "gap_ci": fmt_ci("wer", c.get("ci_low"), c.get("ci_high")) if c else "",
                        "boot_p": fmt_p(c.get("p_adjusted")) if c else "–",
                        "verdict": verdict_style(c.get("verdict"))[0] if c else "–",
                        "agreement": (agree.get(r["level"]) or {}).get("sentence", ""),
                    }
                )
        out.append(
            {
                "variable": var,
                "error": None,
                "model": m.get("model", ""),
                "approximation": m.get("approximation", ""),
                "speaker_sd": fmt_number(m.get("speaker_sd"), 2),
                "n": f"{count(m.get('n_utterances', '–'), 'utterance')}, "
                f"{count(m.get('n_speakers', '–'), 'speaker')}",
                "overdispersion": (m.get("overdispersion") or {}).get("reading", ""),
                "rows": rows,
                "conclusions": list(m.get("conclusions") or []),
                "note": m.get("agreement_note", ""),
            }
        )
    return out


def _or_rows(result: dict) -> list[dict]:
    clustered = {
        u["variable"]: {lev["level"]: lev for lev in u.get("levels") or []}
        for u in ((result.get("clustered") or {}).get("univariate") or [])
    }
    adjusted: dict[tuple, list[str]] = {}
    for a in result.get("adjustments") or []:
        for lev in a.get("levels") or []:
            adjusted.setdefault((a["variable"], lev["level"]), []).append(
                f"{fmt_ratio(lev.get('odds_ratio'))} on {a['adjusted_on']}"
            )
    rows = []
    for u in result.get("univariate") or []:
        for lev in u.get("levels") or []:
            cl = clustered.get(u["variable"], {}).get(lev["level"]) or {}
            rows.append(
                {
                    "variable": u["variable"],
                    "level": f"{lev['level']} vs {u.get('reference')}",
                    "or": fmt_ratio(lev.get("odds_ratio")),
                    "ci": _ci(lev.get("ci_low"), lev.get("ci_high")),
                    "p": fmt_p(lev.get("p_value")),
                    "or_cl": fmt_ratio(cl.get("odds_ratio")) if cl else "–",
                    "ci_cl": _ci(cl.get("ci_low"), cl.get("ci_high")) if cl else "",
                    "p_cl": fmt_p(cl.get("p_value")) if cl else "–",
                    "adjusted": "; ".join(adjusted.get((u["variable"], lev["level"]), [])) or "–",
                }
            )
    return rows


def _tests(result: dict) -> list[dict]:
    rows = []
    for c in result.get("outcome_chi2") or []:
        if c.get("p_value") is not None:
            rows.append(
                {
                    "test": f"χ² outcome × {c['variable']} ({c.get('unit')})",
                    "stat": f"χ² = {fmt_number(c['chi2'], 2)}, df {c['df']}",
                    "p": fmt_p(c["p_value"]),
                }
            )
    for a in result.get("anova") or []:
        if a.get("p_value") is not None:
            rows.append(
                {
                    "test": f"one-way ANOVA by {a['variable']} ({a.get('per')})",
                    "stat": f"F({a['df_between']}, {a['df_within']}) = {fmt_number(a['f'], 2)}",
                    "p": fmt_p(a["p_value"]),
                }
            )
    return rows


def _spread_chart(spread: dict, prefix: str) -> str | None:
    """Each speaker's value within each level of one variable, as a strip chart (SVG)."""
    from .charts import _figure, plain, svg_text

    levels = spread.get("levels") or []
    if not levels:
        return None
    fig, ax = _figure(6.4, 0.5 + 0.42 * len(levels))
    for i, lev in enumerate(levels):
        vals = [num(s["value"]) for s in lev.get("speakers") or []]
        vals = [v for v in vals if not math.isnan(v)]
        jitter = [((k * 0.618) % 1 - 0.5) * 0.35 for k in range(len(vals))]
        ax.scatter(
            [100 * v for v in vals],
            [i + j for j in jitter],
            s=14,
            alpha=0.75,
            color=SERIES[i % len(SERIES)],
        )
        if not math.isnan(num(lev.get("median"))):
            ax.plot([100 * num(lev["median"])] * 2, [i - 0.3, i + 0.3], color="#222222", lw=1.5)
    ax.set_yticks(
        range(len(levels)), [plain(f"{lv['level']} ({lv['n_speakers']})") for lv in levels]
    )
    ax.set_xlabel(plain(f"{spread.get('measure', 'value')} per speaker (%)"))
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
        entry = {
            "family": family,
            "outcome": str(req.get("outcome") or ""),
            "variables": ", ".join(req.get("variables") or []) or "–",
            "covariates": ", ".join(req.get("covariates") or []) or "–",
            "filters": ", ".join(req.get("filters") or []) or "none",
            "cluster": req.get("cluster") or "none",
            "conclusions": list(res.get("conclusions") or []),
            "odds": [],
            "tests": [],
            "rates": [],
            "coefficients": [],
            "charts": [],
        }
        if family == "logit":
            entry["odds"] = _or_rows(res)
            entry["tests"] = _tests(res)
            for j, sp in enumerate(res.get("speaker_spread") or []):
                svg = _spread_chart(sp, prefix=f"r{k}s{j}")
                if svg:
                    entry["charts"].append(
                        {
                            "title": f"Per-speaker {sp.get('measure')} by {sp['variable']}",
                            "svg": svg,
                        }
                    )
        elif family == "poisson-mixed":
            for g in res.get("group_variables") or []:
                for r in g.get("levels") or []:
                    entry["rates"].append(
                        {
                            "level": f"{r['level']} vs {g['reference']}",
                            "rr": fmt_ratio(r.get("rate_ratio")),
                            "ci": _ci(r.get("ci_low"), r.get("ci_high")),
                            "p_adj": fmt_p(r.get("p_adjusted")),
                        }
                    )
        elif family == "linear":
            entry["coefficients"] = [
                {
                    "term": c["term"],
                    "estimate": fmt_number(c.get("estimate"), 4, signed=True),
                    "ci": _ci(c.get("ci_low"), c.get("ci_high"), 4),
                    "p": fmt_p(c.get("p_value")),
                }
                for c in res.get("coefficients") or []
            ]
        out.append(entry)
    return out


def pitfalls_section(d) -> dict | None:
    """The hallucination flags per group and the verdicts that change without them."""
    p = d.payload
    block = p.get("pitfalls") or {}
    if not block:
        return None
    groups = {str(g["group"]): g for g in p.get("groups") or []}
    rows = []
    for g, c in (block.get("by_group") or {}).items():
        vals = (groups.get(g) or {}).get("values") or {}
        rows.append(
            {
                "group": g,
                "n": c.get("n_items"),
                "flagged": c.get("hallucinated"),
                "rate": fmt_value("wer", vals.get("hallucination_rate", c.get("rate"))),
                "loop": c.get("loop", 0),
                "runaway": c.get("runaway", 0),
                "nonspeech": c.get("over_nonspeech", 0),
                "unstable": c.get("unstable", 0),
                "wer": fmt_value("wer", vals.get("wer")),
                "wer_unflagged": fmt_value("wer", vals.get("wer_unflagged")),
                "items": ", ".join(map(str, (c.get("items") or [])[:8])),
            }
        )
    changed = [
        f"{c.get('metric')} {c.get('group')}: "
        f"{verdict_style(c.get('verdict'))[0]} → "
        f"{verdict_style(c.get('verdict_without_flagged'))[0]}"
        + (f" ({c['reason']})" if c.get("reason") else "")
        for c in block.get("verdicts_without_flagged") or []
        if c.get("metric")
    ]
    dominated = [
        f"{w.get('group')}: item {w.get('item')} carries "
        f"{fmt_percent(w.get('share'), 0)} of the group's {w.get('group_errors')} "
        f"word errors (WER {fmt_value('wer', w.get('wer'))}, without it "
        f"{fmt_value('wer', w.get('wer_without_item'))})"
        for w in block.get("wer_dominated") or []
    ]
    return {
        "n_flagged": block.get("n_flagged", 0),
        "checked": ", ".join(block.get("flags_checked") or []),
        "not_checked": block.get("not_checked") or "",
        "rows": rows,
        "changed": changed,
        "dominated": dominated,
    }


def sensitivity_section(d) -> dict | None:
    """The verdicts under each normaliser, when the run was re-scored."""
    s = d.payload.get("normaliser_sensitivity")
    if not s or not s.get("rows"):
        return None
    names = list(s.get("normalisers") or [])
    rows = [
        {
            "metric": r["metric"],
            "group": r["group"],
            "verdicts": [verdict_style((r.get("verdict") or {}).get(n))[0] for n in names],
            "holds": "yes" if r.get("holds") else "no",
        }
        for r in s["rows"]
    ]
    return {
        "normalisers": names,
        "run": s.get("run_normaliser"),
        "rows": rows,
        "n_flipped": s.get("n_flipped", 0),
        "n": s.get("n_comparisons", len(rows)),
    }
