#!/usr/bin/env bash
# Smoke test of the built desktop bundle (installer/build_bundle.sh), as a user would run it:
# a copy of the bundle in a fresh temporary folder outside the repository, made read-only,
# run with a clean environment (no .venv, no source tree, no PYTHONPATH, a fresh HOME) and Qt
# offscreen. It checks the launcher opens the window (and times that cold start), imports the
# demo into a fresh project, runs small audits with both embedded models, reads the prompt
# lists, loads PortAudio, checks that hf: models say they are not in this bundle, and opens
# every GUI panel with --screenshot, and that the user guide (pages and pictures) is inside.
# Fails on any traceback or missing library in the log, or on any file written inside the
# bundle.
#
# Usage: installer/smoke_bundle.sh [BUNDLE_DIR]   (default: dist/fairdesk)
#   FAIRDESK_SMOKE_KEEP=1   keep the temporary folder (its path is printed)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle="$(cd "${1:-$root/dist/fairdesk}" && pwd)"
[ -x "$bundle/fairdesk" ] || { echo "smoke: no bundle at $bundle (run installer/build_bundle.sh)" >&2; exit 2; }

tmp="$(mktemp -d /tmp/fairdesk-smoke.XXXXXX)"
cleanup() {
  chmod -R u+w "$tmp" 2>/dev/null || true
  if [ "${FAIRDESK_SMOKE_KEEP:-0}" = "1" ]; then echo "smoke: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
app="$tmp/app/fairdesk"
mkdir -p "$tmp/app" "$tmp/home" "$tmp/work"
cp -a "$bundle" "$app"
chmod -R a-w "$tmp/app"
manifest() { (cd "$tmp/app" && find . -printf '%p %s %T@ %m\n' | sort); }
manifest > "$tmp/manifest.before"
log="$tmp/smoke.log"
: > "$log"

# A clean environment: nothing from this shell, the repository or its .venv leaks in.
fd() {
  (cd "$tmp/work" && "${runas[@]}" env -i PATH=/usr/bin:/bin HOME="$tmp/home" LANG=C.UTF-8 \
     XDG_RUNTIME_DIR="$tmp/home/run" QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 \
     TRANSFORMERS_OFFLINE=1 FAIRDESK_QUIT_AFTER_SHOW="${QUIT_AFTER_SHOW:-}" \
     "$app/fairdesk" "$@")
}
mkdir -p "$tmp/home/run"
chmod 700 "$tmp/home/run"
# As root, read-only files are still writable: run as nobody so a write inside fails loudly
# (the manifest comparison below catches one either way).
runas=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
  chmod 755 "$tmp"
  chown -R 65534:65534 "$tmp/home" "$tmp/work"
  runas=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
fail=0
step() {  # step EXPECTED_RC TITLE ARGS...: run one command, log it, check its exit status
  local want="$1" title="$2" rc=0 t0 t1
  shift 2
  echo "== $title: fairdesk $*" | tee -a "$log"
  t0=$(date +%s.%N)
  fd "$@" >"$tmp/out" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  cat "$tmp/out" >> "$log"
  last_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')
  if [ "$rc" != "$want" ]; then
    echo "   FAILED: exit $rc, expected $want; its output:" | tee -a "$log"
    tail -20 "$tmp/out" | sed 's/^/   | /'
    fail=1
  else
    echo "   ok (exit $rc, ${last_s} s)"
  fi
}

echo "smoke: bundle $bundle ($(du -sh "$bundle" | cut -f1)), copied read-only to $app;" \
     "runs as uid $([ ${#runas[@]} -gt 0 ] && echo 65534 || id -u), HOME=$tmp/home"
step 0 "version" --version
# Cold start: the first start of this copy, to the first window (the first-run page; no project).
QUIT_AFTER_SHOW=1 step 0 "launcher opens the window" ; cold="$last_s"
QUIT_AFTER_SHOW=1 step 0 "second start (warm)" ; warm="$last_s"
step 0 "models" models
grep -E "whisper-tiny.en|pocketsphinx" "$tmp/out" | sed 's/^/   | /'
step 0 "prompt lists" record lists
step 0 "fresh project with both demo datasets" demo --project "$tmp/home/T"
step 0 "datasets" datasets --project "$tmp/home/T"
step 0 "audit (whisper-tiny.en)" audit --project "$tmp/home/T" --dataset l2-english \
    --model whisper-tiny.en --by age_group --sample 6 --min-items 3 --min-speakers 2 \
    --n-bootstrap 200 --json "$tmp/home/audit.json"
tail -12 "$tmp/out" | sed 's/^/   | /'
run=$(grep -o '"run_id": *[0-9]*' "$tmp/home/audit.json" 2>/dev/null | head -1 | grep -o '[0-9]*$' || true)
step 0 "HTML and PDF report of run ${run:-?}" report --project "$tmp/home/T" --run "${run:-1}" \
    --html "$tmp/home/report.html" --pdf "$tmp/home/report.pdf"
if head -c 4 "$tmp/home/report.pdf" 2>/dev/null | grep -q '%PDF'; then
  echo "   report.html $(du -h "$tmp/home/report.html" | cut -f1), report.pdf $(du -h "$tmp/home/report.pdf" | cut -f1)"
else
  echo "   FAILED: no PDF"; fail=1
fi
step 0 "audit (pocketsphinx-en-us)" audit --project "$tmp/home/T" --dataset l2-english \
    --model pocketsphinx-en-us --by age_group --sample 6 --min-items 3 --min-speakers 2 \
    --n-bootstrap 200 --quiet
# PortAudio must load from the bundle; a machine without a sound card may say so (exit 1).
rc=0; fd record devices >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out" >> "$log"
echo "== PortAudio: fairdesk record devices (exit $rc)"; head -3 "$tmp/out" | sed 's/^/   | /'
step 2 "hf: model in a bundle without torch" audit --project "$tmp/home/T" \
    --dataset l2-english --model "hf:$tmp/no-model" --by age_group
if grep -q "not in this desktop bundle" "$tmp/out"; then
  echo "   says: $(cat "$tmp/out")"
else
  echo "   FAILED: no 'not in this desktop bundle' message"; fail=1
fi
step 0 "every GUI panel (--screenshot)" gui --screenshot "$tmp/home/shots" --project "$tmp/home/T"
shots=$(find "$tmp/home/shots" -name '*.png' | wc -l)
echo "   $shots screenshots: $(cd "$tmp/home/shots" && ls | tr '\n' ' ')"
[ "$shots" -ge 5 ] || { echo "   FAILED: too few screenshots"; fail=1; }
# The user guide (Help ▸ User guide, fairdesk.paths.docs_dir: <bundle>/_internal/docs): every
# page of this tree, the navigation, the changes and the pictures build_bundle.sh made.
guide="$app/_internal"
for f in "$root"/docs/*.md mkdocs.yml CHANGELOG.md; do
  f="${f#"$root"/}"
  [ -f "$guide/$f" ] || { echo "   FAILED: the bundle has no $f (Help ▸ User guide)"; fail=1; }
done
pics=$(find "$guide/docs/img" -name '*.png' 2>/dev/null | wc -l)
echo "== the user guide: $(find "$guide/docs" -maxdepth 1 -name '*.md' | wc -l) pages, $pics pictures"
[ "$pics" -ge 1 ] || { echo "   FAILED: the guide's pictures are not in the bundle"; fail=1; }

# The log: no traceback, no missing library or Qt plugin anywhere.
bad='Traceback|cannot open shared object|No module named|ModuleNotFoundError|ImportError|library not found|Could not load the Qt platform plugin|Could not find the Qt platform plugin|undefined symbol'
if grep -nE "$bad" "$log" >"$tmp/bad"; then
  echo "smoke: FAILED, the log shows:"; head -20 "$tmp/bad"; fail=1
fi
manifest > "$tmp/manifest.after"
if ! diff -q "$tmp/manifest.before" "$tmp/manifest.after" >/dev/null; then
  echo "smoke: FAILED, files changed inside the bundle:"
  diff "$tmp/manifest.before" "$tmp/manifest.after" | head -10; fail=1
fi
echo "smoke: wrote only under HOME: $(cd "$tmp/home" && find . -maxdepth 3 -type d | grep -vE '^\.$|/T/|/shots' | sort | tr '\n' ' ')"
echo "smoke: bundle size $(du -sh "$bundle" | cut -f1) ($(du -sb "$bundle" | cut -f1) bytes);" \
     "cold start to window ${cold} s, warm ${warm} s (offscreen, including exit)"
if [ "$fail" != 0 ]; then echo "smoke: FAILED (log: $log)"; FAIRDESK_SMOKE_KEEP=1; exit 1; fi
echo "smoke: PASSED"
