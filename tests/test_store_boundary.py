"""The store boundary: SQL runs only in ``fairdesk/core/`` (the project store and its run,
cache and recording modules). Outside it no module calls ``.execute``, ``.executemany`` or
``.executescript``, nor imports :mod:`sqlite3`; checked with :mod:`ast` over
``fairdesk/**/*.py``."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "fairdesk"
SQL_CALLS = frozenset({"execute", "executemany", "executescript"})


def store_violations(source: str, rel: str) -> list[str]:
    """``rel:line: what`` for each SQL call or ``sqlite3`` import in one module's source,
    in line order."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SQL_CALLS
        ):
            out.append((node.lineno, f"calls .{node.func.attr}()"))
        elif isinstance(node, ast.Import):
            out += [
                (node.lineno, f"imports {a.name}")
                for a in node.names
                if a.name.split(".")[0] == "sqlite3"
            ]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").split(".")[0] == "sqlite3"
        ):
            out.append((node.lineno, f"imports from {node.module}"))
    return [f"{rel}:{line}: {what}" for line, what in sorted(out)]


def outside_core(pkg: Path = PKG) -> list[str]:
    """The violations in every module of ``pkg`` outside ``pkg/core/``."""
    out = []
    for py in sorted(pkg.rglob("*.py")):
        rel = py.relative_to(pkg).as_posix()
        if rel.startswith("core/"):
            continue
        out += store_violations(py.read_text(encoding="utf-8"), rel)
    return out


def test_checker_finds_planted_calls_and_imports(tmp_path):
    pkg = tmp_path / "fairdesk"
    (pkg / "core").mkdir(parents=True)
    (pkg / "gui").mkdir()
    (pkg / "core" / "store.py").write_text(
        "import sqlite3\n\ndef f(c):\n    c.execute('SELECT 1')\n"
    )
    (pkg / "gui" / "panel.py").write_text(
        "def load(project):\n"
        "    import sqlite3.dbapi2\n"
        "    rows = project.conn.execute('SELECT * FROM runs').fetchall()\n"
        "    with project.transaction() as c:\n"
        "        c.executemany('DELETE FROM runs WHERE id=?', [(1,)])\n"
        "    getattr(project, 'conn').executescript('VACUUM')\n"
        "    return rows\n"
    )
    (pkg / "gui" / "other.py").write_text(
        "from sqlite3 import Row\nexecute = print\nexecute('not a method call')\n"
        "class Job:\n    def execute(self):\n        return 1\n"
    )
    assert outside_core(pkg) == [
        "gui/other.py:1: imports from sqlite3",
        "gui/panel.py:2: imports sqlite3.dbapi2",
        "gui/panel.py:3: calls .execute()",
        "gui/panel.py:5: calls .executemany()",
        "gui/panel.py:6: calls .executescript()",
    ]


def test_no_sql_outside_core():
    bad = outside_core()
    assert not bad, "SQL outside fairdesk/core (move it into a core store module):\n" + "\n".join(
        bad
    )
