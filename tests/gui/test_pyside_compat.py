"""PySide6 6.12.0 on CPython 3.11 drops a reference to None on every void Qt call; importing
fairdesk.gui guards against it so that long sessions do not abort."""

from __future__ import annotations

import subprocess
import sys


def test_many_void_qt_calls_do_not_abort_the_process():
    code = (
        "import fairdesk.gui\n"
        "from PySide6.QtWidgets import QApplication, QLabel\n"
        "app = QApplication([])\n"
        "label = QLabel()\n"
        "for _ in range(300_000):\n"
        "    label.setText('x')\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr[-2000:]


def test_guard_only_acts_on_the_affected_version():
    from fairdesk.gui.pyside_compat import affected

    assert not affected("6.11.3")
    assert affected("6.12.0") == (
        sys.version_info < (3, 12) and sys.implementation.name == "cpython"
    )
