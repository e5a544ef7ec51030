"""Plain-text tables of an audit result (pure: returns text, prints nothing).

``format_groups`` is the console view of ``fairdesk audit``: each group's value of the main
metrics with its own 95% CI, the corpus-wide value with its CI, then the comparisons of the
first metric with their verdicts, and the reasons of ``not_estimable`` / ``no_variation``
comparisons and of the minimums.
"""

from __future__ import annotations

from ..presentation import (
    MISSING,
    count,
    fmt_ci,
    fmt_gap,
    fmt_p,
    fmt_percent,
    fmt_sig,
    fmt_value_ci,
    plural,
    unit,
)

#: Metrics shown in the group table, in this order, when the result has them.
SHOWN = ("wer", "cer", "em", "accuracy", "balanced_accuracy", "der", "ter", "hallucination_rate")
#: Short column heads where the metric id is long.
HEADS = {"balanced_accuracy": "BAL.ACC", "hallucination_rate": "HALLUC"}


def value_with_ci(value, ci, metric: str = "") -> str:
    """``12.3 [10.1, 14.6]`` (in the metric's unit, named by the column head), ``12.3 [–]``
    without a CI, ``–`` without a value (:func:`fairdesk.presentation.fmt_value_ci`)."""
    return fmt_value_ci(metric, value, ci, with_unit=False)


def _count(n) -> str:
    try:
        return f"{int(n):,}"
    except (TypeError, ValueError):
        return MISSING


def format_groups(res: dict, metrics=None, readings: bool = True) -> str:
    """The console table of an audit result dict (``AuditResult.to_dict`` + analysis keys).

    Parameters
    ----------
    res : the JSON-ready result.
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
    groups = res.get("groups", [])
    summary = res.get("summary", {})
    if metrics is None:
        metrics = [
            m
            for m in SHOWN
            if any(
                (g.get("values") or {}).get(m) is not None or g.get(m) is not None for g in groups
            )
        ]
    ref = res.get("reference")
    out = []
    cellw = 22
    out.append(
        f"{'group':<30}{'items':>7}{'spk':>5}"
        + "".join(f"{(HEADS.get(m, m.upper()) + f' {unit(m)} [95% CI]'):>{cellw}}" for m in metrics)
    )
    for g in groups:
        mark = " (reference)" if g["group"] == ref else (" (excluded)" if g.get("excluded") else "")
        name = (str(g["group"]) + mark)[:29]
        vals = g.get("values") or {}
        cis = g.get("ci") or {}
        out.append(
            f"{name:<30}{g['n_items']:>7}{(g.get('n_speakers') or 0):>5}"
            + "".join(
                f"{value_with_ci(vals.get(m, g.get(m)), cis.get(m), m):>{cellw}}" for m in metrics
            )
        )
    overall = [(summary.get(m) or {}).get("overall") or {} for m in metrics]
    if any(overall):
        n = sum(g["n_items"] for g in groups if not g.get("excluded"))
        cells = "".join(
            f"{value_with_ci(o.get('value'), o.get('ci'), m):>{cellw}}"
            for m, o in zip(metrics, overall)
        )
        out.append(f"{'(corpus, analysed groups)':<30}{n:>7}{'':>5}{cells}")
    comps = [c for c in res.get("comparisons", []) if metrics and c["metric"] == metrics[0]]
    if comps:
        out.append("")
        schemes = sorted({str(c.get("estimator")) for c in comps if c.get("estimator")})
        design = res.get("design")
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
        out.append(f"{metrics[0].upper()} against {ref}:")
        for c in comps:
            head = f"  {str(c['group'])[:30]:<30} "
            if c["verdict"] == "not_estimable":
                out.append(f"{head}not_estimable: {c.get('reason') or ''}")
            elif c["verdict"] == "no_variation":
                nv = c.get("no_variation") or {}
                n_ref = nv.get("n_reference")
                noun = nv.get("unit", "")
                if noun and n_ref is not None:
                    noun = plural(n_ref, noun.rstrip("s"), noun) if noun.endswith("s") else noun
                out.append(
                    f"{head}no_variation: {fmt_sig(nv.get('value'))} everywhere on "
                    f"{_count(nv.get('n_group'))} + {_count(n_ref)} "
                    f"{noun}; other outcome < "
                    f"{fmt_percent(nv.get('bound_group'))} / "
                    f"{fmt_percent(nv.get('bound_reference'))} (rule of three)"
                )
            else:
                m = c["metric"]
                out.append(
                    f"{head}gap {fmt_gap(m, c['gap'], with_unit=False):>6} "
                    f"{fmt_ci(m, c['ci_low'], c['ci_high'], with_unit=False)} "
                    f"p_adj {fmt_p(c['p_adjusted']):>6}  {c['verdict']}"
                )
            if c.get("reading") and not verbose_off:
                out.append(f"    {c['reading']}")
    boot = res.get("bootstrap") or {}
    if boot.get("raised"):
        out.append(
            f"B raised from {boot['requested']:,} to {count(boot['used'], 'resample')} for "
            f"{count(boot['comparisons'], 'comparison')} (B ≥ 5·m/alpha)"
        )
    if res.get("minimums_message"):
        out.append("")
        out.append(res["minimums_message"])
    for w in res.get("warnings", []) or []:
        out.append(f"warning: {w}")
    for p in res.get("input_problems", []) or []:
        out.append(f"problem: line {p.get('line')}: {p.get('reason')}")
    norm = res.get("normaliser")
    if norm:
        out.append(f"normaliser: {norm.get('name')} ({norm.get('reason')})")
    return "\n".join(out)
