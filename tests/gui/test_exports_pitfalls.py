"""Getting results out of the window (report, tables, charts as PNG/SVG), hallucinations in
the results and the item view (issue 18), and the model-based result in the Regression tab
(issue 17)."""

from __future__ import annotations

import csv
import math
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import build_data, small_settings

LOOP = " ".join(["do not know"] * 12)


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "fairdesk.ini"), QSettings.IniFormat)


def _window(qtbot, folder, settings):
    from fairdesk.gui.main_window import MainWindow

    win = MainWindow(folder, settings=settings)
    qtbot.addWidget(win)
    return win


# -- exports -------------------------------------------------------------------------------
def test_export_report_from_the_menu_writes_the_groups(qtbot, mini, settings, tmp_path):
    win = _window(qtbot, mini.folder, settings)
    win.show()
    with qtbot.waitSignal(win.results.loaded, timeout=10000, raising=False):
        win.ctx.select_run(mini.run_id)
    assert win.shown_run() == mini.run_id
    win.report_action.trigger()  # File ▸ Export report…
    dlg = win.report_dialog
    assert dlg is not None and dlg.isVisible()
    out = tmp_path / "rep" / "report.html"
    dlg.path.setText(str(out))
    assert not dlg.pdf.isChecked() and not dlg.embed_audio.isChecked()
    with qtbot.waitSignal(win.exporter.done, timeout=120000) as blocker:
        dlg.accept()
    kind, result = blocker.args
    assert kind == "report" and result["html"] == str(out)
    text = out.read_text(encoding="utf-8")
    assert "north" in text and "south" in text and "<svg" in text
    assert str(out) in win.exporter.last_message
    win.close()


def test_export_tables_writes_items_groups_and_comparisons(qtbot, mini, settings, tmp_path):
    win = _window(qtbot, mini.folder, settings)
    with qtbot.waitSignal(win.results.loaded, timeout=10000, raising=False):
        win.ctx.select_run(mini.run_id)
    with qtbot.waitSignal(win.exporter.done, timeout=60000) as blocker:
        win.export_tables(tmp_path / "tables", "csv")
    names = sorted(p.rsplit("/", 1)[-1] for p in blocker.args[1])
    assert names == ["comparisons.csv", "groups.csv", "items.csv"]
    with (tmp_path / "tables" / "items.csv").open(encoding="utf-8") as f:
        assert sum(1 for _ in csv.DictReader(f)) == mini.n_items
    win.close()


def test_each_chart_exports_as_png_and_svg(qtbot, ctx, mini, tmp_path):
    from fairdesk.gui.exports import run_charts
    from fairdesk.gui.results.results_panel import ResultsPanel

    panel = ResultsPanel(ctx)
    qtbot.addWidget(panel)
    panel.load_run(mini.run_id)
    for sub in ("values", "radar"):
        panel.show_subtab(sub)
        assert not panel.chart_export.isHidden(), sub
        charts = run_charts(panel.result, sub)
        assert charts, sub
        for c in charts:
            for ext in ("png", "svg"):
                path = panel.chart_export.export(c.name, ext, tmp_path / f"{c.name}.{ext}")
                data = path.read_bytes()
                if ext == "png":
                    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
                else:
                    root = ET.fromstring(data)
                    assert root.tag.endswith("svg")
    names = {c.name for c in run_charts(panel.result)}
    # the pane's error bars include the hallucination rate: so does the export
    assert {"values_wer", "values_hallucination_rate", "radar"} <= names
    panel.show_subtab("groups")
    assert panel.chart_export.isHidden()  # a table is not a chart
    every = panel.chart_export.export_all(tmp_path / "all")
    assert {p.suffix for p in every} == {".png", ".svg"} and len(every) >= 2 * len(names) - 2


