"""Several datasets audited together from the GUI: the Audit panel's "Audit with" button
offers the project's other datasets and puts the checked ones into the request; the run's
name says both; the item view plays each item from its own dataset's folder."""

from __future__ import annotations

import pytest

from tests.jobs.test_dataset_sets import _dataset, _preds


@pytest.fixture
def sets(tmp_path):
    from fairdesk.core.dataset_sets import open_set, set_items
    from fairdesk.core.store import Project
    from fairdesk.gui.context import Context

    p = Project(tmp_path / "proj")
    _dataset(p, tmp_path / "pilot", "pilot", ["a0", "a1", "a2", "b0", "b1", "b2"], lambda s: s[0])
    _dataset(p, tmp_path / "more", "more", ["b7", "b8"], lambda s: s[0])
    preds = _preds(tmp_path / "preds.csv", list(set_items(p, open_set(p, ["pilot", "more"]))["id"]))
    p.close()
    c = Context(tmp_path / "proj")
    yield c, tmp_path, preds
    c.close(10000)


def test_audit_with_another_dataset_from_the_panel_and_play_its_items(qtbot, sets):
    from fairdesk.core.runs import run_items_frame
    from fairdesk.gui.audio.audio_worker import NullSink
    from fairdesk.gui.audit.audit_panel import AuditPanel
    from fairdesk.gui.items.item_panel import ItemPanel
    from fairdesk.gui.results.results_panel import ResultsPanel

    ctx, tmp, preds = sets
    audit, results = AuditPanel(ctx), ResultsPanel(ctx)
    for w in (audit, results):
        qtbot.addWidget(w)
    audit.dataset.setCurrentText("pilot")
    picker = audit.with_datasets
    assert [a.text() for a in picker.menu_.actions()] == ["more"]  # not the dataset itself
    assert picker.text() == "no other dataset" and audit.request().more_datasets == ()
    picker.set_chosen(["more"])
    assert picker.text() == "more"
    assert audit.save_state()["with_datasets"] == ["more"]
    audit.set_model(f"predictions:{preds}")
    audit.by1.setCurrentText("accent")
    audit.reference.setCurrentText("a")
    audit.n_boot.setValue(200)
    audit.min_items.setValue(4)
    audit.min_speakers.setValue(2)
    req = audit.request()
    assert req.dataset_names == ("pilot", "more")
    with qtbot.waitSignal(audit.run_done, timeout=60000) as blocker:
        audit.start()
    run_id = blocker.args[0]
    assert ctx.jobs.wait(5000)
    r = results.result
    assert r.group("b").n_speakers == 5 and r.group("b").n_items == 20
    assert "on pilot + more" in results.header.text()
    # switching the dataset keeps the choice where it still applies
    audit.dataset.setCurrentText("more")
    assert [a.text() for a in picker.menu_.actions()] == ["pilot"] and picker.chosen() == []

    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.player.set_sink(NullSink())
    w.only_failing.setChecked(False)
    w.show()
    qtbot.waitExposed(w)
    with qtbot.waitSignal(w.player.ready, timeout=10000):
        w.load_run(run_id)
    assert w.model.rowCount() == 32
    # the item of the second dataset: its row, its audio file and its store row
    items = run_items_frame(ctx.project, run_id)
    row = items[items["id"] == "more/b8/3.wav"].iloc[0].to_dict()
    assert row["dataset"] == "more" and row["path"] == "b8/3.wav"
    assert w.audio_file(row) == tmp / "more" / "b8" / "3.wav"
    assert w._item_field("more/b8/3.wav", "db_id") is not None
    with qtbot.waitSignal(w.player.ready, timeout=10000):
        w.show_item(row)
    assert w.player.path == str(tmp / "more" / "b8" / "3.wav")
