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


#: How many refused rows the console lists (the JSON has them all).
SHOWN_PROBLEMS = 10


def problem_lines(problems, limit: int = SHOWN_PROBLEMS) -> list[str]:
    """The first ``limit`` refused rows of a table (``source``, ``line``, ``reason``) as
    console lines, and how many more the JSON lists."""
    out = []
    for pr in list(problems)[:limit]:
        src = f"{pr['source']}: " if pr.get("source") else ""
        line = f"line {pr['line']}: " if pr.get("line") is not None else ""
        item = f"item {pr['item']}: " if pr.get("item") is not None else ""
        out.append(f"  {src}{line}{item}{pr.get('reason')}")
    if len(problems) > limit:
        out.append(f"  ... and {len(problems) - limit} more (see --json for all)")
    return out


def table_rows_lines(source: str, rows, problems, others: str = "") -> list[str]:
    """``--table F: N of M rows used`` with the refused rows (first :data:`SHOWN_PROBLEMS`)
    and the warnings about used rows.

    ``rows``: a :class:`~fairdesk.jobs.result_parts.TableRows`; ``others``: what left out
    the rows neither used nor refused (``--filter``, ``--sample``).
    """
    from ..presentation import count

    head = f"--table {source}: {rows.used} of {count(rows.rows, 'row')} used"
    rest = rows.rows - rows.used - rows.refused
    if rest > 0:
        head += f" ({rest} left out by {others or 'the selection'})"
    if rows.refused:
        head += f"; {rows.refused} refused" + (":" if problems else "")
    out = [head, *problem_lines(problems)]
    out += [f"warning: {w}" for w in rows.warnings]
    return out


def no_rows_error(source, problems) -> UsageError:
    """``--table F: no usable rows`` with the reason and the first refused rows."""
    from ..core.table_input import no_rows_message

    lines = problem_lines(problems) if len(problems) > 1 else []
    return UsageError("\n".join([f"--table {no_rows_message(str(source), problems)}", *lines]))


def print_table_rows(run, a, file=None) -> None:
    """:func:`table_rows_lines` of a table audit (``run.table_rows``), terminal-safe."""
    import sys

    from .common import term

    others = " and ".join(
        opt
        for opt, on in (
            ("--filter", getattr(a, "filter", None)),
            ("--sample", getattr(a, "sample", None)),
        )
        if on
    )
    for line in table_rows_lines(str(run.table), run.table_rows, run.problems or (), others):
        print(term(line), file=file or sys.stderr)
