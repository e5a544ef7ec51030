"""Numbers as every view shows them: one missing marker, one rule per unit.

A metric's value, gap and CI bound follow :mod:`fairdesk.presentation.units` (re-exported
here): rates and proportions in percent (``12.3%``), their
gaps in percentage points (``+3.1 pp``); ratio metrics (grounding lift) as ``1.23×``, their
gaps as plain differences (``+0.12``, unit ``lift difference``: a difference of two ratios is
not a multiplier); a CI bound that is not zero but rounds to it keeps its sign (``-0.04 pp``,
not ``0.0 pp``: whether a CI holds zero is what a reader looks for). A missing number (None,
NaN, ±inf, text) is :data:`MISSING`. This module adds CIs (of metric values and gaps, :func:`fmt_ci`; of odds ratios, rate ratios
and coefficients, :func:`fmt_estimate_ci`), p-values, counts and clocks.
"""

from __future__ import annotations

import math

from ..core.plurals import count as _count
from ..core.plurals import plural  # noqa: F401
from ..core.pvalues import P_FLOOR_VALUE, p_log10  # noqa: F401
from .pvalues import P_FLOOR, floor_text, p_clause  # noqa: F401
from .units import (  # noqa: F401 - the one rule, re-exported for the views
    MAX_EXTRA_DECIMALS,
    MISSING,
    RATIO_GAP_UNITS,
    finite,
    fmt_bound,
    fmt_gap,
    fmt_p,
    fmt_size,
    fmt_value,
    is_ratio,
    number,
    scale,
    unit,
)

# P_FLOOR (``< 1e-300``: a p below 1e-300, as one that underflowed to 0.0; a float holds
# down to about 1e-308) and p_clause (``LR p = 0.042``, ``LR p < 1e-300 (log10 p = -412.3)``)
# come from fairdesk.presentation.pvalues; the numbers, p_log10 and the floor's value, from
# fairdesk.core.pvalues, below every layer.


def fmt_ratio(value, decimals: int = 2) -> str:
    """A ratio of two values (group ÷ reference): ``1.23×``; :data:`MISSING` if none."""
    x = finite(value)
    return MISSING if x is None else f"{number(x, decimals)}×"


def fmt_estimate_ci(low, high, decimals: int = 2) -> str:
    """The 95% CI of an estimate that is no metric value: an odds ratio or a rate ratio (shown
    by :func:`fmt_ratio`), a regression coefficient (``decimals=4``): ``[0.81, 1.42]``, a
    bound that rounds to zero keeping the digits that show it (``[0.004, 0.31]``);
    :data:`MISSING` when either end is missing. Every view writes an odds ratio's CI so."""
    if finite(low) is None or finite(high) is None:
        return MISSING
    lo = number(low, decimals, keep_sign=True)
    hi = number(high, decimals, keep_sign=True)
    return f"[{lo}, {hi}]"


def fmt_ci(
    metric: str,
    low,
    high,
    gap: bool = True,
    decimals: int | None = None,
    with_unit: bool = True,
) -> str:
    """A 95% CI: ``[-1.2 pp, +4.0 pp]`` of a gap, ``[10.1%, 14.6%]`` of a value;
    :data:`MISSING` when either end is missing.

    Parameters
    ----------
    metric : the metric id.
    low, high : the bounds (stored units).
    gap : the CI of a gap (signed bounds, ``pp``) rather than of a value.
    decimals : override of the registry's decimals.
    with_unit : False for the bare ``[lo, hi]``.
    """
    if finite(low) is None or finite(high) is None:
        return MISSING
    lo = fmt_bound(metric, low, gap, decimals, with_unit)
    hi = fmt_bound(metric, high, gap, decimals, with_unit)
    return f"[{lo}, {hi}]"


def fmt_interval(metric: str, ci, gap: bool = False, with_unit: bool = True) -> str:
    """:func:`fmt_ci` of a ``(low, high)`` pair (None or a wrong length: :data:`MISSING`)."""
    if not ci or len(ci) != 2:
        return MISSING
    return fmt_ci(metric, ci[0], ci[1], gap=gap, with_unit=with_unit)


