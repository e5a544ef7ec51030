"""The Incremental tab: a stored incremental run opens and its add/revoke timeline is drawn;
a run on selected items goes through the background job and is stored."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from fairdesk.models.base import Transcription, Word


class StableThenWrong:
    """Re-decoding fake: every word of the clip's item heard; the last one first as "uh"
    when the decoded span is shorter than the clip (a revoke on every partial update)."""

    id = "fake-inc"
    settings: dict = {}

    def __init__(self, n_words=3):
        self.n = n_words

    def transcribe(self, audios):
        out = []
        for a in audios:
            dur = a.size / 16000
            ws = [
                Word(f"w{i}", 0.1 * i, 0.1 * i + 0.1, 1.0)
                for i in range(self.n)
                if 0.1 * i + 0.1 <= dur + 1e-9
            ]
            if dur < 0.4 and ws:
                ws[-1] = Word("uh", ws[-1].start, ws[-1].end, 0.5)
            out.append(Transcription(" ".join(w.text for w in ws), tuple(ws)))
        return out

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


@pytest.fixture
def project_copy(mini, tmp_path):
    dst = tmp_path / "project"
    shutil.copytree(mini.folder, dst)
    return dst


def _store_run(folder, monkeypatch, ids, policies=("concatenation",)):
    import fairdesk.models
    from fairdesk.incremental.job import run_incremental

    monkeypatch.setattr(fairdesk.models, "get_backend", lambda *a, **k: StableThenWrong())
    res = run_incremental(folder, "mini", ["fake-inc"], list(policies), 0.2, item_ids=ids)
    return res.run_id


def test_tab_opens_a_stored_run_and_draws_the_timeline(qtbot, project_copy, monkeypatch):
    from fairdesk.core.store import Project
    from fairdesk.gui.context import Context
    from fairdesk.gui.incremental.incremental_panel import IncrementalPanel
    from fairdesk.incremental.store import load_incremental
    from fairdesk.presentation import count, timeline_points

    p = Project(project_copy)
    ids = [str(x) for x in p.items(p.dataset("mini"))["id"][:3]]
    p.close()
    run_id = _store_run(project_copy, monkeypatch, ids, ("concatenation", "sliding"))
    ctx = Context(project_copy)
    try:
        assert all(r.id != run_id for r in ctx.runs())  # not an audit run
        panel = IncrementalPanel(ctx)
        qtbot.addWidget(panel)
        panel.show()
        assert panel.runs.currentData() == run_id
        assert panel.table.columnCount() == 2 and panel.table.rowCount() == 7
        assert panel.stream.count() == 2
        tl = panel.current_timeline()
        assert tl is not None and str(tl.item) in ids
        # the drawn markers are the stored adds and revokes, recomputed from the events
        stored = load_incremental(ctx.project, run_id)
        row = next(
            r for r in stored.items if str(r["id"]) == str(tl.item) and r["policy"] == tl.policy
        )
        adds, revs = timeline_points(tl)
        assert len(adds) == row["n_adds"] and len(revs) == row["n_revokes"] > 0
        xs, _ = panel.view.adds.getData()
        assert len(xs) == len(adds)
        assert len(panel.view.revokes.getData()[0]) == len(revs)
        assert len(panel.view.labels) == len(adds) + len(revs)
        assert count(len(revs), "revoke") in panel.legend.text()  # "1 revoke", "2 revokes"
        # the player cursor follows playback
        qtbot.waitUntil(lambda: panel.player.duration > 0, timeout=15000)  # decoded
        panel.player.set_position(0.2)
        panel.follow_player()
        assert panel.view.cursor.value() == pytest.approx(0.2)
        panel.grab()  # draws
    finally:
        ctx.close(10000)


def test_tab_runs_a_policy_on_selected_items_in_the_background(qtbot, project_copy, monkeypatch):
    import fairdesk.models
    from fairdesk.gui.context import Context
    from fairdesk.gui.incremental.incremental_panel import IncrementalPanel

    monkeypatch.setattr(fairdesk.models, "get_backend", lambda *a, **k: StableThenWrong())
    ctx = Context(project_copy)
    try:
        panel = IncrementalPanel(ctx)
        qtbot.addWidget(panel)
        panel.model.setEditText("fake-inc")
        panel.chunk.setValue(0.2)
        for i in range(2):
            panel.items.item(i).setSelected(True)
        with qtbot.waitSignal(panel.run_done, timeout=20000) as sig:
            assert panel.start() is not None
        run_id = sig.args[0]
        assert panel.runs.currentData() == run_id
        assert len(panel.result.timelines) == 2
        assert np.isfinite(panel.result.table.values["lat_seed001"][0])
    finally:
        ctx.close(10000)
