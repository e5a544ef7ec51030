"""The audit pipeline as pure code with progress and cancel callbacks (no Qt).

The names below are imported on first use, so importing a job module never drags in the
statistics stack (scipy, seconds to import) before it is needed.
"""

__all__ = ["AuditOutcome", "AuditRequest", "Cancelled", "run_audit"]


def __getattr__(name):
    if name in __all__:
        from . import audit

        return getattr(audit, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
