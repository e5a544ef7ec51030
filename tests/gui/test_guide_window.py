"""Help ▸ User guide: the guide's pages (docs/*.md) inside the app, offline, with pictures,
headings with anchors, admonitions and tables (Python-Markdown in a QTextBrowser)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtGui import QTextDocument

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]


def _trigger(win, *path):
    menu_actions = win.menuBar().actions()
    for name in path[:-1]:
        (a,) = [a for a in menu_actions if a.text().replace("&", "") == name]
        menu_actions = a.menu().actions()
    (a,) = [a for a in menu_actions if a.text() == path[-1]]
    a.trigger()


def _click_page(qtbot, dlg, title):
    lst = dlg.page_list
    (row,) = [i for i in range(lst.count()) if lst.item(i).text() == title]
    rect = lst.visualItemRect(lst.item(row))
    qtbot.mouseClick(lst.viewport(), Qt.LeftButton, pos=rect.center())
    assert lst.currentRow() == row


def test_help_opens_the_guide_and_a_page_shows_its_heading_and_picture(
    qtbot, mini, tmp_path, monkeypatch
):
    from fairdesk.gui.guide import GuideWindow
    from fairdesk.gui.main_window import MainWindow

    # the docs folder as the app finds it, with one picture the page shows (docs/img is made
    # by docs/screenshots.py; here a stand-in PNG, so the test does not depend on that run)
    docs = tmp_path / "site" / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("img", "*.py"))
    shutil.copy(ROOT / "mkdocs.yml", docs.parent / "mkdocs.yml")
    shutil.copy(ROOT / "CHANGELOG.md", docs.parent / "CHANGELOG.md")
    (docs / "img").mkdir()
    from PySide6.QtGui import QImage

    img = QImage(40, 30, QImage.Format_RGB32)
    img.fill(Qt.red)
    assert img.save(str(docs / "img" / "03_results_comparisons.png"))
    monkeypatch.setenv("FAIRDESK_DOCS", str(docs))

    win = MainWindow(mini.folder, settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    qtbot.addWidget(win)
    win.show()
    _trigger(win, "Help", "User guide")
    (dlg,) = [w for w in win.findChildren(GuideWindow) if w.isVisible()]
    qtbot.addWidget(dlg)
    titles = [dlg.page_list.item(i).text() for i in range(dlg.page_list.count())]
    assert titles[:3] == ["Home", "Getting started", "Your data"] and "Methods" in titles

    _click_page(qtbot, dlg, "Reading the results")
    doc = dlg.browser.document()
    text = doc.toPlainText()
    assert "The five verdicts" in text and "inconclusive_underpowered" in text
    assert "[!" not in text and "## " not in text  # Markdown rendered, not shown raw
    # the heading has an anchor; a link to it scrolls there
    assert "the-mde" in doc.toHtml()
    # its table is a table
    from PySide6.QtGui import QTextTable

    cursor = doc.find("disparity_detected")
    assert isinstance(cursor.currentTable(), QTextTable)
    # its picture is loaded from the docs folder (offline)
    url = QUrl("img/03_results_comparisons.png")
    res = doc.resource(QTextDocument.ImageResource, url)
    assert res is not None and not res.isNull()

    # a link to another page's heading opens that page
    dlg.browser.anchorClicked.emit(QUrl("METHODS.md#verdicts"))
    assert dlg.current == "METHODS.md"
    assert "what every number means" in dlg.browser.document().toPlainText()
    assert titles[dlg.page_list.currentRow()] == "Methods"

    # the changes page includes CHANGELOG.md
    _click_page(qtbot, dlg, "Changes")
    assert "Readings in the cards' units" in dlg.browser.document().toPlainText()


def test_admonitions_render_as_boxes_not_raw_text(tmp_path):
    from fairdesk.gui.guide import page_html

    page = tmp_path / "p.md"
    page.write_text('# T\n\n!!! note "Careful"\n    Inconclusive is not fine.\n', encoding="utf-8")
    out = page_html(page)
    assert 'class="admonition note"' in out and "!!!" not in out
    assert '<a name="t"></a>' in out


def test_each_tab_s_question_mark_opens_its_section_of_the_guide(qtbot, mini, tmp_path):
    """The "?" beside the tabs opens the guide at the shown tab's page (clicked)."""
    from PySide6.QtWidgets import QApplication

    from fairdesk.gui.guide import GuideWindow
    from fairdesk.gui.main_window import HELP_PAGES, TABS, MainWindow

    win = MainWindow(mini.folder, settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    qtbot.addWidget(win)
    win.show()
    for name in ("datasets", "results", "record"):
        win.tabs.setCurrentIndex(TABS.index(name))
        before = set(QApplication.topLevelWidgets())
        qtbot.mouseClick(win.help_btn, Qt.LeftButton)
        (dlg,) = [
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, GuideWindow) and w not in before
        ]
        qtbot.addWidget(dlg)
        assert dlg.current == HELP_PAGES[name][0]
        title = (ROOT / "docs" / HELP_PAGES[name][0]).read_text(encoding="utf-8").splitlines()[0]
        assert title.lstrip("# ") in dlg.browser.toPlainText()
        dlg.close()


