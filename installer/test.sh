#!/usr/bin/env bash
# Install fairdesk with its test tools, then run the whole test suite (offscreen, no network).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash installer/install.sh --dev
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
