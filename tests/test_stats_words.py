"""Statistics return numbers and codes; presentation writes the words (issue: architecture).

Parsed with ``ast``, nothing imported:

- no f-string, ``str.format`` or ``%`` formatting in ``fairdesk/stats`` outside ``raise``
  statements (an exception's message stays where it is raised);
- no free-text field on a result dataclass of ``fairdesk/stats``, ``fairdesk/jobs`` or
  ``fairdesk/incremental``: a field whose annotation holds ``str`` and whose name says it is
  prose (:data:`PROSE`). Names, ids and codes are ``str`` too, and are fine.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATS = ROOT / "fairdesk" / "stats"
RESULT_PACKAGES = ("fairdesk/stats", "fairdesk/jobs", "fairdesk/incremental")

#: Field names that hold sentences when typed ``str`` (alone, optional, or in a tuple/list).
PROSE = frozenset(
    {
        "reason",
        "reasons",
        "reading",
        "readings",
        "note",
        "notes",
        "message",
        "messages",
        "sentence",
        "sentences",
        "text",
        "conclusion",
        "conclusions",
        "caution",
        "cautions",
        "problem",
        "problems",
        "warning",
        "warnings",
        "explanation",
        "description",
        "caption",
        "comment",
        "summary_text",
        "advice",
        "hint",
    }
)


#: Fields named like prose that hold something else, each with what it holds.
NOT_PROSE = {
    "AgreementStat.reason": "one of fairdesk.stats.agreement's reason codes",
    "Speakers.warnings": "typed warning codes (jobs.result_parts.WARNING_CODES)",
    "MixedFit.message": "the optimiser's own message, inside the fit (no view reads it)",
    # a bad input's message, as an exception's text: named where it is found, not statistics
    "InputProblem.reason": "a refused input row's message (file, row, what to do)",
    "PredictionProblem.reason": "a refused predictions row's message",
    "ItemFailure.reason": "why an item could not be read or transcribed (the error's text)",
    "FailedItem.reason": "why an item could not be streamed (the error's text)",
    "TableRows.warnings": "the table rows' input messages, with their line numbers",
}


def _formatting(tree: ast.AST) -> list[tuple[int, str]]:
    inside_raise: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            inside_raise |= {id(n) for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if id(node) in inside_raise:
            continue
        if isinstance(node, ast.JoinedStr):
            found.append((node.lineno, "f-string"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
        ):
            found.append((node.lineno, "str.format"))
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and isinstance(node.left, (ast.Constant, ast.JoinedStr))
            and isinstance(getattr(node.left, "value", ""), str)
        ):
            found.append((node.lineno, "% formatting"))
    return found


def _is_dataclass(cls: ast.ClassDef) -> bool:
    for d in cls.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "dataclass":
            return True
    return False


def _mentions_str(annotation: ast.AST) -> bool:
    text = ast.unparse(annotation)
    return any(
        tok == "str"
        for tok in text.replace("[", " ")
        .replace("]", " ")
        .replace("|", " ")
        .replace(",", " ")
        .replace("'", " ")
        .replace('"', " ")
        .split()
    )


def _prose_fields(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for cls in ast.walk(tree):
        if not (isinstance(cls, ast.ClassDef) and _is_dataclass(cls)):
            continue
        for stmt in cls.body:
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and stmt.target.id in PROSE
                and _mentions_str(stmt.annotation)
                and f"{cls.name}.{stmt.target.id}" not in NOT_PROSE
            ):
                found.append((stmt.lineno, f"{cls.name}.{stmt.target.id}"))
    return found


def test_stats_format_no_text_outside_raise():
    bad = []
    for path in sorted(STATS.rglob("*.py")):
        for line, what in _formatting(ast.parse(path.read_text(encoding="utf-8"))):
            bad.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert not bad, "statistics write text (return numbers and codes instead):\n" + "\n".join(bad)


def test_no_result_dataclass_holds_free_text():
    bad = []
    for pkg in RESULT_PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for line, name in _prose_fields(ast.parse(path.read_text(encoding="utf-8"))):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not bad, "result fields holding sentences (use a coded Notice):\n" + "\n".join(bad)


def test_the_guards_flag_what_they_should():
    src = """
def f(x, n):
    a = f"{x}"
    b = "{}".format(x)
    c = "%d" % n
    if n:
        raise ValueError(f"bad {n}")
    return a + b + c
"""
    assert [w for _, w in _formatting(ast.parse(src))] == ["f-string", "str.format", "% formatting"]
    src = """
@dataclass(frozen=True)
class R:
    group: str
    reason: str | None = None
    notes: tuple[str, ...] = ()
    warnings: tuple[Notice, ...] = ()
"""
    assert [n for _, n in _prose_fields(ast.parse(src))] == ["R.reason", "R.notes"]
