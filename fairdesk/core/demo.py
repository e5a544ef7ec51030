"""The embedded demo corpus: synthesized music requests in six English accents.

The corpus ships as ``resources/demo/demo_corpus.zip`` (see ``resources/demo/README.md``);
:func:`open_demo` unpacks it into the project and imports it as the dataset ``demo``.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from .errors import ImportFailed
from .importers import ImportReport, import_dataset
from .store import Project

DEMO_NAME = "demo"


def resources_dir() -> Path:
    """The ``resources/`` folder (``FAIRDESK_RESOURCES`` overrides it)."""
    env = os.environ.get("FAIRDESK_RESOURCES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "resources"


def demo_zip() -> Path:
    z = resources_dir() / "demo" / "demo_corpus.zip"
    if not z.exists():
        raise ImportFailed(f"{z}: the demo corpus is missing; reinstall fairdesk or regenerate "
                           "it with resources/demo/make_demo.py")
    return z


def open_demo(project: Project) -> ImportReport | None:
    """Create (or reopen) the demo dataset in ``project``.

    Returns the import report, or None when the dataset was already there.
    """
    if any(d.name == DEMO_NAME for d in project.datasets()):
        return None
    target = project.folder / "datasets" / DEMO_NAME
    marker = target / ".unpacked"
    if not marker.exists():
        with zipfile.ZipFile(demo_zip()) as zf:
            for member in zf.namelist():
                dest = (target / member).resolve()
                if not str(dest).startswith(str(target.resolve())):
                    raise ImportFailed(f"{demo_zip()}: member {member!r} escapes the folder")
            zf.extractall(target)
        marker.write_text("ok\n")
    return import_dataset(project, DEMO_NAME, target, fmt="audiofolder")
