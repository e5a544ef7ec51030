"""The views read the typed audit result (``AuditRun``), not its JSON.

Over ``fairdesk/gui``, ``fairdesk/reports``, ``fairdesk/cli`` and ``fairdesk/review`` (parsed
with ``ast``, nothing imported) a *string-key access* is ``x["key"]`` or ``x.get("key")``
with a string constant. It is flagged when ``x`` conventionally holds an audit result or a
stored payload:

- a name in :data:`SUSPECT_NAMES`, or an attribute in :data:`SUSPECT_ATTRS`
  (``self.payload[...]``, ``outcome.result.get(...)``);
- a name the same function assigned from a call of :data:`PAYLOAD_SOURCES` (whatever it is
  called: ``p = run_payload(...)`` then ``p["groups"]``), or such a call subscripted
  directly.

``r``, ``p``, ``d``, ``out``, ``s`` and the like are not on the list: in these packages they
hold per-item rows, item reports, problems, sensitivity rows and job outputs (legitimate
dicts); a payload stored under such a name is still caught by the second rule. Accesses on
a name that means something else in one place are in :data:`ALLOWED`, each with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fairdesk/gui", "fairdesk/reports", "fairdesk/cli", "fairdesk/review")

#: Names that hold an audit result or a stored payload by convention in these packages.
SUSPECT_NAMES = frozenset(
    {"res", "result", "results", "payload", "run", "audit", "audit_run", "outcome", "stored"}
)
#: Attributes that do (``self.payload``, ``outcome.result``, ``d.run``).
SUSPECT_ATTRS = frozenset({"result", "payload", "run", "audit_result"})
#: Calls that return an audit payload (a dict): whatever their value is named, it is one.
PAYLOAD_SOURCES = frozenset({"run_payload", "results_for_run", "to_json"})

#: (file, function, name) → why a flagged access is legitimate; function ``*`` = anywhere
#: in the file.
ALLOWED = {
    ("fairdesk/reports/data.py", "*", "run"): "the store's run row "
    "(core.runs.run_row: created_at, finished_at), not the payload",
    ("fairdesk/reports/incremental.py", "*", "run"): "the store's run row "
    "(created_at, finished_at), not the payload",
}


def _key(node) -> str | None:
    """The string constant of a subscript or of a ``.get`` call's first argument."""
    if isinstance(node, ast.Subscript):
        s = node.slice
        return s.value if isinstance(s, ast.Constant) and isinstance(s.value, str) else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _callee(node) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
    return None


def _tainted(func) -> set[str]:
    """Names ``func`` assigns from a call of PAYLOAD_SOURCES (``x = run_payload(...)``,
    ``x = run_payload(...) or {}``)."""
    out = set()
    for n in ast.walk(func):
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            value = n.value
            calls = value.values if isinstance(value, ast.BoolOp) else [value]
            if any(_callee(c) in PAYLOAD_SOURCES for c in calls):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


def _base(node):
    return node.value if isinstance(node, ast.Subscript) else node.func.value


def violations(path: Path, source: str | None = None) -> list[tuple[str, str, str, int, str]]:
    """(file, function, name, line, key) of every flagged access in one module (``source``:
    its text, default read from ``path``)."""
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    found = []

    def visit(node, func: str, tainted: set[str]):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.name, tainted | _tainted(child))
                continue
            key = _key(child)
            if key is not None:
                base = _base(child)
                name = None
                if isinstance(base, ast.Name) and (base.id in SUSPECT_NAMES or base.id in tainted):
                    name = base.id
                elif isinstance(base, ast.Attribute) and base.attr in SUSPECT_ATTRS:
                    name = base.attr
                elif _callee(base) in PAYLOAD_SOURCES:
                    name = f"{_callee(base)}()"
                if name is not None and (rel, func, name) not in ALLOWED:
                    if (rel, "*", name) not in ALLOWED:
                        found.append((rel, func, name, child.lineno, key))
            visit(child, func, tainted)

    visit(tree, "<module>", _tainted(tree))
    return found


def _all() -> list[tuple[str, str, str, int, str]]:
    out = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            out += violations(path)
    return out


def _report(vs) -> str:
    return "\n".join(f"{f}:{line} in {fn}: {name}[{key!r}]" for f, fn, name, line, key in vs)


def test_no_string_key_access_on_an_audit_result():
    """The views read attributes of the AuditRun, never its payload by key."""
    bad = _all()
    assert not bad, "string-key access on an audit result (read the AuditRun):\n" + _report(bad)


def test_the_guard_flags_what_it_should():
    """Known answers of the rules on a small module (so the guard cannot pass vacuously)."""
    src = """
def view(p, run_id):
    res = compute()
    a = res["groups"]
    b = res.get("reference")
    stored = run_payload(p, run_id) or {}
    c = stored.get("groups")
    x = run_payload(p, run_id)
    d = x["comparisons"]
    e = run_payload(p, run_id)["warnings"]
    f = self.payload.get("model")
    rows = [r["id"] for r in items]
    g = res[key]
    h = run.groups
    return a, b, c, d, e, f, rows, g, h
"""
    mod = ROOT / "fairdesk" / "cli" / "_guard_probe_.py"  # parsed from src, never written
    got = [(fn, name, line, key) for _, fn, name, line, key in violations(mod, src)]
    assert got == [
        ("view", "res", 4, "groups"),
        ("view", "res", 5, "reference"),
        ("view", "stored", 7, "groups"),
        ("view", "x", 9, "comparisons"),
        ("view", "run_payload()", 10, "warnings"),
        ("view", "payload", 11, "model"),
    ]
