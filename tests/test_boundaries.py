"""Architecture boundaries: Qt only in fairdesk/gui; torch/transformers only lazily."""

import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "fairdesk"
QT = ("PySide6", "pyqtgraph", "PyQt5", "PyQt6", "shiboken6", "sounddevice")
HEAVY = ("torch", "transformers", "faster_whisper", "ctranslate2", "pocketsphinx")


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node, a.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node, node.module


def _module_level(tree):
    """Import nodes executed at import time (not inside a function)."""
    out = []

    def visit(node, in_func):
        for child in ast.iter_child_nodes(node):
            f = in_func or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)) and not in_func:
                out.append(child)
            visit(child, f)

    visit(tree, False)
    return set(map(id, out))


def test_no_qt_outside_gui_and_heavy_imports_are_lazy():
    bad = []
    for py in PKG.rglob("*.py"):
        rel = py.relative_to(PKG).as_posix()
        tree = ast.parse(py.read_text(encoding="utf-8"))
        top = _module_level(tree)
        for node, name in _imports(tree):
            root = name.split(".")[0]
            if root in QT and not rel.startswith("gui/") and rel != "recording/devices.py":
                bad.append(f"{rel}: imports {name} outside fairdesk/gui")
            if root in HEAVY and id(node) in top:
                bad.append(f"{rel}: imports {name} at module level (import it lazily)")
    assert not bad, "\n".join(bad)


def test_cli_and_metrics_do_not_import_torch():
    code = (
        "import sys\nimport fairdesk.cli, fairdesk.metrics, fairdesk.stats, fairdesk.jobs,"
        " fairdesk.models, fairdesk.core.store\nfairdesk.cli.build_parser()\n"
        "bad = [m for m in ('torch', 'transformers', 'PySide6', 'ctranslate2') "
        "if m in sys.modules]\nassert not bad, bad\nprint('ok')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout
