"""How a p-value reads: the one rule for every sentence and table that shows one.

It lives below every layer that writes a p-value (the regression sentences of ``stats``,
the tables of ``presentation``, which re-exports it), so both read the same. A regression
p-value can be smaller than a float holds (the normal tail beyond z = 40 is below 1e-348)
and is then stored as 0.0; such a p, and any p below :data:`P_FLOOR_VALUE`, reads
``< 1e-300``, followed by its base-10 logarithm where the fit kept it (``p_log10``, from the
log survival function): ``< 1e-300 (log10 p = -412.3)``. Pure: no numpy. See
docs/METHODS.md, "Conclusions and p-values".
"""

from __future__ import annotations

import math

__all__ = ["P_FLOOR_VALUE", "finite_number", "p_log10"]

#: Below this a p-value is shown as :data:`P_FLOOR` (a float holds down to about 1e-308).
P_FLOOR_VALUE = 1e-300


def finite_number(value) -> float | None:
    """``value`` as a finite float, or None (None, a bool, text, NaN, ±inf)."""
    if value is None or isinstance(value, (bool, str)):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def p_log10(p, log10=None) -> float | None:
    """The base-10 logarithm of a p-value.

    Parameters
    ----------
    p : the p-value (None or NaN: missing).
    log10 : its logarithm as the fit computed it (``p_log10``), if known.

    Returns
    -------
    float or None
        ``log10`` when finite; else ``log10(p)`` for ``p > 0``; None for a p that
        underflowed to 0.0 without its logarithm (a result stored before ``p_log10``), or a
        missing p.
    """
    lg = finite_number(log10)
    if lg is not None:
        return min(lg, 0.0)
    x = finite_number(p)
    return math.log10(x) if x is not None and x > 0 else None
