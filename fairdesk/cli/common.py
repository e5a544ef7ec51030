"""What every command shares: exit codes, usage errors, opening a project, JSON output."""

from __future__ import annotations

import json

from ..core.jsonio import clean_json, json_default

EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2

__all__ = ["EXIT_NOTHING", "EXIT_OK", "EXIT_USAGE", "UsageError", "clean_json", "dump_json",
           "parse_filters"]


class UsageError(Exception):
    """A mistake in the command line; printed and exit code 2."""


def dump_json(obj, out=None) -> str:
    text = json.dumps(clean_json(json.loads(json.dumps(obj, default=json_default))),
                      ensure_ascii=False, indent=2)
    if out is None or out == "-":
        print(text)
    else:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return text


def parse_filters(pairs) -> dict[str, list[str]]:
    """``COL=VAL`` pairs (repeatable; the same column twice keeps either value)."""
    out: dict[str, list[str]] = {}
    for p in pairs or []:
        if "=" not in p:
            raise UsageError(f"--filter {p!r}: expected COL=VAL")
        k, v = p.split("=", 1)
        out.setdefault(k.strip(), []).append(v.strip())
    return out


def _project(path):
    from ..core.store import Project

    return Project(path, create=True)
