"""What the window shows when no project is open: three ways in (the demo project, importing
a dataset, opening a project) and the recent projects."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


def default_demo_folder() -> Path:
    """Where "Open the demo project" creates it: ``~/fairdesk-demo``."""
    return Path.home() / "fairdesk-demo"


class FirstRunPage(QWidget):
    """The welcome page.

    Signals
    -------
    demo : "Open the demo project" was chosen.
    import_dataset : "Import a dataset…".
    open_project : "Open a project…".
    open_recent(str) : a recent project was chosen.
    """

    demo = Signal()
    import_dataset = Signal()
    open_project = Signal()
    open_recent = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        title = QLabel("Welcome to fairdesk")
        f = QFont(title.font())
        f.setPointSize(20)
        f.setBold(True)
        title.setFont(f)
        intro = QLabel(
            "fairdesk tells whether a speech model works equally well for everyone, "
            "and lets you hear why not. Start with one of these:"
        )
        intro.setWordWrap(True)
        self.demo_btn = QPushButton("Open the demo project")
        self.demo_btn.setObjectName("primary")
        self.demo_btn.setToolTip(
            f"create (or reopen) the demo project in "
            f"{default_demo_folder()}: synthetic voices in six accents"
        )
        self.import_btn = QPushButton("Import a dataset…")
        self.import_btn.setToolTip(
            "choose a project folder, then a manifest, Common Voice, "
            "LibriSpeech or audiofolder dataset"
        )
        self.open_btn = QPushButton("Open a project…")
        self.open_btn.setToolTip("open a folder holding a fairdesk project (Ctrl+O)")
        hints = (
            ("The embedded demo corpus and a ready-made audit setting.", self.demo_btn),
            ("Your recordings with their metadata (every refused row is listed).", self.import_btn),
            ("A project made earlier, here or with the fairdesk command.", self.open_btn),
        )
        box = QVBoxLayout()
        box.setSpacing(10)
        for text, btn in hints:
            btn.setMinimumHeight(36)
            btn.setMinimumWidth(240)
            row = QHBoxLayout()
            row.addWidget(btn)
            hint = QLabel(text)
            hint.setObjectName("muted")
            hint.setWordWrap(True)
            row.addWidget(hint, 1)
            box.addLayout(row)
        self.recent = QListWidget()
        self.recent.setMaximumHeight(140)
        self.recent_label = QLabel("Recent projects")
        self.recent_label.setObjectName("heading")
        self.busy = QLabel("")
        self.busy.setObjectName("muted")
        self.busy.setTextFormat(Qt.PlainText)
        card = QFrame()
        card.setObjectName("welcome")
        card.setStyleSheet(
            "QFrame#welcome { background: #ffffff; border: 1px solid #d0d4da; border-radius: 8px; }"
        )
        cv = QVBoxLayout(card)
        cv.setContentsMargins(28, 24, 28, 24)
        cv.setSpacing(12)
        cv.addWidget(title)
        cv.addWidget(intro)
        cv.addLayout(box)
        cv.addWidget(self.busy)
        cv.addWidget(self.recent_label)
        cv.addWidget(self.recent)
        card.setMaximumWidth(760)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        col = QVBoxLayout()
        col.addStretch(1)
        col.addWidget(card)
        col.addStretch(2)
        outer.addLayout(col, 4)
        outer.addStretch(1)
        self.demo_btn.clicked.connect(self.demo)
        self.import_btn.clicked.connect(self.import_dataset)
        self.open_btn.clicked.connect(self.open_project)
        self.recent.itemActivated.connect(lambda it: self.open_recent.emit(it.text()))
        self.set_recent([])

    def set_recent(self, folders: list[str]) -> None:
        """List the recent projects that still exist."""
        self.recent.clear()
        for f in folders:
            if (Path(f) / "project.sqlite").exists():
                self.recent.addItem(f)
        has = self.recent.count() > 0
        self.recent.setVisible(has)
        self.recent_label.setVisible(has)

    def set_busy(self, text: str) -> None:
        self.busy.setText(text)
        for b in (self.demo_btn, self.import_btn, self.open_btn):
            b.setEnabled(not text)
