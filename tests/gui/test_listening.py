"""Listening without an audio device: play/pause and next/previous from the keyboard,
click-to-play words, loops, slower playback with the pitch kept, and audio decoded in jobs
with neighbours prefetched and stale results dropped."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from tests.conftest import write_wav


def _panel(qtbot, ctx, mini):
    from tests.gui.item_view import open_item_view

    return open_item_view(qtbot, ctx, mini.run_id)


def test_space_plays_and_pauses_and_j_k_move_anywhere_in_items(qtbot, ctx, mini):
    w, sink = _panel(qtbot, ctx, mini)
    w.diff.text.setFocus()  # not the table
    qtbot.keyClick(w.diff.text, Qt.Key_Space)
    assert w.player.playing and len(sink.played) == 1
    assert len(sink.played[0]) == len(w.player.samples)
    qtbot.keyClick(w.diff.text, Qt.Key_Space)
    assert not w.player.playing and sink.stopped >= 1
    first = w.report["id"]
    qtbot.keyClick(w.diff.text, Qt.Key_J)
    assert w.table.currentIndex().row() == 1 and w.report["id"] != first
    qtbot.keyClick(w.diff.text, Qt.Key_K)
    assert w.table.currentIndex().row() == 0 and w.report["id"] == first
    qtbot.keyClick(w.diff.text, Qt.Key_Down)
    assert w.table.currentIndex().row() == 1
    qtbot.keyClick(w.diff.text, Qt.Key_Up)
    assert w.table.currentIndex().row() == 0
    # typing in the transcript editor types: Space and J are characters there (once the
    # annotator has given their name: the editor waits for it)
    qtbot.keyClicks(w.annotation.annotator, "Ngozi")
    ed = w.annotation.editor
    ed.edit.setFocus()
    ed.edit.setCursorPosition(len(ed.edit.text()))
    before = ed.edit.text()
    qtbot.keyClicks(ed.edit, " j")
    assert ed.edit.text() == before + " j" and not w.player.playing
    assert w.table.currentIndex().row() == 0


def test_neighbours_are_prefetched_so_the_next_item_shows_at_once(qtbot, ctx, mini):
    w, _ = _panel(qtbot, ctx, mini)
    ctx.jobs.wait(10000)
    qtbot.wait(50)  # deliver the prefetch results
    nxt, span = w._path_of(1)
    assert span is None and w.player.cache.get(nxt) is not None
    w.next_item()
    assert w.player.path == nxt and w.player.samples is not None  # no job: from the cache


def test_a_stale_result_is_dropped_and_kept_in_the_cache(qtbot, tmp_path):
    from fairdesk.gui.audio.audio_worker import NullSink
    from fairdesk.gui.audio.player import AudioPlayer
    from fairdesk.gui.jobs import JobRegistry

    reg = JobRegistry()
    p = AudioPlayer(reg, sink=NullSink())
    qtbot.addWidget(p)
    a = write_wav(tmp_path / "a.wav", seconds=1.0)
    b = write_wav(tmp_path / "b.wav", seconds=2.0)
    shown = []
    p.ready.connect(shown.append)
    ja = p.load(a)
    jb = p.load(b)
    assert ja is not None and jb is not None
    with qtbot.waitSignal(jb.signals.finished, timeout=10000):
        pass
    qtbot.waitUntil(lambda: p.cache.get(str(a)) is not None, timeout=10000)
    assert shown == [str(b)] and abs(p.duration - 2.0) < 1e-3
    assert p.load(a) is None and abs(p.duration - 1.0) < 1e-3  # cached: shown at once
    reg.shutdown(5000)


def test_words_loops_slow_playback_and_zoom(qtbot, tmp_path):
    from fairdesk.gui.audio.audio_worker import NullSink
    from fairdesk.gui.audio.player import AudioPlayer
    from fairdesk.gui.jobs import JobRegistry

    reg = JobRegistry()
    sink = NullSink()
    p = AudioPlayer(reg, sink=sink)
    qtbot.addWidget(p)
    path = write_wav(tmp_path / "t.wav", seconds=2.0, freq=440.0)
    with qtbot.waitSignal(p.ready, timeout=10000):
        p.load(path)
    p.set_words(
        [{"text": "one", "start": 0.2, "end": 0.6}, {"text": "two", "start": 0.8, "end": 1.4}]
    )
    assert p.word_at(1.0) == ("two", 0.8, 1.4)
    p.play_span(*p.word_at(1.0)[1:])  # what a click on the word does
    assert len(sink.played[-1]) == int(0.6 * 16000)
    p.set_speed(0.5)
    p.play_span(0.8, 1.4)
    slow = sink.played[-1]
    assert abs(len(slow) / (0.6 * 16000) - 2.0) < 0.15  # twice as long
    spec = np.abs(np.fft.rfft(slow[2000:6000] * np.hanning(4000)))
    assert abs(np.argmax(spec) * 16000 / 4000 - 440.0) < 8  # same pitch
    p.set_speed(1.0)
    p.loop.setChecked(True)
    p.selection.setRegion((0.5, 0.7))
    p.play()
    n = len(sink.played)
    p._t0 -= 1.0  # a second later: past the end of the selection
    p._tick()
    assert p.playing and len(sink.played) == n + 1  # looped
    assert len(sink.played[-1]) == int(0.2 * 16000)
    p.stop()
    p.zoom_in()
    lo, hi = p.view_range()
    assert abs((hi - lo) - 1.0) < 0.05
    p.zoom_fit()
    assert p.view_range() == (0.0, 2.0)
    reg.shutdown(5000)


def test_empty_player_axes_start_at_zero(qtbot):
    from fairdesk.gui.audio.audio_worker import NullSink
    from fairdesk.gui.audio.player import AudioPlayer
    from fairdesk.gui.jobs import JobRegistry

    p = AudioPlayer(JobRegistry(), sink=NullSink())
    qtbot.addWidget(p)
    p.show()
    lo, hi = p.view_range()
    assert lo >= -0.05 and hi <= 1.05
