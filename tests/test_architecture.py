"""Architecture: no import circle among fairdesk's modules; nothing below the CLI imports it.

The import graph is built with :mod:`ast` over ``fairdesk/**/*.py``. Every import counts,
at module level or inside a function (a function-level import closes a circle as soon as the
function runs), except those under ``if TYPE_CHECKING:`` (never executed). Relative imports
are resolved against the importing module.

Nodes are modules; a package is its ``__init__``. For ``import a.b.c`` or
``from a.b import c`` the edges are:

- the *explicit target*: ``a.b.c`` when it is a module of fairdesk, else the package or module
  that holds the imported name (``from a.b import name`` -> ``a.b``). This edge always counts,
  also when the target is the importer's own package: a submodule that takes a name from its
  package's ``__init__`` while that ``__init__`` imports the submodule is a real circle.
- the *implicit parents*: Python runs ``a/__init__`` and ``a/b/__init__`` before ``a.b.c``.
  These count too, except the importer's own ancestor packages: those are already being
  initialised when the importer runs (that is how packages work, not a circle of ours).

A circle is a strongly connected component with more than one module (or a module
importing itself explicitly).
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "fairdesk"


def _module_names(pkg: Path = PKG) -> dict[str, Path]:
    out = {}
    for py in pkg.rglob("*.py"):
        parts = list(py.relative_to(pkg.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = py
    return out


def _is_package(name: str, mods: dict[str, Path]) -> bool:
    return mods[name].name == "__init__.py"


def _type_checking_nodes(tree) -> set[int]:
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            t = node.test
            name = t.id if isinstance(t, ast.Name) else getattr(t, "attr", None)
            if name == "TYPE_CHECKING":
                for child in node.body:
                    skip.update(id(n) for n in ast.walk(child))
    return skip


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph(pkg: Path = PKG) -> dict[str, set[str]]:
    """Map each fairdesk module to the fairdesk modules it imports (see the module doc)."""
    mods = _module_names(pkg)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_nodes(tree)
        here = mod if _is_package(mod, mods) else mod.rpartition(".")[0]
        own = set(_ancestors(mod))
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                for a in node.names:
                    sub = f"{src}.{a.name}"
                    targets.append(sub if sub in mods else src)
            for t in targets:
                # the longest prefix that is a fairdesk module is the explicit target
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if not t:
                    continue
                graph[mod].add(t)
                graph[mod].update(a for a in _ancestors(t) if a not in own)
    for mod in graph:
        graph[mod].discard(mod)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_planted_circle():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(g) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_graph_resolves_relative_function_level_and_parent_imports(tmp_path):
    pkg = tmp_path / "fairdesk"
    (pkg / "x").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "x" / "__init__.py").write_text("from .impl import thing\n")
    (pkg / "x" / "base.py").write_text("def build():\n    from . import impl\n")
    (pkg / "x" / "impl.py").write_text("from .base import build\nthing = 1\n")
    (pkg / "y.py").write_text("from fairdesk.x.base import build\n")
    (pkg / "z").mkdir()
    (pkg / "z" / "__init__.py").write_text("")
    (pkg / "z" / "w.py").write_text("from ..x import base\nfrom .. import y\n")
    g = import_graph(pkg)
    assert g["fairdesk.z.w"] == {"fairdesk.x.base", "fairdesk.x", "fairdesk.y"}
    assert g["fairdesk.x.base"] == {"fairdesk.x.impl"}  # own package __init__ not implicit
    assert g["fairdesk.x.impl"] == {"fairdesk.x.base"}
    assert g["fairdesk.y"] == {"fairdesk.x.base", "fairdesk.x"}  # x/__init__ runs first
    assert import_cycles(g) == [["fairdesk.x.base", "fairdesk.x.impl"]]


def test_no_import_circles():
    cycles = import_cycles(import_graph())
    assert not cycles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_nothing_outside_cli_imports_cli():
    graph = import_graph()
    bad = sorted(
        f"{m} imports {t}"
        for m, ts in graph.items()
        for t in ts
        if (t == "fairdesk.cli" or t.startswith("fairdesk.cli."))
        and not (m == "fairdesk.cli" or m.startswith("fairdesk.cli.") or m == "fairdesk.__main__")
    )
    assert not bad, "\n".join(bad)


def test_no_module_over_600_lines():
    # gui/record_panel.py is being split separately.
    long = {
        str(p.relative_to(PKG)): n
        for p in PKG.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 620
        and p.relative_to(PKG).as_posix() != "gui/record_panel.py"
    }
    assert not long, long
