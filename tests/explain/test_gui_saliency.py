"""The item view overlays a stored saliency curve, or computes one in a background job."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.gui.conftest import _no_pool_threads_left, ctx, mini  # noqa: E402, F401


class Half:
    """Stand-in scoring model: only the first 0.2 s of a clip count."""

    id = "fake-half"
    fingerprint = "f1"
    capabilities = {"score"}

    def score_many(self, audios, texts):
        return [float(np.sum(a[:3200] ** 2)) for a in audios]


class Aligner:
    key = "fake-aligner@1"

    def align(self, audio, text):
        from fairdesk.explain.alignment import WordSpan

        return [WordSpan(w, 0.1 * i, 0.1 * (i + 1), 1.0) for i, w in enumerate(text.split())]


def test_item_view_offers_then_overlays_saliency(qtbot, ctx, mini, monkeypatch):  # noqa: F811
    from fairdesk.explain.stage import explain_item
    from fairdesk.gui import tasks
    from fairdesk.gui.item_panel import ItemPanel

    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.item_shown, timeout=10000):
        ctx.select_run(mini.run_id)
    # imported predictions: nothing stored, and no model to compute with
    assert not w.player.saliency_shown
    assert w.saliency_btn.isVisible() and not w.saliency_btn.isEnabled()

    # a run model that can score: the button runs the (stand-in) job and the curve is drawn
    w.payload = {**w.payload, "model": "fake-half", "model_key": "fake-half@f1"}

    def fake_task(folder, model, audio_path, audio_hash, text, *, device, progress, cancelled):
        from fairdesk.core import audio as audio_io
        from fairdesk.core.store import Project

        p = Project(folder)
        try:
            return explain_item(p, Half(), audio_io.load(audio_path).samples, audio_hash, text,
                                aligner=Aligner(), cancelled=cancelled, progress=progress)
        finally:
            p.close()

    monkeypatch.setattr(tasks, "saliency", fake_task)
    w.show_item(w._row)
    assert w.saliency_btn.isEnabled()
    job = w.compute_saliency()
    with qtbot.waitSignal(job.signals.finished, timeout=20000):
        pass
    assert w.player.saliency_shown and not w.saliency_btn.isVisible()
    n_words = len(str(w._row["reference"]).split())
    assert len(w.player._saliency_items) == 2 * n_words + 1  # regions + labels + the curve
    # shown again: read from the saliency table, no job
    w.player.clear_saliency()
    w.show_item(w._row)
    assert w.player.saliency_shown and "occlusion" in w.saliency_info.text()
    w.repaint()
