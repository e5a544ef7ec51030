"""The report's planning section: for every underpowered comparison the recording plan
stored with the run (``run.plan``: the resampling plan, or in runs stored before the audit
made it, the closed-form estimate; docs/METHODS.md, "Recording plan").

Per comparison: the plan sentence, the sides table and an MDE-versus-speakers chart, all
worded and scaled by :mod:`fairdesk.presentation.plans` (the one formatter every view
uses). The chart is drawn headless with matplotlib in the style of :mod:`.charts`.
"""

from __future__ import annotations

from ..jobs.result import AuditRun
from ..presentation.numbers import number
from ..presentation.plans import (
    SIDE_COLUMNS,
    crosscheck,
    curve_data,
    followup_sentence,
    method_label,
    plan_note,
    plan_sentence,
    plan_title,
    sample_note,
    side_rows,
)
from .data import REFERENCE_COLOUR, SERIES


def mde_chart(cp, plan, prefix: str = "p"):
    """The matplotlib figure of one comparison plan's MDE(k) on the cards' scale
    (:func:`fairdesk.presentation.plans.curve_data`): the dense curve as the line, the
    plan's points as markers, the pilot's point (the card's MDE), the target, the pilot's
    speakers and k*."""
    from .charts import _figure, plain

    d = curve_data(cp, plan)
    fig, ax = _figure(5.6, 3.0)
    ax.plot(d.line_k, d.line_mde, color=SERIES[0], lw=1.6, label="MDE(k)")
    ax.plot(d.k, d.mde, ls="none", marker="o", ms=4, color=SERIES[0])
    ax.axhline(d.target, ls="--", color="#b71c1c", lw=1.2, label="target")
    if d.k_pilot is not None:
        ax.axvline(d.k_pilot, ls=":", color=REFERENCE_COLOUR, lw=1.0, label="pilot's speakers")
        if d.pilot_mde is not None:
            ax.scatter([d.k_pilot], [d.pilot_mde], s=30, marker="s", zorder=3,
                       color=REFERENCE_COLOUR, label="pilot (the card's MDE)")  # fmt: skip
    if d.floor is not None:
        ax.axhline(d.floor, ls="-.", color="#6d4c41", lw=1.0, label="content floor")
    if d.k_star_mde is not None:
        y = d.k_star_mde
        ax.scatter([d.k_star], [y], s=60, color=SERIES[1], zorder=3, label="k*")
        ax.annotate(f"k* = {d.k_star}", (d.k_star, y), textcoords="offset points",
                    xytext=(6, 8), fontsize=8)  # fmt: skip
    ax.set_xlabel(plain(d.x_label))
    ax.set_ylabel(plain(d.y_label))
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, frameon=False)
    return fig, d


def plan_section(run: AuditRun) -> dict | None:
    """The planning section of a report (None when the run stored no plan)."""
    from .charts import svg_text

    plan = run.plan
    if plan is None or not plan.comparisons:
        return None
    rows = []
    for i, cp in enumerate(plan.comparisons):
        fig, d = mde_chart(cp, plan)
        rows.append(
            {
                "title": plan_title(cp),
                "sentence": plan_sentence(cp, plan),
                "crosscheck": crosscheck(cp) or "",
                "sides": side_rows(cp),
                "svg": svg_text(fig, prefix=f"plan{i}") if d.line_k else None,
                "caption": d.caption,
                "note": plan_note(cp) or "",
            }
        )
    return {
        "label": method_label(plan.method),
        "estimate": plan.method == "closed_form",
        "power": f"{number(plan.power * 100, 0)}%",
        "alpha": f"{plan.alpha:g} / m = {plan.future_m}",
        "sample_note": sample_note(plan) or "",
        "columns": SIDE_COLUMNS,
        "rows": rows,
    }


def followup_lines(d) -> list[str]:
    """The recording plans the report's run follows up, one sentence each (its MDE now
    beside each plan's prediction); empty when none or without the project."""
    from ..jobs.recording_plan import plan_followups

    if getattr(d, "project", None) is None:
        return []
    return [followup_sentence(f) for f in plan_followups(d.project, d.audit)]


__all__ = ["followup_lines", "mde_chart", "plan_section"]
