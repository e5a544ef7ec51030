"""installer/launcher.sh: the applications-menu entry and icon, and its failure paths."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "installer" / "launcher.sh"


def _run(env_over: dict, *args):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("HOME", "XDG_DATA_HOME", "FAIRDESK_NO_LAUNCHER")
    }
    env.update(env_over)
    return subprocess.run(
        ["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=60
    )


def _exec_argv(value: str) -> list[str]:
    """Split an Exec value by the Desktop Entry rules: the string escapes first, then the
    double-quote rule (an independent reading of the spec, to check the script's quoting)."""
    s = re.sub(
        r"\\(.)",
        lambda m: {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}.get(
            m.group(1), "\\" + m.group(1)
        ),
        value,
    )
    s = s.replace("%%", "%")
    argv, cur, i, quoted = [], "", 0, False
    while i < len(s):
        ch = s[i]
        if quoted and ch == "\\" and i + 1 < len(s) and s[i + 1] in '"`$\\':
            cur += s[i + 1]
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch == " " and not quoted:
            if cur:
                argv.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    return argv + ([cur] if cur else [])


def test_entry_and_icons(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    venv_bin = tmp_path / 'odd dir $x "q" 100%' / "bin"
    r = _run({"HOME": str(home)}, str(venv_bin))
    assert r.returncode == 0, r.stderr
    data = home / ".local" / "share"
    entry = data / "applications" / "fairdesk.desktop"
    text = entry.read_text()
    fields = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    assert text.startswith("[Desktop Entry]\n")
    assert fields["Type"] == "Application" and fields["Icon"] == "fairdesk"
    assert fields["TryExec"] == f"{venv_bin}/fairdesk"
    assert _exec_argv(fields["Exec"]) == [f"{venv_bin}/fairdesk", "gui"]
    svg = data / "icons" / "hicolor" / "scalable" / "apps" / "fairdesk.svg"
    png = data / "icons" / "hicolor" / "256x256" / "apps" / "fairdesk.png"
    assert svg.read_bytes() == (ROOT / "resources" / "icons" / "fairdesk.svg").read_bytes()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if shutil.which("desktop-file-validate"):
        v = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
        assert v.returncode == 0 and not v.stdout.strip(), v.stdout + v.stderr
    # XDG_DATA_HOME wins over HOME
    xdg = tmp_path / "xdg"
    assert _run({"HOME": str(home), "XDG_DATA_HOME": str(xdg)}).returncode == 0
    assert (xdg / "applications" / "fairdesk.desktop").is_file()


@pytest.mark.parametrize(
    "env",
    [{}, {"HOME": "/dev/null/nowhere"}, {"HOME": "/nonexistent", "FAIRDESK_NO_LAUNCHER": "1"}],
)
def test_no_desktop_is_not_an_error(env):
    r = _run(env)
    assert r.returncode == 0
    if "FAIRDESK_NO_LAUNCHER" not in env:
        assert "no desktop launcher installed" in r.stderr and "fairdesk gui" in r.stderr


def test_icon_png_size():
    """The committed PNG is the 256 x 256 rendering (resources/icons/render_png.py)."""
    import struct

    data = (ROOT / "resources" / "icons" / "fairdesk.png").read_bytes()
    w, h = struct.unpack(">II", data[16:24])
    assert (w, h) == (256, 256)
