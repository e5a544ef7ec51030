"""The Record tab: record new speakers prompt by prompt, accept takes into a dataset, and
correct their transcripts with tone marks.

A thin widget over :mod:`fairdesk.recording.session` and :mod:`fairdesk.recording.recorder`. The
recorder's own threads write the audio; this panel only polls its level and envelope with
one display timer while a take runs. sounddevice is reached only through
``recording.recorder`` (lazily); without an input device the record button is disabled with a
tooltip saying why, and the panel still annotates takes already recorded.

Open it on its own::

    python -m fairdesk.gui.record_panel PROJECT [--synthetic] [--screenshot OUT.png]
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..core.errors import FairdeskError
from ..recording import recorder as rec
from ..recording.prompts import PromptError, PromptList, builtin_lists, load_prompts
from ..recording.session import RecordingSession, Speaker, Take, recover_recordings
from .annotate import TranscriptEditor
from .context import Context
from .player import AudioPlayer

log = logging.getLogger("fairdesk.gui.record")

#: Speaker form fields: (metadata key, label, placeholder).
SPEAKER_FIELDS = (
    ("accent", "Accent", "e.g. owerri, lagos, scottish"),
    ("dialect", "Dialect", "e.g. Central Igbo"),
    ("gender", "Gender", ""),
    ("age", "Age", "years"),
    ("first_language", "First language", "e.g. ig"),
)
GENDERS = ("", "female", "male", "non-binary", "prefer not to say")
DISPLAY_MS = 40


class LevelMeter(QWidget):
    """Horizontal input meter: RMS bar on a -60..0 dBFS scale and a peak tick; red when the
    peak reaches full scale (clipping)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.level = rec.Level()
        self.setMinimumSize(160, 16)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setToolTip("input level (RMS bar, peak tick; red: clipping)")

    def set_level(self, level: rec.Level) -> None:
        self.level = level
        self.update()

    @staticmethod
    def _x(value: float, width: int) -> float:
        db = 20 * np.log10(max(value, 1e-6))
        return width * min(1.0, max(0.0, (db + 60.0) / 60.0))

    def paintEvent(self, _ev):  # noqa: N802 - Qt API
        p = QPainter(self)
        w, h = self.width(), self.height()
        p.fillRect(0, 0, w, h, QColor("#e9ecf0"))
        clip = self.level.peak >= 0.99
        x = self._x(self.level.rms, w)
        p.fillRect(QRectF(0, 2, x, h - 4), QColor("#c62828" if clip else "#2e7d32"))
        px = self._x(self.level.peak, w)
        p.fillRect(QRectF(max(0.0, px - 2), 0, 2, h), QColor("#c62828" if clip else "#1b5e20"))
        p.setPen(QColor("#b8bfc8"))
        for db in (-40, -20, -6):
            t = w * (db + 60) / 60.0
            p.drawLine(int(t), 0, int(t), h)
        p.end()


