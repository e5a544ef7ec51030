"""Issue 30 items 8 and 9: without an output device Space and word clicks say why nothing
plays, and the output is chosen from the Items view too (one setting for every player); a
clicked word is selected so that L loops it; a zero-length word stays in the word strip;
the saliency overlay has a scale, and the loop selection does not hide the word shading."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.conftest import write_wav

WORDS = [{"text": "one", "start": 0.2, "end": 0.6}, {"text": "two", "start": 0.8, "end": 1.4}]


class NoDevice:
    """An output that cannot play, with the reason the real probe gives."""

    available = False
    reason = "Playback unavailable: no audio output device (test)."

    def start(self, samples, sample_rate):  # pragma: no cover - never called
        raise AssertionError("played without a device")

    def stop(self):
        pass


@pytest.fixture
def player(qtbot, tmp_path):
    from fairdesk.gui.audio.audio_worker import NullSink
    from fairdesk.gui.audio.player import AudioPlayer
    from fairdesk.gui.jobs import JobRegistry

    reg = JobRegistry()
    p = AudioPlayer(reg, sink=NullSink())
    qtbot.addWidget(p)
    p.resize(800, 300)
    p.show()
    with qtbot.waitSignal(p.ready, timeout=10000):
        p.load(write_wav(tmp_path / "t.wav", seconds=2.0, freq=440.0))
    yield p
    reg.shutdown(5000)


def test_without_output_space_and_word_clicks_say_why(qtbot, ctx, mini):
    from fairdesk.gui.items.item_panel import ItemPanel

    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.player.set_sink(NoDevice())
    w.only_failing.setChecked(False)
    w.show()
    w.activateWindow()
    qtbot.waitExposed(w)
    with qtbot.waitSignals([w.item_shown, w.player.ready], timeout=10000):
        ctx.select_run(mini.run_id)
    said = []
    ctx.status.connect(said.append)
    w.diff.text.setFocus()
    qtbot.keyClick(w.diff.text, Qt.Key_Space)
    assert said == [NoDevice.reason] and not w.player.playing
    w.player.set_words(WORDS)
    w.player.click_word(0.4)
    assert said == [NoDevice.reason] * 2
    # the place to choose an output is in the Items view itself
    assert w.player.no_output.isVisibleTo(w) and NoDevice.reason in w.player.no_output.toolTip()


def test_one_output_setting_for_every_player(qtbot, monkeypatch):
    from fairdesk.gui.audio import audio_worker
    from fairdesk.gui.audio.output_picker import OutputPicker, choose_output
    from fairdesk.gui.audio.player import AudioPlayer
    from fairdesk.gui.jobs import JobRegistry

    reg = JobRegistry()
    items, record = AudioPlayer(reg), AudioPlayer(reg)  # both follow the default output
    for p in (items, record):
        qtbot.addWidget(p)
    monkeypatch.setattr(audio_worker, "_DEFAULT", audio_worker.default_sink())
    sink = choose_output(None)
    assert items.sink is sink and record.sink is sink
    assert items.no_output.isHidden() == sink.available
    dlg = OutputPicker()
    qtbot.addWidget(dlg)
    assert dlg.box.count() >= 1 and "Record tab" in dlg.note.text()
    reg.shutdown(5000)


def test_a_clicked_word_is_selected_and_l_loops_it(player):
    p, sink = player, player.sink
    p.set_words(WORDS)
    p.click_word(1.0)
    assert p.strip.selected == 1 and p.selection.getRegion() == pytest.approx((0.8, 1.4))
    assert p.selection.isVisible() and len(sink.played[-1]) == int(0.6 * 16000)
    p.stop()
    p.loop.toggle()  # what L does
    p.set_position(0.0)
    p.play()
    assert len(sink.played[-1]) == int(0.6 * 16000)  # the word, not the whole file
    p._t0 -= 1.0  # past the end of the word: it starts again
    p._tick()
    assert p.playing and len(sink.played[-1]) == int(0.6 * 16000)
    p.stop()


def test_a_zero_length_word_stays_in_the_strip(player):
    from fairdesk.gui.audio.player_layers import MIN_WORD_S

    p = player
    p.set_words([*WORDS, {"text": "a", "start": 1.6, "end": 1.6}])
    assert [w[0] for w in p.words] == ["one", "two", "a"]
    box, label = p.strip.boxes.items[2], p.strip.labels[2]
    lo, hi = box.rect().left(), box.rect().right()
    assert box.isVisible() and label.isVisible() and label.toPlainText() == "a"
    assert hi - lo == pytest.approx(MIN_WORD_S) and lo < 1.6 < hi
    assert p.word_at(1.6) == ("a", 1.6, 1.6)
    p.click_word(1.6)
    assert len(p.sink.played[-1]) == int(round(MIN_WORD_S * 16000))


def test_the_saliency_overlay_has_a_scale_and_the_selection_keeps_the_shading(qtbot, player):
    from fairdesk.gui.audio.player_layers import WORD_SHADE_Z

    p = player
    curve = np.zeros(200)
    curve[20:60] = 0.8
    curve[100:140] = 2.4  # frames of 10 ms: 2 s
    p.set_saliency(curve, 0.01, [{"word": "two", "start": 0.8, "end": 1.4}], method="occlusion")
    axis = p.wave.getPlotItem().getAxis("right")
    assert axis.isVisible() and axis.labelText == "Δ log p, nats"
    assert "log-probability" in axis.toolTip() and "2.4" in axis.toolTip()
    ticks = [t for _y, t in p.overlay.ticks(p._peak)]
    assert ticks == ["0", "1.2", "2.4"]
    # the loop selection is drawn under the word shading, so the shading shows through
    region = next(it for it in p.overlay.items if hasattr(it, "getRegion"))
    assert region.zValue() == WORD_SHADE_Z > p.selection.zValue()
    p.selection.setRegion((0.3, 1.9))
    p.selection.setVisible(True)
    qtbot.wait(50)
    img = p.wave.grab().toImage()
    vb = p.wave.getPlotItem().getViewBox()

    def pixel(t):
        pt = p.wave.mapFromScene(vb.mapViewToScene(pg_point(t, -0.95 * p._peak)))
        return img.pixelColor(pt.x(), pt.y()).getRgb()

    inside_word, outside_word = pixel(1.1), pixel(0.45)  # both under the saliency fill
    assert inside_word != outside_word  # green shading visible within the selection
    assert inside_word[1] > inside_word[2]  # greener than blue there
    p.clear_saliency()
    assert not axis.isVisible() and not p.saliency_shown


def pg_point(x, y):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def test_non_speech_shading_reuses_its_rectangles_with_their_tooltips(player):
    p = player
    p.set_nonspeech([[0.3, 0.9], [1.2, 1.5]], 2.0)  # non-speech: 0–0.3, 0.9–1.2, 1.5–2.0
    shown = p.nonspeech_shade.items
    ends = [x for it in shown for x in (it.rect().left(), it.rect().right())]
    assert ends == pytest.approx([0.0, 0.3, 0.9, 1.2, 1.5, 2.0])
    assert [it.toolTip() for it in shown][1] == "non-speech (VAD) 0.90–1.20 s"
    assert all(it.isVisible() for it in shown)
    pool = list(p.nonspeech_shade.bands.items)
    p.set_nonspeech([[0.0, 1.5]], 2.0)  # one stretch: the pool is reused, the rest hidden
    assert p.nonspeech_shade.bands.items == pool
    assert len(p.nonspeech_shade.items) == 1 and not pool[1].isVisible()
    p.set_nonspeech(None, None)
    assert p.nonspeech_shade.items == [] and not any(it.isVisible() for it in pool)


def test_the_next_items_alignment_is_made_ahead_and_equals_a_fresh_one(qtbot, ctx, mini):
    from fairdesk.gui.items.item_panel import ItemPanel
    from fairdesk.review import item_report

    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.only_failing.setChecked(False)
    w.show()
    with qtbot.waitSignal(w.item_shown, timeout=10000):
        ctx.select_run(mini.run_id)
    assert w.model.rowCount() >= 2
    nxt = w.model.source_row(w.table.currentIndex().row() + 1)
    qtbot.waitUntil(lambda: nxt in w._reports, timeout=5000)  # made while one listens
    ahead = w._reports[nxt]
    assert ahead == item_report(w._record(nxt), w.language, w.normaliser)
    with qtbot.waitSignal(w.item_shown, timeout=5000):
        w.next_item()
    assert w.report is ahead
