"""The launch path imports only what the first screen needs (issue 30, item 14)."""

import os
import subprocess
import sys

import pytest

LAUNCH = """
import sys
import fairdesk.cli  # what `fairdesk gui` imports first
from PySide6.QtCore import QSettings
from fairdesk.gui.app import application
from fairdesk.gui.main_window import MainWindow
app = application()
w = MainWindow(sys.argv[1], settings=QSettings(sys.argv[2], QSettings.IniFormat))
w.show()
for _ in range(3):
    app.processEvents()
w.grab()  # the first full paint
bad = [m for m in ("scipy", "statsmodels") if m in sys.modules]
w.close()
print("LOADED", ",".join(bad) or "-", w.results.run_id)
print("SWITCH", sys.getswitchinterval())
"""


def test_the_first_window_does_not_import_the_statistics_stack(mini, tmp_path):
    """The window built and drawn on a project with a stored run (the run selected, the
    Results tab hidden) has loaded neither scipy nor statsmodels: they load when a view
    computes or the Results tab is first drawn, not at start."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    r = subprocess.run(
        [sys.executable, "-c", LAUNCH, str(mini.folder), str(tmp_path / "s.ini")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("LOADED"))
    assert line == f"LOADED - {mini.run_id}", r.stdout
    # the desktop process switches threads every 1 ms, so that a job's pure-Python work does
    # not hold the window up for the default 5 ms at each of its many takes of the GIL
    switch = next(ln for ln in r.stdout.splitlines() if ln.startswith("SWITCH"))
    assert float(switch.split()[1]) == pytest.approx(0.001)
