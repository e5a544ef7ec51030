#!/usr/bin/env bash
# Install fairdesk with its test tools, then lint (the pinned ruff: `ruff check` and
# `ruff format --check`, either failing stops here) and run the whole test suite (offscreen,
# no network; pyproject's addopts make pytest refuse undeclared markers).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash installer/install.sh --dev
echo "== ruff check"
.venv/bin/ruff check .
echo "== ruff format --check"
.venv/bin/ruff format --check .
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
