"""Sentences of a comparison of systems, as every view shows them (docs/METHODS.md,
"System difference" and "Gap difference"): one per gap difference ("B narrows the
child-vs-adult WER gap by 6.1 points [2.0, 10.3], p_adj 0.010: fairer") and one per system
difference. They read the typed records (:mod:`fairdesk.stats.system_results`, or their
stored form) only."""

from __future__ import annotations

from .labels import metric_short, short_group
from .numbers import MISSING, finite, fmt_p, number, scale

#: The untested statuses (no interval, no p).
UNTESTED = ("descriptive", "not_estimable", "no_variation", "not_computable")


def _points(metric: str) -> str:
    return "points" if scale(metric) == 100 else "(difference of ratios)"


def _amount(metric: str, x) -> str:
    v = finite(x)
    return MISSING if v is None else number(v * scale(metric), 1)


def _ci(metric: str, lo, hi) -> str:
    a, b = finite(lo), finite(hi)
    if a is None or b is None:
        return f"[{MISSING}]"
    lo_, hi_ = sorted((a, b))
    return f"[{_amount(metric, lo_)}, {_amount(metric, hi_)}]"


def _untested_tail(d) -> str:
    why = f" ({d.reason})" if getattr(d, "reason", None) else ""
    return f"{d.verdict.replace('_', ' ')}{why}"


def gap_difference_sentence(d) -> str:
    """One sentence of a gap difference ``d`` (a :class:`GapDifference` or its stored form).

    The amount is how much the system narrows (or widens) the group's gap to the reference
    compared with the baseline, in points, with its 95% CI, the Holm-adjusted p and the
    verdict; a reversed gap says so with both gaps.
    """
    m = metric_short(d.metric)
    pair = f"{short_group(d.group)}-vs-{short_group(d.reference)} {m} gap"
    if d.verdict in UNTESTED:
        return f"{d.system} vs {d.baseline}, the {pair}: {_untested_tail(d)}."
    p = f"p_adj {fmt_p(d.p_adjusted)}"
    if d.verdict == "reversed":
        return (
            f"{d.system} reverses the {pair}: {number(finite(d.baseline_gap) * scale(d.metric), 1, signed=True)} "
            f"with {d.baseline}, {number(finite(d.gap) * scale(d.metric), 1, signed=True)} with "
            f"{d.system} (change {_amount(d.metric, d.difference)} {_ci(d.metric, d.ci_low, d.ci_high)}), "
            f"{p}: reversed"
        )
    base = finite(d.baseline_gap) or 0.0
    # narrowing = the fall of |gap| measured along the baseline gap's sign
    sign = -1.0 if base >= 0 else 1.0
    narrow = sign * finite(d.difference)
    lo, hi = sign * finite(d.ci_low), sign * finite(d.ci_high)
    if narrow >= 0:
        verb, amount, ci = "narrows", narrow, (lo, hi)
    else:
        verb, amount, ci = "widens", -narrow, (-lo, -hi)
    return (
        f"{d.system} {verb} the {pair} by {_amount(d.metric, amount)} {_points(d.metric)} "
        f"{_ci(d.metric, *ci)}, {p}: {d.verdict.replace('_', ' ')}"
    )


def system_difference_sentence(d) -> str:
    """One sentence of a system difference ``d`` (corpus-wide when ``d.group`` is None):
    ``B has a lower WER than A in child by 4.8 points [2.9, 6.7], p_adj 0.002: better``."""
    m = metric_short(d.metric)
    where = "overall" if d.group is None else f"in {short_group(d.group)}"
    if d.verdict in UNTESTED:
        return f"{d.system} vs {d.baseline}, {m} {where}: {_untested_tail(d)}."
    diff = finite(d.difference) or 0.0
    word = "higher" if diff > 0 else "lower" if diff < 0 else "the same"
    sign = 1.0 if diff >= 0 else -1.0
    lo, hi = sign * finite(d.ci_low), sign * finite(d.ci_high)
    return (
        f"{d.system} has a {word} {m} than {d.baseline} {where} by "
        f"{_amount(d.metric, abs(diff))} {_points(d.metric)} {_ci(d.metric, lo, hi)}, "
        f"p_adj {fmt_p(d.p_adjusted)}: {d.verdict.replace('_', ' ')}"
    )
