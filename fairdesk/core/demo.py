"""The embedded demo datasets, imported side by side into one project.

- ``demo``: synthesized music requests in six English accents (espeak-ng voices, a matched
  design), shipped as ``resources/demo/demo_corpus.zip`` (see ``resources/demo/README.md``).
- ``l2-english``: real read English speech of 125 Mandarin-L1 speakers, children, teens and
  adults (a subset of speechocean762; an unmatched design, every prompt is distinct),
  shipped as ``resources/demo/l2-english/l2_english.zip`` with its ``SOURCE.txt``.

:func:`open_demo_datasets` unpacks each zip into the project and imports it; reopening a
project changes nothing, and a project made before a dataset existed gains it.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from ..paths import resources_dir
from .errors import ImportFailed
from .importers import ImportReport, import_dataset
from .store import Project

DEMO_NAME = "demo"
L2_NAME = "l2-english"
#: Every embedded dataset, in the order ``fairdesk demo`` imports them.
DEMO_DATASETS = (DEMO_NAME, L2_NAME)


def _zip_of(name: str) -> Path:
    if name == DEMO_NAME:
        z = resources_dir() / "demo" / "demo_corpus.zip"
        fix = "regenerate it with resources/demo/make_demo.py"
    elif name == L2_NAME:
        z = resources_dir() / "demo" / "l2-english" / "l2_english.zip"
        fix = "rebuild it with resources/demo/l2-english/make_zip.py"
    else:
        raise ImportFailed(f"no embedded dataset {name!r}; one of {', '.join(DEMO_DATASETS)}")
    if not z.exists():
        raise ImportFailed(f"{z}: the {name} corpus is missing; reinstall fairdesk or {fix}")
    return z


def demo_zip() -> Path:
    """The synthetic demo corpus (``resources/demo/demo_corpus.zip``)."""
    return _zip_of(DEMO_NAME)


def l2_english_zip() -> Path:
    """The speechocean762 subset (``resources/demo/l2-english/l2_english.zip``)."""
    return _zip_of(L2_NAME)


def _unpack(zpath: Path, target: Path) -> None:
    """Unpack ``zpath`` into ``target`` once (a marker file records a finished unpack)."""
    marker = target / ".unpacked"
    if marker.exists():
        return
    with zipfile.ZipFile(zpath) as zf:
        root = target.resolve()
        for member in zf.namelist():
            dest = (target / member).resolve()
            if dest != root and root not in dest.parents:
                raise ImportFailed(f"{zpath}: member {member!r} escapes the folder")
        zf.extractall(target)
    marker.write_text("ok\n")


def open_demo_dataset(project: Project, name: str, progress=None) -> ImportReport | None:
    """Create one embedded dataset (``demo`` or ``l2-english``) in ``project``.

    Parameters
    ----------
    project : the open project.
    name : one of :data:`DEMO_DATASETS`.
    progress : optional ``progress(fraction, message)`` callback of the import.

    Returns
    -------
    ImportReport or None
        The import report, or None when the dataset was already there.
    """
    zpath = _zip_of(name)
    if any(d.name == name for d in project.datasets()):
        return None
    target = project.folder / "datasets" / name
    _unpack(zpath, target)
    # l2-english: metadata.csv names the audio in `path`; content_id is derived from the
    # prompt text (every prompt distinct, so the design is unmatched).
    return import_dataset(
        project, name, target, fmt="audiofolder", language="en", progress=progress
    )


def open_demo_datasets(project: Project, progress=None) -> dict[str, ImportReport | None]:
    """Create (or reopen) every embedded dataset in ``project``.

    Returns
    -------
    dict
        Dataset name → import report (None for a dataset that was already there).
    """
    out = {}
    for k, name in enumerate(DEMO_DATASETS):

        def step(frac, msg, k=k, name=name):
            if progress:
                progress((k + frac) / len(DEMO_DATASETS), f"{name}: {msg}")

        out[name] = open_demo_dataset(project, name, step)
    return out


def open_demo(project: Project) -> ImportReport | None:
    """Create (or reopen) the demo project: every embedded dataset (:data:`DEMO_DATASETS`).

    Returns the report of the synthetic ``demo`` dataset's import, or None when it was
    already there (use :func:`open_demo_datasets` for every dataset's report).
    """
    return open_demo_datasets(project)[DEMO_NAME]
