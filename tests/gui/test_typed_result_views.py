"""A run stored in today's payload layout opens in the Results tab through the typed result
(issue 27): the views read ``AuditRun`` attributes, decoded once per run selection, and show
the numbers of the stored JSON."""

from __future__ import annotations

import copy
import html
import shutil

import pytest

from fairdesk.jobs.result import AuditRun


def todays_layout(payload: dict) -> dict:
    """``payload`` as ``run_audit`` writes it today: no ``schema_version``, each group's
    ``values`` repeated as top-level keys, the infinite ratios stored as null."""
    out = copy.deepcopy(payload)
    out.pop("schema_version", None)
    for g in out["groups"]:
        for m, v in (g.get("values") or {}).items():
            g.setdefault(m, v)
    for c in out["comparisons"]:
        for k in ("ratio", "effect_size"):
            if isinstance(c.get(k), str):
                c[k] = None
    return out


@pytest.fixture
def stored(tmp_path, mini):
    """A copy of the mini project whose run holds a today's-layout payload: (folder, run
    id, the payload)."""
    from fairdesk.core.runs import add_result, run_payload
    from fairdesk.core.store import Project

    folder = tmp_path / "project"
    shutil.copytree(mini.folder, folder)
    p = Project(folder)
    try:
        payload = todays_layout(run_payload(p, mini.run_id))
        assert "schema_version" not in payload and "wer" in payload["groups"][0]
        add_result(p, mini.run_id, "audit", payload)
        assert run_payload(p, mini.run_id) == payload  # the run opens this one
    finally:
        p.close()
    return folder, mini.run_id, payload


@pytest.fixture
def opened(qtbot, stored, monkeypatch):
    """The Results tab on the stored run; counts the payload decodes."""
    from fairdesk.gui.context import Context
    from fairdesk.gui.results.results_panel import ResultsPanel
    from fairdesk.jobs.result import AuditRun

    decodes = []
    plain = AuditRun.from_json.__func__

    def counting(cls, d):
        decodes.append(d)
        return plain(cls, d)

    monkeypatch.setattr(AuditRun, "from_json", classmethod(counting))
    folder, run_id, payload = stored
    ctx = Context(folder)
    try:
        panel = ResultsPanel(ctx)
        qtbot.addWidget(panel)
        panel.resize(1300, 900)
        panel.show()
        ctx.run_id = None
        ctx.forget_runs()  # the panel showed the newest run already: decode it afresh
        decodes.clear()
        with qtbot.waitSignal(panel.loaded, timeout=5000):
            ctx.select_run(run_id)
        yield panel, payload, decodes
    finally:
        ctx.close(10000)


def _pct(x: float) -> str:
    """A rate as the tables show it, computed here: one decimal, percent."""
    return f"{100 * x:.1f}%"


def test_the_stored_run_decodes_once_and_is_the_typed_result(opened):
    from fairdesk.jobs.result import AuditRun

    panel, payload, decodes = opened
    assert len(decodes) == 1  # every view of the tab reads the one AuditRun
    run = panel.result
    # asking again for the selected run hands back the same object, no second decode
    assert panel.ctx.audit_run(panel.run_id) is run and len(decodes) == 1
    assert isinstance(run, AuditRun) and run == AuditRun.from_json(payload)
    assert panel.regression.run is run  # the regression tab reads the same AuditRun
    assert panel.chart_export.run is run  # and so does the chart export


def test_the_results_and_the_item_view_share_one_decode(qtbot, stored, monkeypatch):
    from fairdesk.gui.context import Context
    from fairdesk.gui.items.item_panel import ItemPanel
    from fairdesk.gui.results.results_panel import ResultsPanel
    from fairdesk.jobs.result import AuditRun

    folder, run_id, payload = stored
    ctx = Context(folder)
    try:
        results, items = ResultsPanel(ctx), ItemPanel(ctx)
        qtbot.addWidget(results)
        qtbot.addWidget(items)
        items.show()
        decodes = []
        plain = AuditRun.from_json.__func__
        monkeypatch.setattr(
            AuditRun, "from_json", classmethod(lambda cls, d: decodes.append(d) or plain(cls, d))
        )
        ctx.run_id = None  # no run selected, as when the project has just been opened:
        # reloading the run list selects the run (the one left open, else the newest)
        with qtbot.waitSignals(
            [results.loaded, items.item_shown, items.player.ready], timeout=10000
        ):
            results.reload_runs()
        assert ctx.run_id == run_id
        assert len(decodes) == 1 and items.run is results.result
        assert items.run.model_key == payload["model_key"] and items.language == "en"
        assert items.dataset_root is not None  # the run's dataset, by its typed name
    finally:
        ctx.close(10000)