def fmt_value_ci(metric: str, value, ci, with_unit: bool = True) -> str:
    """``12.3% [10.1, 14.6]`` (a value and its own CI); ``12.3% [–]`` without a CI and
    :data:`MISSING` without a value."""
    if finite(value) is None:
        return MISSING
    v = fmt_value(metric, value, with_unit=with_unit)
    if not ci or len(ci) != 2:
        return f"{v} [{MISSING}]"
    bounds = fmt_ci(metric, ci[0], ci[1], gap=False, with_unit=False)
    return f"{v} [{MISSING}]" if bounds == MISSING else f"{v} {bounds}"


def fmt_p_exact(value, digits: int = 3, log10=None) -> str:
    """A p-value with ``digits`` significant digits (``1.2e-05``); below 1e-300 as
    :func:`fmt_p`."""
    x = finite(value)
    if x is None:
        return MISSING
    if x < P_FLOOR_VALUE:
        return floor_text(p_log10(x, log10))
    return f"{x:.{digits}g}"


def fmt_p_coarse(value) -> str:
    """A test's p as a clause: ``p = 0.005`` to three decimals, ``p < 0.001`` below that,
    ``p = –`` (:data:`MISSING`) for NaN (the regression's χ² and ANOVA sentences)."""
    x = float(value)
    if math.isnan(x):
        return f"p = {MISSING}"
    return "p < 0.001" if x < 0.001 else f"p = {x:.3f}"


def fmt_percent(value, decimals: int = 1, signed: bool = False) -> str:
    """A share (0..1) in percent, ``12.5%``; :data:`MISSING` if none."""
    x = finite(value)
    return MISSING if x is None else f"{number(x * 100, decimals, signed=signed)}%"


def fmt_number(value, decimals: int = 3, signed: bool = False) -> str:
    """A plain number with ``decimals`` digits (no sign on zero); :data:`MISSING` if none."""
    return number(value, decimals, signed=signed)


def fmt_sig(value, digits: int = 3) -> str:
    """A number with ``digits`` significant digits (``0.0123``, ``1.23e+04``); no sign on a
    zero; :data:`MISSING` if none."""
    x = finite(value)
    if x is None:
        return MISSING
    if x == 0:
        return "0"
    text = f"{x:.{digits}g}"
    return "0" if float(text) == 0 else text


def fmt_count(n) -> str:
    """A whole count with thousands separators, ``1,234``; :data:`MISSING` if none."""
    x = finite(n)
    return MISSING if x is None else f"{int(x):,}"


def count(n, noun: str, many: str | None = None) -> str:
    """A count with its noun: ``1 item``, ``2 items``, ``1,234 words``; ``– items`` if
    none (:func:`fairdesk.core.plurals.count`, the one plural rule, with :data:`MISSING`)."""
    return _count(n, noun, many, missing=MISSING)


def fmt_clock(seconds, hours: bool = False) -> str:
    """A time in a recording, ``03:12.50`` (minutes padded, so that a column of them sorts
    as text), ``1:03:12.50`` with ``hours`` or from an hour on; :data:`MISSING` if none."""
    x = finite(seconds)
    if x is None:
        return MISSING
    sign = "−" if x < -0.005 else ""
    cs = int(round(abs(x) * 100))
    h, rest = divmod(cs, 360000)
    m, rest = divmod(rest, 6000)
    s = rest / 100
    if hours or h:
        return f"{sign}{h}:{m:02d}:{s:05.2f}"
    return f"{sign}{m:02d}:{s:05.2f}"


def fmt_segment(start, end, hours: bool = False) -> str:
    """Where a segment lies in its recording, ``03:12.50–03:14.10`` (:func:`fmt_clock`);
    :data:`MISSING` for a whole file (no start or end)."""
    if finite(start) is None or finite(end) is None:
        return MISSING
    hours = hours or float(end) >= 3600
    return f"{fmt_clock(start, hours)}–{fmt_clock(end, hours)}"
