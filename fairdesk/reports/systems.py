"""A comparison of systems in the report and the exports (docs/METHODS.md,
"Comparing systems"), for a run that is the baseline of a stored comparison:

* :func:`systems_section`: the report's "Comparison of systems" section (per metric the
  system × group table, the gap-difference sentences and chart, the system differences, the
  classical tests labelled, and the items where the systems disagree most);
* :func:`gap_difference_chart`: each gap difference with its 95% CI;
* :func:`comparison_rows` and :func:`system_item_columns`: the long-format rows that
  ``export --comparisons`` appends and the per-system columns of ``export --items``.

Every number is the typed :class:`~fairdesk.stats.system_results.SystemComparisonResult`'s,
every sentence :mod:`fairdesk.presentation.systems`'."""

from __future__ import annotations

import dataclasses
import math

from ..presentation import count, metric_label, metric_short, short_group, unit
from ..presentation.systems import (
    GAP_WORDS,
    classical_line,
    comparison_head,
    comparison_metrics,
    difference_sentence,
    gap_rows,
    gap_sentence,
    system_table,
)
from .palette import SYSTEM_VERDICT_COLOURS

#: Disagreements listed per group in the report.
DISAGREEMENTS_PER_GROUP = 3


def run_comparison(d):
    """The newest comparison of systems stored with the report's run (its baseline), or None."""
    from ..jobs.system_run import latest_comparison

    return latest_comparison(d.project, d.run_id)


def gap_difference_chart(result, metric: str):
    """Each gap difference of ``metric`` (gap_B − gap_A) with its 95% CI, coloured by its
    verdict; a dashed line at 0 (no change in the gap). None without a gap difference."""
    from .charts import Chart, _figure, _safe, interval_points, plain

    rows = [r for r in gap_rows(result, metric)]
    if not rows:
        return None
    fig, ax = _figure(max(5.0, 1.4 + 1.0 * len(rows)), 3.2)
    interval_points(
        ax,
        [
            (
                *(math.nan if v is None else v for v in (r.difference, r.low, r.high)),
                SYSTEM_VERDICT_COLOURS.get(r.verdict, ("#e0e0e0", ""))[0],
            )
            for r in rows
        ],
    )
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([plain(r.label) for r in rows], rotation=20 if len(rows) > 3 else 0)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_ylabel(f"ΔGap ({unit(metric, gap=True)})")
    ax.grid(axis="y", alpha=0.3)
    others = ", ".join(s for s in result.systems[1:])
    ax.set_title(
        plain(f"{metric_short(metric)} ΔGap (95% CI)\ngap of {others} − gap of {result.baseline}"),
        fontsize=9.5,
    )
    return Chart(
        f"gap_differences_{_safe(metric)}",
        f"{metric_label(metric)}: gap differences",
        fig,
        "ΔGap = gap(system) − gap(baseline) of each group against the reference, on the same "
        "paired replicate draws, with its 95% CI, coloured by its verdict (green fairer, red "
        "less fair, orange reversed, grey inconclusive).",
    )


def save_system_figures(d, folder) -> list:
    """The gap-difference charts of the run's comparison of systems as PNG and SVG in
    ``folder`` (``fairdesk report --figures``); none for a run without one."""
    from .charts import save_chart

    cmp = run_comparison(d)
    paths = []
    for m in comparison_metrics(cmp.result) if cmp is not None else ():
        chart = gap_difference_chart(cmp.result, m)
        if chart is not None:
            paths += save_chart(chart, folder)
    return paths


def systems_section(d, cmp=None) -> dict | None:
    """The report's "Comparison of systems" section of a baseline run (None for a run
    without a stored comparison)."""
    from .charts import svg_text

    cmp = cmp if cmp is not None else run_comparison(d)
    if cmp is None:
        return None
    res = cmp.result
    metrics = []
    for k, m in enumerate(comparison_metrics(res)):
        head, rows = system_table(res, m)
        chart = gap_difference_chart(res, m)
        metrics.append(
            {
                "metric": metric_short(m),
                "label": metric_label(m),
                "head": head,
                "rows": rows,
                "gaps": [
                    {"sentence": gap_sentence(g), "verdict": g.verdict}
                    for g in res.gap_differences
                    if g.metric == m
                ],
                "differences": [difference_sentence(x) for x in res.differences if x.metric == m],
                "classical": [classical_line(c) for c in res.classical if c.metric == m],
                "chart": None
                if chart is None
                else {
                    "title": chart.title,
                    "caption": chart.caption,
                    "svg": svg_text(chart.figure, prefix=f"s{k}"),
                },
            }
        )
    return {
        "systems": [
            {"name": s, "run_id": rid, "baseline": s == res.baseline}
            for s, rid in zip(res.systems, cmp.run_ids)
        ],
        "head": comparison_head(res),
        "metrics": metrics,
        "disagreements": _disagreements(d, cmp),
        "per_group": DISAGREEMENTS_PER_GROUP,
        "colours": {k: v[0] for k, v in SYSTEM_VERDICT_COLOURS.items()},
        "words": GAP_WORDS,
    }


