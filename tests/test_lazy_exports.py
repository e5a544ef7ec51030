"""The lazily exported names are typed: each package whose ``__init__`` loads its public names
on first use (a ``_LAZY`` table: name -> module, read by ``fairdesk._lazy``) also imports
exactly those names from the same modules under ``if TYPE_CHECKING:``, so a type checker
(and the py.typed promise) sees ``fairdesk.metrics.compute_item_stats`` as the function it
is, not as whatever ``__getattr__`` returns. Parsed with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "fairdesk"
LAZY_INITS = sorted(
    p for p in ROOT.rglob("__init__.py") if "_LAZY" in p.read_text(encoding="utf-8")
)


def _lazy_table(tree: ast.Module) -> dict[str, str]:
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in targets):
                assert node.value is not None
                return ast.literal_eval(node.value)
    raise AssertionError("no _LAZY table")


def _type_checking_imports(tree: ast.Module) -> dict[str, str]:
    """``{name: "." * level + module}`` of the imports under a top-level ``if TYPE_CHECKING:``,
    each one ``name as name`` (an explicit re-export)."""
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom), ast.unparse(stmt)
                for alias in stmt.names:
                    assert alias.asname == alias.name, f"{alias.name}: import it 'as' itself"
                    out[alias.name] = "." * stmt.level + (stmt.module or "")
    return out


def test_the_lazy_packages_are_found():
    names = {p.parent.relative_to(ROOT.parent).as_posix() for p in LAZY_INITS}
    assert {"fairdesk", "fairdesk/metrics", "fairdesk/stats"} <= names


@pytest.mark.parametrize("init", LAZY_INITS, ids=lambda p: p.parent.name)
def test_type_checking_block_matches_the_lazy_table(init: Path):
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assert _type_checking_imports(tree) == _lazy_table(tree)
