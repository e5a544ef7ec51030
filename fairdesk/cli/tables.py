"""``--table`` input of ``fairdesk audit`` and ``fairdesk regress``: the command line's options
mapped onto :mod:`fairdesk.core.table_input` (a table of references and hypotheses, no audio,
no project), its errors as usage errors."""

from __future__ import annotations

from .common import UsageError


def usage_error(exc) -> UsageError:
    """A table input error as the command line says it (``--table PATH: ...``)."""
    from ..core.table_input import MissingColumn

    hint = "; name it with --ref-col / --hyp-col" if isinstance(exc, MissingColumn) else ""
    return UsageError(f"--table {exc}{hint}")


def read_any_table(path):
    """:func:`fairdesk.core.table_input.read_any_table`, its errors as usage errors."""
    from ..core import table_input
    from ..core.tables import TableError

    try:
        return table_input.read_any_table(path)
    except TableError as exc:
        raise usage_error(exc) from None


def table_frame(a):
    """:func:`fairdesk.core.table_input.table_frame` of ``--table`` with ``--ref-col``,
    ``--hyp-col``, ``--speaker-col`` and ``--content-col``; errors as usage errors."""
    from ..core import table_input
    from ..core.tables import TableError

    try:
        return table_input.table_frame(
            a.table,
            ref_col=a.ref_col,
            hyp_col=a.hyp_col,
            speaker_col=a.speaker_col,
            content_col=a.content_col,
        )
    except TableError as exc:
        raise usage_error(exc) from None
