"""No button, action or toggle passes its ``checked`` bool into a parameter that means
something else. ``clicked(bool)``, ``triggered(bool)`` and ``toggled(bool)`` fill the first
parameter of a slot that can take one: connected to ``plan_session(self, dataset=None)``,
"Plan a recording session…" got ``False`` as the dataset name and crashed
(``'bool' object has no attribute 'strip'``). Scanned in the source of ``fairdesk/gui``: a
slot connected to one of these signals may not have an optional first parameter (a lambda's
first parameter with a default must be named ``_…``, which takes the bool)."""

from __future__ import annotations

import ast
from pathlib import Path

import fairdesk.gui

SIGNALS = frozenset({"clicked", "triggered", "toggled"})


def _functions(trees: dict[str, ast.Module]) -> dict[str, list[ast.FunctionDef]]:
    out: dict[str, list[ast.FunctionDef]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                out.setdefault(node.name, []).append(node)
    return out


def _optional_first(f: ast.FunctionDef | ast.Lambda) -> ast.arg | None:
    """The first parameter after ``self`` when it has a default (None otherwise)."""
    args = [a for a in f.args.args if a.arg not in ("self", "cls")]
    if not args:
        return None
    n_defaults = len(f.args.defaults)
    first_with_default = len(f.args.args) - n_defaults
    index = f.args.args.index(args[0])
    return args[0] if index >= first_with_default else None


def bool_into_parameter(sources: dict[str, str]) -> list[str]:
    """``file:line`` of every connection of :data:`SIGNALS` whose slot would take the bool
    into an optional parameter."""
    trees = {name: ast.parse(text) for name, text in sources.items()}
    funcs = _functions(trees)
    bad = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "connect"
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr in SIGNALS
                and node.args
            ):
                continue
            slot = node.args[0]
            where = f"{name}:{node.lineno}: {ast.unparse(node)}"
            if isinstance(slot, ast.Lambda):
                a = _optional_first(slot)
                if a is not None and not a.arg.startswith("_"):
                    bad.append(where)
                continue
            target = slot.attr if isinstance(slot, ast.Attribute) else getattr(slot, "id", None)
            if any(_optional_first(f) is not None for f in funcs.get(target, [])):
                bad.append(where)
    return bad


def test_the_scan_finds_the_plan_session_crash():
    old = """
class PlanDialog:
    def __init__(self):
        self.record_btn.clicked.connect(self.plan_session)
        self.close_btn.clicked.connect(lambda: self.plan_session())
        self.other.clicked.connect(lambda _=False, k=1: self.use(k))
        self.wrong.triggered.connect(lambda k=1: self.use(k))
        self.on.toggled.connect(self.set_on)

    def plan_session(self, dataset=None, prompt_list=None):
        return dataset.strip()

    def set_on(self, on):
        pass
"""
    bad = bool_into_parameter({"plan_view.py": old})
    assert [b.split(":")[1] for b in bad] == ["4", "7"]


def test_no_gui_slot_takes_a_checked_bool_as_another_parameter():
    root = Path(fairdesk.gui.__file__).parent
    sources = {str(p.relative_to(root)): p.read_text("utf-8") for p in root.rglob("*.py")}
    assert len(sources) > 20
    assert bool_into_parameter(sources) == []
