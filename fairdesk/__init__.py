"""fairdesk: audit whether a speech model works equally well for everyone.

The package root stays light: ``import fairdesk`` loads nothing but the version and the
warning class; the public API's names load their modules on first use (module
``__getattr__``), so ``fairdesk --help`` and the desktop launch stay fast.
"""

from ._meta import FairdeskWarning, __version__

#: public name -> the module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "audit_table": ".api",
    "open_project": ".api",
    "FairdeskProject": ".api",
    "AuditRun": ".jobs.result",
}

__all__ = ["FairdeskWarning", "__version__", *_LAZY]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairdesk' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
