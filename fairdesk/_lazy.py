"""The lazy attribute loader of the packages that re-export names (``fairdesk``,
``fairdesk.metrics``, ``fairdesk.stats``): a name is imported from its module on first use,
so importing the package (or one of its submodules) pulls in nothing else."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping


def lazy_attributes(
    package: str, table: Mapping[str, str], namespace: MutableMapping
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``table`` maps each name to the module
    (relative to ``package``) that defines it; a loaded name is kept in ``namespace`` (the
    package's globals)."""

    def __getattr__(name: str):
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
