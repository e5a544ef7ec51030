"""Architecture: the layers hold, no import circle among fairdesk's modules, nothing below the
CLI imports it, no module over 620 lines.

The import graph is built with :mod:`ast` over ``fairdesk/**/*.py``. Every import counts,
at module level or inside a function (a function-level import closes a circle as soon as the
function runs), except those under ``if TYPE_CHECKING:`` (never executed) for the layers.
The circle check counts those too (``type_checking=True``): a type-only circle still ties two
modules together (a type checker, a reader and a refactoring follow it), so the shared type
moves where both can import it (``jobs/prepared.py``). Relative imports are resolved against
the importing module.

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

The root package's ``__init__`` is lazy: its ``_LAZY`` table (public name -> module) is
imported inside ``__getattr__``; each module it names is an edge of the root.

Layers
------
No circles is not enough: the layers follow the data flow, and a module may import only its
own rank or below (:data:`LAYERS`, bottom first)::

    _meta, constants, paths, workers      leaves: import nothing of fairdesk
    core                                  store, audio, importers, progress, errors
    models, recording                     backends; the recorder
    metrics                               per-item and per-group numbers
    nlu
    stats                                 comparisons, regression
    explain, incremental
    jobs                                  the runs that combine the above
    presentation                          formatters, labels, radar axes, group rows (pure)
    review, reports
    cli, gui                              the two front ends
    api, __main__                         the public API (``fairdesk.api``); ``python -m``
    fairdesk                              the root package: its ``_LAZY`` names come from api

Every import counts as in the graph (function-level too, ``TYPE_CHECKING`` not). Within one
unit (a subpackage, or a top-level module) any import goes (circles aside). Units of the same rank are siblings
and do not import each other, except the one-way pairs in :data:`SIBLINGS`, each with its
reason; the reverse of such a pair is refused like any other sibling import:

- ``cli -> gui``: the ``fairdesk gui`` command starts the desktop application; only inside
  the command (function level), so ``fairdesk --help`` never loads Qt.
- ``reports -> review``: the HTML report shows the review's ranked listening list.

Nothing inside fairdesk imports the root package itself (``import fairdesk``,
``from fairdesk import X``, or ``from .. import X`` where ``..`` is the root, even when ``X``
is a submodule): the root is the public API, on top of everything; import the module itself
(``from ..constants import X``), and ``__version__`` and ``FairdeskWarning`` from
:mod:`fairdesk._meta`.

Inside ``gui/`` each part of the window is a subpackage with a docstring (``results/``,
``items/``, ``record/``...); the shared ``widgets/`` import nothing else of the gui, and no
part imports the window that holds it (``app``, ``main_window``); two parts import each
other one way only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
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


def _function_level_nodes(tree) -> set[int]:
    """ids of the nodes inside a function or lambda (run only when it is called)."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inside.update(id(n) for n in ast.walk(node) if n is not node)
    return inside


def _lazy_table(tree) -> list[tuple[int, str]]:
    """``(line, module)`` of each entry of a module-level ``_LAZY = {name: module}`` table."""
    out = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if not any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in targets):
            continue
        if isinstance(node.value, ast.Dict):
            for v in node.value.values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    out.append((v.lineno, v.value))
    return out


@dataclass(frozen=True)
class Edge:
    """One import: ``module`` imports ``target`` at ``line``; ``lazy`` when inside a
    function; ``explicit`` when ``target`` is what the statement names (not a parent
    package that Python runs first)."""

    module: str
    target: str
    line: int
    lazy: bool
    explicit: bool


def import_edges(pkg: Path = PKG, type_checking: bool = False) -> list[Edge]:
    """Every import between fairdesk's modules (see the module doc); with ``type_checking``
    also those under ``if TYPE_CHECKING:``."""
    mods = _module_names(pkg)
    root = pkg.name
    out: list[Edge] = []
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = set() if type_checking else _type_checking_nodes(tree)
        lazy = _function_level_nodes(tree)
        here = mod if _is_package(mod, mods) else mod.rpartition(".")[0]
        own = set(_ancestors(mod))
        found: list[tuple[str, int, bool]] = []
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
                if src == root:  # `from .. import submodule` runs through the root as well
                    targets.append(root)
            found += [(t, node.lineno, id(node) in lazy) for t in targets]
        if mod == root:  # the lazy public API: _LAZY's modules load inside __getattr__
            for line, name in _lazy_table(tree):
                found.append((f"{root}{name}" if name.startswith(".") else name, line, True))
        for t, line, is_lazy in found:
            # the longest prefix that is a fairdesk module is the explicit target
            while t and t not in mods:
                t = t.rpartition(".")[0]
            if not t:
                continue
            out.append(Edge(mod, t, line, is_lazy, True))
            out += [Edge(mod, a, line, is_lazy, False) for a in _ancestors(t) if a not in own]
    return [e for e in out if e.target != e.module]


def import_graph(pkg: Path = PKG, type_checking: bool = False) -> dict[str, set[str]]:
    """Map each fairdesk module to the fairdesk modules it imports (see the module doc); with
    ``type_checking`` also the imports under ``if TYPE_CHECKING:``."""
    graph: dict[str, set[str]] = {m: set() for m in _module_names(pkg)}
    for e in import_edges(pkg, type_checking):
        graph[e.module].add(e.target)
    return graph


