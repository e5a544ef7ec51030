"""Getting a run out of the window: File ▸ Export report / tables / TextGrids / EAFs (each a
background job, see :mod:`fairdesk.reports.tasks`) and every chart of the results pane as PNG or
SVG.

Charts are re-drawn from the run (its AuditRun) by :mod:`fairdesk.reports.charts` (matplotlib,
the report's and ``fairdesk report --figures``' renderer), so an exported figure has the
encodings of the report, whatever the size of the window.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.atomic import OutputError
from ..core.plurals import count
from ..reports import tasks
from .jobs import Job

if TYPE_CHECKING:
    from ..jobs.result import AuditRun

#: The chart kinds of each results sub-tab (``reports.charts`` name prefixes).
SUBTAB_CHARTS = {
    "values": ("values_", "gaps_"),
    "radar": ("radar",),
    "confusion": ("confusion_", "intent_confusion_"),
}


def pdf_available() -> bool:
    """Whether WeasyPrint is installed (it may still miss Pango: the job then says so)."""
    return importlib.util.find_spec("weasyprint") is not None


class ReportDialog(QDialog):
    """Where to write the report, and whether to add the PDF and embed the audio."""

    def __init__(self, run_id: int, default: Path, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Export the report of run {run_id}")
        self.path = QLineEdit(str(default))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.pdf = QCheckBox("Also write a PDF beside it (same content)")
        self.pdf.setEnabled(pdf_available())
        if not pdf_available():
            self.pdf.setToolTip("WeasyPrint is not installed")
        self.embed_audio = QCheckBox(
            "Embed audio: a player for each worst item (Opus inside the file; larger)"
        )
        note = QLabel(
            "One self-contained HTML file: settings, verdicts, per-group values "
            "with CIs, gaps, charts, worst items with their diff, definitions."
        )
        note.setObjectName("muted")
        note.setWordWrap(True)
        grid = QGridLayout()
        grid.addWidget(QLabel("HTML file"), 0, 0)
        grid.addWidget(self.path, 0, 1)
        grid.addWidget(browse, 0, 2)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.button(QDialogButtonBox.Ok).setText("Export")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(grid)
        lay.addWidget(self.pdf)
        lay.addWidget(self.embed_audio)
        lay.addWidget(note)
        lay.addWidget(buttons)
        self.resize(620, 200)

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Report file", self.path.text(), "HTML (*.html)"
        )
        if path:
            self.path.setText(path if path.lower().endswith((".html", ".htm")) else path + ".html")

    def values(self) -> dict:
        html = Path(self.path.text().strip())
        return {
            "path": html,
            "pdf": html.with_suffix(".pdf") if self.pdf.isChecked() else None,
            "embed_audio": self.embed_audio.isChecked(),
        }


class ExportProgress(QWidget):
    """The status bar's progress of the running tier exports (TextGrids, ELAN files): what
    is exported, a bar, and Cancel. Cancel stops the export before its files are written
    (none is then written); once the writing has begun it is disabled, as the files are
    written in a moment and all of them are."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.what = QLabel()
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setFixedWidth(150)
        self.bar.setTextVisible(True)
        self.bar.setFormat("%p%")
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip(
            "Stop the export: no file is written; the alignments made so far are kept "
            "for the next export"
        )
        self.cancel_btn.clicked.connect(self.cancel)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.what)
        lay.addWidget(self.bar)
        lay.addWidget(self.cancel_btn)
        self.jobs: list[Job] = []
        self.hide()

    def track(self, job: Job, what: str) -> None:
        """Show ``job``'s progress (the newest tracked job's) until it finishes."""
        self.jobs.append(job)
        self.what.setText(what)
        self.bar.setValue(0)
        self.cancel_btn.setEnabled(True)
        sig = job.signals
        sig.progress.connect(lambda f, m, j=job: self._progress(j, f, m))
        sig.partial.connect(lambda v, j=job: self._partial(j, v))
        sig.finished.connect(lambda j=job: self._finished(j))
        self.show()

    def _progress(self, job: Job, fraction: float, message: str) -> None:
        if self.jobs and job is self.jobs[-1]:
            self.bar.setValue(int(round(1000 * max(0.0, min(1.0, fraction)))))
            self.bar.setToolTip(message)

    def _partial(self, job: Job, value) -> None:
        if value == "writing" and self.jobs and job is self.jobs[-1]:
            self.cancel_btn.setEnabled(False)  # the files are being written: all of them

    def _finished(self, job: Job) -> None:
        if job in self.jobs:
            self.jobs.remove(job)
        if not self.jobs:
            self.hide()

    def cancel(self) -> None:
        """Cancel every tracked export still aligning."""
        for job in list(self.jobs):
            job.cancel()