def test_the_header_and_the_group_table_show_the_stored_numbers(opened):
    panel, payload, _ = opened
    head = panel.header.text()
    n = sum(g["n_items"] for g in payload["groups"])
    # the run's name, as fairdesk show and runs give it (fairdesk.presentation.run_name)
    by = " × ".join(payload["by"])
    name = f"{payload['model']} on {payload['dataset']} · by {by} · reference "
    assert head.startswith(html.escape(f"{name}{payload['reference']} · {n} items"))
    assert f"{payload['settings']['n_bootstrap']} resamples" in head
    assert f"design {payload['design']}" in head

    t = panel.groups
    heads = [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())]
    assert t.rowCount() == len(payload["groups"])
    for i, g in enumerate(payload["groups"]):
        row = [t.item(i, j).text() for j in range(t.columnCount())]
        assert row[0] == g["group"]
        assert row[1] == f"{g['n_items']:,}" and row[2] == f"{g['n_speakers']:,}"
        assert row[heads.index("WER")] == _pct(g["wer"])
        status = "reference" if g["group"] == payload["reference"] else "compared"
        assert row[-1].startswith(status)


def test_the_header_reads_the_typed_representation_probe(opened):
    """The representation note of the header from ``Representation.leakage`` (a
    ``stats.representation.Leakage``): the probe's numbers at three decimals, its split."""
    from fairdesk.jobs.result import AuditRun
    from fairdesk.stats.representation import Leakage

    panel, payload, _ = opened
    rep = copy.deepcopy(payload)
    rep["representation"] = {
        "silhouette": 0.12345,
        "leakage": {
            "leakage": 0.2,
            "balanced_accuracy": 0.7,
            "chance": 0.5,
            "n_folds": 5,
            "split": "speaker",
        },
        "structure": True,
        "cases": {"wer": "gap_with_structure"},
    }
    run = AuditRun.from_json(rep)
    assert isinstance(run.representation.leakage, Leakage)
    from fairdesk.gui.results.run_header import run_header

    head = run_header(run)
    assert (
        "representation: silhouette 0.123, leakage 0.200 (probe balanced accuracy 0.700 vs "
        "chance 0.500, folds by speaker); structure yes — wer: gap with structure"
    ) in html.unescape(head)


def test_the_cards_and_the_comparisons_show_the_stored_comparisons(opened):
    from fairdesk.presentation import fmt_p, metric_short
    from fairdesk.presentation.readings import reading

    panel, payload, _ = opened
    comps = payload["comparisons"]
    tested = [c for c in comps if c["metric"] in payload["tested_metrics"]]
    cards = {(c.comparison.metric, c.comparison.group): c for c in panel.cards.cards}
    assert set(cards) == {(c["metric"], c["group"]) for c in tested}
    wer = next(c for c in comps if c["metric"] == "wer")
    card = cards[("wer", wer["group"])]
    texts = [lab.text() for lab in card.labels]
    assert f"{100 * wer['gap']:+.1f} pp" in texts[0]
    # the two values and p_adj share a line
    assert "CI [" in texts[1]
    assert texts[2].startswith(f"{_pct(wer['value'])} vs {_pct(wer['reference_value'])} · ")
    padj = texts[2].split("p<sub>adj</sub> ")[1]
    assert f"{wer['p_adjusted']:.3f}" in padj or "&lt; 0.001" in padj or "<" in padj
    # the reading, written from the shown run's typed comparison
    run = panel.cards.run
    said = reading(run.comparison("wer", wer["group"]), run)
    assert said.startswith("Word error rate (WER) is ") and html.escape(said) in card.toolTip()

    m = panel.comparisons_model
    assert m.rowCount() == len(comps)
    frame = m.frame
    for i, c in enumerate(comps):
        row = frame.iloc[i]
        assert row["metric"] == metric_short(c["metric"]) and row["group"] == c["group"]
        assert row["p_adjusted"] == fmt_p(c["p_adjusted"])
        assert row["n_items"] == c["n_items"]
    row = frame.iloc[comps.index(wer)]
    assert row["value"] == _pct(wer["value"]) and row["gap"] == f"{100 * wer['gap']:+.1f} pp"
    # the MDE is a gap's size: in the gaps' unit, as the plans and the cards' readings have it
    assert row["mde"] == f"{100 * wer['mde']:.1f} pp"


def test_the_charts_read_the_stored_groups(opened):
    panel, payload, _ = opened
    ref = payload["reference"]
    analysed = [g for g in payload["groups"] if not g.get("excluded")]
    assert panel.radar.scale is not None
    assert set(panel.radar.scale.groups) == {g["group"] for g in analysed}
    assert "wer" in panel.values.plots
    north = next(g for g in analysed if g["group"] == ref)
    assert panel.radar.canvas.values[ref]["wer"] == pytest.approx(north["values"]["wer"])
    kinds = [panel.confusion.kind.itemData(i) for i in range(panel.confusion.kind.count())]
    assert kinds == [k for k in ("intent_confusion", "confusion") if payload.get(k)]


