"""Reopening shows the run left open, and a copied project's audio is relinked to where the
dataset is now (issue 30, item 12)."""

from __future__ import annotations

import json
import shutil

import pytest
from PySide6.QtCore import QSettings

from tests.gui.conftest import small_settings


@pytest.fixture
def copy(mini, tmp_path):
    """The mini project and its data copied to ``tmp_path``, with a second (newer) run."""
    from fairdesk.core.store import Project
    from fairdesk.jobs.audit import AuditRequest, run_audit

    shutil.copytree(mini.folder, tmp_path / "project")
    shutil.copytree(mini.data, tmp_path / "data")
    p = Project(tmp_path / "project")
    out = run_audit(
        p,
        AuditRequest(
            dataset="mini",
            model=f"predictions:{mini.predictions}",
            by=("accent",),
            reference="south",
            settings=small_settings(),
        ),
    )
    p.close()
    return tmp_path / "project", tmp_path / "data", mini.run_id, out.run_id


def _window(qtbot, folder, settings):
    from fairdesk.gui.main_window import MainWindow

    w = MainWindow(folder, settings=settings)
    qtbot.addWidget(w)
    w.show()
    return w


def test_reopening_shows_the_run_left_open(qtbot, copy, tmp_path):
    folder, _data, first, newest = copy
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)
    w = _window(qtbot, folder, settings)
    assert w.ctx.run_id == newest  # nothing remembered: the newest run
    with qtbot.waitSignal(w.results.loaded, timeout=10000, raising=False):
        w.ctx.select_run(first)
    assert w.results.run_id == first
    w.close()
    again = _window(qtbot, folder, settings)
    assert again.ctx.run_id == first and again.results.run_id == first
    assert again.results.runs.currentData() == first
    again.close()
    # a run that is gone: the newest again
    settings.setValue("last_runs", json.dumps({str(again.ctx.folder): 999}))
    third = _window(qtbot, folder, settings)
    assert third.ctx.run_id == newest
    third.close()


def test_relink_makes_the_views_read_the_new_root(qtbot, copy, mini, tmp_path):
    folder, data, first, _newest = copy
    w = _window(qtbot, folder, QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    panel = w.datasets
    qtbot.waitUntil(lambda: panel._frame is not None, timeout=10000)  # read in a job
    assert str(mini.data.resolve()) in panel.audio_label.text()  # the original's audio
    assert panel.relink_btn.isVisible()
    # a folder missing one file is refused, naming it; nothing changes
    broken = tmp_path / "broken"
    shutil.copytree(data, broken)
    missing = sorted(broken.rglob("*.wav"))[0]
    missing.unlink()
    assert panel.relink(broken) is False
    assert f"{missing} (item " in panel.relink_error
    assert w.ctx.project.dataset("mini").root == mini.data.resolve()
    # the copied data: accepted
    assert panel.relink(data) is True and panel.relink_error == ""
    assert str(data.resolve()) in panel.audio_label.text()
    assert panel._path(0)[0].startswith(str(data.resolve()))
    w.ctx.select_run(first)
    w.show_tab("items")
    qtbot.waitUntil(lambda: w.items.run_id == first, timeout=10000)
    assert w.items._path_of(0)[0].startswith(str(data.resolve()))
    w.close()


def test_the_datasets_view_lists_every_audio_root(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import Qt

    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.gui.data import dataset_panel
    from tests.conftest import write_wav

    write_wav(tmp_path / "data" / "a.wav")
    corpus = write_wav(tmp_path / "corpus" / "b.wav", freq=400)
    (tmp_path / "data" / "m.csv").write_text(f"path,text\na.wav,one\n{corpus},two\n")
    p = Project(tmp_path / "project")
    assert import_dataset(p, "two", tmp_path / "data" / "m.csv").imported == 2
    p.close()
    w = _window(
        qtbot, tmp_path / "project", QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)
    )
    panel = w.datasets
    qtbot.waitUntil(lambda: panel._frame is not None, timeout=10000)  # read in a job
    text = panel.audio_label.text()
    assert f"<code>{(tmp_path / 'data').resolve()}</code> (1 item)" in text
    assert f"<code>{tmp_path / 'corpus'}</code> (1 item)" in text
    # the second root moves: Relink reads it from the new folder (the one whose files it holds)
    moved = tmp_path / "moved"
    write_wav(moved / "b.wav", freq=400)
    corpus.unlink()
    monkeypatch.setattr(
        dataset_panel.QFileDialog, "getExistingDirectory", lambda *a, **k: str(moved)
    )
    qtbot.mouseClick(panel.relink_btn, Qt.LeftButton)
    assert panel.relink_error == ""
    qtbot.waitUntil(lambda: str(moved.resolve()) in panel.audio_label.text(), timeout=10000)
    assert str(tmp_path / "corpus") not in panel.audio_label.text()
    w.close()
