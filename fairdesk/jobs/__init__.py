"""The audit pipeline as pure code with progress and cancel callbacks (no Qt).

The names below are imported on first use: ``fairdesk.jobs.progress`` (what the GUI's job
runner needs at start) must not drag in the statistics stack (scipy, seconds to import).
"""

__all__ = ["AuditOutcome", "AuditRequest", "Cancelled", "run_audit"]


def __getattr__(name):
    if name in __all__:
        from . import audit

        return getattr(audit, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
