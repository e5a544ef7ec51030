#!/usr/bin/env bash
# Install fairdesk and run the main job on the embedded demo corpus and model:
# a headless audit of whisper-tiny.en across the demo's English accents.
# Usage: installer/demo.sh [PROJECT_DIR]   (default: ./fairdesk-demo)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project="${1:-$root/fairdesk-demo}"
bash "$root/installer/install.sh"
fd="$root/.venv/bin/fairdesk"
"$fd" demo --project "$project"
"$fd" audit --project "$project" --dataset demo --model whisper-tiny.en --by accent \
    --reference en-us --sample 60 --json "$project/audit-accent.json"
echo "fairdesk: the audit's JSON is in $project/audit-accent.json"
