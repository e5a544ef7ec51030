"""The views read typed results, not their JSON: checked by type, not by variable name.

A result's JSON (what a codec's ``to_json()`` writes, what the store keeps and
:func:`fairdesk.core.runs.run_payload` returns) has its own type to the checker,
:data:`fairdesk.core.jsonio.ResultJson`. This test type-checks ``fairdesk/gui``,
``fairdesk/reports``, ``fairdesk/cli``, ``fairdesk/presentation`` and ``fairdesk/review``
with mypy's build API and counts every *string-key read* (``x["key"]`` or
``x.get("key")`` with a string constant) whose object is of that type, or was read by
string key from one (``payload["groups"][0]["wer"]`` counts twice), or is a typed result's
free-JSON ``extra`` field — whatever the variables are called. Writes (``x["k"] = v``) are
not reads. The JSON-writing code is set aside by name (:data:`JSON_WRITERS`).

A second test keeps the rule from passing vacuously: every ``to_json``/``to_dict`` of a
result (``fairdesk/jobs``, ``fairdesk/stats``, ``fairdesk/incremental``) returns
``ResultJson``, so the checker knows a result's JSON wherever it goes.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gui", "reports", "cli", "presentation", "review")
RESULT_TYPE = "fairdesk.core.jsonio.ResultJson"
#: At most this many string-key reads of result JSON in the views (the issue's bound).
LIMIT = 30
#: (file, function) → why the JSON is read by key there: code that writes JSON output.
JSON_WRITERS: dict[tuple[str, str], str] = {}
#: Typed results' free-JSON fields: a view reading them by key reads untyped data.
FREE_FIELDS = frozenset({"extra", "settings_extra"})
#: Classes whose ``to_dict`` writes settings, not a result (named: the settings aside).
SETTINGS_CODECS = frozenset({"AuditSettings"})
#: Packages whose classes are results (an ``extra`` read on their instances counts).
RESULT_PACKAGES = ("fairdesk.jobs", "fairdesk.stats", "fairdesk.incremental")


def _build(probe: str | None = None):
    """mypy's build of the view packages with expression types kept (``probe``: the text of
    one more module, ``fairdesk.cli._probe_``, checked as if it were there)."""
    mypy_build = pytest.importorskip("mypy.build")
    from mypy.main import process_options
    from mypy.modulefinder import BuildSource

    files = [
        str(p.relative_to(ROOT))
        for pkg in PACKAGES
        for p in sorted((ROOT / "fairdesk" / pkg).rglob("*.py"))
    ]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        sources, options = process_options(
            [
                *files,
                "--check-untyped-defs",
                "--follow-imports=silent",
                "--ignore-missing-imports",
                "--no-incremental",
                "--python-version=3.11",
            ],
            require_targets=True,
        )
        options.export_types = True
        options.preserve_asts = True
        if probe is not None:
            path = str(ROOT / "fairdesk" / "cli" / "_probe_.py")  # never written
            sources = [BuildSource(path, "fairdesk.cli._probe_", probe)]
        return sources, mypy_build.build(sources, options)
    finally:
        os.chdir(cwd)


def _reads(probe: str | None = None) -> list[tuple[str, str, int, str]]:
    """(file, function, line, key) of every counted read (``probe``: of that module's text
    alone)."""
    from mypy.nodes import CallExpr, IndexExpr, MemberExpr, StrExpr
    from mypy.server.subexpr import get_subexpressions
    from mypy.types import Instance, get_proper_type

    sources, res = _build(probe)
    types = res.types

    def is_json(e) -> bool:
        t = get_proper_type(types.get(e))
        if isinstance(t, Instance) and t.type.fullname == RESULT_TYPE:
            return True
        if isinstance(e, MemberExpr) and e.name in FREE_FIELDS:
            owner = get_proper_type(types.get(e.expr))
            return isinstance(owner, Instance) and owner.type.fullname.startswith(RESULT_PACKAGES)
        return False

    def key_read(e):
        if isinstance(e, IndexExpr) and isinstance(e.index, StrExpr):
            return e.base, e.index.value
        if (
            isinstance(e, CallExpr)
            and isinstance(e.callee, MemberExpr)
            and e.callee.name == "get"
            and e.args
            and isinstance(e.args[0], StrExpr)
        ):
            return e.callee.expr, e.args[0].value
        return None

    def from_json(base) -> bool:
        for _ in range(50):
            if is_json(base):
                return True
            nxt = key_read(base)
            if nxt is None and isinstance(base, IndexExpr):
                nxt = (base.base, None)  # payload["groups"][0]
            if nxt is None:
                return False
            base = nxt[0]
        return False

    found = []
    for src in sources:
        path = Path(src.path)
        rel = path.resolve().relative_to(ROOT).as_posix()
        tree = ast.parse(src.text if src.text is not None else path.read_text(encoding="utf-8"))
        writes = {
            (n.lineno, n.slice.value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Subscript)
            and not isinstance(n.ctx, ast.Load)
            and isinstance(n.slice, ast.Constant)
        }
        funcs = [
            (n.lineno, n.end_lineno or n.lineno, n.name)
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]

        def func_at(line: int, funcs=funcs) -> str:
            inner = [f for f in funcs if f[0] <= line <= f[1]]
            return min(inner, key=lambda f: f[1] - f[0])[2] if inner else "<module>"

        mtree = res.graph[src.module].tree
        assert mtree is not None
        for e in get_subexpressions(mtree):
            kr = key_read(e)
            if kr is None:
                continue
            base, key = kr
            if isinstance(e, IndexExpr) and (e.line, key) in writes:
                continue
            if from_json(base):
                fn = func_at(e.line)
                if (rel, fn) not in JSON_WRITERS:
                    found.append((rel, fn, e.line, key))
    return sorted(set(found))


def test_views_read_results_by_attribute_not_by_key():
    found = _reads()
    listing = "\n".join(f"{f}:{line} in {fn}: [{key!r}]" for f, fn, line, key in found)
    assert len(found) <= LIMIT, (
        f"{len(found)} string-key reads of result JSON in the views (at most {LIMIT}; read "
        "the typed result instead):\n" + listing
    )


def test_every_result_codec_writes_result_json():
    """Every ``to_json``/``to_dict`` of a result class returns ``ResultJson``."""
    bad = []
    for pkg in RESULT_PACKAGES:
        for path in sorted((ROOT / pkg.replace(".", "/")).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for cls in ast.walk(tree):
                if not isinstance(cls, ast.ClassDef) or cls.name in SETTINGS_CODECS:
                    continue
                for fn in cls.body:
                    if (
                        isinstance(fn, ast.FunctionDef)
                        and fn.name in ("to_json", "to_dict")
                        and (fn.returns is None or ast.unparse(fn.returns) != "ResultJson")
                    ):
                        bad.append(f"{path.relative_to(ROOT)}:{fn.lineno} {cls.name}.{fn.name}")
    assert not bad, "codecs whose JSON the checker cannot tell from a dict:\n" + "\n".join(bad)


def test_the_count_finds_reads_by_type_whatever_the_names():
    """Known answers on a probe module: reads of a stored payload, of a codec's JSON, of a
    value read from them and of a typed result's ``extra`` count; attribute reads, writes
    and plain dicts do not."""
    probe = """
from fairdesk.core.runs import run_payload, results_for_run
from fairdesk.jobs.result import AuditRun


def view(project, run_id: int, typed: AuditRun):
    zz = run_payload(project, run_id)
    a = zz["groups"]
    b = zz.get("reference")
    c = zz["groups"][0]["wer"]
    d = typed.to_json()["comparisons"]
    e = results_for_run(project, run_id)[-1]["payload"]
    f = typed.extra.get("x")
    zz["note"] = 1
    plain = {"groups": 1}
    g = plain["groups"]
    h = typed.groups
    return a, b, c, d, e, f, g, h
"""
    got = [(fn, line, key) for _, fn, line, key in _reads(probe)]
    assert got == [
        ("view", 8, "groups"),
        ("view", 9, "reference"),
        ("view", 10, "groups"),
        ("view", 10, "wer"),
        ("view", 11, "comparisons"),
        ("view", 12, "payload"),
        ("view", 13, "x"),
    ]
