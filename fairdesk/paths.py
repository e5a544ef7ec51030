"""Where fairdesk's shipped files are, from a source tree, an installed package or a bundle.

The ``resources/`` folder (demo corpora, prompt lists, icons, the NLU artifact, report
definitions) sits next to the ``fairdesk`` package in a source tree; in a PyInstaller bundle
it is copied to the bundle's data folder (``sys._MEIPASS``). The user guide (``docs/``) is
beside the package in a source tree, in the bundle's data folder in a bundle, and inside the
package (``fairdesk/_guide/``, which setup.py copies there) in an installed wheel. A bundle is
read-only: fairdesk writes projects and settings only to the user's folders, never here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["docs_dir", "frozen", "resources_dir"]

#: The ``fairdesk`` package folder.
_PACKAGE = Path(__file__).resolve().parent


def frozen() -> bool:
    """Whether this is a bundled (PyInstaller) fairdesk."""
    return bool(getattr(sys, "frozen", False)) and hasattr(sys, "_MEIPASS")


def _bundle() -> Path:
    """The folder a bundle unpacks to (PyInstaller's ``sys._MEIPASS``; only when frozen)."""
    return Path(sys._MEIPASS)  # type: ignore[attr-defined]  # PyInstaller sets it at run time


def resources_dir() -> Path:
    """The ``resources/`` folder (``FAIRDESK_RESOURCES`` overrides it)."""
    env = os.environ.get("FAIRDESK_RESOURCES")
    if env:
        return Path(env)
    if frozen():
        return _bundle() / "resources"
    return _PACKAGE.parent / "resources"


def docs_dir() -> Path:
    """The user guide's ``docs/`` folder, with ``mkdocs.yml`` (the navigation) and
    ``CHANGELOG.md`` (the changes page includes it) in the folder above it.

    ``FAIRDESK_DOCS`` overrides it. A bundle has it in its data folder; a source checkout has it
    beside the package (preferred, so an editable install shows the guide being edited); an
    installed wheel has the copy that setup.py puts in the package, ``fairdesk/_guide/docs``.
    When neither is there, the source checkout's path, which the guide names as missing."""
    env = os.environ.get("FAIRDESK_DOCS")
    if env:
        return Path(env)
    if frozen():
        return _bundle() / "docs"
    source = _PACKAGE.parent / "docs"
    if (source / "index.md").is_file() and (_PACKAGE.parent / "mkdocs.yml").is_file():
        return source
    packaged = _PACKAGE / "_guide" / "docs"
    if (packaged / "index.md").is_file():
        return packaged
    return source