class Exporter(QObject):
    """Runs the exports of the window's shown run as jobs and says how they went.

    Signals
    -------
    message(str) : progress and the outcome, for the status bar.
    done(str, object) : kind (``report``, ``tables``, ``textgrid``, ``eaf``) and the job's
        result.
    failed(str, str) : kind and the error message.
    cancelled(str) : kind of an export the user cancelled (it wrote nothing).
    """

    message = Signal(str)
    done = Signal(str, object)
    failed = Signal(str, str)
    cancelled = Signal(str)

    def __init__(self, ctx, parent=None):
        super().__init__(parent)
        self.ctx = ctx
        self.last_message = ""
        self.message.connect(lambda m: setattr(self, "last_message", m))
        #: progress and Cancel of the tier exports (the window puts it in its status bar)
        self.progress_view = ExportProgress()

    def _submit(self, kind: str, job: Job, describe) -> Job:
        job.signals.progress.connect(lambda _f, m: self.message.emit(f"{m}…"))
        job.signals.result.connect(
            lambda out: (self.message.emit(describe(out)), self.done.emit(kind, out))
        )
        job.signals.error.connect(
            lambda m: (self.message.emit(f"Export failed: {m}"), self.failed.emit(kind, m))
        )
        job.signals.cancelled.connect(lambda j=job: self._cancelled(kind, j))
        return self.ctx.jobs.submit(job, channel=f"export-{kind}")

    def _cancelled(self, kind: str, job: Job) -> None:
        if job.stale:  # replaced by a newer export of the same kind, which says how it went
            return
        self.message.emit(
            "Export cancelled: no file was written"
            + (
                "; the alignments made so far are kept for the next export"
                if kind in ("textgrid", "eaf")
                else ""
            )
        )
        self.cancelled.emit(kind)

    def report(self, run_id: int, path, *, pdf=None, embed_audio: bool = False) -> Job:
        """Write the HTML report (and the PDF) of ``run_id`` in the background."""
        job = Job(
            tasks.export_report,
            str(self.ctx.folder),
            int(run_id),
            str(path),
            embed_audio=bool(embed_audio),
            pdf=None if pdf is None else str(pdf),
            name="report",
            request=int(run_id),
        )

        def said(out):
            bits = [f"Report of run {run_id} written to {out['html']}"]
            if out.get("pdf"):
                bits.append(f"PDF: {out['pdf']}")
            if out.get("audio_skipped"):
                bits.append(f"{count(len(out['audio_skipped']), 'clip')} not embedded")
            return "; ".join(bits)

        return self._submit("report", job, said)

    def tables(self, run_id: int, folder, ext: str = "csv") -> Job:
        """items / groups / comparisons as ``.csv``, ``.tsv`` or ``.parquet`` in ``folder``."""
        job = Job(
            tasks.export_tables,
            str(self.ctx.folder),
            int(run_id),
            str(folder),
            ext=ext,
            name="tables",
            request=int(run_id),
        )
        return self._submit(
            "tables",
            job,
            lambda out: (
                f"Tables of run {run_id} written: "
                + ", ".join(Path(p).name for p in out)
                + f" in {folder}"
            ),
        )

    def tiers(self, run_id: int, folder, kind: str = "textgrid", aligner="auto") -> Job:
        """One TextGrid or EAF per item in ``folder``, with progress and Cancel in
        :attr:`progress_view`; the forced alignments an earlier export stored are reused.
        ``aligner``: ``auto``, ``whisper``, ``even`` or an aligner object (tests)."""
        job = Job(
            tasks.export_tiers,
            str(self.ctx.folder),
            int(run_id),
            str(folder),
            kind=kind,
            aligner=aligner,
            name=kind,
            request=int(run_id),
        )
        job.kwargs["partial"] = job.emit_partial
        what = "TextGrids" if kind == "textgrid" else "ELAN files"

        def said(out):
            how = ", ".join(f"{n} {k}" for k, n in (out.get("reference_times") or {}).items())
            reused = int(out.get("reused") or 0)
            return (
                f"{out['n']} {what} of run {run_id} written to {folder}"
                + (f" (reference times: {how})" if how else "")
                + (f"; {reused} alignments read from the project" if reused > 0 else "")
            )

        self._submit(kind, job, said)
        self.progress_view.track(job, f"{what} of run {run_id}")
        return job


