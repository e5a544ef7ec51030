"""The plan journey, clicked in the main window (docs/METHODS.md, "One plan, one number"):
open Results, click an underpowered card's plan button, read the plan dialog, click "Plan a
recording session…", type the dataset name into its dialog, and see the quota in the Record
tab. The card, the dialog, the report, ``fairdesk plan --json`` and the Record quota give
the same speakers per side. The test fails on an exception in the event loop (pytest-qt),
on a job's error signal and on a status text that says "failed"."""

from __future__ import annotations

import json

import pandas as pd
from PySide6.QtCore import QSettings, Qt

from fairdesk.cli import main
from fairdesk.presentation.plans import per_side, plan_sentence, side_rows
from tests.gui.conftest import small_settings
from tests.gui.test_plan_cards import answer_input


def _second_run(mini) -> int:
    """Audit the mini project with predictions whose CER plan is reachable: every item
    loses its second word, and two of the four south speakers also say "x" for the first
    (the gap is the speakers', so more speakers settle it)."""
    from fairdesk.core.store import Project
    from fairdesk.jobs.audit import AuditRequest, run_audit

    man = pd.read_csv(mini.data / "manifest.csv")
    rows = []
    for r in man.itertuples():
        words = r.text.split()
        del words[1]
        if r.accent == "south" and int(r.speaker_id.split("_")[1]) < 2:
            words[0] = "x"
        rows.append({"path": r.path, "text": " ".join(words)})
    preds = mini.folder.parent / "reachable.csv"
    pd.DataFrame(rows).to_csv(preds, index=False)
    p = Project(mini.folder)
    try:
        out = run_audit(
            p,
            AuditRequest(
                dataset="mini",
                model=f"predictions:{preds}",
                by=("accent",),
                reference="north",
                settings=small_settings(),
            ),
        )
    finally:
        p.close()
    return out.run_id


def _watch_failures(win) -> list[str]:
    """Every job error and every status text that says "failed", as they happen."""
    seen: list[str] = []
    submit = win.ctx.jobs.submit

    def watched(job, channel=None):
        job.signals.error.connect(lambda msg: seen.append(f"job error: {msg}"))
        return submit(job, channel)

    win.ctx.jobs.submit = watched

    def status(text):
        if "failed" in (text or "").lower():
            seen.append(f"status: {text}")

    win.statusBar().messageChanged.connect(status)
    win.ctx.status.connect(status)
    return seen


def test_plan_a_recording_session_by_clicks_and_one_number_everywhere(qtbot, mini, tmp_path):
    from fairdesk.core.store import Project
    from fairdesk.gui.main_window import TABS, MainWindow
    from fairdesk.jobs.result_codec import decode
    from fairdesk.reports.html import build_report
    from fairdesk.stats.planning_types import Plan
    from tests.reports.test_html import parse

    run_id = _second_run(mini)
    settings = QSettings(str(tmp_path / "fairdesk.ini"), QSettings.IniFormat)
    win = MainWindow(mini.folder, settings=settings)
    qtbot.addWidget(win)
    win.resize(1366, 740)
    win.show()
    failures = _watch_failures(win)

    # Results: click its tab, pick the run in the run list
    bar = win.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.LeftButton, pos=bar.tabRect(TABS.index("results")).center())
    results = win.results
    qtbot.waitUntil(lambda: results.runs.count() >= 2, timeout=10000)
    # the newest run is the one shown; pick it in the run list as a user would
    i = results.runs.findData(run_id)
    if results.runs.currentIndex() != i:
        with qtbot.waitSignal(results.loaded, timeout=20000):
            results.runs.setFocus()
            key = Qt.Key_Down if results.runs.currentIndex() < i else Qt.Key_Up
            while results.runs.currentIndex() != i:
                qtbot.keyClick(results.runs, key)
    qtbot.waitUntil(lambda: results.run_id == run_id and bool(results.cards.cards), timeout=20000)
    card = next(
        k
        for k in results.cards.cards
        if (k.comparison.metric, k.comparison.group) == ("cer", "south")
    )
    assert card.comparison.verdict == "inconclusive_underpowered"
    cp = card.comparison_plan
    assert cp.method == "resampling" and cp.reachable
    k = cp.speakers_needed

    # 1. the card
    assert per_side(k) in card.plan_text
    assert card.plan_text == plan_sentence(cp, card.plan)

    # 2. the plan dialog, opened by the card's button
    qtbot.mouseClick(card.plan_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: results.plan_dialog is not None and results.plan_dialog.isVisible())
    dlg = results.plan_dialog
    assert dlg.sentence.text() == card.plan_text
    needed = {dlg.sides.item(i, 2).text() for i in range(dlg.sides.rowCount())}
    assert needed == {f"{k:,}"}
    assert dlg.chart.k_star is not None and dlg.record_btn.isEnabled()

    # 3. fairdesk plan --json of the run, with its defaults
    out = tmp_path / "plan.json"
    assert (
        main(["plan", "--project", str(mini.folder), "--run", str(run_id), "--json", str(out)]) == 0
    )
    plan = decode(json.loads(out.read_text()), Plan)
    json_cp = next(c for c in plan.comparisons if (c.metric, c.group) == ("cer", "south"))
    assert json_cp.speakers_needed == k and json_cp == cp

    # 4. the report's planning section
    p = Project(mini.folder)
    try:
        tree = parse(build_report(p, run_id))
    finally:
        p.close()
    section = tree.find(".//section[@id='planning']")
    paragraphs = ["".join(e.itertext()) for e in section.iter("p")]
    assert plan_sentence(cp, card.plan) in paragraphs
    tables = section.findall(".//table")
    i = [c.metric for c in card.plan.comparisons].index("cer")
    cells = [["".join(c.itertext()) for c in tr] for tr in tables[i].iter("tr")][1:]
    assert [tuple(r) for r in cells] == side_rows(cp) and {r[2] for r in cells} == {f"{k:,}"}

    # 5. "Plan a recording session…": type the dataset's name, see the quota in Record
    answer_input(qtbot, "plan-south")
    with qtbot.waitSignal(win.ctx.recording_planned, timeout=10000):
        qtbot.mouseClick(dlg.record_btn, Qt.LeftButton)
    qtbot.waitUntil(lambda: win.tabs.currentIndex() == TABS.index("record"), timeout=5000)
    box = win.record.quota
    qtbot.waitUntil(lambda: box.isVisible() and box.plan is not None, timeout=5000)
    assert box.plan.dataset == "plan-south"
    assert box.source.text().endswith(f"For CER south vs north (run {run_id}): {per_side(k)}.")
    want = {n.group: n.new_speakers for n in (cp.group_need, cp.reference_need)}
    assert {g.group: g.speakers for g in box.plan.groups} == want
    assert all(n.speakers_now + n.new_speakers == k for n in (cp.group_need, cp.reference_need))
    for q, lab in zip(box.progress, box.labels):
        assert lab.text().startswith(f"{q.group}: 0 of {want[q.group]:,} speakers")
    assert not failures, failures
    win.close()


