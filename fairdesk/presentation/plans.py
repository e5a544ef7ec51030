"""How a recording plan reads (docs/METHODS.md, "Recording plan"): the one sentence every view ends an underpowered comparison with
(:func:`plan_sentence`), the plan's table (:func:`plan_lines`) and the note for a sampled
pilot (:func:`sample_note`), the plans' coded notes (:data:`TEXTS`, area ``plans``), the
``--json`` form of a plan (:func:`plan_json`) and what its chart draws (:func:`curve_data`).
Pure: takes the typed plan (``stats.planning_types``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..metrics.registry import display_spec
from ..stats.planning_types import METHOD_LABELS, NOTE_TWO_WAY, NOTE_UTTERANCES
from .labels import metric_short, short_group
from .notices import notice_texts
from .numbers import fmt_count, fmt_sig, fmt_size, number, scale

#: The words of the plans' coded notes (:mod:`fairdesk.presentation.notices`).
TEXTS: dict[str, Callable[..., str]] = {
    NOTE_TWO_WAY: lambda: (
        "two-way scheme: part of the uncertainty comes from the shared sentences and "
        "does not shrink with more speakers"
    ),
    NOTE_UTTERANCES: lambda pilot, utterances: (
        "the MDEs assume each new speaker records about as much as the pilot's ("
        + number(pilot, 0)
        + " utterances); "
        + fmt_sig(utterances, 6)
        + " per speaker makes them approximate"
    ),
}


def method_label(method: str) -> str:
    """A plan's method in words (``resampling k of the pilot's speakers per side …``)."""
    return METHOD_LABELS.get(method, method)


def plan_note(cp) -> str | None:
    """What a comparison plan assumes, in words (its notes joined; None without any)."""
    return "; ".join(notice_texts(cp.notes)) or None


def plan_json(plan) -> dict[str, Any]:
    """The plan as ``--json`` writes it: its stored form (``Plan.to_json``) with the
    method's ``label`` and each comparison's ``note`` (None without one) in today's words,
    where earlier versions stored them."""
    out = plan.to_json()
    out["label"] = method_label(plan.method)
    comps = []
    for entry, cp in zip(out["comparisons"], plan.comparisons, strict=True):
        row = {k: v for k, v in entry.items() if k != "notes"}
        row["note"] = plan_note(cp)
        comps.append(row)
    out["comparisons"] = comps
    return out


def fmt_target(metric: str, gap: float) -> str:
    """The target gap in words: ``a gap of 5 pp`` (rates), ``a gap of 0.10`` (ratios)."""
    u, k, d = display_spec(metric)
    if u == "%":
        return f"a gap of {number(gap * k, d).removesuffix('.0')} pp"
    return f"a gap of {number(gap * k, d)}"


def _hours(h: float | None) -> str:
    if h is None:
        return ""
    if h < 1:
        return f" (≈ {max(1, round(h * 60))} minutes of recording)"
    return f" (≈ {number(h, 1)} hours of recording)"


def _utt(x: float) -> str:
    return number(x, 0) if abs(x - round(x)) < 0.05 else number(x, 1)


def _side(need, speakers_word: str) -> str:
    return f"{fmt_count(need.new_speakers)} more {short_group(need.group)} {speakers_word}"


def per_side(k: int) -> str:
    """``655 speakers per side``: how every view names a plan's k*."""
    return f"{fmt_count(k)} {'speaker' if k == 1 else 'speakers'} per side"


def search_limit(cp) -> int:
    """The largest k the plan searched (20 × the larger side's pilot speakers); a plan
    stored before it was kept gives the largest k of its curve."""
    return int(getattr(cp, "search_limit", 0) or max((p.k for p in cp.curve), default=0))


def is_estimate(cp) -> bool:
    """Whether ``cp`` is the closed form's quick estimate, not the resampling plan."""
    return cp.method == "closed_form"


