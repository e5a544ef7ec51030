"""Import a dataset (every format of ``fairdesk import``: manifests, corpora in their
published layouts, Kaldi, NeMo, Lhotse, Hugging Face, ELAN and Praat sessions) in the
background, with the options of the chosen (or detected) format, and show every refused row
or interval with its reason."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
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
    QWidget,
)

from ...core.importers import FORMATS
from ...core.importers_formats import OPTIONS
from ...jobs import tasks
from ...presentation import count
from ..context import Context
from ..jobs import Job
from ..widgets.theme import esc, plain_tip

#: What each format is, as the format list shows it.
FORMAT_LABELS = {
    "auto": "Detect from the layout",
    "manifest": "Manifest (CSV, TSV, JSONL, Parquet of paths)",
    "audiofolder": "Audio folder (metadata.csv / .jsonl)",
    "commonvoice": "Common Voice",
    "librispeech": "LibriSpeech",
    "saa": "Speech Accent Archive",
    "l2arctic": "L2-ARCTIC",
    "kaldi": "Kaldi / ESPnet data directory",
    "nemo": "NeMo manifest (JSONL)",
    "lhotse": "Lhotse manifests (recordings + supervisions)",
    "vctk": "VCTK",
    "timit": "TIMIT",
    "hf": "Hugging Face (Parquet, Arrow, save_to_disk)",
    "eaf": "ELAN session (.eaf beside its recording)",
    "textgrid": "Praat session (.TextGrid beside its recording)",
    "chat": "TalkBank CHAT (.cha with time bullets, beside its media)",
}
#: The option fields: label, placeholder (the default), tooltip (the CLI flag's help).
FIELDS = {
    "split": ("Split", "every split", "Common Voice: the split to import (validated, test, …)"),
    "kaldi_meta": (
        "Metadata files",
        "all spk2* / utt2* tables",
        "Kaldi: the spk2*/utt2* tables kept as metadata: all (default), none, or names "
        "(spk2gender,spk2age)",
    ),
    "audio_root": (
        "Audio folder",
        "the manifest's folder, or the parent where the paths resolve",
        "Manifest, Kaldi, NeMo, Lhotse: the folder the listed relative audio paths start "
        "from (absolute paths are read as written)",
    ),
    "tiers": (
        "Transcript tiers",
        "every time-aligned tier but the speaker tier",
        "ELAN, Praat: the tiers holding transcripts, comma-separated",
    ),
    "speaker_tier": (
        "Speaker tier",
        "none",
        "ELAN, Praat: the tier whose label at an utterance's midpoint names its speaker",
    ),
}
COLUMNS = ("audio_col", "text_col", "speaker_col", "content_col", "id_col")
#: How long the path must rest before its format is detected (ms).
DETECT_DELAY_MS = 400


class ImportDialog(QDialog):
    """Fields of ``fairdesk import``; the report lists refused rows (source, row, path, reason).

    The format list names every format; "Detect from the layout" sniffs the source in a job
    and says what it found. Only the options of the chosen (or detected) format are shown:
    columns for tables, the split for Common Voice, metadata files and the audio folder for
    Kaldi, tiers and speakers for ELAN and Praat.

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
        self.detected: str | None = None
        self._detect_job: Job | None = None

        self.path = QLineEdit()
        self.path.setPlaceholderText(
            "a manifest, an .eaf / .TextGrid, a Parquet file, or a dataset folder"
        )
        file_btn = QPushButton("File…")
        dir_btn = QPushButton("Folder…")
        prow = QHBoxLayout()
        prow.addWidget(self.path, 1)
        prow.addWidget(file_btn)
        prow.addWidget(dir_btn)
        self.name = QLineEdit()
        self.name.setPlaceholderText("dataset name in the project")
        self.format = QComboBox()
        for f in FORMATS:
            self.format.addItem(FORMAT_LABELS.get(f, f), f)
        self.format.setToolTip("The source's layout (--format); the first entry detects it")
        self.detect_note = QLabel()
        self.detect_note.setObjectName("muted")
        self.detect_note.setTextFormat(Qt.PlainText)  # it quotes paths and their errors
        frow = QHBoxLayout()
        frow.addWidget(self.format)
        frow.addWidget(self.detect_note, 1)
        self.language = QLineEdit("en")
        self.language.setMaximumWidth(80)
        self.cols = {k: QLineEdit() for k in COLUMNS}
        for w in self.cols.values():
            w.setPlaceholderText("detected")
        self.fields = {}
        for key, (_label, hint, tip) in FIELDS.items():
            w = QLineEdit()
            w.setPlaceholderText(hint)
            w.setToolTip(tip)
            self.fields[key] = w
        self.speaker_by = QComboBox()
        self.speaker_by.addItem("the tier's participant, else its name", "participant")
        self.speaker_by.addItem("the tier's name", "tier")
        self.speaker_by.setToolTip(
            "ELAN: where a tier's speaker comes from (its PARTICIPANT attribute, or its name)"
        )
        self.split = self.fields["split"]  # kept under its old name
        self.speakers = QLineEdit()
        self.speakers.setPlaceholderText(
            "none (optional: a CSV, TSV or .xlsx, one row per speaker)"
        )
        self.speakers.setToolTip(
            "A speaker sheet joined to the items by speaker id (--speakers): its other "
            "columns (gender, age, dialect …) become metadata; speakers missing from it and "
            "rows no item uses are listed"
        )
        sheet_btn = QPushButton("Sheet…")
        srow = QHBoxLayout()
        srow.setContentsMargins(0, 0, 0, 0)
        srow.addWidget(self.speakers, 1)
        srow.addWidget(sheet_btn)

        self.form = form = QFormLayout()
        form.addRow("Source", prow)
        form.addRow("Name", self.name)
        form.addRow("Format", frow)
        form.addRow("Language", self.language)
        crow = QHBoxLayout()
        crow.setContentsMargins(0, 0, 0, 0)
        for k, w in self.cols.items():
            crow.addWidget(QLabel(k.replace("_col", "")))
            crow.addWidget(w)
        self._col_row = QWidget()
        self._col_row.setLayout(crow)
        form.addRow("Columns", self._col_row)
        for key, (label, _hint, _tip) in FIELDS.items():
            form.addRow(label, self.fields[key])
        form.addRow("Speaker from", self.speaker_by)
        form.addRow("Speaker sheet", srow)
        self._option_rows = {"columns": self._col_row, **self.fields}
        self._option_rows["speaker_by"] = self.speaker_by

        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.RichText)  # every value in it is escaped (esc)
        self.message.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.problems = QTableWidget(0, 4)
        self.problems.setHorizontalHeaderLabels(["Source", "Line", "Path", "Reason"])
        self.problems.horizontalHeaderItem(1).setToolTip(
            "the line of a table, or the interval of an ELAN or Praat tier"
        )
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

        self._detect_timer = QTimer(self)
        self._detect_timer.setSingleShot(True)
        self._detect_timer.setInterval(DETECT_DELAY_MS)
        self._detect_timer.timeout.connect(self.detect)
        file_btn.clicked.connect(self._pick_file)
        sheet_btn.clicked.connect(self._pick_sheet)
        dir_btn.clicked.connect(self._pick_dir)
        self.path.textChanged.connect(self._suggest_name)
        self.path.textChanged.connect(lambda _t: self._detect_timer.start())
        self.format.currentIndexChanged.connect(lambda _i: self._show_options())
        self._show_options()

    # -- the format and its options --------------------------------------------------------
    def chosen_format(self) -> str:
        """The format picked in the list (``auto`` for detection)."""
        return str(self.format.currentData())

    def effective_format(self) -> str | None:
        """The format whose options apply: the chosen one, or the detected one under auto."""
        f = self.chosen_format()
        return self.detected if f == "auto" else f

    def set_format(self, fmt: str) -> None:
        i = self.format.findData(fmt)
        if i >= 0:
            self.format.setCurrentIndex(i)

    def _show_options(self) -> None:
        fmt = self.effective_format()
        wanted = set(OPTIONS.get(fmt or "", ()))
        show = {
            "columns": bool(wanted & set(COLUMNS)),
            **{k: k in wanted for k in FIELDS},
            "speaker_by": "speaker_by" in wanted,
        }
        for key, widget in self._option_rows.items():
            self.form.setRowVisible(widget, show[key])
        if self.chosen_format() != "auto":
            self.detect_note.setText("")
        elif self.detected:
            self.detect_note.setText(f"detected: {FORMAT_LABELS.get(self.detected, self.detected)}")

    def detect(self) -> Job | None:
        """Sniff the source's layout in a job (a folder may be large); the options of the
        format found are shown when it answers."""
        text = self.path.text().strip()
        self.detected = None
        if not text:
            self.detect_note.setText("")
            self._show_options()
            return None
        self.detect_note.setText("detecting the layout…")
        job = Job(tasks.detect_format, text, name="detect format", request=text)
        job.signals.result.connect(lambda fmt, t=text: self._detected(t, fmt))
        job.signals.error.connect(lambda msg, t=text: self._detected(t, None, msg))
        self._detect_job = self.ctx.jobs.submit(job, channel="detect")
        return self._detect_job

    def _detected(self, text: str, fmt: str | None, error: str = "") -> None:
        if text != self.path.text().strip():  # the path changed since: a stale answer
            return
        self.detected = fmt
        self._show_options()
        if fmt is None and self.chosen_format() == "auto":
            self.detect_note.setText(error.splitlines()[0] if error else "")

    def options(self) -> dict:
        """The options the chosen (or detected) format takes, as ``import_dataset`` names
        them; empty fields are left to the importer's defaults."""
        fmt = self.effective_format()
        wanted = OPTIONS.get(fmt or "", ())
        out: dict = {}
        for k in COLUMNS:
            if k in wanted:
                out[k] = self.cols[k].text().strip() or None
        for k, w in self.fields.items():
            if k in wanted and w.text().strip():
                out[k] = w.text().strip()
        if "speaker_by" in wanted and self.speaker_by.currentData() != "participant":
            out["speaker_by"] = self.speaker_by.currentData()
        if self.speakers.text().strip():  # every format
            out["speakers"] = self.speakers.text().strip()
        return out

    def _pick_sheet(self):
        f, _ = QFileDialog.getOpenFileName(
            self, "Speaker sheet", "", "Speaker sheets (*.csv *.tsv *.xlsx);;All files (*)"
        )
        if f:
            self.speakers.setText(f)

    def _pick_file(self):
        f, _ = QFileDialog.getOpenFileName(
            self,
            "Manifest or session",
            "",
            "Datasets (*.csv *.tsv *.jsonl *.json *.gz *.parquet *.arrow *.eaf *.TextGrid);;"
            "All files (*)",
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
        if self.chosen_format() == "auto" and self.detected is None:
            self._detect_timer.stop()
            self.detected = self._detect_now(path)  # the options typed must apply
            self._show_options()
        options = self.options()
        self.problems.setRowCount(0)
        self.progress.setValue(0)
        self.message.setText(esc(f"importing {path} …"))
        self.import_btn.setEnabled(False)
        job = Job(
            tasks.import_dataset,
            str(self.ctx.folder),
            name,
            path,
            fmt=self.chosen_format(),
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

    def hideEvent(self, event):  # noqa: N802 - Qt API
        self._detect_timer.stop()  # no detection for a dialog no longer shown
        super().hideEvent(event)

    @staticmethod
    def _detect_now(path: str) -> str | None:
        from ...core.errors import ImportFailed
        from ...core.importers import detect_format

        try:
            return detect_format(Path(path).expanduser())
        except (ImportFailed, OSError):
            return None  # the import job says what is wrong

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
            f"<b>{len(probs)}</b> rows refused"
            + (" (listed below)" if probs else ".")
            + "".join(f"<br>{esc(line)}" for line in self._sheet_lines(rep))
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

    @staticmethod
    def _sheet_lines(rep: dict) -> list[str]:
        from ...presentation.imports import speaker_sheet_lines

        return speaker_sheet_lines(rep["speakers"]) if rep.get("speakers") else []

    def _error(self, message: str):
        self.progress.setValue(0)
        self.message.setText(
            f"<span style='color:#c62828'><b>Nothing imported.</b> {esc(message)}</span>"
        )
