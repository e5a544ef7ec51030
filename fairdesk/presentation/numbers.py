"""Numbers as every view shows them: one missing marker, one rule per unit.

A metric's unit comes from the registry (:func:`fairdesk.metrics.registry.display_spec`):
rates and proportions are shown in percent (``12.3%``) and their gaps in percentage points
(``+3.1 pp``); ratio metrics (grounding lift) as ``1.23×`` and their gaps as plain differences
(``+0.12``, unit ``lift difference``: a difference of two ratios is not a multiplier). A number that rounds to zero is printed without a sign (``0.0``, never
``-0.0``); a CI bound that is not zero but rounds to it keeps its sign with the digits that
show it (``-0.04 pp``, not ``0.0 pp``: whether a CI holds zero is what a reader looks for). A
missing number (None, NaN, ±inf, text) is :data:`MISSING`.
"""

from __future__ import annotations

import math

from ..core.plurals import count as _count
from ..core.plurals import plural  # noqa: F401
from ..core.pvalues import P_FLOOR, P_FLOOR_VALUE, floor_text, p_clause, p_log10  # noqa: F401
from ..metrics.registry import RATIO_UNIT, display_spec

#: The one marker of a missing number, in every view.
MISSING = "–"
# P_FLOOR (``< 1e-300``: a p below 1e-300, as one that underflowed to 0.0; a float holds
# down to about 1e-308), p_clause (``LR p = 0.042``, ``LR p < 1e-300 (log10 p = -412.3)``)
# and p_log10 come from fairdesk.core.pvalues: the one rule, which the regression sentences
# of stats (below this layer) share.


def finite(value) -> float | None:
    """``value`` as a finite float, or None (None, NaN, ±inf, text)."""
    if isinstance(value, bool):
        return float(value)
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


#: The most digits a bound that rounds to zero gains to show its sign (``-0.04``).
MAX_EXTRA_DECIMALS = 4


def number(
    value,
    decimals: int = 1,
    signed: bool = False,
    missing: str = MISSING,
    keep_sign: bool = False,
) -> str:
    """A plain number with ``decimals`` digits; no sign on a value that rounds to zero.

    Parameters
    ----------
    value : the number (missing: None, NaN, ±inf).
    decimals : digits after the point.
    signed : a leading ``+`` on positive numbers.
    missing : the text of a missing number.
    keep_sign : a value that is not zero but rounds to zero gets the digits (up to
        :data:`MAX_EXTRA_DECIMALS` more) that show its first significant digit and its sign,
        as CI bounds do (``number(-0.037, 1, keep_sign=True) == "-0.04"``).

    Returns
    -------
    str
        ``number(-0.00011, 1) == "0.0"``, ``number(0.25, 2, signed=True) == "+0.25"``.
    """
    x = finite(value)
    if x is None:
        return missing
    if keep_sign and x != 0 and round(x, decimals) == 0:
        for more in range(decimals + 1, decimals + MAX_EXTRA_DECIMALS + 1):
            if round(x, more) != 0:
                return number(x, more, signed=signed, missing=missing)
    x = round(x, decimals)
    if x == 0:
        x = 0.0  # -0.0 and what rounds to it: no sign
        return f"{x:.{decimals}f}"
    return f"{x:+.{decimals}f}" if signed else f"{x:.{decimals}f}"


def is_ratio(metric: str) -> bool:
    """Whether the registry shows ``metric`` as a ratio (``×``) rather than a percentage."""
    return display_spec(metric)[0] == RATIO_UNIT


#: The unit of the gaps of ratio metrics (plain differences), by metric; ``difference`` for
#: any other ratio metric.
RATIO_GAP_UNITS = {"grounding_lift": "lift difference"}


def unit(metric: str, gap: bool = False) -> str:
    """The unit of a metric's values (``%`` or ``×``) or of its gaps (``pp``, or for a ratio
    metric the plain difference: ``lift difference``)."""
    u = display_spec(metric)[0]
    if gap and u == RATIO_UNIT:
        return RATIO_GAP_UNITS.get(str(metric), "difference")
    return "pp" if gap else u


def scale(metric: str) -> float:
    """The factor from a stored value of ``metric`` to its shown number (100 for percent)."""
    return display_spec(metric)[1]


