"""Typed errors of the core layer. Each message names the file (and row) and what to do."""

from __future__ import annotations


class FairdeskError(Exception):
    """Base class of fairdesk's own errors (shown to the user as they are)."""


class AudioError(FairdeskError):
    """An audio file could not be used.

    Parameters
    ----------
    path : the file.
    reason : what is wrong and what to do about it.
    """

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class StoreError(FairdeskError):
    """The project store could not be opened or written."""


class ImportFailed(FairdeskError):
    """A whole import was refused (nothing was written)."""


class Cancelled(FairdeskError):
    """Raised inside a job when the user cancelled it; the state stays consistent."""