def plan_sentence(cp, plan) -> str:
    """One sentence: what recording would settle ``cp`` (a ``ComparisonPlan`` of ``plan``).

    ``655 speakers per side would detect a gap of 5 pp with 80% power at alpha 0.05/4
    (resampling the pilot's speakers): about 643 more child speakers and 643 more adult
    speakers, 15 utterances each (≈ 8.9 hours of recording).``; or why adding speakers does
    not reach it, or that the search stopped (``More than 820 speakers per side …``). A
    closed-form plan is labelled an estimate; a pilot audited on a ``--sample`` ends with
    "audit every item first". Every view (console, card, plan dialog, report) shows it.
    """
    text = _sentence(cp, plan)
    sample = getattr(plan, "sample_per_group", None)
    if sample:
        text += (
            f" Audit every item first: the pilot was a sample of {fmt_count(sample)} items "
            "per group (--sample)."
        )
    return text


def _sentence(cp, plan) -> str:
    target = fmt_target(cp.metric, cp.target_gap)
    power = f"{number(plan.power * 100, 0)}% power"
    how = _method_words(cp)
    tail = f"{power} at alpha {plan.alpha:g}/{plan.future_m} ({how})"
    if cp.limit == "no_speakers":
        return (
            "No speaker plan: the pilot has no speaker ids (or no resampling by speakers), "
            "so fairdesk cannot say how many speakers would settle it."
        )
    if cp.limit == "no_estimate":
        return "No plan: the pilot gives no standard error to plan from."
    if not cp.target_gap > 0:  # a reference at 0: by the ratio criterion any gap is practical
        return (
            f"No plan: the reference's {metric_short(cp.metric)} is 0, so by the disparity "
            "ratio any gap above 0 is of practical size, and no number of speakers makes "
            "the smallest detectable gap 0; the interval shows which gaps the data rule out."
        )
    if not cp.reachable:
        if cp.limit == "content":
            floor = fmt_size(cp.metric, cp.floor_mde)
            text = (
                f"Not reachable by adding speakers: the shared sentences alone leave an MDE "
                f"of {floor} for {target} with {tail}, however many speakers; add sentences"
            )
            c = cp.contents
            if c is not None and c.contents_needed is not None:
                text += (
                    f" (about {fmt_count(c.contents_needed)} sentences read by every speaker, "
                    f"{fmt_count(c.new_utterances)} new recordings)"
                )
            return text + "."
        k_max = search_limit(cp)
        return (
            f"More than {per_side(k_max)} would be needed to detect {target} with {tail}: "
            f"the search stops at {fmt_count(k_max)} (20 times the pilot's speakers); a "
            "larger gap, or fewer comparisons in the future run, needs fewer."
        )
    g, r = cp.group_need, cp.reference_need
    head = f"{per_side(cp.speakers_needed)} would detect {target} with {tail}"
    parts = [_side(n, "speakers") for n in (g, r) if n is not None and n.new_speakers]
    if not parts:
        return f"The pilot's speakers already suffice ({head})."
    new = [n for n in (g, r) if n is not None and n.new_speakers]
    utts = [_utt(n.utterances_per_speaker) for n in new]
    if len(set(utts)) == 1:
        each = f"{utts[0]} utterances each"
    else:  # per side, so that no number can be read as the other side's
        each = " and ".join(
            f"{u} utterances per {short_group(n.group)} speaker" for u, n in zip(utts, new)
        )
    hours = [n.hours for n in (g, r) if n is not None and n.new_speakers]
    total = None if any(h is None for h in hours) else sum(hours)
    text = f"{head}: about {' and '.join(parts)}, {each}{_hours(total)}"
    c = cp.contents
    if c is not None and c.cheaper == "contents" and c.contents_needed is not None:
        text += (
            f"; cheaper: about {fmt_count(c.contents_needed)} sentences read by every pilot "
            f"speaker ({fmt_count(c.new_utterances)} new recordings)"
        )
    return text + "."


def crosscheck(cp) -> str | None:
    """The closed form beside a resampling plan (never in its place): ``closed-form check:
    k* ≈ 262 per side`` (None for a closed-form plan or where it gives none)."""
    if is_estimate(cp) or cp.limit in ("no_speakers", "no_estimate"):
        return None
    if cp.closed_form_k is None:
        return f"closed-form check, SE_pilot × √(k_p/k): more than {per_side(search_limit(cp))}"
    return f"closed-form check, SE_pilot × √(k_p/k): k* ≈ {per_side(cp.closed_form_k)}"


