"""The audit pipeline as pure code with progress and cancel callbacks (no Qt)."""

from .audit import AuditOutcome, AuditRequest, Cancelled, run_audit

__all__ = ["AuditOutcome", "AuditRequest", "Cancelled", "run_audit"]
