"""What every command shares: exit codes, usage errors, opening a project, JSON output."""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..core.jsonio import json_default, jsonable

EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2

__all__ = [
    "EXIT_NOTHING",
    "EXIT_OK",
    "EXIT_USAGE",
    "UsageError",
    "check_outputs",
    "jsonable",
    "dump_json",
    "human_out",
    "parse_filters",
    "positive_int",
    "term",
]


class UsageError(Exception):
    """A mistake in the command line; printed and exit code 2."""


def dump_json(obj, out=None) -> str:
    """Write ``obj`` as indented JSON to ``out`` (a path; None or ``-``: stdout); NaN and
    ±inf as null. A typed audit result (``AuditRun``) is written as its JSON form
    (``to_json``). A file is replaced only once complete (an ``OutputError`` says why it
    could not be written). Returns the text."""
    if callable(getattr(obj, "to_json", None)):
        obj = obj.to_json()
    text = json.dumps(
        jsonable(json.loads(json.dumps(obj, default=json_default))), ensure_ascii=False, indent=2
    )
    if out is None or out == "-":
        print(text)
    else:  # complete or not at all (fairdesk.core.atomic)
        from ..core.atomic import write_text

        write_text(out, text + "\n")
    return text


def check_outputs(a) -> None:
    """Refuse an output path that cannot be written before the command's work starts:
    ``--json PATH`` (every command; ``-`` is stdout) must name a file in an existing folder
    one can write in (``fairdesk.core.atomic.check_output_file``)."""
    from ..core.atomic import check_output_file

    target = getattr(a, "json", None)
    if isinstance(target, str) and target != "-":
        check_output_file(target)


def parse_filters(pairs) -> dict[str, list[str]]:
    """``COL=VAL`` pairs (repeatable; the same column twice keeps either value)."""
    out: dict[str, list[str]] = {}
    for p in pairs or []:
        if "=" not in p:
            raise UsageError(f"--filter {p!r}: expected COL=VAL")
        k, v = p.split("=", 1)
        out.setdefault(k.strip(), []).append(v.strip())
    return out


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1 (``--limit -5`` would silently drop items)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(
            f"{n} is not allowed: give a whole number of at least 1 (leave the option out for all)"
        )
    return n


def human_out(json_target):
    """Where human-readable text goes: stderr when the JSON goes to stdout (``--json -``),
    so that stdout stays one JSON document."""
    return sys.stderr if json_target == "-" else sys.stdout


# C0 controls but tab and newline, DEL, C1 controls, and bidi overrides: they move the cursor,
# recolour or rewrite the terminal, or reorder what is shown.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def term(value) -> str:
    """``value`` as text safe to print on a terminal: control characters (ANSI escapes
    included) are shown escaped (``\\x1b``) instead of acting on the terminal."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], str(value))


def _project(path, create: bool = False, write: str | None = None):
    """Open the project at ``path``. Only ``init``, ``demo`` and ``import`` create one
    (``create=True``); every other command refuses a folder without a project, so that a
    mistyped ``--project`` never makes a new empty one. A project that cannot be written is
    opened read-only; ``write`` (what the command does, e.g. "an import") refuses it before
    any work (a ReadOnlyProject, exit code 2)."""
    from ..core.integrity import refuse_read_only
    from ..core.store import Project

    if path is None or not str(path).strip():
        raise UsageError("--project: give the project folder")
    p = Project(path, create=create)
    if write:
        refuse_read_only(p, write)
    return p
