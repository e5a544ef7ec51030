"""The one QApplication, for the main window and for panels opened on their own."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from .theme import apply_style


def application(argv=None) -> QApplication:
    """The QApplication (created once), with fairdesk's font and style."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(list(argv or sys.argv[:1]))
        app.setApplicationName("fairdesk")
        app.setOrganizationName("fairdesk")
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
