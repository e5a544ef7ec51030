"""``fairdesk check``: is a project's store sound? (integrity check, schema version, the
backup, what to do). Opens the database read-only: nothing is migrated or changed."""

from __future__ import annotations

from .common import EXIT_NOTHING, EXIT_OK, UsageError, dump_json, human_out, term


def cmd_check(a):
    from ..core.integrity import check_project

    if a.project is None or not str(a.project).strip():
        raise UsageError("--project: give the project folder")
    rep = check_project(a.project, full=not a.quick)
    if a.json:
        dump_json(rep.to_dict(), a.json)
    out = human_out(a.json)
    verdict = (
        "ok" if rep.ok else "DAMAGED" if rep.integrity and rep.integrity != ["ok"] else "not usable"
    )
    print(term(f"{rep.folder}: {verdict}"), file=out)
    what = "quick_check" if a.quick else "integrity_check"
    if rep.integrity:
        print(term(f"  {what}: {'; '.join(rep.integrity[:20])}"), file=out)
        if len(rep.integrity) > 20:
            print(f"  ... and {len(rep.integrity) - 20} more lines (see --json)", file=out)
    if rep.schema is not None:
        print(f"  schema: {rep.schema} (this fairdesk: {rep.code_schema})", file=out)
    if rep.size is not None:
        wal = f", -wal {rep.wal} bytes" if rep.wal else ""
        print(f"  size: {rep.size} bytes{wal}", file=out)
    print(
        f"  read-only: {rep.read_only}" if rep.read_only else "  writable: yes",
        file=out,
    )
    b = rep.backup
    if b:
        state = "ok" if b["ok"] else f"damaged ({'; '.join(b['integrity_check'][:3])})"
        print(
            term(
                f"  backup: {b['path']} (from {b['modified']}, {b['age']} ago, schema "
                f"{b['schema_version']}): {state}"
            ),
            file=out,
        )
    else:
        print("  backup: none (one is kept before migrations and large imports)", file=out)
    for p in rep.problems:
        print(term(f"  problem: {p}"), file=out)
    for line in rep.advice:
        print(term(f"  what to do: {line}"), file=out)
    return EXIT_OK if rep.ok else EXIT_NOTHING


def add_command(sub):
    s = sub.add_parser(
        "check",
        help="check a project's store: integrity, schema version, the backup, what to do",
    )
    s.add_argument("--project", required=True)
    s.add_argument(
        "--quick",
        action="store_true",
        help="PRAGMA quick_check instead of the full integrity_check (faster on large stores)",
    )
    s.add_argument("--json", metavar="OUT", help="the report as JSON (- for stdout)")
    s.set_defaults(func=cmd_check)
