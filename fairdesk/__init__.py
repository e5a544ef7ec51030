"""fairdesk: audit whether a speech model works equally well for everyone.

The package root stays light: ``import fairdesk`` loads nothing but the version and the
warning class; the public API's names load their modules on first use (module
``__getattr__``), so ``fairdesk --help`` and the desktop launch stay fast.
"""

from typing import TYPE_CHECKING

from ._lazy import lazy_attributes
from ._meta import FairdeskWarning, __version__

#: public name -> the module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "audit_table": ".api",
    "open_project": ".api",
    "FairdeskProject": ".api",
    "reading": ".api",
    "AuditRun": ".jobs.result",
    "AuditSettings": ".stats.settings",
}

# the same names for type checkers (``X as X``: re-exported; tests/test_lazy_exports.py)
if TYPE_CHECKING:
    from .api import FairdeskProject as FairdeskProject
    from .api import audit_table as audit_table
    from .api import open_project as open_project
    from .api import reading as reading
    from .jobs.result import AuditRun as AuditRun
    from .stats.settings import AuditSettings as AuditSettings

__all__ = ["FairdeskWarning", "__version__", *_LAZY]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