def _scaled(metric, value, decimals, signed, with_unit, gap, keep_sign=False):
    u, k, d = display_spec(metric)
    x = finite(value)
    if x is None:
        return MISSING
    text = number(x * k, d if decimals is None else decimals, signed=signed, keep_sign=keep_sign)
    if not with_unit:
        return text
    if u == RATIO_UNIT:
        return text if gap else f"{text}×"  # a difference of ratios is no multiplier
    return f"{text} pp" if gap else f"{text}%"


def fmt_value(metric: str, value, decimals: int | None = None, with_unit: bool = True) -> str:
    """A metric's value: ``12.3%`` for rates, ``1.23×`` for ratios, :data:`MISSING` if none.

    Parameters
    ----------
    metric : the metric id (its unit, scale and decimals come from the registry).
    value : the stored value (a proportion for rates).
    decimals : override of the registry's decimals.
    with_unit : False for the bare number (a table whose head names the unit).
    """
    return _scaled(metric, value, decimals, False, with_unit, False)


def fmt_gap(metric: str, value, decimals: int | None = None, with_unit: bool = True) -> str:
    """A difference to the reference, signed: ``+3.1 pp`` for rates, ``-0.12`` for ratios (a
    plain difference of two ratios, unit :func:`unit` ``(metric, gap=True)``)."""
    return _scaled(metric, value, decimals, True, with_unit, True)


def fmt_size(metric: str, value, decimals: int | None = None, with_unit: bool = True) -> str:
    """The size of a gap, unsigned, in the gaps' unit (``16.5 pp`` for rates): an MDE, a
    target gap, a content floor."""
    x = finite(value)
    return _scaled(metric, None if x is None else abs(x), decimals, False, with_unit, True)


def fmt_bound(
    metric: str, value, gap: bool = True, decimals: int | None = None, with_unit: bool = True
) -> str:
    """One CI bound, as :func:`fmt_gap` (``gap``) or :func:`fmt_value` shows it, except that a
    bound that is not zero but rounds to zero keeps its sign with the digits that show it: a
    gap's lower bound of -0.00037 is ``-0.04 pp`` (the CI holds zero), not ``0.0 pp``."""
    return _scaled(metric, value, decimals, gap, with_unit, gap, keep_sign=True)


def fmt_ratio(value, decimals: int = 2) -> str:
    """A ratio of two values (group ÷ reference): ``1.23×``; :data:`MISSING` if none."""
    x = finite(value)
    return MISSING if x is None else f"{number(x, decimals)}×"


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


def fmt_p(value, decimals: int = 3, log10=None) -> str:
    """A p-value: ``0.042``, ``< 0.001`` below 0.001, ``< 1e-300`` below 1e-300 (where it
    underflowed to 0.0: a regression's normal tail), with ``(log10 p = -412.3)`` when its
    logarithm ``log10`` (a regression's ``p_log10``) is known; :data:`MISSING` if none."""
    x = finite(value)
    if x is None:
        return MISSING
    if x < P_FLOOR_VALUE:
        return floor_text(p_log10(x, log10))
    floor = 10.0**-decimals
    if x < floor:
        return f"< {floor:.{decimals}f}"
    return f"{x:.{decimals}f}"


def fmt_p_exact(value, digits: int = 3, log10=None) -> str:
    """A p-value with ``digits`` significant digits (``1.2e-05``); below 1e-300 as
    :func:`fmt_p`."""
    x = finite(value)
    if x is None:
        return MISSING
    if x < P_FLOOR_VALUE:
        return floor_text(p_log10(x, log10))
    return f"{x:.{digits}g}"


def fmt_percent(value, decimals: int = 1, signed: bool = False) -> str:
    """A share (0..1) in percent, ``12.5%``; :data:`MISSING` if none."""
    x = finite(value)
    return MISSING if x is None else f"{number(x * 100, decimals, signed=signed)}%"


def fmt_stream_value(metric: str, value) -> str:
    """A value of the incremental tables (the GUI tab and the report alike): WER in percent,
    the rest to 3 decimals; an infinite one (SPR without revokes) as ``inf``."""
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    return fmt_percent(value) if metric == "wer" else fmt_number(value, 3)


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
