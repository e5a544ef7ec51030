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


class SpanError(AudioError):
    """A span (``start_s``–``end_s``) does not fit its file: empty, negative, or outside it.
    The file itself may be fine; the times that name the span are what to fix (a Kaldi
    ``segments`` line, an ELAN interval)."""


class StoreError(FairdeskError):
    """The project store could not be opened or written."""


class DamagedProject(StoreError):
    """``project.sqlite`` is damaged (or empty): the message says what the integrity check
    found, that nothing was changed, and names ``fairdesk check`` and the backup."""


class ReadOnlyProject(StoreError):
    """A write to a project opened read-only (a read-only disk, a folder or file without
    write permission): the message names the project and what still works."""


class StoreFull(StoreError):
    """The disk holding the project filled up while writing to it; the transaction was
    rolled back (the message names the folder and what to do)."""


class ImportFailed(FairdeskError):
    """A whole import was refused (nothing was written)."""


class Cancelled(FairdeskError):
    """Raised inside a job when the user cancelled it; the state stays consistent."""
