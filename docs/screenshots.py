"""Make the user guide's pictures: the app's own screenshots (``fairdesk gui --screenshot``) at
1366×768, on a small demo project whose runs use imported predictions, built as the GUI tests
build theirs (tests/gui/conftest.py: 40 short WAV files in two accents, imported with the
manifest importer, audited by two systems' predictions and compared). No model, no network:
it takes under a minute, so CI runs it (installer/test.sh) before ``mkdocs build``.

Usage: python docs/screenshots.py [OUT]     (default: docs/img, the folder the guide links)

The pictures are not committed (docs/img is ignored by git): they are made from the code of
the same commit, so they show the app as it is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = "1366x768"


def build_project(base: Path) -> tuple[Path, int]:
    """The demo project of the GUI tests, audited by two systems: (folder, baseline run)."""
    sys.path.insert(0, str(ROOT))
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs.request import AuditRequest
    from fairdesk.jobs.system_run import audit_systems
    from tests.gui.conftest import build_data, second_predictions, small_settings

    manifest, preds = build_data(base / "data")
    preds_b = second_predictions(base / "data")
    project = Project(base / "project")
    try:
        rep = import_dataset(project, "mini", manifest, fmt="manifest")
        if not rep.imported:
            raise SystemExit(f"the demo data did not import: {rep.problems}")
        models = [f"predictions:{preds}", f"predictions:{preds_b}"]
        request = AuditRequest(
            dataset="mini",
            model=models[0],
            by=("accent",),
            reference="north",
            nlu="none",
            settings=small_settings(),
        )
        out = audit_systems(project, request, models)
        run_id = int(out.comparison.run_ids[0])
    finally:
        project.close()
    return base / "project", run_id


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "img"
    with tempfile.TemporaryDirectory() as tmp:
        folder, run_id = build_project(Path(tmp))
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
        cmd = [sys.executable, "-m", "fairdesk", "gui", "--screenshot", str(out)]
        cmd += ["--project", str(folder), "--run", str(run_id), "--size", SIZE]
        done = subprocess.run(cmd, env=env, cwd=ROOT, check=False)
    if done.returncode:
        print(f"docs/screenshots.py: fairdesk gui --screenshot failed ({done.returncode})")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