def reading_plan(plan, metric: str, group: str) -> str | None:
    """The plan sentence of one comparison of a run's ``plan`` (None when the plan has
    none for it): what every view appends to an underpowered comparison's reading."""
    if plan is None:
        return None
    for cp in plan.comparisons:
        if cp.metric == metric and cp.group == group:
            return plan_sentence(cp, plan)
    return None


def sample_note(plan) -> str | None:
    """For a pilot audited on a ``--sample``: audit every item first (both figures)."""
    if not plan.sample_per_group:
        return None
    text = (
        f"The pilot audited a sample of {fmt_count(plan.sample_per_group)} items per group "
        "(--sample), which leaves out utterances its speakers already recorded: audit every "
        "item first"
    )
    if plan.dataset_sizes:
        sizes = "; ".join(
            f"{short_group(g)}: {fmt_count(v[0])} items of {fmt_count(v[1])} speakers"
            for g, v in plan.dataset_sizes.items()
        )
        text += f" (the dataset holds {sizes})"
    return text + ". The plan below is of the sample."


def plan_lines(plan) -> list[str]:
    """The plan as console lines: per comparison the sentence, the sides and a small table
    of MDE(k) around k*."""
    out = [
        f"Recording plan ({method_label(plan.method)}); power {number(plan.power * 100, 0)}%, alpha "
        f"{plan.alpha:g} / m = {plan.future_m} (Bonferroni, the worst case of Holm)."
    ]
    note = sample_note(plan)
    if note:
        out.append(note)
    for cp in plan.comparisons:
        out.append("")
        out.append(
            f"{metric_short(cp.metric)}: {short_group(cp.group)} vs {short_group(cp.reference)} "
            f"({cp.scheme}, {cp.design}); pilot MDE "
            f"{fmt_size(cp.metric, cp.pilot_mde)}, target "
            f"{fmt_size(cp.metric, cp.target_gap)}"
        )
        out.append("  " + plan_sentence(cp, plan))
        for n in (cp.group_need, cp.reference_need):
            if n is None:
                continue
            need = fmt_count(n.speakers_needed) if n.speakers_needed else _unreached(cp)
            line = f"  {short_group(n.group):<20} speakers now {n.speakers_now:>4}, needed {need}"
            if n.new_speakers is not None:
                line += (
                    f", new {fmt_count(n.new_speakers)} × {_utt(n.utterances_per_speaker)} "
                    f"utterances = {fmt_count(n.new_utterances)}"
                )
                if n.hours is not None:
                    line += _hours(n.hours).replace(" of recording", "")
            out.append(line)
        check = crosscheck(cp)
        if check:
            out.append(f"  {check}")
        if cp.floor_mde is not None:
            out.append(
                "  MDE with unlimited speakers (content floor): "
                f"{fmt_size(cp.metric, cp.floor_mde)}"
            )
        if cp.curve:
            out.append("  speakers per side   SE       MDE")
            for p in cp.curve:
                mark = "  <- k*" if p.k == cp.speakers_needed else ""
                out.append(
                    f"  {p.k:>17}   {fmt_size(cp.metric, p.se, with_unit=False):<7}"
                    f"  {fmt_size(cp.metric, p.mde, with_unit=False)}{mark}"
                )
        c = cp.contents
        if c is not None:
            need = (
                "not reachable"
                if c.contents_needed is None
                else f"{fmt_count(c.contents_needed)} needed"
            )
            out.append(
                f"  by sentences: {c.contents_now} now; {need} at the pilot's speakers"
                + ("" if c.cheaper is None else f"; cheaper to add: {c.cheaper}")
            )
        note = plan_note(cp)
        if note:
            out.append(f"  note: {note}")
    return out


