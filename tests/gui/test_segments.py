"""Items that are segments of a session recording, in the GUI: the player decodes, draws and
plays only the segment (item time from 0), Context adds the recording around it, and the
Datasets view shows where each segment lies."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from tests.core.test_importers_sessions import elan_session

SR = 16000


@pytest.fixture
def session(tmp_path):
    """A 52-s session of two speakers (ELAN, one tier each, 40 intervals), imported."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    elan_session(tmp_path / "corpus")
    project = Project(tmp_path / "proj")
    rep = import_dataset(project, "s", tmp_path / "corpus", tiers="Ana-tx,Ben-tx")
    assert rep.imported == 40
    project.close()
    return tmp_path / "proj", tmp_path / "corpus" / "session1.wav"


def _player(qtbot):
    from fairdesk.gui.audio.audio_worker import NullSink
    from fairdesk.gui.audio.player import AudioPlayer
    from fairdesk.gui.jobs import JobRegistry

    reg = JobRegistry()
    sink = NullSink()
    p = AudioPlayer(reg, sink=sink)
    qtbot.addWidget(p)
    return p, sink, reg


def test_the_player_shows_and_plays_only_the_segment_and_context_on_request(qtbot, session):
    _proj, wav = session
    whole, sr = sf.read(str(wav), dtype="float32")
    assert sr == SR
    p, sink, reg = _player(qtbot)
    with qtbot.waitSignal(p.ready, timeout=10000):
        p.load(wav, span=(26.25, 27.45))
    seg = whole[int(26.25 * SR) : int(27.45 * SR)]
    np.testing.assert_array_equal(p.samples, seg)  # exactly the segment's frames
    assert p.duration == pytest.approx(1.2) and p.origin == 0.0
    assert "segment 00:26.25–00:27.45" in p.info.text() and p.context.isVisibleTo(p)
    assert p.time_label.text() == "0:00.00 / 0:01.20"
    p.play()
    np.testing.assert_array_equal(sink.played[-1], seg)
    # a word at 0.2–0.6 s of the item is 26.45–26.85 s of the session
    p.play_span(0.2, 0.6)
    np.testing.assert_array_equal(sink.played[-1], whole[int(26.45 * SR) : int(26.85 * SR)])

    with qtbot.waitSignal(p.ready, timeout=10000):
        p.context.setChecked(True)
    assert p.origin == pytest.approx(-1.0) and p.t_hi == pytest.approx(2.2)
    assert p.duration == pytest.approx(1.2)  # the item is still the segment
    np.testing.assert_array_equal(p.samples, whole[int(25.25 * SR) : int(28.45 * SR)])
    assert len(p.context_shade.items) == 2  # shaded before and after
    assert p.position == pytest.approx(-1.0)
    p.play()
    assert len(sink.played[-1]) == int(round(3.2 * SR))
    p.play_span(0.2, 0.6)  # item times still mean the same samples
    np.testing.assert_array_equal(sink.played[-1], whole[int(26.45 * SR) : int(26.85 * SR)])
    p.loop.setChecked(True)
    assert p.selection.getRegion() == pytest.approx((0.0, 1.2))  # the loop is the segment
    p.loop.setChecked(False)

    # at the start of the file there is no context before, only after
    with qtbot.waitSignal(p.ready, timeout=10000):
        p.load(wav, span=(0.0, 1.2))
    assert p.origin == 0.0 and p.t_hi == pytest.approx(2.2)
    # near the end the window stops at the end of the file (52 s)
    with qtbot.waitSignal(p.ready, timeout=10000):
        p.load(wav, span=(51.0, 51.9))
    assert p.origin == pytest.approx(-1.0) and p.t_hi == pytest.approx(1.0)
    # a whole file: no Context box
    with qtbot.waitSignal(p.ready, timeout=10000):
        p.load(wav)
    assert p.duration == pytest.approx(52.0) and not p.context.isVisibleTo(p)
    reg.shutdown(5000)


def test_the_datasets_view_shows_segment_times_and_plays_the_segment(qtbot, session):
    from fairdesk.gui.audio.audio_worker import NullSink
    from fairdesk.gui.context import Context
    from fairdesk.gui.data.dataset_panel import DatasetPanel

    folder, _wav = session
    ctx = Context(folder)
    try:
        w = DatasetPanel(ctx)
        qtbot.addWidget(w)
        w.show()
        cols = w.model.columns
        assert "segment" in cols and "start_s" not in cols and "end_s" not in cols
        c = cols.index("segment")
        shown = sorted(w.model.index(r, c).data() for r in range(w.model.rowCount()))
        assert shown[:3] == ["00:00.00–00:01.20", "00:01.25–00:02.45", "00:02.50–00:03.70"]
        ids = cols.index("id")
        row = next(
            r
            for r in range(w.model.rowCount())
            if w.model.index(r, c).data() == "00:26.25–00:27.45"
        )
        w.ensure_detail().set_sink(NullSink())
        with qtbot.waitSignal(w.player.ready, timeout=10000):
            w.table.selectRow(row)
        assert w.player.span == pytest.approx((26.25, 27.45))
        assert w.player.duration == pytest.approx(1.2)
        assert w.model.index(row, ids).data()  # the id column is still there
    finally:
        ctx.close(10000)


def test_the_item_view_plays_the_segment_a_run_scored(qtbot, session):
    from fairdesk.core.store import Project
    from fairdesk.gui.context import Context
    from tests.core.test_importers_sessions import SpanBackend
    from tests.gui.item_view import open_item_view
    from tests.session_fixture import audit_by_tier

    folder, wav = session
    project = Project(folder)
    out = audit_by_tier(project, "s", "fake", backend=SpanBackend())
    project.close()
    ctx = Context(folder)
    try:
        w, _sink = open_item_view(qtbot, ctx, out.run_id)
        row = w._row
        start, end = float(row["start_s"]), float(row["end_s"])
        assert w.player.span == pytest.approx((start, end))
        whole, _ = sf.read(str(wav), dtype="float32")
        np.testing.assert_array_equal(
            w.player.samples, whole[int(round(start * SR)) : int(round(end * SR))]
        )
        path, span = w._path_of(1)  # the neighbours are prefetched as segments too
        assert path == str(wav) and span is not None and span != (start, end)
    finally:
        ctx.close(10000)