class RecordPanel(QWidget):
    """Speaker form, prompt list, recorder, takes with playback and the transcript editor.

    Parameters
    ----------
    ctx : the shared context (open project, job registry).
    stream_factory : input stream factory for the recorder (tests and demos pass
        :meth:`fairdesk.recording.recorder.ArrayStream.factory`); None: the sound card.

    Signals
    -------
    take_recorded(str) : a take was stopped (its path).
    take_accepted(int) : a take became a dataset item (its db id).
    transcript_saved(int) : a corrected transcript was stored (the annotation id).
    """

    take_recorded = Signal(str)
    take_accepted = Signal(int)
    transcript_saved = Signal(int)

    def __init__(self, ctx: Context, stream_factory=None, parent=None):
        super().__init__(parent)
        self.ctx = ctx
        self.recorder = rec.Recorder(stream_factory)
        if stream_factory is None:
            self.can_record, self.no_record_reason = rec.input_status()
        else:
            self.can_record, self.no_record_reason = True, ""
        self.lists: dict[str, Path] = dict(builtin_lists())
        self.prompt_list: PromptList | None = None
        self.index = 0
        self._session: RecordingSession | None = None
        self._session_key = None
        self._take: Take | None = None  # the take being recorded
        self._folder = None
        self._last_saved: tuple[str, str] | None = None
        self._build()
        self.timer = QTimer(self)  # the one display timer (runs while recording)
        self.timer.setInterval(DISPLAY_MS)
        self.timer.timeout.connect(self._tick)
        self.ctx.project_changed.connect(self._project_changed)
        name = "igbo_tonal_minimal_pairs"
        if name in self.lists:
            self.list_combo.setCurrentIndex(list(self.lists).index(name))
        self._load_list()
        self._project_changed()

    # -- layout -------------------------------------------------------------------------
    def _build(self) -> None:
        self.dataset = QLineEdit("field")
        self.dataset.setToolTip("dataset the accepted takes go into (folder "
                                "recordings/<dataset> of the project)")
        self.speaker_id = QLineEdit()
        self.speaker_id.setPlaceholderText("required, e.g. spk01")
        self.meta: dict[str, QWidget] = {}
        form = QFormLayout()
        form.addRow("Dataset", self.dataset)
        form.addRow("Speaker id", self.speaker_id)
        for key, label, hint in SPEAKER_FIELDS:
            if key == "gender":
                w = QComboBox()
                w.setEditable(True)
                w.addItems(GENDERS)
                w.currentTextChanged.connect(lambda _t: self._form_changed())
            else:
                w = QLineEdit()
                w.setPlaceholderText(hint)
                w.textChanged.connect(lambda _t: self._form_changed())
            self.meta[key] = w
            form.addRow(label, w)
        self.dataset.textChanged.connect(lambda _t: self._form_changed())
        self.speaker_id.textChanged.connect(lambda _t: self._form_changed())
        spk_box = QGroupBox("Speaker")
        spk_box.setLayout(form)

        self.list_combo = QComboBox()
        for name in self.lists:
            self.list_combo.addItem(name.replace("_", " "), name)
        self.open_btn = QPushButton("Open…")
        self.open_btn.setToolTip("open a prompt list (.txt: one prompt per line, # comments; "
                                 ".jsonl: text, content_id, gloss, intent, slots)")
        self.language = QLineEdit()
        self.language.setPlaceholderText("language code")
        self.language.setMaximumWidth(80)
        self.prompts = QListWidget()
        self.prompts.setAlternatingRowColors(True)
        self.list_note = QLabel("")
        self.list_note.setObjectName("muted")
        self.list_note.setWordWrap(True)
        lrow = QHBoxLayout()
        lrow.addWidget(self.list_combo, 1)
        lrow.addWidget(self.open_btn)
        langrow = QHBoxLayout()
        langrow.addWidget(QLabel("Language"))
        langrow.addWidget(self.language)
        langrow.addStretch(1)
        pv = QVBoxLayout()
        pv.addLayout(lrow)
        pv.addLayout(langrow)
        pv.addWidget(self.prompts, 1)
        pv.addWidget(self.list_note)
        prompt_box = QGroupBox("Prompts")
        prompt_box.setLayout(pv)

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(spk_box)
        lv.addWidget(prompt_box, 1)
        left.setMinimumWidth(300)
        left.setMaximumWidth(420)

        # the prompt card
        self.counter = QLabel("")
        self.counter.setObjectName("muted")
        self.prompt_label = QLabel("")
        self.prompt_label.setAlignment(Qt.AlignCenter)
        self.prompt_label.setWordWrap(True)
        self.prompt_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        f = QFont(self.prompt_label.font())
        f.setPointSize(40)
        self.prompt_label.setFont(f)
        self.prompt_label.setMinimumHeight(90)
        self.gloss = QLabel("")
        self.gloss.setAlignment(Qt.AlignCenter)
        self.gloss.setObjectName("muted")
        gf = QFont(self.gloss.font())
        gf.setPointSize(13)
        gf.setItalic(True)
        self.gloss.setFont(gf)
        self.prev_btn = QPushButton("◀  Previous")
        self.next_btn = QPushButton("Next  ▶")
        self.prev_btn.setToolTip("previous prompt (Alt+Left)")
        self.next_btn.setToolTip("next prompt (Alt+Right)")
        self.record_btn = QPushButton("●  Record")
        self.record_btn.setObjectName("primary")
        self.record_btn.setMinimumWidth(130)
        self.elapsed = QLabel("0:00.0")
        self.elapsed.setMinimumWidth(60)
        self.meter = LevelMeter()
        self.no_input = QLabel("")
        self.no_input.setObjectName("muted")
        self.no_input.setWordWrap(True)
        nav = QHBoxLayout()
        nav.addWidget(self.prev_btn)
        nav.addWidget(self.next_btn)
        nav.addSpacing(16)
        nav.addWidget(self.record_btn)
        nav.addWidget(self.elapsed)
        nav.addWidget(self.meter, 1)

        self.live = pg.PlotWidget()
        self.live.setMinimumHeight(90)
        self.live.setMaximumHeight(140)
        self.live.setMenuEnabled(False)
        self.live.setMouseEnabled(x=False, y=False)
        self.live.hideButtons()
        self.live.getPlotItem().getAxis("left").setWidth(48)
        self.live.getPlotItem().getAxis("bottom").setLabel("s")
        self.live.setYRange(-1, 1, padding=0.05)
        self.live.setXRange(0, 3, padding=0)
        self._live_lo = pg.PlotDataItem(pen=pg.mkPen("#c62828", width=1))
        self._live_hi = pg.PlotDataItem(pen=pg.mkPen("#c62828", width=1))
        self._live_fill = pg.FillBetweenItem(self._live_lo, self._live_hi,
                                             brush=pg.mkBrush(198, 40, 40, 140))
        for it in (self._live_lo, self._live_hi, self._live_fill):
            self.live.addItem(it)

        card = QVBoxLayout()
        card.addWidget(self.counter)
        card.addWidget(self.prompt_label)
        card.addWidget(self.gloss)
        card.addLayout(nav)
        card.addWidget(self.no_input)
        card.addWidget(self.live)
        card_box = QGroupBox("Prompt")
        card_box.setLayout(card)

        # takes and playback
        self.takes = QListWidget()
        self.takes.setMaximumHeight(110)
        self.accept_btn = QPushButton("✓  Accept take")
        self.accept_btn.setToolTip("make the selected take the dataset item of this prompt "
                                   "(other takes stay on disk)")
        self.again_btn = QPushButton("Re-record")
        self.again_btn.setToolTip("record a new take of this prompt; earlier takes are kept")
        self.player = AudioPlayer(self.ctx.jobs)
        trow = QVBoxLayout()
        trow.addWidget(self.accept_btn)
        trow.addWidget(self.again_btn)
        trow.addStretch(1)
        th = QHBoxLayout()
        th.addWidget(self.takes, 1)
        th.addLayout(trow)
        tv = QVBoxLayout()
        tv.addLayout(th)
        tv.addWidget(self.player, 1)
        takes_box = QGroupBox("Takes")
        takes_box.setLayout(tv)

        self.transcript = TranscriptEditor()
        tr = QVBoxLayout()
        tr.addWidget(self.transcript)
        self.transcript_box = QGroupBox("Transcript (what the speaker said; saved as you type)")
        self.transcript_box.setLayout(tr)

        self.message = QLabel("")
        self.message.setWordWrap(True)

        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(card_box)
        rv.addWidget(takes_box, 1)
        rv.addWidget(self.transcript_box)
        rv.addWidget(self.message)

        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([330, 1000])
        lay = QVBoxLayout(self)
        lay.addWidget(split)

        self.list_combo.currentIndexChanged.connect(lambda _i: self._load_list())
        self.open_btn.clicked.connect(self.open_list)
        self.language.textChanged.connect(lambda _t: self._form_changed())
        self.prompts.currentRowChanged.connect(self._row_changed)
        self.prev_btn.clicked.connect(lambda: self.go(self.index - 1))
        self.next_btn.clicked.connect(lambda: self.go(self.index + 1))
        self.record_btn.clicked.connect(self.toggle_record)
        self.again_btn.clicked.connect(self.start_recording)
        self.accept_btn.clicked.connect(self.accept)
        self.takes.currentRowChanged.connect(self._take_selected)
        self.transcript.save_requested.connect(self._save_transcript)
        for key, slot in ((Qt.Key_Space, self.toggle_record),
                          (QKeySequence("Alt+Right"), lambda: self.go(self.index + 1)),
                          (QKeySequence("Alt+Left"), lambda: self.go(self.index - 1))):
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.WidgetWithChildrenShortcut)  # text fields keep their Space
            sc.activated.connect(slot)

    # -- project and session --------------------------------------------------------------
    def _project_changed(self) -> None:
        p = self.ctx.project
        folder = None if p is None else p.folder
        if folder != self._folder:
            self._folder = folder
            self._session, self._session_key = None, None
            if p is not None:
                try:
                    found = recover_recordings(p)
                except (OSError, FairdeskError) as exc:
                    self._say(f"checking for unfinished takes failed: {exc}", error=True)
                else:
                    if found:
                        names = ", ".join(t.path.name for t in found[:4])
                        self._say(f"{len(found)} take(s) left unfinished by a crash were "
                                  f"recovered: {names}")
        self._refresh()

    def _form_changed(self) -> None:
        self._session, self._session_key = None, None
        if not self.recorder.recording:
            self._refresh_prompts_marks()
            self._show_prompt()

    def speaker(self) -> Speaker:
        meta = {}
        for key, w in self.meta.items():
            v = (w.currentText() if isinstance(w, QComboBox) else w.text()).strip()
            if key == "age" and v.isdigit():
                meta[key] = int(v)
            elif v:
                meta[key] = v
        return Speaker(self.speaker_id.text().strip(), meta)

    def session(self, quiet: bool = False) -> RecordingSession | None:
        """The session for the form's dataset, speaker and language (None, with the reason
        shown unless ``quiet``, when the form is incomplete or there is no project)."""
        if self.ctx.project is None:
            if not quiet:
                self._say("open a project first (File ▸ Open project…)", error=True)
            return None
        lang = self.language.text().strip() or "en"
        try:
            spk = self.speaker()
            key = (self.dataset.text().strip(), spk.id, tuple(sorted(spk.metadata.items())),
                   lang)
            if self._session is None or self._session_key != key:
                self._session = RecordingSession(self.ctx.project, key[0], spk, language=lang)
                self._session_key = key
        except FairdeskError as exc:
            if not quiet:
                self._say(str(exc), error=True)
            return None
        return self._session

    # -- prompt lists -------------------------------------------------------------------
    def open_list(self, path=None) -> None:
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Open a prompt list", "",
                                                  "Prompt lists (*.txt *.jsonl)")
            if not path:
                return
        p = Path(path)
        self.lists[str(p)] = p
        self.list_combo.addItem(p.name, str(p))
        self.list_combo.setCurrentIndex(self.list_combo.count() - 1)

    def _load_list(self) -> None:
        key = self.list_combo.currentData()
        if key is None:
            return
        try:
            pl = load_prompts(self.lists[key])
        except PromptError as exc:
            self._say(str(exc), error=True)
            return
        self.prompt_list = pl
        if pl.language:
            self.language.setText(pl.language)
        notes = [f"{len(pl)} prompts · {pl.name}"]
        if pl.problems:
            notes.append(f"{len(pl.problems)} line(s) skipped: " +
                         "; ".join(f"line {p.line}: {p.reason}" for p in pl.problems[:3]))
        self.list_note.setText("\n".join(notes))
        self.prompts.blockSignals(True)
        self.prompts.clear()
        for pr in pl.prompts:
            self.prompts.addItem(QListWidgetItem(self._prompt_row(pr, False)))
        self.prompts.blockSignals(False)
        self.go(0)

    @staticmethod
    def _prompt_row(pr, accepted: bool) -> str:
        gloss = f"  — {pr.gloss}" if pr.gloss else ""
        return ("✓ " if accepted else "   ") + pr.text + gloss

    def _refresh_prompts_marks(self) -> None:
        s = self.session(quiet=True)
        if self.prompt_list is None:
            return
        for i, pr in enumerate(self.prompt_list.prompts):
            acc = s is not None and s.item_key(pr) in s.rows
            it = self.prompts.item(i)
            if it is not None:
                it.setText(self._prompt_row(pr, acc))

    def current_prompt(self):
        if self.prompt_list is None or not len(self.prompt_list):
            return None
        return self.prompt_list[self.index]

    def go(self, index: int) -> None:
        if self.recorder.recording or self.prompt_list is None or not len(self.prompt_list):
            return
        self.transcript.flush()
        self.index = max(0, min(len(self.prompt_list) - 1, index))
        self.prompts.blockSignals(True)
        self.prompts.setCurrentRow(self.index)
        self.prompts.blockSignals(False)
        self._show_prompt()

    def _row_changed(self, row: int) -> None:
        if row >= 0 and row != self.index:
            self.go(row)

    def _show_prompt(self) -> None:
        pr = self.current_prompt()
        n = len(self.prompt_list) if self.prompt_list is not None else 0
        if pr is None:
            self.prompt_label.setText("")
            self.gloss.setText("")
            self.counter.setText("no prompt list")
        else:
            self.prompt_label.setText(html.escape(pr.text))
            self.gloss.setText(f"‘{pr.gloss}’" if pr.gloss else "")
            extra = pr.extra.get("tones")
            self.counter.setText(f"Prompt {self.index + 1} of {n} · {self.prompt_list.name}"
                                 + (f" · tones {extra}" if extra else "")
                                 + f" · content id {pr.content_id}")
        self.prev_btn.setEnabled(pr is not None and self.index > 0)
        self.next_btn.setEnabled(pr is not None and self.index < n - 1)
        self._refresh_takes()

    def _refresh(self) -> None:
        self._refresh_prompts_marks()
        self._show_prompt()

    # -- takes ----------------------------------------------------------------------------
    def _refresh_takes(self, select: int | None = None) -> None:
        s, pr = self.session(quiet=True), self.current_prompt()
        self.takes.blockSignals(True)
        self.takes.clear()
        self._take_list: list[Take] = []
        if s is not None and pr is not None:
            self._take_list = s.takes(pr)
            for t in self._take_list:
                self.takes.addItem(t.label)
        self.takes.blockSignals(False)
        if self._take_list:
            if select is None:
                acc = [i for i, t in enumerate(self._take_list) if t.accepted]
                select = acc[0] if acc else len(self._take_list) - 1
            self.takes.setCurrentRow(select)
            self._take_selected(select)
        else:
            self.player.stop()
            self.player._clear()
            self.player.info.setText("no take of this prompt yet")
        self._update_buttons()
        self._load_transcript()

    def selected_take(self) -> Take | None:
        row = self.takes.currentRow()
        if 0 <= row < len(getattr(self, "_take_list", [])):
            return self._take_list[row]
        return None

    def _take_selected(self, row: int) -> None:
        t = self.selected_take()
        self._update_buttons()
        if t is not None and t.status != rec.RECORDING and t.path.exists():
            self.player.load(t.path, t.duration)

    def _update_buttons(self) -> None:
        recording = self.recorder.recording
        have_session = self.session(quiet=True) is not None
        ok = self.can_record and have_session and self.current_prompt() is not None
        self.record_btn.setEnabled(recording or ok)
        self.record_btn.setText("■  Stop" if recording else "●  Record")
        if not self.can_record:
            self.record_btn.setToolTip(self.no_record_reason)
            self.no_input.setText(self.no_record_reason + " Takes already recorded can still "
                                  "be played and annotated.")
        else:
            self.record_btn.setToolTip("start / stop recording a take (Space)" if have_session
                                       else "enter a speaker id (and open a project) first")
            self.no_input.setText("")
        self.no_input.setVisible(bool(self.no_input.text()))
        self.again_btn.setEnabled(ok and not recording and bool(self.takes.count()))
        self.again_btn.setToolTip(self.no_record_reason if not self.can_record else
                                  "record a new take of this prompt; earlier takes are kept")
        t = self.selected_take()
        self.accept_btn.setEnabled(not recording and t is not None and not t.accepted
                                   and t.status != rec.RECORDING)
        for w in (self.prev_btn, self.next_btn, self.prompts, self.list_combo, self.open_btn,
                  self.dataset, self.speaker_id, self.language, *self.meta.values()):
            w.setEnabled(not recording)
        if not recording:
            pr, n = self.current_prompt(), len(self.prompt_list or ())
            self.prev_btn.setEnabled(pr is not None and self.index > 0)
            self.next_btn.setEnabled(pr is not None and self.index < n - 1)

    # -- recording ------------------------------------------------------------------------
    def toggle_record(self) -> None:
        if self.recorder.recording:
            self.stop_recording()
        else:
            self.start_recording()

    def start_recording(self) -> None:
        if self.recorder.recording or not self.can_record:
            return
        s, pr = self.session(), self.current_prompt()
        if s is None or pr is None:
            return
        self.transcript.flush()
        self.player.stop()
        try:
            self._take = s.start_take(pr, self.recorder)
        except rec.RecorderUnavailable as exc:
            self.can_record, self.no_record_reason = False, f"Recording unavailable: {exc}"
            self._say(str(exc), error=True)
            self._update_buttons()
            return
        except FairdeskError as exc:
            self._say(str(exc), error=True)
            return
        self._live_lo.setData([], [])
        self._live_hi.setData([], [])
        self.live.setXRange(0, 3, padding=0)
        self._say(f"recording take {self._take.number} of “{pr.text}” — press Space to stop")
        self.timer.start()
        self._refresh_takes(select=None)
        self._update_buttons()

    def stop_recording(self) -> Take | None:
        if not self.recorder.recording or self._take is None:
            return None
        self.timer.stop()
        s = self.session(quiet=True)
        take, self._take = self._take, None
        try:
            done = s.stop_take(take, self.recorder)
        except FairdeskError as exc:
            self._say(str(exc), error=True)
            self._refresh_takes()
            return None
        self._tick()
        self.meter.set_level(rec.Level())
        self._say(f"take {done.number} recorded ({done.duration:.2f} s): listen, then "
                  "Accept it or Re-record")
        self._refresh_takes(select=len(s.takes(self.current_prompt())) - 1)
        self.take_recorded.emit(str(done.path))
        return done

    def _tick(self) -> None:
        r = self.recorder
        if r.error is not None and r.recording:
            self.stop_recording()
            return
        self.meter.set_level(r.level)
        d = r.duration
        self.elapsed.setText(f"{int(d // 60)}:{d % 60:04.1f}")
        env = r.envelope()
        if env.size:
            x = np.arange(len(env)) * (rec.ENVELOPE_HOP / float(r.samplerate))
            self._live_lo.setData(x, env[:, 0])
            self._live_hi.setData(x, env[:, 1])
            self.live.setXRange(0, max(3.0, float(x[-1]) + 0.5), padding=0)

    # -- accepting and annotating -----------------------------------------------------------
    def accept(self) -> int | None:
        s, pr, t = self.session(), self.current_prompt(), self.selected_take()
        if s is None or pr is None or t is None:
            return None
        try:
            db_id = s.accept(pr, t)
        except FairdeskError as exc:
            self._say(str(exc), error=True)
            return None
        self._say(f"take {t.number} accepted into dataset “{s.dataset}” as "
                  f"{s.item_key(pr)}; correct its transcript below if the speaker said "
                  "something else")
        self._refresh_prompts_marks()
        self._refresh_takes()
        self.take_accepted.emit(db_id)
        self.ctx.refresh()  # the dataset browser shows the new item
        return db_id

    def _load_transcript(self) -> None:
        s, pr = self.session(quiet=True), self.current_prompt()
        item = s.item(pr) if s is not None and pr is not None else None
        if item is None:
            self.transcript.set_text(pr.text if pr is not None else "", enabled=False,
                                     note="accept a take to annotate its transcript")
        else:
            note = f"item {item['id']} · take {item.get('take', '?')}"
            if self._last_saved and self._last_saved[0] == item["id"]:
                note += f" · saved {self._last_saved[1]}"
            self.transcript.set_text(item["text"], enabled=True, note=note)

    def _save_transcript(self, text: str) -> None:
        s, pr = self.session(quiet=True), self.current_prompt()
        if s is None or pr is None:
            return
        try:
            ann = s.save_transcript(pr, text)
        except FairdeskError as exc:
            self.transcript.status.setText(f"<span style='color:#c62828'>not saved: "
                                           f"{html.escape(str(exc))}</span>")
            return
        from time import strftime

        self._last_saved = (s.item_key(pr), strftime("%H:%M:%S"))
        self.transcript.mark_saved(text, f"saved {self._last_saved[1]}")
        if ann is not None:
            self.transcript_saved.emit(ann)

    # -- messages and shutdown ---------------------------------------------------------
    def _say(self, text: str, error: bool = False) -> None:
        color = "#c62828" if error else "#1f2933"
        self.message.setText(f"<span style='color:{color}'>{html.escape(text)}</span>")
        if error:
            log.warning("record panel: %s", text)
        self.ctx.status.emit(text)

    def shutdown(self) -> None:
        """Finish a running take (kept as done), save a pending transcript, stop playback."""
        if self.recorder.recording:
            self.stop_recording()
        self.timer.stop()
        self.transcript.flush()
        self.player.stop()