def followup_sentence(f) -> str:
    """How an audit of the grown dataset reads against the recording plan made for one of
    its comparisons (a :class:`fairdesk.jobs.recording_plan.PlanFollowup`): its MDE now,
    the plan's curve at the speakers it has and the plan's target.

    ``Recording plan 2 (from run 1): the WER child vs adult MDE is now 14.2 pp with 12 child
    and 13 adult speakers; the plan predicted 15.1 pp at 12 speakers per side; pilot 16.5 pp
    at 10; target 5.0 pp at 240 per side.``
    """
    p = f.prediction

    def g(x):
        return fmt_size(p.metric, x)

    kg, kr = f.speakers_now
    now = "not estimable" if f.mde_now is None else g(f.mde_now)
    text = (
        f"Recording plan {f.plan_id} (from run {p.run_id}): the {metric_short(p.metric)} "
        f"{short_group(p.group)} vs {short_group(p.reference)} MDE is now {now} with "
        f"{fmt_count(kg)} {short_group(p.group)} and {fmt_count(kr)} "
        f"{short_group(p.reference)} speakers"
    )
    parts = []
    if f.predicted_now is not None:
        k = min(kg, kr)
        how = ", extrapolated" if f.extrapolated else ""
        parts.append(f"the plan predicted {g(f.predicted_now)} at {fmt_count(k)} speakers per "
                     f"side{how}")  # fmt: skip
    if p.pilot_mde is not None:
        at = f" at {fmt_count(p.k_pilot)}" if p.k_pilot else ""
        parts.append(f"pilot {g(p.pilot_mde)}{at}")
    if p.k_star is not None:
        parts.append(f"target {g(p.target_gap)} at {fmt_count(p.k_star)} per side")
    else:
        parts.append(f"target {g(p.target_gap)}, not reachable by speakers")
    text += "; " + "; ".join(parts)
    if f.verdict and f.verdict != "inconclusive_underpowered":
        text += f"; verdict now {f.verdict.replace('_', ' ')}"
    return text + "."


def followup_title(f) -> str:
    """``recording plan 2 (from run 1) for WER b vs a``: what names a follow-up in a list."""
    p = f.prediction
    return (
        f"recording plan {f.plan_id} (from run {p.run_id}) for {metric_short(p.metric)} "
        f"{short_group(p.group)} vs {short_group(p.reference)}"
    )


def followup_short(f) -> str:
    """The card's line: ``MDE 14.2 pp · plan 14.9 pp``."""
    p = f.prediction
    now = "–" if f.mde_now is None else fmt_size(p.metric, f.mde_now)
    pred = "–" if f.predicted_now is None else fmt_size(p.metric, f.predicted_now)
    return f"MDE {now} · plan {pred}"


#: The columns of :func:`side_rows`, as every table of a plan's sides heads them.
SIDE_COLUMNS = (
    "group",
    "speakers now",
    "speakers needed",
    "new speakers",
    "utterances each",
    "new utterances",
    "recording time",
)


def _unreached(cp) -> str:
    """A side's "speakers needed" where k* was not found: past the search, or no k."""
    if cp.limit == "search":
        return f"more than {fmt_count(search_limit(cp))}"
    return "not reachable"


def unreached_tip(cp) -> str:
    """Why a plan that reaches no k* has no recording quota to make."""
    if cp.limit == "search":
        return (
            f"more than {per_side(search_limit(cp))} would be needed (the search stops "
            "there): no quota; a larger gap (fairdesk plan --gap) needs fewer"
        )
    if cp.limit == "content":
        return "adding speakers does not reach the target (the sentences set a floor): no quota"
    return "no speaker plan: no quota"


def side_rows(cp) -> list[tuple[str, ...]]:
    """The two sides of a comparison plan as table rows of text (:data:`SIDE_COLUMNS`):
    what the report's and the GUI's sides tables show."""
    rows: list[tuple[str, ...]] = []
    for n in (cp.group_need, cp.reference_need):
        if n is None:
            continue
        reach = n.speakers_needed is not None
        rows.append(
            (
                short_group(n.group) + (" (reference)" if n.group == cp.reference else ""),
                fmt_count(n.speakers_now),
                fmt_count(n.speakers_needed) if reach else _unreached(cp),
                fmt_count(n.new_speakers) if reach else "–",
                _utt(n.utterances_per_speaker),
                fmt_count(n.new_utterances) if reach else "–",
                _hours(n.hours).strip(" ()").replace(" of recording", "") or "–",
            )
        )
    return rows


def plan_title(cp) -> str:
    """``WER: child vs adult``: the heading of one comparison's plan."""
    return f"{metric_short(cp.metric)}: {short_group(cp.group)} vs {short_group(cp.reference)}"