def _disagreements(d, cmp) -> list[dict]:
    from ..jobs.system_run import comparison_frames
    from ..review.ranking import disagreements

    try:
        frames = comparison_frames(d.project, cmp)
    except ValueError:  # a system's run is gone: no list, the numbers stay
        return []
    out = []
    for g, rows in disagreements(frames, DISAGREEMENTS_PER_GROUP).items():
        out.append(
            {
                "group": short_group(g),
                "rows": [
                    {
                        "item_id": r["item_id"],
                        "speaker_id": r["speaker_id"],
                        "mark": "one right, one wrong" if r["one_right"] else "both wrong",
                        "reference": r["reference"],
                        "n_words": r["n_words"],
                        "words": count(r["n_words"], "reference word"),
                        "systems": [
                            {"name": n, "hypothesis": h, "errors": r["errors"].get(n)}
                            for n, h in r["hypotheses"].items()
                        ],
                    }
                    for r in rows
                ],
            }
        )
    return out


def comparison_rows(d, cmp=None) -> list[dict]:
    """The system-difference and gap-difference rows of ``export --comparisons``, in long
    format: ``kind`` (``system_difference`` / ``gap_difference``), ``system``,
    ``baseline``, then every field of the typed row (``n_blocks.*`` and ``no_variation.*``
    spread, ``flags`` joined with ``;``); a corpus-wide system difference has an empty
    ``group``."""
    cmp = cmp if cmp is not None else run_comparison(d)
    if cmp is None:
        return []
    res = cmp.result
    out = []
    for kind, entries in (
        ("system_difference", res.differences),
        ("gap_difference", res.gap_differences),
    ):
        for e in entries:
            r = {"kind": kind, "system": e.system, "baseline": e.baseline}
            for f in dataclasses.fields(e):
                k, v = f.name, getattr(e, f.name)
                if k in ("system", "baseline"):
                    continue
                if k in ("n_blocks", "no_variation"):
                    if v is not None:
                        r.update(
                            {f"{k}.{b.name}": getattr(v, b.name) for b in dataclasses.fields(v)}
                        )
                elif k == "flags":
                    r[k] = ";".join(map(str, v or ()))
                elif k in ("baseline_gap_ci", "gap_ci"):  # each gap's own CI, in two cells
                    lo, hi = v if v is not None and len(v) == 2 else (None, None)
                    r[f"{k}_low"], r[f"{k}_high"] = lo, hi
                else:
                    r[k] = v
            out.append(r)
    return out


def system_item_columns(d, items, cmp=None):
    """``items`` (the items table) with, per system of the comparison (baseline first),
    ``hypothesis.<system>`` and ``errors.<system>`` (substitutions + deletions +
    insertions as its run counted them); unchanged for a run without a comparison. An item
    a system has no row for gets empty cells."""
    cmp = cmp if cmp is not None else run_comparison(d)
    if cmp is None or "id" not in items.columns:
        return items
    from ..jobs.system_run import comparison_frames

    try:
        frames = comparison_frames(d.project, cmp)
    except ValueError:
        return items
    out = items.copy()
    keys = out["id"].astype(str)
    for name, f in frames.items():
        f = f.assign(item_id=f["item_id"].astype(str)).drop_duplicates("item_id")
        f = f.set_index("item_id")
        errs = sum(f[c].fillna(0) for c in ("n_sub", "n_del", "n_ins") if c in f.columns)
        out[f"hypothesis.{name}"] = keys.map(f["hypothesis"]).to_numpy()
        out[f"errors.{name}"] = keys.map(errs).astype("Int64").to_numpy()
    return out
