#!/usr/bin/env bash
# Install fairdesk's desktop launcher for the current user: an applications-menu entry
# (fairdesk.desktop, running the virtual environment's `fairdesk gui`) and its icon (SVG
# and 256 px PNG in the hicolor theme). Called by install.sh; safe anywhere: without a
# writable data folder (no HOME, read-only HOME, a container) it warns and exits 0.
#
# Usage: installer/launcher.sh [VENV_BIN_DIR]   (default: <repository>/.venv/bin)
# Skip it with FAIRDESK_NO_LAUNCHER=1. Files go under ${XDG_DATA_HOME:-$HOME/.local/share}.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$root/.venv/bin}"

warn() { echo "fairdesk: warning: no desktop launcher installed ($1); \`$bin/fairdesk gui\` still works" >&2; exit 0; }

[ "${FAIRDESK_NO_LAUNCHER:-}" = "1" ] && exit 0
if [ -n "${XDG_DATA_HOME:-}" ]; then
  data="$XDG_DATA_HOME"
elif [ -n "${HOME:-}" ]; then
  data="$HOME/.local/share"
else
  warn "neither XDG_DATA_HOME nor HOME is set"
fi
apps="$data/applications"
icons="$data/icons/hicolor"

# An Exec argument: double-quoted, with ", `, $ and \ escaped for the quoting rule and then
# every backslash doubled for the string rule; % doubled (Desktop Entry Specification 1.4).
exec_arg() {
  local s=$1
  s=${s//\\/\\\\\\\\}
  s=${s//\"/\\\\\"}
  s=${s//\`/\\\\\`}
  s=${s//\$/\\\\\$}
  s=${s//%/%%}
  printf '"%s"' "$s"
}

mkdir -p "$apps" "$icons/scalable/apps" "$icons/256x256/apps" 2>/dev/null \
  || warn "cannot create folders under $data"
cp "$root/resources/icons/fairdesk.svg" "$icons/scalable/apps/fairdesk.svg" 2>/dev/null \
  && cp "$root/resources/icons/fairdesk.png" "$icons/256x256/apps/fairdesk.png" 2>/dev/null \
  || warn "cannot write the icon under $icons"
entry="$apps/fairdesk.desktop"
tmp="$entry.tmp.$$"
{
  cat <<DESKTOP
[Desktop Entry]
Type=Application
Version=1.4
Name=fairdesk
GenericName=Speech fairness audit
Comment=Tell whether a speech model works equally well for everyone, and hear why not
TryExec=$bin/fairdesk
Exec=$(exec_arg "$bin/fairdesk") gui
Icon=fairdesk
Terminal=false
StartupNotify=true
Categories=Science;Languages;
Keywords=speech;ASR;recogniser;fairness;bias;audit;accent;
DESKTOP
} >"$tmp" 2>/dev/null && mv -f "$tmp" "$entry" 2>/dev/null || { rm -f "$tmp" 2>/dev/null; warn "cannot write $entry"; }
chmod 644 "$entry" 2>/dev/null || true
if command -v desktop-file-validate >/dev/null 2>&1; then
  if ! out=$(desktop-file-validate "$entry" 2>&1); then
    echo "fairdesk: warning: desktop-file-validate: $out" >&2
  fi
fi
# Menus notice a new entry on their own; refreshing the caches only speeds that up.
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$apps" 2>/dev/null
command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$icons/index.theme" ] \
  && gtk-update-icon-cache -q -t "$icons" 2>/dev/null
echo "fairdesk: applications-menu entry at $entry"
exit 0