def _as_old_run(folder, run_id: int):
    """Store run ``run_id`` again as a run audited before the audit made the resampling
    plan: its plan block is the closed-form estimate. Returns that estimate."""
    from dataclasses import replace

    from fairdesk.core.runs import add_result, run_items_frame, run_payload
    from fairdesk.core.store import Project
    from fairdesk.jobs.result import as_audit_run
    from fairdesk.metrics import metric_specs
    from fairdesk.stats.plans import closed_form_plan, group_sizes

    p = Project(folder)
    try:
        run = as_audit_run(run_payload(p, run_id))
        items = run_items_frame(p, run_id)
        specs = {s.id: s for s in metric_specs(items, wanted=list(run.tested_metrics))}
        estimate = closed_form_plan(run.result, specs, group_sizes(items))
        add_result(p, run_id, "audit", replace(run, plan=estimate).to_json())
    finally:
        p.close()
    return estimate


def test_an_old_runs_estimate_is_labelled_and_replaced_by_the_resampling_plan(
    qtbot, mini, tmp_path
):
    """A run stored with the closed form only: the card and the dialog call it an estimate;
    "Make the resampling plan" (clicked) makes the plan ``fairdesk plan`` makes, stores it,
    and the dialog, the cards, the report and ``fairdesk plan --json`` show it."""
    from fairdesk.core.store import Project
    from fairdesk.gui.main_window import TABS, MainWindow
    from fairdesk.jobs.result_codec import decode
    from fairdesk.reports.data import load_run
    from fairdesk.stats.planning_types import Plan

    estimate = _as_old_run(mini.folder, mini.run_id)
    assert estimate is not None and estimate.method == "closed_form"
    settings = QSettings(str(tmp_path / "fairdesk.ini"), QSettings.IniFormat)
    win = MainWindow(mini.folder, settings=settings)
    qtbot.addWidget(win)
    win.resize(1366, 740)
    win.show()
    failures = _watch_failures(win)
    bar = win.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.LeftButton, pos=bar.tabRect(TABS.index("results")).center())
    results = win.results
    qtbot.waitUntil(lambda: bool(results.cards.cards), timeout=20000)

    def em_card():
        return next(k for k in results.cards.cards if k.comparison_plan is not None)

    card = em_card()
    key = (card.comparison.metric, card.comparison.group)
    assert card.comparison_plan.method == "closed_form"
    assert "(closed-form estimate, until the resampling plan replaces it)" in card.plan_text
    qtbot.mouseClick(card.plan_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: results.plan_dialog is not None and results.plan_dialog.isVisible())
    dlg = results.plan_dialog
    assert dlg.resample_btn.isVisible() and dlg.resample_btn.isEnabled()
    with qtbot.waitSignal(dlg.plan_replaced, timeout=60000) as sig:
        qtbot.mouseClick(dlg.resample_btn, Qt.LeftButton)
    plan = sig.args[0]
    cp = next(c for c in plan.comparisons if (c.metric, c.group) == key)
    assert plan.method == "resampling" and dlg.cp == cp
    assert dlg.sentence.text() == plan_sentence(cp, plan) and "estimate" not in dlg.sentence.text()
    assert not dlg.resample_btn.isVisible()
    qtbot.waitUntil(lambda: em_card().comparison_plan == cp, timeout=10000)
    assert em_card().plan_text == plan_sentence(cp, plan)

    # the same plan from fairdesk plan (it reads the stored one) and in the report
    out = tmp_path / "plan.json"
    args = ["plan", "--project", str(mini.folder), "--run", str(mini.run_id), "--json", str(out)]
    assert main(args) == 0
    assert decode(json.loads(out.read_text()), Plan) == plan
    p = Project(mini.folder)
    try:
        assert load_run(p, mini.run_id).audit.plan == plan
    finally:
        p.close()
    assert not failures, failures
    win.close()