# -- charts ----------------------------------------------------------------------------
def run_charts(run: AuditRun | None, subtab: str | None = None) -> list:
    """The report charts of a run (``reports.charts.Chart``), those of one results sub-tab
    when ``subtab`` is given."""
    if run is None:
        return []
    from ..presentation.rows import value_metrics
    from ..reports.charts import report_charts, value_chart

    charts = report_charts(run)
    have = {c.name for c in charts}
    at = max((i + 1 for i, c in enumerate(charts) if c.name.startswith("values_")), default=0)
    for m in value_metrics(run):  # the pane also plots the hallucination rate
        if f"values_{m}" not in have:
            charts.insert(at, value_chart(run, m))
            at += 1
    if subtab is None:
        return charts
    prefixes = SUBTAB_CHARTS.get(subtab, ())
    return [c for c in charts if c.name.startswith(prefixes)]


def has_chart(run, subtab: str | None) -> bool:
    """Whether ``subtab`` of a run (an ``AuditRun``) draws a chart to export: a confusion
    matrix, a drawable radar, a group's value (read from the run, nothing drawn)."""
    if run is None or subtab not in SUBTAB_CHARTS:
        return False
    if subtab == "confusion":
        return bool(run.intent_confusion or run.confusion)
    if subtab == "radar":
        from ..reports.charts import _radar_values, radar_scale_of

        return run.reference in _radar_values(run) and radar_scale_of(run).drawable
    return any(g.compared for g in run.groups)


def export_chart(run: AuditRun, name: str, path) -> Path:
    """Write the chart ``name`` of a run to ``path`` (.png or .svg by extension)."""
    from ..reports.charts import export_chart as _export

    chart = next((c for c in run_charts(run) if c.name == name), None)
    if chart is None:
        raise ValueError(f"this run has no chart {name!r}")
    return _export(chart, path)


