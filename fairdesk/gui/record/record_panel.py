"""The Record tab: record new speakers prompt by prompt, accept takes into a dataset, and
correct their transcripts with tone marks.

A thin widget over :mod:`fairdesk.recording.session` and :mod:`fairdesk.recording.recorder`. The
recorder's own threads write the audio; this panel only polls its level and envelope with
one display timer while a take runs. The input is the device chosen in the Audio box
(sounddevice, reached lazily) or an audio file played as the microphone
(:mod:`fairdesk.recording.file_source`); without either the record button is disabled with a
tooltip saying what to do, and the panel still annotates takes already recorded.

Open it on its own (see :mod:`fairdesk.gui.record.record_shot`)::

    python -m fairdesk.gui.record.record_shot PROJECT [--synthetic] [--screenshot OUT.png]
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QListWidgetItem,
    QWidget,
)

from ...core.errors import FairdeskError
from ...core.plurals import count, verb
from ...core.store import remove_dataset_if_empty
from ...recording import recorder as rec
from ...recording.prompts import (
    PromptError,
    PromptList,
    builtin_lists,
    builtin_name,
    load_prompts,
)
from ...recording.session import RecordingSession, Speaker, Take, recover_recordings
from ..context import Context
from ..settings import restore_splitter
from .record_input import choose_input, no_input_advice
from .record_layout import build as build_ui
from .record_widgets import GENDERS, SPEAKER_FIELDS, LevelMeter

__all__ = ["GENDERS", "SPEAKER_FIELDS", "LevelMeter", "RecordPanel", "no_input_advice"]

log = logging.getLogger("fairdesk.gui.record")

DISPLAY_MS = 40


class RecordPanel(QWidget):
    """Speaker form, audio devices, prompt list, recorder, takes with playback and the
    transcript editor.

    Parameters
    ----------
    ctx : the shared context (open project, job registry).
    stream_factory : input stream factory for the recorder (tests and demos pass
        :meth:`fairdesk.recording.recorder.ArrayStream.factory`); None: the input chosen in the
        Audio box (a device, or a file).
    input_file : an audio file to record from, played as the microphone (``fairdesk gui
        --input-file``); ignored when ``stream_factory`` is given.
    file_speed : pace of a file input relative to real time (tests pass more than 1).

    Signals
    -------
    take_recorded(str) : a take was stopped (its path).
    take_accepted(int) : a take became a dataset item (its db id).
    transcript_saved(int) : a corrected transcript was stored (the annotation id).
    """

    take_recorded = Signal(str)
    take_accepted = Signal(int)
    transcript_saved = Signal(int)

    #: Keyboard shortcuts of this panel (collected by Help ▸ Keyboard shortcuts).
    SHORTCUTS = [
        ("Space", "Start / stop recording a take (outside text fields)"),
        ("Alt+Right", "Next prompt"),
        ("Alt+Left", "Previous prompt"),
        ("Ctrl+Return", "Accept the selected take"),
        ("Ctrl+R", "Re-record this prompt"),
    ]

    def __init__(
        self,
        ctx: Context,
        stream_factory=None,
        parent=None,
        *,
        input_file=None,
        file_speed: float = 1.0,
    ):
        super().__init__(parent)
        self.ctx = ctx
        self._fixed_factory = stream_factory
        self.file_speed = float(file_speed)
        self.recorder = rec.Recorder(stream_factory)
        self.can_record, self.no_record_reason = True, ""
        self.lists: dict[str, Path] = dict(builtin_lists())
        self.prompt_list: PromptList | None = None
        self.index = 0
        self._session: RecordingSession | None = None
        self._session_key = None
        self._take: Take | None = None  # the take being recorded
        self._folder = None
        self._last_saved: tuple[tuple[str, str], str] | None = None
        self._build()
        self.timer = QTimer(self)  # the one display timer (runs while recording)
        self.timer.setInterval(DISPLAY_MS)
        self.timer.timeout.connect(self._tick)
        self.ctx.project_changed.connect(self._project_changed)
        self.ctx.annotator_changing.connect(self._annotator_changing)
        self.ctx.annotator_changed.connect(lambda _name: self._load_transcript())
        name = "igbo_tonal_minimal_pairs"
        if name in self.lists:
            self.list_combo.setCurrentIndex(list(self.lists).index(name))
        self._load_list()
        if stream_factory is None:
            self.devices.rescan()
            if input_file:
                self.devices.set_input_file(str(input_file))
        else:
            self.devices.setEnabled(False)
            self.devices.note.setText(
                "input: " + getattr(stream_factory, "source", "a programmatic stream")
            )
        self.devices.changed.connect(self._apply_input)
        self._apply_input()
        self._project_changed()

    # -- layout -------------------------------------------------------------------------
    def _build(self) -> None:
        build_ui(self)

    def _accept_key(self) -> None:
        if self.accept_btn.isEnabled():
            self.accept()

    def _again_key(self) -> None:
        if self.again_btn.isEnabled():
            self.start_recording()

    # -- input -------------------------------------------------------------------------
    def _apply_input(self) -> None:
        """Point the recorder at the chosen input (device or file) and say whether it can
        record, and if not what to do."""
        if self._fixed_factory is not None or self.recorder.recording:
            self._update_buttons()
            return
        factory, self.can_record, self.no_record_reason = choose_input(
            self.devices, self.file_speed
        )
        if factory is not None:
            self.recorder.stream_factory = factory
        self._update_buttons()

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
                        self._say(
                            f"{count(len(found), 'take')} left unfinished by a crash "
                            f"{verb(len(found), 'was', 'were')} recovered: {names}"
                        )
        self._refresh()

    def _form_changed(self) -> None:
        self._session, self._session_key = None, None
        if not self.recorder.recording:
            self._refresh_prompts_marks()
            self._show_prompt()

    def speaker(self) -> Speaker:
        v = self.form.values()
        return Speaker(v["speaker_id"], v["metadata"])

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
            key = (self.dataset.text().strip(), spk.id, tuple(sorted(spk.metadata.items())), lang)
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
            path, _ = QFileDialog.getOpenFileName(
                self, "Open a prompt list", "", "Prompt lists (*.txt *.jsonl)"
            )
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
        notes = [f"{count(len(pl), 'prompt')} · {pl.name}"]
        if pl.problems:
            notes.append(
                f"{count(len(pl.problems), 'line')} skipped: "
                + "; ".join(f"line {p.line}: {p.reason}" for p in pl.problems[:3])
            )
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
        moved = self.index != max(0, min(len(self.prompt_list) - 1, index))
        self.index = max(0, min(len(self.prompt_list) - 1, index))
        self.prompts.blockSignals(True)
        self.prompts.setCurrentRow(self.index)
        self.prompts.blockSignals(False)
        self._show_prompt()
        if moved:  # the live strip, time and message were the previous prompt's take
            self._reset_live()
            n = len(getattr(self, "_take_list", []))
            self._say(
                f"prompt {self.index + 1}: "
                + (
                    f"{count(n, 'take')} recorded; the selected one is below"
                    if n
                    else "no take yet; press Space (or Record) to record one"
                )
            )

    def _reset_live(self) -> None:
        """Empty the live strip, the elapsed time and the level meter."""
        self._live_lo.setData([], [])
        self._live_hi.setData([], [])
        self.live.setXRange(0, 3, padding=0)
        self.elapsed.setText("0:00.0")
        self.meter.set_level(rec.Level())

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
            self.prompt_label.setText(pr.text)  # plain text format: shown literally
            self.gloss.setText(f"‘{pr.gloss}’" if pr.gloss else "")
            extra = pr.extra.get("tones")
            self.counter.setText(
                f"Prompt {self.index + 1} of {n} · {self.prompt_list.name}"
                + (f" · tones {extra}" if extra else "")
                + f" · content id {pr.content_id}"
            )
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
            self.player.clear("no take of this prompt yet")
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
        if self.recorder.recording:
            return  # drawing a take would delay the recording's first blocks
        if t is not None and t.status != rec.RECORDING and t.path.exists():
            self.player.load(t.path, t.duration)

    def _update_buttons(self) -> None:
        recording = self.recorder.recording
        have_session = self.session(quiet=True) is not None
        read_only = self.ctx.read_only
        ok = (
            self.can_record and have_session and self.current_prompt() is not None and not read_only
        )
        self.record_btn.setEnabled(recording or ok)
        self.record_btn.setText("■  Stop" if recording else "●  Record")
        if read_only:
            self.record_btn.setToolTip(self.ctx.read_only_tip())
        elif not self.can_record:
            self.record_btn.setToolTip(self.no_record_reason)
            self.no_input.setText(
                self.no_record_reason + " Takes already recorded can still be played and annotated."
            )
        else:
            self.record_btn.setToolTip(
                "start / stop recording a take (Space)"
                if have_session
                else "enter a speaker id (and open a project) first"
            )
            self.no_input.setText("")
        self.no_input.setVisible(bool(self.no_input.text()))
        self.again_btn.setEnabled(ok and not recording and bool(self.takes.count()))
        self.again_btn.setToolTip(
            self.no_record_reason
            if not self.can_record
            else "record a new take of this prompt; earlier takes are kept"
        )
        t = self.selected_take()
        self.accept_btn.setEnabled(
            not recording
            and not read_only
            and t is not None
            and not t.accepted
            and t.status != rec.RECORDING
        )
        for w in (
            self.prev_btn,
            self.next_btn,
            self.prompts,
            self.list_combo,
            self.open_btn,
            self.language,
            self.devices,
        ):
            w.setEnabled(not recording)
        self.form.set_enabled_fields(not recording)
        if self._fixed_factory is not None:
            self.devices.setEnabled(False)
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
        p = self.ctx.project
        new_dataset = s.dataset not in {d.name for d in p.datasets()}
        try:
            self._take = s.start_take(pr, self.recorder)
        except FairdeskError as exc:
            if new_dataset:  # a failed first take leaves no empty dataset behind
                remove_dataset_if_empty(p, s.dataset)
            if isinstance(exc, rec.RecorderUnavailable):
                self.can_record = False
                self.no_record_reason = no_input_advice(f"Recording unavailable: {exc}")
                self._say(self.no_record_reason, error=True)
                self._update_buttons()
            else:
                self._say(str(exc), error=True)
            return
        if new_dataset:
            self.ctx.refresh()
        self._reset_live()
        self._say(f"recording take {self._take.number} of “{pr.text}” — press Space to stop")
        self.timer.start()
        self._refresh_takes(select=None)
        self._update_buttons()

    def stop_recording(self, why: str = "") -> Take | None:
        """Stop the take; ``why`` (e.g. the input file ended) starts the message."""
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
        self._say(
            why + f"take {done.number} recorded ({done.duration:.2f} s): listen, then "
            "Accept it or Re-record"
        )
        self._refresh_takes(select=len(s.takes(self.current_prompt())) - 1)
        self.take_recorded.emit(str(done.path))
        return done

    def _tick(self) -> None:
        r = self.recorder
        if r.error is not None and r.recording:
            self.stop_recording()
            return
        if r.recording and r.input_finished:
            name = Path(getattr(self.recorder.stream_factory, "source", "") or "input").name
            self.stop_recording(f"The input file {name} ended, so the take stopped: ")
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
        self._say(
            f"take {t.number} accepted into dataset “{s.dataset}” as "
            f"{s.item_key(pr)}; correct its transcript below if the speaker said "
            "something else"
        )
        self._refresh_prompts_marks()
        self._refresh_takes()
        self.take_accepted.emit(db_id)
        self.ctx.refresh()  # the dataset browser shows the new item
        return db_id

    def _annotator_changing(self) -> None:
        if self.transcript.pending:  # the last edit is the previous annotator's
            self.transcript.flush()

    def _load_transcript(self) -> None:
        """The accepted take's transcript as the named annotator has it: their own version,
        else the prompt's text (other annotators' versions stay hidden until adjudication,
        as in the Items view)."""
        from ..annotation.annotator_field import NAME_FIRST

        s, pr = self.session(quiet=True), self.current_prompt()
        item = s.item(pr) if s is not None and pr is not None else None
        if item is None:
            self.transcript.set_text(
                pr.text if pr is not None else "",
                enabled=False,
                note="accept a take to annotate its transcript",
            )
            return
        own = s.version(pr, self.ctx.annotator) if self.ctx.annotator else None
        text = own if own is not None else pr.text
        if not self.ctx.annotator:
            self.transcript.set_text(text, enabled=False, note=NAME_FIRST)
            return
        note = f"item {item['id']} · take {item.get('take', '?')} · {self.ctx.annotator}'s "
        note += "version" if own is not None else "version: starts from the prompt's text"
        if self._last_saved and self._last_saved[0] == (item["id"], self.ctx.annotator):
            note += f" · saved {self._last_saved[1]}"
        self.transcript.set_text(text, enabled=True, note=note)

    def _save_transcript(self, text: str) -> None:
        s, pr = self.session(quiet=True), self.current_prompt()
        if s is None or pr is None:
            return
        try:
            ann = s.save_transcript(pr, text, annotator=self.ctx.annotator)
        except FairdeskError as exc:
            self.transcript.status.setText(
                f"<span style='color:#c62828'>not saved: {html.escape(str(exc))}</span>"
            )
            return
        from time import strftime

        self._last_saved = ((s.item_key(pr), self.ctx.annotator), strftime("%H:%M:%S"))
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

    # -- remembered state (the window stores it in QSettings) ---------------------------
    def save_state(self) -> dict:
        """Plain values: the speaker form, the devices, the prompt list and position."""
        key = self.list_combo.currentData()
        return {
            "speaker": self.form.save_state(),
            "devices": self.devices.save_state(),
            "prompt_list": str(key) if key is not None else None,
            "prompt_index": int(self.index),
            "language": self.language.text(),
            "split": [int(x) for x in self.split.sizes()],
            "annotator": self.ctx.annotator,
        }

    def restore_state(self, state: dict) -> None:
        if not state:
            return
        lst = state.get("prompt_list")
        lst = builtin_name(lst) if isinstance(lst, str) else lst
        if lst and lst not in self.lists and Path(lst).is_file():
            self.open_list(lst)
        elif lst in self.lists:
            self.list_combo.setCurrentIndex(max(0, self.list_combo.findData(lst)))
        if state.get("language"):
            self.language.setText(str(state["language"]))
        if state.get("annotator") and not self.ctx.annotator:
            self.annotator.setText(str(state["annotator"]))
        self.form.restore_state(state.get("speaker") or {})
        if self._fixed_factory is None and state.get("devices"):
            had_file = self.devices.input_file
            self.devices.restore_state(state["devices"])
            if had_file:  # --input-file wins over the remembered input
                self.devices.set_input_file(had_file)
        if isinstance(state.get("prompt_index"), int):
            self.go(state["prompt_index"])
        restore_splitter(self.split, state.get("split"))

    def shutdown(self) -> None:
        """Finish a running take (kept as done), save a pending transcript, stop playback."""
        if self.recorder.recording:
            self.stop_recording()
        self.timer.stop()
        self.transcript.flush()
        self.player.stop()
