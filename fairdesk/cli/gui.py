"""``fairdesk gui``: the desktop application, and its offscreen screenshot mode.

Qt is imported only when the command runs (``fairdesk --help`` stays light).
"""

from __future__ import annotations

import os
from pathlib import Path

from .common import EXIT_OK, UsageError


def add_command(sub):
    s = sub.add_parser("gui", help="open the desktop application")
    s.add_argument("--project", help="project folder to open")
    s.add_argument("--screenshot", metavar="OUT_DIR",
                   help="open each panel offscreen with real data, save one PNG per panel "
                   "into OUT_DIR and exit (needs --project)")
    s.add_argument("--run", type=int, help="with --screenshot: the run to show (default: the "
                   "newest finished run)")
    s.set_defaults(func=cmd_gui)


def cmd_gui(a):
    if a.project is not None and not (Path(a.project).expanduser() / "project.sqlite").exists():
        if a.screenshot:
            raise UsageError(f"--project {a.project}: no fairdesk project there")
    if a.screenshot:
        if not a.project:
            raise UsageError("--screenshot needs --project DIR")
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from ..gui.app import screenshots

        for p in screenshots(a.screenshot, a.project, a.run):
            print(p)
        return EXIT_OK
    if a.run is not None:
        raise UsageError("--run goes with --screenshot")
    from ..gui.app import run

    return run(a.project)