#: The ranks, bottom first: a unit (a subpackage of fairdesk, or one of its top-level
#: modules; ``"fairdesk"`` is the root package) may import only units of a lower rank.
LAYERS: list[tuple[str, ...]] = [
    ("_meta", "_lazy", "constants", "paths", "workers"),
    ("core",),
    ("models", "recording"),
    ("metrics",),
    ("nlu",),
    ("stats",),
    ("explain", "incremental"),
    ("jobs",),
    ("presentation",),
    ("review", "reports"),
    ("cli", "gui"),
    ("api", "__main__"),
    ("fairdesk",),
]

#: The sibling imports allowed (one way): (importer, imported) -> (function level only, why).
SIBLINGS: dict[tuple[str, str], tuple[bool, str]] = {
    ("cli", "gui"): (True, "`fairdesk gui` starts the desktop; Qt only when it runs"),
    ("reports", "review"): (False, "the HTML report shows the ranked listening list"),
}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[0] if len(parts) == 1 else parts[1]


def _rank(unit: str) -> int | None:
    return next((i for i, units in enumerate(LAYERS) if unit in units), None)


def layer_violations(edges: list[Edge], root: str = "fairdesk") -> list[str]:
    """One message per import that breaks the layers (see the module doc), naming both
    modules, their units and ranks, and the line."""
    bad: dict[tuple[str, str], str] = {}
    for e in edges:
        key = (e.module, e.target)
        if key in bad or not e.explicit:  # a parent package shares its child's unit
            continue
        mu, tu = _unit(e.module), _unit(e.target)
        where = f"{e.module} (line {e.line})"
        if e.target == root and e.module != root:
            bad[key] = (
                f"{where} imports from the root package {root}: import the module itself "
                "(__version__ and FairdeskWarning from fairdesk._meta)"
            )
            continue
        if mu == tu:
            continue
        mr, tr = _rank(mu), _rank(tu)
        if mr is None or tr is None:
            continue  # test_every_unit_has_a_rank says it
        if tr > mr:
            bad[key] = (
                f"{where} imports {e.target}: {mu} (rank {mr}) is below {tu} (rank {tr}); "
                "move the code down or the import up"
            )
        elif tr == mr:
            allowed = SIBLINGS.get((mu, tu))
            if allowed is None:
                bad[key] = (
                    f"{where} imports {e.target}: {mu} and {tu} are siblings (rank {mr}) "
                    "and do not import each other (see SIBLINGS)"
                )
            elif allowed[0] and not e.lazy:
                bad[key] = (
                    f"{where} imports {e.target} at module level: {mu} -> {tu} only "
                    f"inside a function ({allowed[1]})"
                )
    return sorted(bad.values())


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
    # `from .. import y` takes y through the root package: an edge to the root too
    assert g["fairdesk.z.w"] == {"fairdesk.x.base", "fairdesk.x", "fairdesk.y", "fairdesk"}
    assert g["fairdesk.x.base"] == {"fairdesk.x.impl"}  # own package __init__ not implicit
    assert g["fairdesk.x.impl"] == {"fairdesk.x.base"}
    assert g["fairdesk.y"] == {"fairdesk.x.base", "fairdesk.x"}  # x/__init__ runs first
    assert import_cycles(g) == [["fairdesk.x.base", "fairdesk.x.impl"]]


def _plant(tmp_path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "fairdesk"
    for rel, text in files.items():
        f = pkg / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        for d in [f.parent, *f.parent.parents]:
            if d == pkg.parent:
                break
            (d / "__init__.py").touch()
        f.write_text(text)
    return pkg


def test_layer_check_catches_planted_upward_sibling_and_root_imports(tmp_path):
    pkg = _plant(
        tmp_path,
        {
            "__init__.py": '_LAZY: dict[str, str] = {"thing": ".api"}\n',
            "api.py": "from .cli import main\nfrom .core import store\n",
            "core/store.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from ..stats import compare\n"
                "from ..constants import X\n"
                "def f():\n    from ..jobs.audit import run\n"
            ),
            "core/meta.py": "from .. import __version__\n",
            "core/sub.py": "from .. import constants\n",  # a submodule, still through the root
            "jobs/audit.py": "from fairdesk.core.store import f\nimport fairdesk\n",
            "explain/stage.py": "from ..incremental import run\n",
            "incremental/run.py": "from ..core.store import f\n",
            "cli/gui.py": "def cmd():\n    from ..gui import app\n",
            "cli/shot.py": "from ..gui.app import shot\n",
            "gui/app.py": "from ..reports import html\n",
            "reports/html.py": "from ..review import rank\nfrom ..jobs import audit\n",
            "review/rank.py": "from ..reports import html\n",
            "constants.py": "X = 1\n",
        },
    )
    edges = import_edges(pkg)
    assert Edge("fairdesk", "fairdesk.api", 1, True, True) in edges  # the _LAZY table
    bad = layer_violations(edges)
    assert bad == sorted(
        [
            "fairdesk.cli.shot (line 1) imports fairdesk.gui.app at module level: cli -> gui "
            "only inside a function (`fairdesk gui` starts the desktop; Qt only when it runs)",
            "fairdesk.core.meta (line 1) imports from the root package fairdesk: import the "
            "module itself (__version__ and FairdeskWarning from fairdesk._meta)",
            "fairdesk.core.sub (line 1) imports from the root package fairdesk: import the "
            "module itself (__version__ and FairdeskWarning from fairdesk._meta)",
            "fairdesk.core.store (line 6) imports fairdesk.jobs.audit: core (rank 1) is below "
            "jobs (rank 7); move the code down or the import up",
            "fairdesk.explain.stage (line 1) imports fairdesk.incremental.run: explain and "
            "incremental are siblings (rank 6) and do not import each other (see SIBLINGS)",
            "fairdesk.jobs.audit (line 2) imports from the root package fairdesk: import the "
            "module itself (__version__ and FairdeskWarning from fairdesk._meta)",
            "fairdesk.review.rank (line 1) imports fairdesk.reports.html: review and reports "
            "are siblings (rank 9) and do not import each other (see SIBLINGS)",
        ]
    )