class ChartExportButton(QToolButton):
    """ "Export chart ▾": one entry per chart of the shown sub-tab (PNG or SVG, asked in the
    save dialog) and every chart of the run at once. The same menu opens on a right click
    on the radar and the confusion matrices."""

    exported = Signal(list)
    #: why an export could not be written (full disk, a folder one may not write in ...);
    #: the old files are unchanged (fairdesk.core.atomic)
    failed = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setText("Export chart ▾")
        self.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
        self.setToolTip("Save a chart of this view as PNG or SVG (drawn as in the report)")
        self.setPopupMode(QToolButton.InstantPopup)
        self.setMenu(QMenu(self))
        self.menu().aboutToShow.connect(self._fill)
        self.run: AuditRun | None = None  # the shown run
        self.subtab: str | None = None
        self.folder: Path = Path.home()

    def set_view(self, run: AuditRun | None, subtab: str | None) -> None:
        """Offer the charts of ``subtab`` of a run (None: none)."""
        self.run = run
        self.subtab = subtab
        self.setVisible(self.run is not None and subtab in SUBTAB_CHARTS)
        # shown but off where the view draws no chart (a run without intents or labels):
        # the button never offers a chart that is not there
        on = has_chart(self.run, subtab)
        self.setEnabled(on)
        self.setToolTip(
            "Save a chart of this view as PNG or SVG (drawn as in the report)"
            if on
            else "This view has no chart to export."
        )

    def _fill(self) -> None:
        self.populate(self.menu())

    def populate(self, menu: QMenu) -> None:
        menu.clear()
        charts = run_charts(self.run, self.subtab)
        for c in charts:
            for ext in ("png", "svg"):
                a = QAction(f"{c.title} as {ext.upper()}…", menu)
                a.triggered.connect(lambda _=False, n=c.name, e=ext: self.export(n, e))
                menu.addAction(a)
        if not charts:
            a = menu.addAction("(no chart in this view)")
            a.setEnabled(False)
        menu.addSeparator()
        a = QAction("Every chart of the run as PNG and SVG…", menu)
        a.triggered.connect(lambda _=False: self.export_all())
        menu.addAction(a)

    def context_menu(self, widget, pos) -> None:
        """Show the menu at ``pos`` of ``widget`` (a right click on a chart)."""
        if self.run is None:
            return
        menu = QMenu(widget)
        self.populate(menu)
        menu.exec(widget.mapToGlobal(pos))

    def _failed(self, exc: Exception, asked: bool) -> None:
        self.failed.emit(str(exc))
        if asked:  # the user chose the path in a dialog just now: say it there
            QMessageBox.warning(self, "Export chart", f"Nothing was exported: {exc}")

    def export(self, name: str, ext: str, path=None) -> Path | None:
        if self.run is None:
            return None
        asked = path is None
        if path is None:
            filt = "PNG image (*.png)" if ext == "png" else "SVG image (*.svg)"
            path, _ = QFileDialog.getSaveFileName(
                self, "Export chart", str(self.folder / f"{name}.{ext}"), filt
            )
            if not path:
                return None
            if not path.lower().endswith(f".{ext}"):
                path += f".{ext}"
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            out = export_chart(self.run, name, path)
        except (OutputError, ValueError) as exc:
            self._failed(exc, asked)
            return None
        finally:
            QApplication.restoreOverrideCursor()
        self.folder = out.parent
        self.exported.emit([out])
        return out

    def export_all(self, folder=None) -> list[Path]:
        if self.run is None:
            return []
        asked = folder is None
        if folder is None:
            folder = QFileDialog.getExistingDirectory(
                self, "Folder for every chart", str(self.folder)
            )
            if not folder:
                return []
        from ..reports.charts import save_figures

        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            out = save_figures(self.run, folder)
        except (OutputError, ValueError) as exc:
            self._failed(exc, asked)
            return []
        finally:
            QApplication.restoreOverrideCursor()
        self.folder = Path(folder)
        self.exported.emit(out)
        return out


def folder_and_format(parent, title: str, formats: tuple[str, ...] = ()) -> tuple:
    """Ask for a folder (and, when ``formats`` is given, a table format); (None, None) when
    cancelled."""
    folder = QFileDialog.getExistingDirectory(parent, title, str(Path.home()))
    if not folder:
        return None, None
    if not formats:
        return folder, None
    dlg = QDialog(parent)
    dlg.setWindowTitle("Table format")
    box = QHBoxLayout()
    checks = []
    for i, f in enumerate(formats):
        c = QCheckBox(f)
        c.setAutoExclusive(True)
        c.setChecked(i == 0)
        checks.append(c)
        box.addWidget(c)
    buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
    buttons.accepted.connect(dlg.accept)
    buttons.rejected.connect(dlg.reject)
    lay = QVBoxLayout(dlg)
    lay.addWidget(QLabel("items, groups and comparisons as"))
    lay.addLayout(box)
    lay.addWidget(buttons)
    if dlg.exec() != QDialog.Accepted:
        return None, None
    return folder, next(f for f, c in zip(formats, checks) if c.isChecked())