def test_an_all_failed_run_shows_its_failures_without_statistics(qtbot, ctx):
    from fairdesk.gui.results.results_panel import ResultsPanel

    panel = ResultsPanel(ctx)
    qtbot.addWidget(panel)
    panel.show_result(
        AuditRun.from_json(
            {
                "groups": [],
                "comparisons": [],
                "model": "m",
                "dataset": "d",
                "failures": [{"item": "a", "reason": "no audio"}],
            }
        )
    )
    assert panel.result.all_failed
    assert "1 failed item<" in panel.header.text() and "0 items" in panel.header.text()
    assert panel.groups.rowCount() == 0 and not panel.cards.cards
    assert panel.comparisons_model.rowCount() == 0


def test_a_finished_job_handing_an_audit_run_shows_as_the_stored_run_does(qtbot, ctx, mini):
    """The audit job hands its result as an AuditRun: the audit pane's summary and the
    results tab (its regression tab and chart export) read it as they read the stored run
    decoded from the project (views take the typed run only)."""
    import time

    from fairdesk.core.runs import run_payload
    from fairdesk.gui.audit.audit_panel import AuditPanel
    from fairdesk.gui.results.results_panel import ResultsPanel
    from fairdesk.jobs.result import as_audit_run

    payload = run_payload(ctx.project, mini.run_id)
    run = as_audit_run(payload)
    audit = AuditPanel(ctx)
    qtbot.addWidget(audit)
    texts = []
    for result in (AuditRun.from_json(payload), run):
        audit._t0 = time.monotonic()
        audit._result({"run_id": mini.run_id, "result": result, "from_cache": True})
        texts.append(audit.stage.text())
    n = sum(g["n_items"] for g in payload["groups"])
    want = f"{n} items, {len(payload['comparisons'])} comparisons, 0 failed items."
    assert texts[0] == texts[1] and want in texts[0] and "answered from the cache" in texts[0]

    panel = ResultsPanel(ctx)
    qtbot.addWidget(panel)
    panel.show_result(AuditRun.from_json(payload))
    shown = [panel.header.text(), panel.groups.rowCount(), len(panel.cards.cards)]
    panel.show_result(run)
    assert panel.result is run
    assert [panel.header.text(), panel.groups.rowCount(), len(panel.cards.cards)] == shown
    assert panel.regression.run is run  # the regression tab's input
    from fairdesk.gui.exports import run_charts

    names = [c.name for c in run_charts(AuditRun.from_json(payload), "values")]
    assert names and [c.name for c in run_charts(run, "values")] == names


def test_a_laptop_pane_shows_two_rows_of_cards_and_scrolls_the_plots(qtbot, opened):
    """On a 700-px screen the Results pane is about 570 px: the cards get two rows (the
    sub-tabs shrink to 200 px), and the group-value plots keep 160 px a row and scroll."""
    panel, payload, _ = opened
    panel.resize(1000, 640)
    qtbot.wait(50)
    panel._fit_split()
    qtbot.wait(50)
    top, bottom = panel.split.sizes()
    total = panel.split.height()
    want = min(panel.cards.preferred_height(), panel.cards.rows_height(2), total - 220)
    want = max(want, min(panel.cards.one_row_height(), total - 150))
    assert top >= want - 2 and bottom >= 200
    rows = (len(panel.values.plots) + 1) // 2
    assert panel.values.minimumHeight() == max(200, 160 * rows)


def test_a_comparisons_ci_bound_near_zero_keeps_its_sign_as_on_the_card(qtbot, ctx, stored):
    """A CI bound of -0.00037 read ``0.0 pp`` (once ``-0.0``) in the Comparisons table: the
    table and the card print ``-0.04 pp``, so the CI visibly holds zero."""
    from fairdesk.gui.results.results_panel import ResultsPanel

    payload = copy.deepcopy(stored[2])
    wer = next(c for c in payload["comparisons"] if c["metric"] == "wer")
    wer["ci_low"], wer["ci_high"] = -0.00037, 0.0469
    panel = ResultsPanel(ctx)
    qtbot.addWidget(panel)
    panel.show_result(AuditRun.from_json(payload))
    row = panel.comparisons_model.frame.iloc[payload["comparisons"].index(wer)]
    assert (row["ci_low"], row["ci_high"]) == ("-0.04 pp", "+4.7 pp")
    card = next(
        c
        for c in panel.cards.cards
        if (c.comparison.metric, c.comparison.group) == ("wer", wer["group"])
    )
    assert "[-0.04 pp, +4.7 pp]" in card.labels[1].text()
    # the table's direction is the card's word: worse/better only for a found gap
    from fairdesk.presentation import direction_word

    frame = panel.comparisons_model.frame
    for i, c in enumerate(payload["comparisons"]):
        want = direction_word(c["verdict"], c["direction"], c["gap"])
        assert frame.iloc[i]["direction"] == want
    assert "-0.0 " not in card.labels[1].text() and "[0.0 pp" not in card.labels[1].text()
