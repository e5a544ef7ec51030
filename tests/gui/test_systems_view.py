"""The Systems view and the item view of a comparison of systems (docs/METHODS.md,
"Comparing systems on the same items"): every cell and sentence is the one
:mod:`fairdesk.presentation.systems` formats from the stored typed result."""

from __future__ import annotations

import pytest


@pytest.fixture
def sctx(qtbot, mini_systems):
    from fairdesk.gui.context import Context

    c = Context(mini_systems.folder)
    yield c
    c.close(10000)


def _stored(mini_systems):
    from fairdesk.core.store import Project
    from fairdesk.jobs.system_run import stored_comparisons

    p = Project(mini_systems.folder)
    try:
        return stored_comparisons(p, mini_systems.run_ids[0])[-1]
    finally:
        p.close()


def test_systems_view_shows_the_formatted_table_cards_and_chart(qtbot, sctx, mini_systems):
    from fairdesk.gui.results.results_panel import SUBTABS, ResultsPanel
    from fairdesk.presentation.systems import (
        difference_sentence,
        gap_sentence,
        system_rows,
        system_table,
    )

    cmp = _stored(mini_systems)
    res = cmp.result
    w = ResultsPanel(sctx)
    qtbot.addWidget(w)
    w.resize(1100, 760)
    w.show()
    sctx.select_run(mini_systems.run_ids[0])
    w.show_subtab("systems")
    view = w.systems
    assert view.comparison is not None and view.comparison.run_ids == cmp.run_ids
    assert w.tabs.tabText(SUBTABS.index("systems")) == "Systems (2)"
    assert view.scroll.isVisible() and not view.empty.isVisible()
    # issue 45 item 13: choosing the Systems view keeps the cards where they were (the
    # layout does not jump)
    top = w.split.sizes()[0]
    assert top > 0
    w.show_subtab("groups")
    assert w.split.sizes()[0] == top
    w.show_subtab("systems")
    metric = view.metric_box.currentData()
    head, rows = system_table(res, metric)
    t = view.table
    assert [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())] == head
    cells = [[t.item(i, j).text() for j in range(t.columnCount())] for i in range(t.rowCount())]
    assert cells == rows
    gaps = [g for g in res.gap_differences if g.metric == metric]
    assert gaps and [c.sentence.text() for c in view.cards] == [gap_sentence(g) for g in gaps]
    for d in res.differences:
        if d.metric == metric:
            assert difference_sentence(d).replace("<", "&lt;") in view.differences.text()
    # one series of points per system, one point per analysed group
    assert view.plot.series == {
        s: sum(r.value is not None for r in rs) for s, rs in system_rows(res, metric).items()
    }
    assert set(view.plot.series) == set(res.systems)


def test_a_run_without_a_comparison_says_how_to_make_one(qtbot, sctx, mini_systems):
    from fairdesk.gui.results.results_panel import SUBTABS, ResultsPanel
    from fairdesk.gui.results.systems_view import NO_COMPARISON

    w = ResultsPanel(sctx)
    qtbot.addWidget(w)
    w.show()
    sctx.select_run(mini_systems.run_ids[1])  # the other system's run: not a baseline
    w.show_subtab("systems")
    assert w.systems.comparison is None
    assert w.systems.empty.isVisible() and w.systems.empty.text() == NO_COMPARISON
    assert "--model A --model B" in NO_COMPARISON
    assert w.tabs.tabText(SUBTABS.index("systems")) == "Systems"


def test_audit_panel_compares_with_a_second_model_in_one_job(qtbot, tmp_path):
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.gui.audit.audit_panel import AuditPanel
    from fairdesk.gui.context import Context
    from fairdesk.gui.results.results_panel import ResultsPanel
    from fairdesk.jobs.system_run import stored_comparisons
    from tests.gui.conftest import build_data, second_predictions

    manifest, preds = build_data(tmp_path / "data")
    preds_b = second_predictions(tmp_path / "data")
    p = Project(tmp_path / "project")
    import_dataset(p, "mini", manifest, fmt="manifest")
    p.close()
    ctx = Context(tmp_path / "project")
    try:
        audit, results = AuditPanel(ctx), ResultsPanel(ctx)
        for w in (audit, results):
            qtbot.addWidget(w)
        assert audit.compare.currentData() is None  # one system unless asked
        audit.set_model(f"predictions:{preds}")
        audit.set_compare(f"predictions:{preds_b}")
        audit.by1.setCurrentText("accent")
        audit.n_boot.setValue(200)
        audit.min_items.setValue(5)
        audit.min_speakers.setValue(2)
        with qtbot.waitSignal(audit.run_done, timeout=120000) as blocker:
            audit.start()
        run_id = blocker.args[0]
        assert ctx.jobs.wait(5000)
        assert audit.last_result["systems"] == [f"predictions:{preds}", f"predictions:{preds_b}"]
        assert audit.last_result["run_ids"][0] == run_id
        assert results.run_id == run_id  # the baseline's run is shown, with its comparison
        cmp = results.systems.comparison
        assert cmp is not None and cmp.run_ids == tuple(audit.last_result["run_ids"])
        assert [c.run_ids for c in stored_comparisons(ctx.project, run_id)] == [cmp.run_ids]
    finally:
        ctx.close(10000)


def test_item_view_of_a_baseline_aligns_every_systems_hypothesis(qtbot, sctx, mini_systems):
    from fairdesk.core.runs import run_items_frame
    from fairdesk.gui.items.item_panel import ItemPanel
    from fairdesk.review.systems_align import systems_alignment

    w = ItemPanel(sctx)
    qtbot.addWidget(w)
    w.show()
    w.only_failing.setChecked(False)
    w.load_run(mini_systems.run_ids[0])
    frames = [run_items_frame(sctx.project, r).set_index("item_id") for r in mini_systems.run_ids]
    # an item where the systems differ: the baseline loses a word, the other does not
    differ = [
        i for i in frames[0].index if frames[0].at[i, "hypothesis"] != frames[1].at[i, "hypothesis"]
    ]
    assert differ
    rows = w.frame["item_id"].astype(str).tolist()
    w.select(w.model.view_row(rows.index(differ[0])))
    key = str(w._row["item_id"])
    hyps = {s: frames[k].at[key, "hypothesis"] for k, s in enumerate(mini_systems.systems)}
    cols, counts = systems_alignment(frames[0].at[key, "reference"], hyps, w.language, w.normaliser)
    assert w.diff.systems.isVisible()
    text = w.diff.systems.toPlainText()
    assert key == differ[0]
    for s, c in counts.items():
        assert s[:17] in text  # the row's label (a long name is cut after 17 letters)
        assert f"{sum(c.values())} errors (S {c['S']}, D {c['D']}, I {c['I']})" in text
    for c in cols:
        assert c.ref in text and all(word in text for word in c.words.values())


def test_item_view_of_a_run_without_a_comparison_hides_the_systems(qtbot, ctx, mini):
    from fairdesk.gui.items.item_panel import ItemPanel

    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    w.show()
    w.load_run(mini.run_id)
    w.select(0)
    assert w._row is not None and not w.diff.systems.isVisible()
