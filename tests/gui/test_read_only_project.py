"""A read-only project in the GUI (issue 29): the window opens it, the browser lists its
items, the item view shows a run; importing, auditing and recording are disabled with the
reason, and saving a transcript is refused with a message. Nothing in the folder changes.

Running as root (CI) ``chmod`` does not stop writes, so the store is made to see the folder
as not writable (``tests.hostile.stores.read_only``): the path a read-only mount takes.
"""

from __future__ import annotations

import hashlib
import shutil

from PySide6.QtCore import QSettings

from tests.hostile.stores import read_only


def _listing(folder):
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_window_opens_a_read_only_project(qtbot, mini, tmp_path, monkeypatch):
    from fairdesk.gui.main_window import MainWindow

    folder = tmp_path / "ro"
    shutil.copytree(mini.folder, folder)
    read_only(monkeypatch, folder)
    before = _listing(folder)
    win = MainWindow(folder, settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    qtbot.addWidget(win)
    try:
        assert win.ctx.read_only == "its folder cannot be written"
        assert win.windowTitle().endswith("(read-only)")
        assert "read-only" in win.statusBar().currentMessage()
        # browsing: the datasets and the items of one
        win.show_tab("datasets")
        assert win.datasets.datasets.count() == 1
        win.datasets.select_dataset("mini")
        assert win.datasets.visible_rows() == mini.n_items
        # the run's items
        with qtbot.waitSignal(win.results.loaded, timeout=10000, raising=False):
            win.ctx.select_run(mini.run_id)
        win.show_tab("items")
        win.items.load_run(mini.run_id)
        label = win.items.run_label.text()
        assert label.startswith(f"Run {mini.run_id}: ") and f"of {mini.n_items} items" in label
        assert win.items.model.rowCount() > 0, label
        # writing actions: disabled, saying why
        for w in (win.datasets.import_btn, win.audit.run_btn, win.record.record_btn):
            assert not w.isEnabled()
            assert "read-only" in w.toolTip()
        assert not win.import_action.isEnabled() and not win.run_action.isEnabled()
        told = []
        monkeypatch.setattr(
            "fairdesk.gui.data.dataset_panel.QMessageBox.information",
            lambda _parent, title, text: told.append((title, text)),
        )
        assert win.datasets.import_dialog() is None
        assert told and told[0][0] == "Import" and "read-only" in told[0][1]
        # a transcript edit is refused with a message, the text stays in the editor
        panel = win.items.annotation
        win.items.table.selectRow(0)
        qtbot.waitUntil(lambda: panel.item_db_id is not None, timeout=5000)
        panel._save("a corrected transcript")
        assert panel.editor.status.text().startswith("not saved: ")
        assert "the project is read-only" in panel.editor.status.text()
    finally:
        win.close()
    assert _listing(folder) == before
