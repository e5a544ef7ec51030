"""The one QApplication, for the main window and for panels opened on their own."""

from __future__ import annotations

import sys

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
