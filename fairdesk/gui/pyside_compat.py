"""A guard against a reference-counting defect of PySide6 6.12.0 on CPython < 3.12.

With PySide6 6.12.0 every call of a Qt method that returns nothing (``setText``, ``setPos``,
``removeItem`` ...) takes one reference from ``None`` without having added it; ``True`` and
``False`` lose references too. On CPython 3.12+ these objects are immortal and nothing
happens; on 3.11 the count reaches zero after some tens of thousands of calls and the process
aborts ("Fatal Python error: none_dealloc: deallocating None"): the item view hit it after
about a hundred items. PySide6 6.11 is not affected (pyproject excludes 6.12.0).

:func:`guard` gives these singletons the very large reference count that CPython 3.12 gives
them, so the defect can no longer reach zero; it does nothing elsewhere.
"""

from __future__ import annotations

import ctypes
import sys

#: The reference count CPython 3.12 gives immortal objects (2**32 - 1 on 64-bit builds).
IMMORTAL = 2**32 - 1
AFFECTED = ("6.12.0",)


def affected(version: str | None = None) -> bool:
    """Whether this interpreter and PySide6 have the defect."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if version is None:
        import PySide6

        version = PySide6.__version__
    return version in AFFECTED


def guard(version: str | None = None) -> bool:
    """Raise the reference counts of None, True and False out of the defect's reach.

    Returns whether it did (only on an affected PySide6 under CPython < 3.12).
    """
    if not affected(version):
        return False
    for obj in (None, True, False):
        # ob_refcnt is the first field of every CPython object (Py_ssize_t).
        ref = ctypes.c_ssize_t.from_address(id(obj))
        if ref.value < IMMORTAL:
            ref.value = IMMORTAL
    return True
