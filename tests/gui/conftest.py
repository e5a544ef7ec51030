"""A small real project for the GUI tests: 40 wav files in two accents, imported with the
manifest importer, and one audit of imported predictions (no model, no network)."""

from __future__ import annotations

import csv
import json
import logging
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from tests.conftest import write_wav

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

SENTENCES = [
    (
        "play bohemian rhapsody by queen",
        "PlayMusic",
        {"artist": "queen", "song": "bohemian rhapsody"},
    ),
    ("play hotel california", "PlayMusic", {"song": "hotel california"}),
    ("turn the volume up", "VolumeUp", {}),
    ("pause the music", "Pause", {}),
    ("go back to the previous song", "Previous", {}),
]
ACCENTS = ("north", "south")
SPEAKERS = 4


@dataclass(frozen=True)
class MiniProject:
    folder: Path
    data: Path
    predictions: Path
    run_id: int
    n_items: int


def build_data(root: Path) -> tuple[Path, Path]:
    """Write the wav files, the manifest and a predictions file; returns (manifest, preds)."""
    root.mkdir(parents=True, exist_ok=True)
    rows, preds = [], []
    n = 0
    for accent in ACCENTS:
        for s in range(SPEAKERS):
            spk = f"{accent}_{s}"
            gender = "female" if s % 2 else "male"
            for k, (text, intent, slots) in enumerate(SENTENCES):
                rel = f"audio/{spk}/{spk}_{k}.wav"
                write_wav(root / rel, seconds=0.4, freq=180.0 + 23.0 * n)
                n += 1
                rows.append(
                    {
                        "path": rel,
                        "text": text,
                        "speaker_id": spk,
                        "content_id": f"c{k}",
                        "accent": accent,
                        "gender": gender,
                        "intent": intent,
                        "slots": json.dumps(slots),
                    }
                )
                words = text.split()
                if accent == "south" and (s + k) % 2 == 0:
                    del words[1]  # the south accent loses a word in half of its items
                if accent == "north" and s == 0 and k == 0:
                    words[2] = "rap"
                preds.append({"path": rel, "text": " ".join(words)})
    manifest = root / "manifest.csv"
    with manifest.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    pred_path = root / "predictions.csv"
    with pred_path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["path", "text"])
        w.writeheader()
        w.writerows(preds)
    return manifest, pred_path


def small_settings(**kw):
    from fairdesk.stats.settings import AuditSettings

    return AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2, **kw)


def audit_three_groups(mini) -> int:
    """A second run of the mini project, grouped by accent × gender (three groups compared
    with the reference); returns its id."""
    from fairdesk.core.store import Project
    from fairdesk.jobs.audit import AuditRequest, run_audit

    p = Project(mini.folder)
    try:
        return run_audit(
            p,
            AuditRequest(
                dataset="mini",
                model=f"predictions:{mini.predictions}",
                by=("accent", "gender"),
                settings=small_settings(),
            ),
        ).run_id
    finally:
        p.close()


@pytest.fixture(scope="session")
def _mini_built(tmp_path_factory) -> MiniProject:
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs.audit import AuditRequest, run_audit

    base = tmp_path_factory.mktemp("gui")
    manifest, preds = build_data(base / "data")
    project = Project(base / "project")
    rep = import_dataset(project, "mini", manifest, fmt="manifest")
    assert rep.imported == len(ACCENTS) * SPEAKERS * len(SENTENCES), rep.problems
    out = run_audit(
        project,
        AuditRequest(
            dataset="mini",
            model=f"predictions:{preds}",
            by=("accent",),
            reference="north",
            settings=small_settings(),
        ),
    )
    project.close()
    return MiniProject(base / "project", base / "data", preds, out.run_id, rep.imported)


@pytest.fixture
def mini(_mini_built, tmp_path) -> MiniProject:
    """The mini project, a fresh copy for each test: a test that adds runs, annotations or
    settings to it cannot change what the next test opens (the data folder is shared and
    read only)."""
    folder = tmp_path / "mini-project"
    shutil.copytree(_mini_built.folder, folder)
    return replace(_mini_built, folder=folder)


