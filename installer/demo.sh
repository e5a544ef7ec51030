#!/usr/bin/env bash
# Install fairdesk, open the embedded demo project (the synthetic `demo` dataset and the real
# speech of `l2-english`: 125 Mandarin-L1 speakers reading English, from speechocean762) and
# audit whisper-tiny.en on the real speech: by age group, then by gender among the adults.
# The audits take about 10 minutes on 2 free CPU cores (measured: docs/getting-started.md, "The demo"); transcripts are cached
# in the project, so running this again is quick.
#
# Usage: installer/demo.sh [PROJECT_DIR]   (default: ./fairdesk-demo)
#   FAIRDESK_DEMO_SAMPLE=N   utterances per group (default 200; more = narrower CIs, slower)
#   FAIRDESK_DEMO_GENDER=0   skip the second audit (by gender)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project="${1:-$root/fairdesk-demo}"
n="${FAIRDESK_DEMO_SAMPLE:-200}"
bash "$root/installer/install.sh"
fd="$root/.venv/bin/fairdesk"
py="$root/.venv/bin/python"
"$fd" demo --project "$project"
echo "fairdesk: the project also holds l2-english (real speech); list both with:"
echo "  $fd datasets --project \"$project\""

audit() {  # audit OUT_JSON TITLE ARGS...: one audit of l2-english, then its reading
  local out="$1" title="$2"
  shift 2
  echo
  echo "== fairdesk: $title =="
  "$fd" audit --project "$project" --dataset l2-english --model whisper-tiny.en \
      --sample "$n" --json "$out" "$@"
  echo
  "$py" "$root/installer/demo_reading.py" "$out"
}

start=$(date +%s)
audit "$project/audit-age_group.json" \
    "whisper-tiny.en on real speech (l2-english), $n utterances per age group" \
    --by age_group --reference adult
if [ "${FAIRDESK_DEMO_GENDER:-1}" != "0" ]; then
  # Among the adults only: most children here are boys, so gender over all ages would carry
  # the age effect; crossing gender with age group leaves cells too small (6 teens).
  audit "$project/audit-gender-adults.json" \
      "the same model by gender, adults only ($n utterances per gender)" \
      --by gender --filter age_group=adult --reference female
fi
run=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["run_id"])' \
      "$project/audit-age_group.json")
cat <<NEXT

fairdesk: audits done in $(( $(date +%s) - start )) s; their JSON is in $project/audit-*.json
Where to look next: the worst utterances of the age-group audit, aligned word by word,
  $fd show --project "$project" --run $run --worst 5
and the desktop application (listen to them, browse every group; also in the applications menu)
  $fd gui --project "$project"
NEXT
