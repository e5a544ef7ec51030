"""The ``fairdesk`` command: everything the GUI does, a command can do.

Exit codes: 0 ok, 1 nothing was done (e.g. nothing imported, every item failed),
2 usage error (bad arguments, unknown dataset or column, an extra that is not installed:
``fairdesk.core.extras``).

One module per command group (``data``, ``audit``, ``regress``, ``show``, ``record``,
``incremental``, ``gui``); ``common`` holds what they share.
"""

from __future__ import annotations

import argparse
import sys

from .._meta import __version__
from .common import EXIT_NOTHING, EXIT_OK, EXIT_USAGE, UsageError, check_outputs, dump_json

__all__ = [
    "EXIT_NOTHING",
    "EXIT_OK",
    "EXIT_USAGE",
    "UsageError",
    "build_parser",
    "dump_json",
    "main",
]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="fairdesk", description="Audit whether a speech model works equally well for everyone."
    )
    ap.add_argument("--version", action="version", version=f"fairdesk {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    from . import (
        agreement,
        audit,
        check,
        data,
        diacritics,
        gui,
        incremental,
        plan,
        record,
        regress,
        report,
        show,
        systems,
    )

    data.add_commands(sub)
    check.add_command(sub)
    audit.add_command(sub)
    regress.add_command(sub)
    show.add_command(sub)
    gui.add_command(sub)
    record.add_command(sub)
    incremental.add_command(sub)
    report.add_commands(sub)
    diacritics.add_command(sub)
    plan.add_command(sub)
    systems.add_command(sub)
    agreement.add_command(sub)
    return ap


def _check_text_args(a) -> None:
    """Refuse an argument holding bytes that are not UTF-8 (the shell passes them as lone
    surrogates): it would be stored or printed as text and fail far from here."""
    from ..core.tables import undecodable

    for name, value in vars(a).items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and any("\ud800" <= ch <= "\udfff" for ch in v):
                why = undecodable(v) or "text is not valid UTF-8"
                raise UsageError(
                    f"--{name.replace('_', '-')} {ascii(v)}: {why.split(';')[0]}; "
                    "rename the file or folder, or pass the value in UTF-8"
                )


def main(argv=None) -> int:
    from ..core.store import close_all

    try:
        return _main(argv)
    finally:
        import gc

        close_all()  # each writing connection moves its -wal into project.sqlite
        gc.collect()  # and those only an exception's traceback still held (a full disk)


def error_text(exc: BaseException) -> str:
    """What the command line prints for a refusal: a minimums refusal as its table and cost
    (``presentation.minimums_words.shortfall_text`` of its numbers), any other error as its
    message."""
    from ..stats.minimums import MinimumsRefused

    if isinstance(exc, MinimumsRefused):
        from ..presentation.minimums_words import shortfall_text

        return shortfall_text(exc.shortfall)
    return str(exc)


def _main(argv) -> int:
    from ..core.errors import FairdeskError, ImportFailed
    from ..core.integrity import DATABASE_ERRORS, database_error
    from ..core.store import last_opened

    ap = build_parser()
    a = ap.parse_args(argv)
    if not getattr(a, "func", None):
        ap.print_help()
        return EXIT_USAGE
    try:
        _check_text_args(a)
        check_outputs(a)
        return int(a.func(a) or 0)
    except UsageError as exc:
        print(f"fairdesk {a.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ImportFailed as exc:
        print(f"fairdesk {a.command}: {exc}", file=sys.stderr)
        return EXIT_NOTHING
    except (FairdeskError, ValueError) as exc:
        print(f"fairdesk {a.command}: {error_text(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except DATABASE_ERRORS as exc:  # damaged, full or read-only store met outside a transaction
        print(f"fairdesk {a.command}: {database_error(exc, last_opened())}", file=sys.stderr)
        return EXIT_USAGE
    except ModuleNotFoundError as exc:
        # a lazy import of an extra's package that no code turned into a MissingExtra
        from ..core.extras import extra_for, missing_extra_message

        extra = extra_for(exc.name)
        if extra is None:
            raise
        print(
            f"fairdesk {a.command}: {missing_extra_message(f'fairdesk {a.command}', extra, exc.name)}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("fairdesk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `fairdesk items --json | head`: the reader left; say nothing, as `cat` does.
        import os

        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
