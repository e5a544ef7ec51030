"""Import a dataset (manifest, audiofolder, Common Voice, LibriSpeech) in the background and
show every refused row with its reason."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ..core.importers import FORMATS
from ..jobs import tasks
from ..presentation import count
from .context import Context
from .jobs import Job
from .theme import esc, plain_tip


class ImportDialog(QDialog):
    """Fields of ``fairdesk import``; the report lists refused rows (source, row, path, reason).

    Signals
    -------
    imported(dict) : the import report (also after a partial import).
    """

    imported = Signal(dict)

    def __init__(self, ctx: Context, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Import a dataset")
        self.resize(860, 560)
        self.ctx = ctx
        self.job: Job | None = None
        self.report: dict | None = None

        self.path = QLineEdit()
        self.path.setPlaceholderText("manifest file (CSV, TSV, JSONL) or dataset folder")
        file_btn = QPushButton("File…")
        dir_btn = QPushButton("Folder…")
        prow = QHBoxLayout()
        prow.addWidget(self.path, 1)
        prow.addWidget(file_btn)
        prow.addWidget(dir_btn)
        self.name = QLineEdit()
        self.name.setPlaceholderText("dataset name in the project")
        self.format = QComboBox()
        self.format.addItems(list(FORMATS))
        self.language = QLineEdit("en")
        self.language.setMaximumWidth(80)
        self.cols = {
            k: QLineEdit()
            for k in ("audio_col", "text_col", "speaker_col", "content_col", "id_col")
        }
        for w in self.cols.values():
            w.setPlaceholderText("detected")
        self.split = QLineEdit()
        self.split.setPlaceholderText("Common Voice split (validated, test, …)")

        form = QFormLayout()
        form.addRow("Source", prow)
        form.addRow("Name", self.name)
        form.addRow("Format", self.format)
        form.addRow("Language", self.language)
        crow = QHBoxLayout()
        for k, w in self.cols.items():
            crow.addWidget(QLabel(k.replace("_col", "")))
            crow.addWidget(w)
        form.addRow("Columns", crow)
        form.addRow("Split", self.split)

        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.RichText)  # every value in it is escaped (esc)
        self.message.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.problems = QTableWidget(0, 4)
        self.problems.setHorizontalHeaderLabels(["Source", "Line", "Path", "Reason"])
        self.problems.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.problems.setAlternatingRowColors(True)
        self.problems.setWordWrap(True)
        self.problems.verticalHeader().setVisible(False)
        hdr = self.problems.horizontalHeader()
        hdr.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        hdr.setSectionResizeMode(1, QHeaderView.ResizeToContents)
        hdr.setSectionResizeMode(2, QHeaderView.Interactive)
        hdr.setSectionResizeMode(3, QHeaderView.Stretch)
        self.problems.setColumnWidth(2, 200)

        self.buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.import_btn = self.buttons.addButton("Import", QDialogButtonBox.AcceptRole)
        self.import_btn.setObjectName("primary")
        self.buttons.rejected.connect(self.reject)
        self.buttons.accepted.connect(self.start)

        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.progress)
        lay.addWidget(self.message)
        lbl = QLabel("Refused rows")
        lbl.setObjectName("heading")
        lay.addWidget(lbl)
        lay.addWidget(self.problems, 1)
        lay.addWidget(self.buttons)

        file_btn.clicked.connect(self._pick_file)
        dir_btn.clicked.connect(self._pick_dir)
        self.path.textChanged.connect(self._suggest_name)

    def _pick_file(self):
        f, _ = QFileDialog.getOpenFileName(
            self, "Manifest", "", "Manifests (*.csv *.tsv *.jsonl);;All files (*)"
        )
        if f:
            self.path.setText(f)

    def _pick_dir(self):
        d = QFileDialog.getExistingDirectory(self, "Dataset folder")
        if d:
            self.path.setText(d)

    def _suggest_name(self, text: str):
        if not self.name.isModified() and text:
            p = Path(text)
            self.name.setText(p.parent.name if p.suffix else p.name)

    def start(self) -> Job | None:
        """Start the import job with the dialog's fields."""
        path, name = self.path.text().strip(), self.name.text().strip()
        if not path or not name:
            self.message.setText(
                esc("Give the source (a manifest or a folder) and a dataset name.")
            )
            return None
        options = {k: w.text().strip() or None for k, w in self.cols.items()}
        if self.split.text().strip():
            options["split"] = self.split.text().strip()
        self.problems.setRowCount(0)
        self.progress.setValue(0)
        self.message.setText(esc(f"importing {path} …"))
        self.import_btn.setEnabled(False)
        job = Job(
            tasks.import_dataset,
            str(self.ctx.folder),
            name,
            path,
            fmt=self.format.currentText(),
            language=self.language.text().strip() or "en",
            options=options,
            name="import",
        )
        job.signals.progress.connect(self._progress)
        job.signals.result.connect(self._done)
        job.signals.error.connect(self._error)
        job.signals.finished.connect(lambda: self.import_btn.setEnabled(True))
        self.job = self.ctx.jobs.submit(job, channel="import")
        return self.job

    def _progress(self, fraction: float, message: str):
        self.progress.setValue(int(fraction * 100))
        self.message.setText(esc(message))

    def _done(self, rep: dict):
        self.report = rep
        self.progress.setValue(100)
        probs = rep.get("problems") or []
        self.message.setText(
            f"<b>{esc(rep['dataset'])}</b>: {count(rep['imported'], 'item')} imported ({rep['added']:,} new, "
            f"{rep['updated']:,} updated, {rep['unchanged']:,} unchanged) as "
            f"{esc(rep['format'])}; "
            f"<b>{len(probs)}</b> rows refused" + (" (listed below)" if probs else ".")
        )
        self.problems.setRowCount(len(probs))
        for r, p in enumerate(probs):
            vals = [
                Path(p.get("source") or "").name,
                "" if p.get("row") is None else str(p["row"]),
                p.get("path") or "",
                p.get("reason") or "",
            ]
            for c, v in enumerate(vals):
                it = QTableWidgetItem(v)
                it.setToolTip(plain_tip(v))
                self.problems.setItem(r, c, it)
        self.problems.resizeRowsToContents()
        self.ctx.refresh()
        self.imported.emit(rep)

    def _error(self, message: str):
        self.progress.setValue(0)
        self.message.setText(
            f"<span style='color:#c62828'><b>Nothing imported.</b> {esc(message)}</span>"
        )
