"""The GUI speaks users' words: every label, button, tab, combo item, group title, header,
placeholder and tooltip of every tab, and every menu action, is free of the project's internal
names for its sources and of "§N" citations (the rule and the accepted aliases:
tests/test_user_words.py)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QTabWidget,
    QWidget,
)

from tests.test_user_words import internal_names

pytestmark = pytest.mark.gui


def _texts(root: QWidget):
    """(where, text) of every text a user can read on ``root`` and its children."""
    for w in [root, *root.findChildren(QWidget)]:
        where = f"{type(w).__name__} {w.objectName()}".strip()
        yield where, w.toolTip()
        yield where, w.whatsThis()
        if isinstance(w, QLabel | QAbstractButton):
            yield where, w.text()
        if isinstance(w, QGroupBox):
            yield where, w.title()
        if isinstance(w, QLineEdit):
            yield where, w.placeholderText()
        if isinstance(w, QComboBox):
            for i in range(w.count()):
                yield where, w.itemText(i)
                yield where, str(w.itemData(i, Qt.ToolTipRole) or "")
        if isinstance(w, QTabWidget):
            for i in range(w.count()):
                yield where, w.tabText(i)
                yield where, w.tabToolTip(i)
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            m, top = w.model(), QModelIndex()
            try:
                n_cols = m.columnCount(top)
            except TypeError:  # a list model's columnCount is private: one column
                n_cols = 1
            for orient, n in ((Qt.Horizontal, n_cols), (Qt.Vertical, m.rowCount(top))):
                for i in range(min(n, 200)):
                    yield where, str(m.headerData(i, orient, Qt.DisplayRole) or "")
                    yield where, str(m.headerData(i, orient, Qt.ToolTipRole) or "")
        for a in w.actions():
            yield f"{where} action", a.text()
            yield f"{where} action", a.toolTip()


def _menu_texts(win):
    def walk(actions, path):
        for a in actions:
            yield f"{path} ▸ {a.text()}", a.text()
            yield f"{path} ▸ {a.text()}", a.toolTip()
            yield f"{path} ▸ {a.text()}", a.statusTip()
            if a.menu() is not None:
                yield from walk(a.menu().actions(), f"{path} ▸ {a.text()}")

    yield from walk(win.menuBar().actions(), "menu")
    for a in win.findChildren(QAction):
        yield "action", a.text()


def test_every_label_and_menu_of_every_tab(qtbot, mini, tmp_path):
    from fairdesk.gui.main_window import TABS, MainWindow

    win = MainWindow(mini.folder, settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    qtbot.addWidget(win)
    win.show()
    n = 0
    for name in TABS:
        win.show_tab(name)  # builds the tab as a user opening it would
        qtbot.wait(10)
    from fairdesk.gui.results.results_panel import SUBTABS

    win.show_tab("results")
    for name in SUBTABS:  # the Results tab's sub-tabs draw on their first show
        win.results.show_subtab(name)
        qtbot.wait(10)
    for where, text in [*_texts(win), *_menu_texts(win)]:
        n += 1
        assert not internal_names(text or ""), (where, text)
    assert n > 300  # the walk saw the built tabs, not an empty window
    # the Record tab's prompt lists, by the names the combo shows
    combo = win.record.list_combo
    names = [combo.itemText(i) for i in range(combo.count())]
    assert "igbo tone marks 1 orthographic interference" in names, names