# -- a quick look on its own -------------------------------------------------------------
def screenshot(out_png, project_folder, seconds: float = 1.6) -> Path:
    """Open the panel offscreen on ``project_folder`` with a synthetic input, record and
    accept a take of the Igbo prompt àkwá, correct its transcript with the palette, and
    save a PNG (the project gets a dataset ``field``)."""
    import time

    from PySide6.QtWidgets import QApplication

    from .qapp import application

    app = application()
    ctx = Context(project_folder)
    sig = rec.synthetic_speech(seconds)
    w = RecordPanel(ctx, stream_factory=rec.ArrayStream.factory(sig, realtime=True, speed=4))
    try:
        w.resize(1440, 900)
        w.show()
        w.speaker_id.setText("spk01")
        w.meta["accent"].setText("owerri")
        w.meta["gender"].setCurrentText("female")
        w.meta["age"].setText("34")
        w.meta["dialect"].setText("Owerri Igbo")
        w.go(3)
        w.start_recording()
        deadline = time.monotonic() + 20
        while w.recorder.frames < len(sig) and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        w.stop_recording()
        w.accept()
        # the speaker said àkwà ('bed'): the linguist puts a low tone on the last vowel
        w.transcript.edit.setFocus()
        w.transcript.edit.end(False)
        w.transcript.insert_mark("\u0300")
        w.transcript.flush()
        for _ in range(5):
            app.processEvents()
        # a second take, so the list shows re-recording
        w.start_recording()
        deadline = time.monotonic() + 20
        while w.recorder.frames < len(sig) // 2 and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        out = Path(out_png)
        out.parent.mkdir(parents=True, exist_ok=True)
        QApplication.processEvents()
        w.grab().save(str(out))
        w.stop_recording()
        return out
    finally:
        w.shutdown()
        w.close()
        ctx.close()


def main(argv=None) -> int:
    import argparse
    import os
    import tempfile

    ap = argparse.ArgumentParser(description="the Record panel on its own")
    ap.add_argument("project", nargs="?", help="project folder (default: a temporary one)")
    ap.add_argument("--synthetic", action="store_true", help="record a synthetic voice "
                    "instead of the sound card")
    ap.add_argument("--screenshot", metavar="PNG", help="save a screenshot offscreen and exit")
    a = ap.parse_args(argv)
    folder = a.project or tempfile.mkdtemp(prefix="fairdesk-record-")
    if a.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        print(screenshot(a.screenshot, folder))
        return 0
    from .qapp import application

    app = application()
    ctx = Context(folder)
    factory = (rec.ArrayStream.factory(rec.synthetic_speech(3.0), realtime=True, loop=True)
               if a.synthetic else None)
    w = RecordPanel(ctx, stream_factory=factory)
    w.resize(1300, 860)
    w.show()
    code = app.exec()
    w.shutdown()
    ctx.close()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
