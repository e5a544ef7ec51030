"""Where fairdesk's shipped files are, from a source tree, an installed package or a bundle.

The ``resources/`` folder (demo corpora, prompt lists, icons, the NLU artifact, report
definitions) sits next to the ``fairdesk`` package in a source tree; in a PyInstaller bundle
it is copied to the bundle's data folder (``sys._MEIPASS``). A bundle is read-only: fairdesk
writes projects and settings only to the user's folders, never here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["docs_dir", "frozen", "resources_dir"]


def frozen() -> bool:
    """Whether this is a bundled (PyInstaller) fairdesk."""
    return bool(getattr(sys, "frozen", False)) and hasattr(sys, "_MEIPASS")


def resources_dir() -> Path:
    """The ``resources/`` folder (``FAIRDESK_RESOURCES`` overrides it)."""
    env = os.environ.get("FAIRDESK_RESOURCES")
    if env:
        return Path(env)
    if frozen():
        return Path(sys._MEIPASS) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def docs_dir() -> Path:
    """The user guide's ``docs/`` folder (``FAIRDESK_DOCS`` overrides it): beside the package in
    a source tree, in the bundle's data folder in a bundle (with ``mkdocs.yml`` and
    ``CHANGELOG.md`` beside it in both)."""
    env = os.environ.get("FAIRDESK_DOCS")
    if env:
        return Path(env)
    if frozen():
        return Path(sys._MEIPASS) / "docs"
    return Path(__file__).resolve().parent.parent / "docs"