def test_an_installed_package_s_guide_reads_without_its_pictures(
    qtbot, mini, tmp_path, monkeypatch
):
    """A wheel built from a fresh clone (docs/img is made by docs/screenshots.py and is not in
    git) carries the pages without pictures in fairdesk/_guide: Help ▸ User guide finds them
    there (no source checkout, no FAIRDESK_DOCS) and says in each picture's place what it is
    and how it is made, with no broken image."""
    import fairdesk.paths as paths
    from fairdesk.gui.guide import GuideWindow
    from fairdesk.gui.main_window import MainWindow

    # the installed layout setup.py makes: site-packages/fairdesk/_guide/{docs,mkdocs.yml,...}
    package = tmp_path / "site-packages" / "fairdesk"
    guide = package / "_guide"
    shutil.copytree(ROOT / "docs", guide / "docs", ignore=shutil.ignore_patterns("img", "*.py"))
    shutil.copy(ROOT / "mkdocs.yml", guide / "mkdocs.yml")
    shutil.copy(ROOT / "CHANGELOG.md", guide / "CHANGELOG.md")
    monkeypatch.delenv("FAIRDESK_DOCS", raising=False)
    monkeypatch.setattr(paths, "_PACKAGE", package)

    win = MainWindow(mini.folder, settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    qtbot.addWidget(win)
    win.show()
    _trigger(win, "Help", "User guide")
    (dlg,) = [w for w in win.findChildren(GuideWindow) if w.isVisible()]
    qtbot.addWidget(dlg)
    assert dlg.folder == guide / "docs"
    titles = [dlg.page_list.item(i).text() for i in range(dlg.page_list.count())]
    assert titles[:3] == ["Home", "Getting started", "Your data"]  # mkdocs.yml's order

    _click_page(qtbot, dlg, "Reading the results")
    doc = dlg.browser.document()
    text = doc.toPlainText()
    assert "The five verdicts" in text
    pictures = (
        "Verdict cards on the Results tab",
        "Group values with their intervals",
        "The disparity radar",
        "The Regression tab",
    )
    for alt in pictures:
        (line,) = [ln for ln in text.splitlines() if f"this copy of the guide: {alt} (img/" in ln]
        assert line.startswith("[Picture not") and "python docs/screenshots.py" in line
    assert "img/03_results_radar.png" in text
    assert "<img" not in doc.toHtml()  # no broken picture drawn
    _click_page(qtbot, dlg, "Changes")  # the include is packaged too
    assert "Readings in the cards' units" in dlg.browser.document().toPlainText()


def test_a_picture_that_is_there_is_drawn_and_a_web_picture_is_left_alone(tmp_path):
    from fairdesk.gui.guide import IMAGE_WIDTH, page_html

    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(b"png")
    page = tmp_path / "p.md"
    page.write_text(
        "# T\n\n![Here](img/a.png)\n\n![Gone & lost](img/b.png)\n\n![Web](https://x.org/c.png)\n",
        encoding="utf-8",
    )
    out = page_html(page)
    assert f'<img width="{IMAGE_WIDTH}" alt="Here" src="img/a.png"' in out
    assert '<img width="820" alt="Web" src="https://x.org/c.png"' in out
    assert "img/b.png" in out and 'src="img/b.png"' not in out
    assert "[Picture not in this copy of the guide: Gone &amp; lost (img/b.png)." in out
