"""The one QApplication, for the main window and for panels opened on their own."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from .widgets.theme import apply_style

#: The interpreter's thread switch interval in the desktop application (s; Python's default
#: is 0.005). The GUI thread takes the GIL many times per pass of the event loop (each call
#: into Python), and while a job runs pure-Python code each take waited up to the interval:
#: loading the CMU dictionary in the statistics stage froze the window for ~0.5 s. At 1 ms
#: the longest stall of a 60-item audit fell from ~580 ms to ~80 ms with the audit's own
#: time unchanged (bench/gui_responsiveness.py).
SWITCH_INTERVAL_S = 0.001


def application(argv=None) -> QApplication:
    """The QApplication (created once), with fairdesk's font and style."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(list(argv or sys.argv[:1]))
        app.setApplicationName("fairdesk")
        app.setOrganizationName("fairdesk")
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    apply_style(app)
    return app


def save_grab(widget, path) -> Path:
    """Save a picture of ``widget`` as PNG at ``path``, complete or not at all
    (:mod:`fairdesk.core.atomic`; an ``OutputError`` says why it could not be written)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    from ..core.atomic import write_bytes

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.WriteOnly)
    if not widget.grab().save(buf, "PNG"):
        raise ValueError(f"{path}: the picture could not be encoded as PNG")
    buf.close()
    return write_bytes(path, bytes(data))
