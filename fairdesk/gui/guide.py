"""Help ▸ User guide: the user guide (docs/*.md, the pages MkDocs builds into a website)
shown inside the app, offline, with its pictures.

Each page's Markdown is converted to HTML by Python-Markdown (heading ids from ``toc``,
``admonition`` boxes, ``tables``; Qt's own Markdown mode shows admonitions as raw text and
gives headings no anchors) and shown in a :class:`QTextBrowser`. The pages are listed in the
order of ``mkdocs.yml``'s navigation; a link to another page opens it there (at its heading
when the link names one), a link to a heading of the same page scrolls to it, and a web link
opens in the system's browser. The pictures are the app's own screenshots
(docs/screenshots.py writes them to docs/img/; they are not in git): a page whose picture is
missing still reads, with a line in the picture's place that names it and says how it is made.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
)

from ..paths import docs_dir

__all__ = ["GuideWindow", "guide_pages", "page_html"]

#: The widest a picture is drawn (px): the screenshots are 1366 px wide.
IMAGE_WIDTH = 820
#: The include line of docs/changes.md (pymdownx.snippets in mkdocs.yml): the file it names,
#: relative to the folder above docs/.
_INCLUDE = re.compile(r'^--8<--\s+"([^"]+)"\s*$', re.M)
_IMG = re.compile(r"<img\b[^>]*>")
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_NAV = re.compile(r"^\s*-\s+(.+?):\s+([\w./-]+\.md)\s*$")
_STYLE = """
h1 { font-size: 22pt; } h2 { font-size: 16pt; margin-top: 18px; } h3 { font-size: 13pt; }
code { font-family: monospace; background-color: #f2f2f2; }
pre { font-family: monospace; background-color: #f2f2f2; padding: 6px; }
table { border-collapse: collapse; } th, td { border: 1px solid #c8c8c8; padding: 3px 6px; }
th { background-color: #eeeeee; }
.admonition { background-color: #eef4fb; border: 1px solid #9ec1e6; padding: 6px; }
.admonition-title { font-weight: bold; }
.missing-picture { color: #555555; font-style: italic; }
"""


def guide_pages(folder: Path | None = None) -> list[tuple[str, str]]:
    """(title, file name) of every page, in the navigation's order (``mkdocs.yml`` beside the
    docs folder, or every ``*.md`` by name when it is not there)."""
    folder = folder or docs_dir()
    nav = folder.parent / "mkdocs.yml"
    pages: list[tuple[str, str]] = []
    if nav.is_file():
        in_nav = False
        for line in nav.read_text(encoding="utf-8").splitlines():
            if not line.startswith((" ", "-")):
                in_nav = line.startswith("nav:")
                continue
            m = _NAV.match(line) if in_nav else None
            if m and (folder / m.group(2)).is_file():
                pages.append((m.group(1), m.group(2)))
    if not pages:
        pages = [
            (p.stem.replace("-", " ").capitalize(), p.name) for p in sorted(folder.glob("*.md"))
        ]
    return pages


def _markdown_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")

    def include(m: re.Match) -> str:
        target = path.parent.parent / m.group(1)
        try:
            return target.read_text(encoding="utf-8")
        except OSError as exc:
            return f"*{m.group(1)} could not be read ({exc.strerror}).*"

    return _INCLUDE.sub(include, text)


def page_html(path: Path) -> str:
    """One page of the guide as HTML for a QTextBrowser: headings with ids (and the ``<a
    name>`` anchors QTextDocument scrolls to), admonitions, tables, pictures drawn at most
    :data:`IMAGE_WIDTH` wide, and a line in place of a picture that is not there (docs/img/ is
    made by docs/screenshots.py and is not in git)."""
    import markdown

    body = markdown.markdown(
        _markdown_text(path), extensions=["toc", "admonition", "tables", "fenced_code"]
    )
    body = re.sub(
        r'<(h[1-6]) id="([^"]+)">', lambda m: f'<{m[1]} id="{m[2]}"><a name="{m[2]}"></a>', body
    )

    def picture(m: re.Match) -> str:
        attrs = dict(_ATTR.findall(m[0]))
        src = html.unescape(attrs.get("src", ""))
        if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I) or (path.parent / src).is_file():
            return m[0].replace("<img ", f'<img width="{IMAGE_WIDTH}" ', 1)
        return (
            f'<i class="missing-picture">[Picture not in this copy of the guide: '
            f"{attrs.get('alt') or html.escape(src)} ({html.escape(src)}). The guide's "
            "pictures are the app's own screenshots, made from fairdesk's source with "
            "<code>python docs/screenshots.py</code>.]</i>"
        )

    body = _IMG.sub(picture, body)
    return f"<html><head><style>{_STYLE}</style></head><body>{body}</body></html>"


class GuideWindow(QDialog):
    """The guide: its pages on the left, the page on the right."""

    def __init__(self, parent=None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("fairdesk user guide")
        self.folder = folder or docs_dir()
        self.pages = guide_pages(self.folder) if self.folder.is_dir() else []
        self.page_list = QListWidget()
        for title, name in self.pages:
            item = QListWidgetItem(title)
            item.setData(0x0100, name)  # Qt.UserRole
            self.page_list.addItem(item)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._follow)
        self.browser.setSearchPaths([str(self.folder)])
        split = QSplitter()
        split.addWidget(self.page_list)
        split.addWidget(self.browser)
        split.setSizes([220, 880])
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(split)
        lay.addLayout(row)
        self.resize(1100, 720)
        self.current: str | None = None
        self.page_list.currentRowChanged.connect(self._row_changed)
        if self.pages:
            self.page_list.setCurrentRow(0)
        else:
            self.browser.setHtml(
                "<h1>The user guide is not in this installation</h1><p>It is the "
                "<code>docs/</code> folder of fairdesk's source, which an installed package "
                "carries as <code>fairdesk/_guide/docs</code>; looked in "
                f"{html.escape(str(self.folder))}.</p>"
            )

    def _row_changed(self, row: int) -> None:
        if 0 <= row < len(self.pages) and self.pages[row][1] != self.current:
            self.open_page(self.pages[row][1])

    def open_page(self, name: str, anchor: str = "") -> None:
        """Show page ``name`` (a file of the docs folder), at heading ``anchor`` if given."""
        path = self.folder / name
        if not path.is_file():
            return
        self.current = name
        doc = self.browser.document()
        doc.setBaseUrl(QUrl.fromLocalFile(str(self.folder) + "/"))
        self.browser.setHtml(page_html(path))
        names = [n for _, n in self.pages]
        if name in names and self.page_list.currentRow() != names.index(name):
            self.page_list.blockSignals(True)
            self.page_list.setCurrentRow(names.index(name))
            self.page_list.blockSignals(False)
        if anchor:
            self.browser.scrollToAnchor(anchor)

    def _follow(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
            return
        target, anchor = url.path(), url.fragment()
        name = Path(target).name if target else ""
        if name.endswith(".md") and name != self.current:
            self.open_page(name, anchor)
        elif anchor:
            self.browser.scrollToAnchor(anchor)