@pytest.fixture
def ctx(qtbot, mini):
    """A context on the mini project, closed (jobs cancelled and waited for) afterwards."""
    from fairdesk.gui.context import Context

    c = Context(mini.folder)
    yield c
    c.close(10000)


@pytest.fixture(autouse=True)
def _no_pool_threads_left(request):
    """Fail a test that leaves a job running on any pool."""
    yield
    if "qapp" not in request.fixturenames and "qtbot" not in request.fixturenames:
        return
    from PySide6.QtCore import QThreadPool
    from shiboken6 import isValid

    from fairdesk.gui.jobs import JobRegistry

    live = [r for r in list(JobRegistry.instances) if isValid(r) and isValid(r.pool)]
    busy = [r for r in live if not r.pool.waitForDone(5000)]
    assert not busy, "a test left background jobs running"
    assert QThreadPool.globalInstance().waitForDone(5000)


@pytest.fixture(autouse=True)
def _no_saliency_precompute(monkeypatch):
    """The item view's background saliency would run a model beside every test that shows a
    model's run; its own test turns it on."""
    from fairdesk.gui.items import item_saliency

    monkeypatch.setattr(item_saliency, "PRECOMPUTE", False)


@pytest.fixture(autouse=True, scope="session")
def _fairdesk_style(qapp):
    """Every GUI test sees the application as users do: fairdesk's font and style
    (:func:`fairdesk.gui.qapp.application`), not pytest-qt's bare QApplication, whose
    smaller font would let a layout that overflows a laptop screen pass."""
    from fairdesk.gui.qapp import application

    application()


@pytest.fixture(autouse=True, scope="session")
def _settings_in_a_temporary_folder(tmp_path_factory):
    """QSettings of every window in the tests go to a temporary folder, never the user's."""
    from PySide6.QtCore import QSettings

    QSettings.setDefaultFormat(QSettings.IniFormat)
    QSettings.setPath(
        QSettings.IniFormat, QSettings.UserScope, str(tmp_path_factory.mktemp("settings"))
    )


@pytest.fixture
def gui_log(caplog):
    """The log records of fairdesk's GUI at WARNING and above."""
    caplog.set_level(logging.WARNING)
    return caplog


@dataclass(frozen=True)
class SystemsProject:
    folder: Path
    run_ids: tuple[int, int]  # baseline first
    systems: tuple[str, str]


def second_predictions(data: Path) -> Path:
    """A second system's predictions of :func:`build_data`'s items: it loses a word in a
    quarter of the south items (the first loses one in half) and never errs in the north."""
    import pandas as pd

    man = pd.read_csv(data / "manifest.csv")
    rows = []
    for k, r in enumerate(man.itertuples()):
        words = r.text.split()
        if r.accent == "south" and k % 4 == 0:
            del words[-1]
        rows.append({"path": r.path, "text": " ".join(words)})
    out = data / "predictions_b.csv"
    pd.DataFrame(rows).to_csv(out, index=False)
    return out


@pytest.fixture(scope="session")
def mini_systems(tmp_path_factory) -> SystemsProject:
    """The mini data audited by two systems (imported predictions) and compared: two
    ordinary runs, the comparison stored with the first (the baseline)."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs.request import AuditRequest
    from fairdesk.jobs.system_run import audit_systems

    base = tmp_path_factory.mktemp("gui_systems")
    manifest, preds = build_data(base / "data")
    preds_b = second_predictions(base / "data")
    project = Project(base / "project")
    import_dataset(project, "mini", manifest, fmt="manifest")
    models = (f"predictions:{preds}", f"predictions:{preds_b}")
    out = audit_systems(
        project,
        AuditRequest(
            dataset="mini",
            model=models[0],
            by=("accent",),
            reference="north",
            nlu="none",
            settings=small_settings(),
        ),
        list(models),
    )
    project.close()
    return SystemsProject(base / "project", tuple(out.comparison.run_ids), models)