# -- hallucinations ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def looped(tmp_path_factory):
    """The mini data audited with predictions where one south item loops."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs.audit import AuditRequest, run_audit

    base = tmp_path_factory.mktemp("looped")
    manifest, preds = build_data(base / "data")
    rows = list(csv.DictReader(preds.open(encoding="utf-8")))
    target = next(r for r in rows if r["path"].startswith("audio/south_1/"))
    target["text"] = f"{target['text']} {LOOP}"
    with preds.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["path", "text"])
        w.writeheader()
        w.writerows(rows)
    project = Project(base / "project")
    import_dataset(project, "mini", manifest, fmt="manifest")
    out = run_audit(
        project,
        AuditRequest(
            dataset="mini",
            model=f"predictions:{preds}",
            by=("accent",),
            reference="north",
            settings=small_settings(),
        ),
    )
    project.close()
    return base / "project", out.run_id, target["path"]


def test_a_looping_item_is_flagged_with_its_evidence(qtbot, looped):
    from fairdesk.gui.context import Context
    from fairdesk.gui.items.item_panel import ItemPanel

    folder, run_id, item = looped
    ctx = Context(folder)
    try:
        panel = ItemPanel(ctx)
        qtbot.addWidget(panel)
        panel.show()
        panel.load_run(run_id)
        m = panel.model
        col = m.columns.index("Halluc.")
        ids = m.columns.index("id")
        flagged = {m.data(m.index(r, ids)): m.data(m.index(r, col)) for r in range(m.rowCount())}
        # 5 reference words, 5 + 36 hypothesis words > 2 × 5 + 5: a runaway too
        assert flagged[item] == "loop, runaway"
        assert all(v == "" for k, v in flagged.items() if k != item)
        assert "1 flagged as hallucinated" in panel.run_label.text()
        panel.only_flagged.setChecked(True)
        assert m.rowCount() == 1
        panel.select(0)
        QApplication.processEvents()
        text = panel.evidence.text()
        assert not panel.evidence.isHidden()
        assert 'loop: "do not know" x12 in a row' in text.replace("&quot;", '"')
        assert "runaway: 41 hypothesis words for 5 reference words" in text
        # the mini clips are pure tones: the VAD finds no speech, so the whole clip is shaded
        assert panel.player.nonspeech == [(0.0, pytest.approx(0.4, abs=0.01))]
        # acoustic columns: hidden until asked for
        dur = m.columns.index("Dur. s")
        assert panel.table.isColumnHidden(dur)
        panel.acoustics.setChecked(True)
        assert not panel.table.isColumnHidden(dur)
        assert m.data(m.index(0, dur)) == "0.400"
    finally:
        ctx.close(10000)


def test_results_show_the_rate_the_dominating_item_and_the_verdict_without_it(qtbot, looped):
    from fairdesk.gui.context import Context
    from fairdesk.gui.results.radar import radar_inputs
    from fairdesk.gui.results.results_panel import ResultsPanel

    folder, run_id, item = looped
    ctx = Context(folder)
    try:
        panel = ResultsPanel(ctx)
        qtbot.addWidget(panel)
        panel.load_run(run_id)
        r = panel.result
        south = r.group("south")
        assert south.values["hallucination_rate"] == pytest.approx(1 / 20)
        t = panel.groups
        heads = [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())]
        row = next(i for i in range(t.rowCount()) if t.item(i, 0).text() == "south")
        assert t.item(row, heads.index("Halluc.")).text() == "5.0%"
        # 10 deletions + 36 looped insertions: the loop carries the group's WER
        assert south.wer_dominated_by.item == item
        status = t.item(row, len(heads) - 1).text()
        assert item in status and "carries" in status
        assert "hallucination_rate" in radar_inputs(r)[2]
        assert "hallucination_rate" in panel.values.plots
        wf = r.comparison("wer", "south").without_flagged
        card = next(c for c in panel.cards.cards if c.comparison.metric == "wer")
        panel.cards.show_reading(card.comparison)
        reading = panel.cards.reading.text()
        assert "Without the flagged items (1 in south, 0 in north)" in reading
        assert ("verdict holds" in reading) == (wf.verdict == card.comparison.verdict)
    finally:
        ctx.close(10000)


def test_nonspeech_stretches_are_the_complement_of_the_speech():
    from fairdesk.gui.audio.player_layers import nonspeech_stretches

    assert nonspeech_stretches([[0.5, 1.0], [1.2, 2.0]], 3.0) == [
        (0.0, 0.5),
        (1.0, 1.2),
        (2.0, 3.0),
    ]
    assert nonspeech_stretches([[0.0, 3.0]], 3.0) == []
    assert nonspeech_stretches([], 2.0) == [(0.0, 2.0)]
    assert nonspeech_stretches(None, 2.0) == []


# -- the model-based result ----------------------------------------------------------------
def _poisson_frame(seed=3, speakers=8, per=6, sd=0.4, rate_ratio=1.8):
    """Utterances with errors ~ Poisson(words · exp(base + effect[group] + u_speaker))."""
    rng = np.random.default_rng(seed)
    rows = []
    for g, eff in (("north", 0.0), ("south", math.log(rate_ratio))):
        si = np.repeat(np.arange(speakers), per)
        words = rng.integers(5, 12, si.size)
        eta = -1.7 + eff + rng.normal(0, sd, speakers)[si]
        err = rng.poisson(words * np.exp(eta))
        rows.append(
            pd.DataFrame(
                {
                    "group": g,
                    "accent": g,
                    "speaker_id": [f"{g}/s{i}" for i in si],
                    "content_id": [f"{g}/u{i}" for i in range(si.size)],
                    "n_words": words,
                    "n_sub": err,
                    "n_del": 0,
                    "n_ins": 0,
                    "n_items": 1,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_the_model_based_result_shows_beside_the_logistic_one(qtbot, ctx, mini):
    from fairdesk.core.runs import run_payload
    from fairdesk.gui.results.regression_panel import RegressionPanel
    from fairdesk.jobs.result import as_audit_run
    from fairdesk.metrics import metric_specs
    from fairdesk.presentation.notices import notice_text
    from fairdesk.presentation.regression_poisson_words import poisson_json
    from fairdesk.stats import AuditSettings, compare_groups
    from fairdesk.stats.notices import Notice
    from fairdesk.stats.regression import agreement_with_bootstrap, run_poisson_mixed

    frame = _poisson_frame()
    fit = run_poisson_mixed(frame, "accent", reference="north", content_col=None)
    # the block in the layout a run stored before the typed result has it (in words)
    res = poisson_json(fit)
    boot = compare_groups(
        frame,
        metric_specs(frame, ["wer"]),
        AuditSettings(n_bootstrap=400, min_items=5, min_speakers=2, resampling="speaker"),
        reference="north",
    ).to_dict()
    agreement = [
        a.to_json(notice_text) for a in agreement_with_bootstrap(fit, boot["comparisons"], "accent")
    ]
    assert agreement
    payload = dict(run_payload(ctx.project, mini.run_id))
    payload["model_based"] = {"accent": {**res, "agreement": agreement}}
    run = as_audit_run(payload)  # the typed block: column -> ModelBasedFit
    # an old sentence: a stored.sentence note, worded as stored
    assert run.model_based["accent"].agreement[0].note == Notice(
        "stored.sentence", {"text": agreement[0]["sentence"]}
    )
    assert run.model_based["accent"].fit is not None
    panel = RegressionPanel(ctx)
    qtbot.addWidget(panel)
    panel.show()
    panel.set_run(mini.run_id, run)
    view = panel.model_view
    assert not view.isHidden()
    (lev,) = res["group_variables"][0]["levels"]
    assert view.table.rowCount() == 1
    cells = [view.table.item(0, j).text() for j in range(view.table.columnCount())]
    assert cells[:4] == [
        "accent",
        "south vs north",
        f"{lev['rate_ratio']:.2f}×",
        f"[{lev['ci_low']:.2f}, {lev['ci_high']:.2f}]",
    ]
    assert lev["ci_low"] < lev["rate_ratio"] < lev["ci_high"]
    text = view.text.toPlainText()
    assert agreement[0]["sentence"] in text
    assert res["conclusions"][0] in text
    assert "speaker SD" in view.title.text()
    # a run without it: hidden
    panel.set_run(mini.run_id, as_audit_run(run_payload(ctx.project, mini.run_id)))
    assert view.isHidden()
