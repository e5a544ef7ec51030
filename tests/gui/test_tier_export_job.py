"""File ▸ Export Praat TextGrids / ELAN files as a background job (issue 30, item 10): a
progress bar and Cancel in the status bar, a cancel that writes no file, and the second
export reading the alignments the first one stored."""

from __future__ import annotations

import itertools
import threading

import pytest
from PySide6.QtCore import QSettings

_keys = itertools.count()


class Aligner:
    """A stand-in forced aligner counting what it aligns; ``gate`` (an Event) holds each
    alignment until it is set, and ``entered`` is set when the first one starts."""

    def __init__(self, gate: threading.Event | None = None):
        self.key = f"gui-test-{next(_keys)}"
        self.n = 0
        self.gate = gate
        self.entered = threading.Event()

    def align(self, audio, text):
        from fairdesk.explain.alignment import WordSpan

        self.entered.set()
        if self.gate is not None:
            assert self.gate.wait(30)
        self.n += 1
        words = text.split()
        step = len(audio) / 16000 / len(words)
        return [WordSpan(w, i * step, (i + 1) * step, 0.9) for i, w in enumerate(words)]


@pytest.fixture
def win(qtbot, mini, tmp_path):
    from fairdesk.gui.main_window import MainWindow

    w = MainWindow(mini.folder, settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.results.loaded, timeout=10000, raising=False):
        w.ctx.select_run(mini.run_id)
    assert w.shown_run() == mini.run_id
    yield w
    w.close()


def test_progress_then_the_second_export_aligns_nothing(qtbot, win, mini, tmp_path):
    view = win.exporter.progress_view
    aligner = Aligner()
    bar_at_end = []
    job = win.exporter.tiers(mini.run_id, tmp_path / "tg", "textgrid", aligner=aligner)
    assert view.isVisible() and view.cancel_btn.isEnabled()
    job.signals.result.connect(lambda _out: bar_at_end.append(view.bar.value()))
    with qtbot.waitSignal(win.exporter.done, timeout=60000) as blocker:
        pass
    kind, out = blocker.args
    assert kind == "textgrid" and out["n"] == mini.n_items
    assert aligner.n == out["aligned"] == mini.n_items and out["reused"] == 0
    assert bar_at_end == [1000]  # the bar reached the end before the job finished
    assert not view.isVisible()
    assert len(list((tmp_path / "tg").rglob("*.TextGrid"))) == mini.n_items

    again = Aligner()
    again.key = aligner.key  # the same aligner, as the EAF export after the TextGrids
    with qtbot.waitSignal(win.exporter.done, timeout=60000) as blocker:
        win.exporter.tiers(mini.run_id, tmp_path / "eaf", "eaf", aligner=again)
    out = blocker.args[1]
    assert again.n == 0 and out["aligned"] == 0 and out["reused"] == mini.n_items
    assert f"{mini.n_items} alignments read from the project" in win.exporter.last_message
    assert len(list((tmp_path / "eaf").rglob("*.eaf"))) == mini.n_items


def test_cancel_writes_no_file(qtbot, win, mini, tmp_path):
    view = win.exporter.progress_view
    gate = threading.Event()
    aligner = Aligner(gate)
    out = tmp_path / "tg"
    job = win.exporter.tiers(mini.run_id, out, "textgrid", aligner=aligner)
    results = []
    job.signals.result.connect(results.append)
    assert aligner.entered.wait(30)  # the first item is being aligned
    with qtbot.waitSignal(win.exporter.cancelled, timeout=30000) as blocker:
        view.cancel_btn.click()
        gate.set()
    assert blocker.args == ["textgrid"] and results == []
    assert aligner.n < mini.n_items
    assert not out.exists() and list(tmp_path.glob(".*tmp*")) == []
    assert win.exporter.last_message.startswith("Export cancelled: no file was written")
    assert not view.isVisible()
