#!/usr/bin/env bash
# Install fairdesk with its test tools, then lint (the pinned ruff: `ruff check` and
# `ruff format --check`), type-check the slice of the package that pyproject's [tool.mypy]
# `files` names (mypy; any of the three failing stops here), run the whole test suite (offscreen,
# no network; pyproject's addopts make pytest refuse undeclared markers), make the user
# guide's pictures with the app (docs/screenshots.py, into docs/img/) and build the guide
# with `mkdocs build --strict` into a temporary folder (a broken link or missing picture fails).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash installer/install.sh --dev
echo "== ruff check"
.venv/bin/ruff check .
echo "== ruff format --check"
.venv/bin/ruff format --check .
echo "== mypy (pyproject.toml [tool.mypy] files)"
.venv/bin/python -m mypy
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
echo "== the user guide: pictures, then mkdocs build --strict"
.venv/bin/python docs/screenshots.py docs/img >/dev/null
site="$(mktemp -d)"
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet -d "$site"