@dataclass(frozen=True)
class PlanCurve:
    """What an MDE-versus-speakers chart of one comparison plan draws, in display units
    (:func:`curve_data`).

    Attributes
    ----------
    k, mde : the plan's points (the table's; drawn as markers).
    line_k, line_mde : the dense curve, drawn as the line (the points where a stored plan
        has no dense curve).
    target : where the target line is drawn; target_gap : the gap to detect.
    k_star, k_star_mde : k* and its MDE (None where not reached).
    k_pilot : the smaller side's pilot speakers; pilot_mde : the card's MDE (None without).
    floor : the two-way content floor (None without one).
    y_label, x_label, caption : plain text.
    """

    k: tuple[int, ...]
    mde: tuple[float, ...]
    line_k: tuple[int, ...]
    line_mde: tuple[float, ...]
    target: float
    target_gap: float
    k_star: int | None
    k_star_mde: float | None
    k_pilot: int | None
    pilot_mde: float | None
    floor: float | None
    y_label: str
    x_label: str
    caption: str


def curve_data(cp, plan) -> PlanCurve:
    """What an MDE-versus-speakers chart of ``cp`` (a comparison of ``plan``) draws, in
    display units (percentage
    points for rates), on the cards' scale: the MDE at alpha 0.05 and 80% power, so that
    the pilot's point is the card's MDE.

    The plan itself asks for MDE(k) ≤ the target at alpha/m and the plan's power; on the
    cards' scale the same condition is MDE(k) ≤ target × (z_.975 + z_.80) / (z_{1-α′/2} +
    z_power), where the target line is drawn (so k* is still where the curve meets it).

    Returns a :class:`PlanCurve`.
    """
    from ..stats.formulas import MDE_FACTOR

    f = scale(cp.metric)
    to_card = MDE_FACTOR / cp.z_factor if cp.z_factor else 1.0
    pts = {p.k: p.mde * to_card * f for p in cp.curve}
    dense = getattr(cp, "dense", ()) or cp.curve
    sides = [n.speakers_now for n in (cp.group_need, cp.reference_need) if n is not None]
    u = "pp" if display_spec(cp.metric)[0] == "%" else "difference"
    k_star = cp.speakers_needed
    target = cp.target_gap * to_card * f
    line = {p.k: p.mde * to_card * f for p in dense}
    star_y = pts.get(k_star, line.get(k_star)) if k_star is not None else None
    shown_target = fmt_size(cp.metric, cp.target_gap * to_card)
    caption = (
        f"MDE of {plan_title(cp)} at k speakers per side ({_method_words(cp)}), at alpha "
        f"0.05 and 80% power as on the cards, so that the pilot's point is the card's MDE. "
        f"The dashed line is the target, {fmt_target(cp.metric, cp.target_gap)} at alpha "
        f"{plan.alpha:g}/{plan.future_m} with {number(plan.power * 100, 0)}% power: on this "
        f"scale the MDE must fall to {shown_target}"
        + ("" if k_star is None else f", which it does at k* = {fmt_count(k_star)}")
        + "; the dotted line marks the pilot's speakers."
    )
    return PlanCurve(
        k=tuple(pts),
        mde=tuple(pts.values()),
        line_k=tuple(line),
        line_mde=tuple(line.values()),
        target=target,
        target_gap=cp.target_gap * f,
        k_star=k_star,
        k_star_mde=star_y,
        k_pilot=min(sides) if sides else None,
        pilot_mde=None if cp.pilot_mde is None else cp.pilot_mde * f,
        floor=None if cp.floor_mde is None else cp.floor_mde * to_card * f,
        y_label=f"MDE of the {metric_short(cp.metric)} gap ({u})",
        x_label="speakers per side",
        caption=caption,
    )


def _method_words(cp) -> str:
    if is_estimate(cp):
        return "closed-form estimate, until the resampling plan replaces it"
    if getattr(cp, "scheme", None) == "two_way":
        return "resampling the pilot's speakers and sentences"
    return "resampling the pilot's speakers"


__all__ = [
    "SIDE_COLUMNS",
    "TEXTS",
    "PlanCurve",
    "method_label",
    "plan_json",
    "plan_note",
    "crosscheck",
    "curve_data",
    "fmt_target",
    "followup_sentence",
    "followup_short",
    "followup_title",
    "is_estimate",
    "per_side",
    "plan_lines",
    "plan_sentence",
    "plan_title",
    "reading_plan",
    "sample_note",
    "search_limit",
    "side_rows",
    "unreached_tip",
]
