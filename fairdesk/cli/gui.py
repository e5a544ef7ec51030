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
    s.add_argument(
        "--screenshot",
        metavar="OUT_DIR",
        help="open each panel offscreen with real data, save one PNG per panel "
        "into OUT_DIR and exit (needs --project)",
    )
    s.add_argument(
        "--run",
        type=int,
        help="with --screenshot: the run to show (default: the newest finished run)",
    )
    s.add_argument(
        "--input-file",
        metavar="WAV",
        help="record from this audio file, played "
        "in real time as the microphone (demos, tests, no sound card)",
    )
    s.add_argument(
        "--size",
        metavar="WxH",
        default="1440x920",
        help="with --screenshot: the window size (default 1440x920)",
    )
    s.set_defaults(func=cmd_gui)


def cmd_gui(a):
    from ..core.extras import require

    require("gui", "the desktop app", ("PySide6", "pyqtgraph"))
    if a.project is not None and not (Path(a.project).expanduser() / "project.sqlite").exists():
        if a.screenshot:
            raise UsageError(f"--project {a.project}: no fairdesk project there")
    if a.screenshot:
        if not a.project:
            raise UsageError("--screenshot needs --project DIR")
        from ..core.atomic import check_output_folder

        check_output_folder(a.screenshot, "the screenshots")
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from ..gui.app import screenshots

        try:
            size = tuple(int(x) for x in str(a.size).lower().split("x"))
        except ValueError:
            size = ()
        if len(size) != 2 or min(size) < 200:
            raise UsageError(f"--size {a.size!r}: expected WIDTHxHEIGHT, e.g. 1366x768")
        for p in screenshots(a.screenshot, a.project, a.run, size=size):
            print(p)
        return EXIT_OK
    if a.run is not None:
        raise UsageError("--run goes with --screenshot")
    if a.input_file is not None:
        f = Path(a.input_file).expanduser()
        if not f.is_file():
            raise UsageError(f"--input-file {a.input_file}: no such file")
        from ..core.audio import probe
        from ..core.errors import AudioError

        try:
            probe(f)
        except AudioError as exc:
            raise UsageError(f"--input-file: {exc}") from None
    from ..gui.app import run

    return run(a.project, input_file=a.input_file)