def test_every_unit_has_a_rank():
    units = {_unit(m) for m in import_graph()}
    missing = sorted(u for u in units if _rank(u) is None)
    assert not missing, f"place these in LAYERS: {missing}"
    placed = [u for units in LAYERS for u in units]
    assert len(placed) == len(set(placed))
    assert not set(placed) - units - {"api"}, set(placed) - units  # no stale names


def test_layers_hold():
    bad = layer_violations(import_edges())
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_no_import_circles():
    cycles = import_cycles(import_graph(type_checking=True))
    assert not cycles, "import circles (type-only imports included):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def test_cycle_check_counts_type_only_imports(tmp_path):
    pkg = _plant(
        tmp_path,
        {
            "jobs/audit.py": "from .run_settings import run_settings\n",
            "jobs/run_settings.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .audit import Prepared\n"
            ),
        },
    )
    assert import_cycles(import_graph(pkg)) == []  # the layers' view: never executed
    assert import_cycles(import_graph(pkg, type_checking=True)) == [
        ["fairdesk.jobs.audit", "fairdesk.jobs.run_settings"]
    ]


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
    # gui/record/record_panel.py is being split separately.
    long = {
        str(p.relative_to(PKG)): n
        for p in PKG.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 620
        and p.relative_to(PKG).as_posix() != "gui/record/record_panel.py"
    }
    assert not long, long


GUI = PKG / "gui"


def test_every_gui_part_is_a_package_that_says_what_it_is():
    """``gui/`` is split by the part of the window (``results/``, ``items/``, ``record/``...):
    every folder of it is a package whose ``__init__`` has a docstring saying what the part
    is (and stays light: it imports nothing, so importing one module loads only its part)."""
    bad = []
    for folder in sorted(p for p in GUI.rglob("*") if p.is_dir() and p.name != "__pycache__"):
        init = folder / "__init__.py"
        rel = folder.relative_to(PKG).as_posix()
        if not init.exists():
            bad.append(f"{rel}: no __init__.py")
            continue
        tree = ast.parse(init.read_text(encoding="utf-8"))
        if not (ast.get_docstring(tree) or "").strip():
            bad.append(f"{rel}/__init__.py: no docstring saying what this part of the window is")
        if any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree)):
            bad.append(f"{rel}/__init__.py: imports modules (keep a part's __init__ light)")
    assert not bad, "\n".join(bad)


def _gui_unit(module: str) -> str:
    """The part of ``fairdesk.gui`` a module belongs to: its subpackage, or the top-level
    module itself (``main_window``); ``""`` for the ``fairdesk.gui`` package."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else ""


def test_gui_parts_import_downwards():
    """The shared widgets import nothing else of the gui, no part imports the window that
    holds it (``app``, ``main_window``), and two parts (subpackages or top-level modules of
    ``gui/``) import each other one way only, function-level and type-only imports included."""
    bad = []
    ties: dict[tuple[str, str], str] = {}
    for e in import_edges(type_checking=True):
        if not (e.explicit and e.module.startswith("fairdesk.gui.")):
            continue
        if not e.target.startswith("fairdesk.gui"):
            continue
        mu, tu = _gui_unit(e.module), _gui_unit(e.target)
        if mu == "widgets" and tu != "widgets":
            bad.append(f"{e.module} (line {e.line}) imports {e.target}: widgets/ is shared")
        if (GUI / mu).is_dir() and tu in ("app", "main_window"):
            bad.append(f"{e.module} (line {e.line}) imports {e.target}: the window is on top")
        if mu != tu and mu and tu:
            ties.setdefault((mu, tu), f"{e.module} (line {e.line}) imports {e.target}")
    bad += [
        f"{why} and {ties[(b, a)]}: gui parts {a} and {b} import each other"
        for (a, b), why in ties.items()
        if a < b and (b, a) in ties
    ]
    assert not bad, "\n".join(sorted(set(bad)))
