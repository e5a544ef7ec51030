"""The one rule that finds a table's speaker column (docs/METHODS.md, "Speakers").

Every reader of a table uses it: the importers (:mod:`fairdesk.core.import_rows`), the
``--table`` input of ``fairdesk audit`` / ``fairdesk regress`` and ``fairdesk.audit_table``
(:mod:`fairdesk.core.table_input`). A column named exactly ``speaker_id`` wins; otherwise
one of :data:`SPEAKER_ALIASES`, compared case-insensitively; two of these at once are
refused, since taking either would be a guess.
"""

from __future__ import annotations

from collections.abc import Iterable

from .tables import TableError

__all__ = [
    "SPEAKER_ALIASES",
    "SPEAKER_COLUMNS",
    "AmbiguousSpeakerColumn",
    "MissingSpeakerColumn",
    "find_speaker_column",
]

#: The column that wins when present (exact name).
SPEAKER_ID = "speaker_id"
#: Other names of a speaker column, compared case-insensitively.
SPEAKER_ALIASES = (
    "speaker_id",
    "speaker",
    "spk",
    "spk_id",
    "speakerid",
    "client_id",
    "participant",
    "participant_id",
    "talker",
    "subject",
    "subject_id",
    "reader",
)
#: Every name the rule looks for, ``speaker_id`` first.
SPEAKER_COLUMNS = SPEAKER_ALIASES


class AmbiguousSpeakerColumn(TableError):
    """Two columns could each be the speaker column (``columns``: both)."""

    def __init__(self, message: str, columns: tuple[str, str]):
        super().__init__(message)
        self.columns = columns


class MissingSpeakerColumn(TableError):
    """The speaker column the caller named is not in the table."""


def find_speaker_column(
    columns: Iterable, wanted: str | None = None, *, source: str = "table"
) -> str | None:
    """The table's speaker column by the one rule, or None when it has none.

    Parameters
    ----------
    columns : the table's column names.
    wanted : the column the user named (``--speaker-col``); it must exist.
    source : what messages call the table (its path).

    Returns
    -------
    str or None
        The column's name as the table spells it.

    Raises
    ------
    MissingSpeakerColumn
        ``wanted`` is not a column.
    AmbiguousSpeakerColumn
        No ``speaker_id`` and two or more columns of :data:`SPEAKER_ALIASES`.
    """
    names = [str(c) for c in columns]
    if wanted:
        if wanted not in names:
            raise MissingSpeakerColumn(
                f"{source}: no column {wanted!r} for the speaker id (columns: {', '.join(names)})"
            )
        return wanted
    if SPEAKER_ID in names:
        return SPEAKER_ID
    found = [c for c in names if c.strip().lower() in SPEAKER_ALIASES]
    if len(found) > 1:
        a, b = found[0], found[1]
        more = f" (and {', '.join(repr(c) for c in found[2:])})" if len(found) > 2 else ""
        raise AmbiguousSpeakerColumn(
            f"{source}: two columns could hold the speaker ids, {a!r} and {b!r}{more}; "
            "pick one with --speaker-col (speaker_col= in Python)",
            (a, b),
        )
    return found[0] if found else None
