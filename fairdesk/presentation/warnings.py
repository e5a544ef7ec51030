"""The typed warnings of a run in words, and where its speaker ids came from.

A run carries its warnings as codes (:class:`fairdesk.jobs.result_parts.Speakers`, and its
notes and warnings as coded notes, :mod:`fairdesk.jobs.run_notes`); every view (console,
run header, card reading, report, ``--json`` and the Python API's ``run.warnings``) words
them through these functions (:mod:`fairdesk.presentation.run_notes`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..core.plurals import count
from .notices import notice_texts

if TYPE_CHECKING:
    from ..jobs.result import AuditRun
    from ..jobs.result_parts import Speakers
    from ..stats.notices import Notice


__all__ = [
    "coded_warnings",
    "run_notes",
    "run_warnings",
    "speaker_notices",
    "speakers_line",
    "warning_text",
    "with_run_warnings",
]


def warning_text(code: str, *, table: bool = True) -> str:
    """One typed warning code of ``Speakers.warnings`` in words (``table``: the run audited
    a ``--table``; else a project dataset, whose speaker ids come from its import): the
    words of its coded note (:func:`speaker_notices`)."""
    from ..jobs.result_parts import NO_SPEAKER_IDS
    from .run_notes import no_speaker_ids

    if code == NO_SPEAKER_IDS:
        return no_speaker_ids(table)
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


def speaker_notices(run: AuditRun) -> tuple[Notice, ...]:
    """The typed warning codes of ``run``'s speakers as coded notes (area ``run``)."""
    from ..jobs.result_parts import NO_SPEAKER_IDS
    from ..jobs.run_notes import NO_SPEAKER_IDS as CODE
    from ..stats.notices import STORED_SENTENCE, Notice

    sp = run.speakers
    table = run.table is not None
    return tuple(
        Notice(CODE, {"table": table})
        if c == NO_SPEAKER_IDS
        else Notice(STORED_SENTENCE, {"text": warning_text(c)})
        for c in (sp.warnings if sp else ())
    )


def coded_warnings(run: AuditRun) -> tuple[str, ...]:
    """The typed warning codes of ``run`` in words (what a card's reading adds)."""
    sp = run.speakers
    return tuple(warning_text(c, table=run.table is not None) for c in (sp.warnings if sp else ()))


def run_warnings(run: AuditRun) -> tuple[str, ...]:
    """Every warning of ``run`` in words: its typed codes first, then its other warnings
    (each once)."""
    return tuple(dict.fromkeys([*coded_warnings(run), *notice_texts(run.warnings or ())]))


def run_notes(run: AuditRun) -> tuple[str, ...]:
    """The notes of ``run`` in words, in order."""
    return tuple(notice_texts(run.notes or ()))


def with_run_warnings(run: AuditRun) -> AuditRun:
    """``run`` with its speakers' typed warnings first among its ``warnings`` (each note
    once): what the Python API returns and ``--json`` words (the codes stay in
    ``speakers``)."""
    notes: list[Notice] = []
    for n in [*speaker_notices(run), *(run.warnings or ())]:
        if n not in notes:  # each once (a Notice is not hashable: its args are a mapping)
            notes.append(n)
    return dataclasses.replace(run, warnings=tuple(notes))
