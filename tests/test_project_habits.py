"""The habits CI enforces: lint before tests, declared markers only, packaged files present."""

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
BUILTIN_MARKS = {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"}


def test_every_package_data_pattern_names_a_file():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    missing = [
        f"{pkg}/{pat}"
        for pkg, pats in data.items()
        for pat in pats
        if not any(ROOT.joinpath(pkg).glob(pat))
    ]
    assert not missing, missing
    assert (ROOT / "fairdesk" / "py.typed").is_file()


def test_markers_are_strict_and_declared():
    ini = PYPROJECT["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in ini["addopts"].split()
    declared = {m.split(":")[0].strip() for m in ini["markers"]}
    used = set()
    for py in (ROOT / "tests").rglob("*.py"):
        used |= set(re.findall(r"pytest\.mark\.(\w+)", py.read_text(encoding="utf-8")))
    assert not used - declared - BUILTIN_MARKS, used - declared - BUILTIN_MARKS


def test_ci_lints_with_the_pinned_ruff_before_the_tests():
    assert "bash installer/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [
        ln.strip()
        for ln in (ROOT / "installer" / "test.sh").read_text(encoding="utf-8").splitlines()
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    assert "set -euo pipefail" in lines  # a failing ruff stops the script
    check = lines.index(".venv/bin/ruff check .")
    fmt = lines.index(".venv/bin/ruff format --check .")
    test = next(i for i, ln in enumerate(lines) if ln.startswith(".venv/bin/python -m pytest"))
    assert check < test and fmt < test
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    assert any(re.fullmatch(r"ruff==[\d.]+", d) for d in dev), dev  # pinned
