"""A metric's numbers in its unit, the one rule of every view (fairdesk.presentation re-exports
these): rates and proportions in percent (``12.3%``), their gaps in
percentage points (``+3.1 pp``); ratio metrics (grounding lift) as ``1.23×``, their gaps as
plain differences (``+0.12``: a difference of two ratios is not a multiplier). A number that
rounds to zero has no sign (``0.0``, never ``-0.0``); a CI bound that is not zero but rounds
to it keeps its sign with the digits that show it (``-0.04 pp``). A missing number (None,
NaN, ±inf, text) is :data:`MISSING`.
"""

from __future__ import annotations

import math

from ..core.pvalues import P_FLOOR_VALUE, p_log10
from ..metrics.registry import RATIO_UNIT, display_spec
from .pvalues import floor_text

#: The one marker of a missing number, in every view.
MISSING = "–"


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
