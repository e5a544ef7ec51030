"""The typed warnings of a run in words, and where its speaker ids came from.

A run carries its warnings as codes (:class:`fairdesk.jobs.result_parts.Speakers`); every
view (console, run header, card reading, report, ``--json`` and the Python API's
``run.warnings``) words them through these functions.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..core.plurals import count

if TYPE_CHECKING:
    from ..jobs.result import AuditRun
    from ..jobs.result_parts import Speakers

__all__ = [
    "coded_warnings",
    "run_warnings",
    "speakers_line",
    "warning_text",
    "with_worded_warnings",
]


def warning_text(code: str, *, table: bool = True) -> str:
    """One typed warning code in words (``table``: the run audited a ``--table``; else a
    project dataset, whose speaker ids come from its import)."""
    from ..jobs.result_parts import NO_SPEAKER_IDS

    if code == NO_SPEAKER_IDS:
        fix = (
            "name the speaker column with --speaker-col (speaker_col= in Python)"
            if table
            else "import the dataset again naming its speaker column with --speaker-col"
        )
        return (
            "no speaker ids: each utterance counts as independent, so if speakers recorded "
            f"several utterances the intervals are too narrow; {fix}"
        )
    return code.replace("_", " ")


def speakers_line(speakers: Speakers | None) -> str | None:
    """The run header's line on speakers: the column used and how many ids it holds
    (None for a run stored before it was recorded)."""
    if speakers is None:
        return None
    if speakers.column is None:
        return "speakers: none (no speaker column): each utterance counts as independent"
    if not speakers.n_speakers:
        return f"speakers: column {speakers.column!r} holds no ids: each utterance counts as independent"
    return f"speakers: {count(speakers.n_speakers, 'speaker')} from column {speakers.column!r}"


def coded_warnings(run: AuditRun) -> tuple[str, ...]:
    """The typed warning codes of ``run`` in words (what a card's reading adds)."""
    sp = run.speakers
    return tuple(warning_text(c, table=run.table is not None) for c in (sp.warnings if sp else ()))


def run_warnings(run: AuditRun) -> tuple[str, ...]:
    """Every warning of ``run`` in words: its typed codes first, then its other warnings
    (each once)."""
    return tuple(dict.fromkeys([*coded_warnings(run), *(run.warnings or ())]))


def with_worded_warnings(run: AuditRun) -> AuditRun:
    """``run`` with :func:`run_warnings` as its ``warnings`` (what the Python API returns
    and ``--json`` writes: the codes stay in ``speakers``)."""
    return dataclasses.replace(run, warnings=run_warnings(run))
