"""How a p-value reads: the one rule for every sentence and table that shows one (the
numbers, :func:`fairdesk.core.pvalues.p_log10` and the floor, live below every layer). A
p-value below :data:`~fairdesk.core.pvalues.P_FLOOR_VALUE` (0.0 included) reads ``< 1e-300``,
followed by its base-10 logarithm where the fit kept it: ``< 1e-300 (log10 p = -412.3)``. See
docs/METHODS.md, "Conclusions and p-values".
"""

from __future__ import annotations

from ..core.pvalues import P_FLOOR_VALUE, finite_number, p_log10

__all__ = ["P_FLOOR", "floor_text", "p_clause", "p_text"]

#: How a p-value below :data:`P_FLOOR_VALUE` (0.0 included) reads.
P_FLOOR = "< 1e-300"


def floor_text(log10=None) -> str:
    """``< 1e-300``, with ``(log10 p = -412.3)`` when the logarithm is known."""
    lg = finite_number(log10)
    return P_FLOOR if lg is None else f"{P_FLOOR} (log10 p = {lg:.1f})"


def p_text(p, log10=None, *, sig: int | None = None, missing: str = "n/a") -> str:
    """A p-value in a sentence: ``0.042``, ``4.0e-04`` below 0.001 (``sig`` significant
    digits instead, ``{:.{sig}g}``, when given), ``< 1e-300 (log10 p = -412.3)`` below
    :data:`P_FLOOR_VALUE`, ``missing`` if none."""
    x = finite_number(p)
    if x is None:
        return missing
    if x < P_FLOOR_VALUE:
        return floor_text(p_log10(x, log10))
    if sig is not None:
        return f"{x:.{sig}g}"
    return f"{x:.1e}" if x < 0.001 else f"{x:.3f}"


def p_clause(label: str, p, log10=None, *, sig: int | None = None, missing: str = "n/a") -> str:
    """``LR p = 0.042``, or ``LR p < 1e-300 (log10 p = -412.3)`` (no ``=`` before ``<``):
    ``label`` and :func:`p_text`."""
    text = p_text(p, log10, sig=sig, missing=missing)
    return f"{label} {text}" if text.startswith("<") else f"{label} = {text}"
