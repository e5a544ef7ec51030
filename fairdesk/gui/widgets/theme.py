"""Colours and styles shared by the panels (numbers and labels: :mod:`fairdesk.presentation`)."""

from __future__ import annotations

import html

from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication

from ...reports.palette import VERDICTS  # noqa: E402 - one palette for the GUI and reports

#: Short verdict labels for the cards (the full label is in the legend and the tooltip).
VERDICT_SHORT = {
    "disparity_detected": "Disparity",
    "speaker_confounded": "Speaker-confounded",
    "significant_but_small": "Significant, small",
    "inconclusive_underpowered": "Inconclusive",
    "no_disparity_detected": "No disparity",
    "descriptive": "Descriptive",
    "not_estimable": "Not estimable",
    "no_variation": "No variation",
    "not_computable": "Not computable",
}

#: Slot status colours.
SLOT_STATUS = {"ok": "#2e7d32", "missed": "#c62828", "wrong": "#ef6c00", "extra": "#1565c0"}

#: Series colours (colour-blind safe, Okabe-Ito).
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]

STYLE = """
QMainWindow, QDialog { background: #f6f7f9; }
QTabWidget::pane { border: 1px solid #d0d4da; background: #ffffff; border-radius: 4px; }
QTabBar::tab { padding: 7px 16px; margin-right: 2px; background: #e9ecf0;
               border: 1px solid #d0d4da; border-bottom: none;
               border-top-left-radius: 4px; border-top-right-radius: 4px; }
QTabBar::tab:selected { background: #ffffff; font-weight: bold; }
QGroupBox { font-weight: bold; border: 1px solid #d0d4da; border-radius: 4px;
            margin-top: 12px; padding-top: 8px; background: #ffffff; }
QGroupBox::title { subcontrol-origin: margin; left: 8px; padding: 0 4px; }
QTableView, QTreeWidget, QListWidget { background: #ffffff; alternate-background-color: #f3f5f8;
            gridline-color: #e3e6ea; selection-background-color: #cfe3ff;
            selection-color: #111111; }
QHeaderView::section { background: #eef1f4; padding: 4px 6px; border: none;
            border-right: 1px solid #d9dde2; border-bottom: 1px solid #d0d4da;
            font-weight: bold; }
QPushButton { padding: 5px 14px; border: 1px solid #b8bfc8; border-radius: 4px;
              background: #ffffff; }
QPushButton:hover { background: #eef4ff; }
QPushButton:disabled { color: #9aa1a9; background: #f2f3f5; }
QPushButton#primary { background: #1565c0; color: white; border-color: #0d47a1;
                      font-weight: bold; }
QPushButton#primary:disabled { background: #90a4c0; }
QProgressBar { border: 1px solid #b8bfc8; border-radius: 4px; text-align: center;
               background: #ffffff; height: 18px; }
QProgressBar::chunk { background: #1e88e5; border-radius: 3px; }
QLabel#heading { font-size: 15px; font-weight: bold; color: #1f2933; }
QLabel#muted { color: #5f6b7a; }
QStatusBar { background: #eef1f4; }
"""


def apply_style(app) -> None:
    """Application font (DejaVu Sans when installed: offscreen Qt has no default) and style."""
    families = set(QFontDatabase.families())
    for name in ("Inter", "Noto Sans", "DejaVu Sans", "Liberation Sans"):
        if name in families:
            f = QFont(name, 10)
            QGuiApplication.setFont(f)
            break
    app.setStyle("Fusion")
    app.setStyleSheet(STYLE)
    import pyqtgraph as pg

    # white plots in every panel, whichever module is imported first
    pg.setConfigOptions(antialias=True, background="w", foreground="#222222")


def mono_font(size: int = 10) -> QFont:
    f = QFontDatabase.systemFont(QFontDatabase.FixedFont)
    for name in ("DejaVu Sans Mono", "Noto Sans Mono", "Liberation Mono"):
        if name in QFontDatabase.families():
            f = QFont(name)
            break
    f.setPointSize(size)
    return f


def verdict_style(verdict: str) -> tuple[str, QColor, QColor]:
    label, bg, fg = VERDICTS.get(verdict, (verdict.replace("_", " "), "#e0e0e0", "#1a1a1a"))
    return label, QColor(bg), QColor(fg)


def esc(value) -> str:
    """A user-supplied value for rich text: HTML-escaped (``<h1>`` shows as ``<h1>``)."""
    return html.escape(str(value), quote=True)


def plain_tip(text) -> str:
    """A tooltip that shows ``text`` literally: Qt renders a tooltip that looks like HTML as
    rich text, so the text is escaped inside a paragraph (always rich, never interpreted)."""
    return "" if text is None or text == "" else f"<p>{esc(text)}</p>"
