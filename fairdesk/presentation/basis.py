"""The basis E of the diacritic metrics, the same in every view: every DER, RDD, net loss
and TER value is shown with the number of expected marks it rests on, ``12.5% (E = 8)``
(docs/METHODS.md, "When the diacritic metrics apply")."""

from __future__ import annotations

from .numbers import MISSING, finite


def group_basis(group, metric: str) -> float | None:
    """A group's basis E of ``metric`` (``GroupInfo.basis``), None for a metric without one."""
    return finite((getattr(group, "basis", None) or {}).get(metric))


def fmt_basis(basis) -> str:
    """``E = 1,234`` (:data:`MISSING` for None)."""
    x = finite(basis)
    return MISSING if x is None else f"E = {int(round(x)):,}"


def with_basis(text: str, basis) -> str:
    """``text`` followed by its basis, ``12.5% (E = 8)``; ``text`` as is without one."""
    return text if finite(basis) is None else f"{text} ({fmt_basis(basis)})"


def comparison_basis(c) -> str:
    """A comparison's basis on both sides, ``E = 8 + 340 expected diacritics`` ('' for a
    metric without one)."""
    b = getattr(c, "basis", None)
    if b is None:
        return ""
    return f"E = {int(round(b.group)):,} + {int(round(b.reference)):,} {b.unit}"
