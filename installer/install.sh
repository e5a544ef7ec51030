#!/usr/bin/env bash
# Install fairdesk: system packages (apt, when available and permitted), a virtual
# environment at .venv in the repository root, fairdesk into it, and an applications-menu
# launcher with its icon (installer/launcher.sh; FAIRDESK_NO_LAUNCHER=1 skips it).
#
# Usage: installer/install.sh [--dev]     (fairdesk[all]: every extra but the cluster engine;
#                                          --dev adds the test tools and the cluster extra,
#                                          so the Ray engine's tests run too)
# A headless install (no GUI, no models, no torch) is `pip install .` (docs/getting-started.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
extras="[all]"
[ "${1:-}" = "--dev" ] && extras="[all,dev,cluster]"

apt_pkgs=(libportaudio2 libsndfile1 espeak-ng sox xvfb
          libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4
          libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0
          libxcb-xinerama0 libxcb-xkb1 libfontconfig1 libdbus-1-3 libglib2.0-0
          fonts-dejavu-core libpango-1.0-0 libpangoft2-1.0-0 poppler-utils
          desktop-file-utils)
# NIST SCTK (sclite, sc_stats): a test tool only, for the system-comparison cross-check
[ "${1:-}" = "--dev" ] && apt_pkgs+=(sctk)
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${apt_pkgs[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
    echo "fairdesk: installing system packages: ${missing[*]}"
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/tmp/fairdesk-apt.log 2>&1; then
      echo "fairdesk: warning: apt could not install ${missing[*]} (see /tmp/fairdesk-apt.log);" >&2
      echo "          recording and synthetic speech may be unavailable." >&2
    fi
  fi
else
  echo "fairdesk: no apt-get here; install PortAudio and the Qt runtime libraries yourself." >&2
fi

py="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# torch pinned: this exact version is a local CPU wheel here; unpinned would pull CUDA builds.
# (fairdesk[hf] asks only for torch>=2.2, so it keeps this one.)
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".${extras}"
# the applications-menu entry and icon (warns and goes on where there is no desktop)
bash "$root/installer/launcher.sh" "$root/.venv/bin" || true
echo "fairdesk: installed into $root/.venv ($(.venv/bin/fairdesk --version))"
