#!/usr/bin/env bash
# The headless install, for real: a fresh virtual environment, `pip install .` without any
# extra (from a copy of pyproject.toml, README.md and fairdesk/), a check that no extra's
# package came with it, then tests/headless_scenario.py against its `fairdesk` command:
# --help, audit/regress --table, import, audit --model predictions:FILE, show, models, export
# (tables, TextGrids, ELAN), and one clean line naming the extra for each missing part.
# Prints the time of each stage and the size of the environment. Needs PyPI (or a pip
# configuration that reaches a mirror); pip's cache makes a second run quicker.
# tests/test_optional_deps.py runs it (marked slow, so CI runs it via installer/test.sh).
#
# Usage: installer/headless_check.sh
#   PYTHON=python3.X           the interpreter of the fresh environment (default python3)
#   FAIRDESK_HEADLESS_KEEP=1   keep the temporary folder (its path is printed)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# nothing from the calling environment may bring another fairdesk or an extra's package in
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP
export PYTHONNOUSERSITE=1
tmp="$(mktemp -d /tmp/fairdesk-headless.XXXXXX)"
cleanup() {
  if [ "${FAIRDESK_HEADLESS_KEEP:-0}" = "1" ]; then echo "headless: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
t0=$(date +%s)
stage() { echo "headless: $1 ($(( $(date +%s) - t0 )) s so far)"; }

# a copy of what the wheel is built from: the build writes nothing into this tree
mkdir -p "$tmp/src"
# (setup.py copies the user guide, docs/ with mkdocs.yml and CHANGELOG.md, into the package)
cp "$root"/{pyproject.toml,README.md,setup.py,MANIFEST.in,mkdocs.yml,CHANGELOG.md} "$tmp/src/"
(cd "$root" && find fairdesk docs -name '__pycache__' -prune -o -type f ! -name '*.pyc' -print) |
  (cd "$root" && tar -cf - -T -) | tar -C "$tmp/src" -xf -

"${PYTHON:-python3}" -m venv "$tmp/venv"
py="$tmp/venv/bin/python"
stage "fresh environment $tmp/venv ($("$py" --version))"
"$py" -m pip install -q --disable-pip-version-check "$tmp/src"
stage "pip install . (no extras) done"

# nothing of any extra came with it, and the command is the installed copy
(cd "$tmp" && "$py" - "$root/tests" <<'PY'
import importlib.util
import sys

sys.path.insert(0, sys.argv[1])
from block_imports import OPTIONAL

found = [m for m in OPTIONAL if importlib.util.find_spec(m) is not None]
assert not found, f"a headless install brought extras' packages: {found}"
import fairdesk

assert "site-packages" in fairdesk.__file__, fairdesk.__file__
from fairdesk.paths import docs_dir

guide = docs_dir()  # Help > User guide reads the copy inside the installed package
assert "site-packages" in str(guide) and (guide / "index.md").is_file(), guide
print(f"headless: fairdesk {fairdesk.__version__} at {fairdesk.__file__}; none of "
      f"{len(OPTIONAL)} extras' packages installed")
PY
)
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "headless: $("$py" -m pip list --format=freeze --disable-pip-version-check | wc -l) packages," \
     "site-packages $(du -sh "$site" | cut -f1), environment $(du -sh "$tmp/venv" | cut -f1)"

"$py" "$root/tests/headless_scenario.py" "$tmp/work" --no-extras -- "$tmp/venv/bin/fairdesk"
stage "scenario done"
echo "headless: PASSED in $(( $(date +%s) - t0 )) s"
