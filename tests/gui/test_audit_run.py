"""The audit panel runs an audit of imported predictions and fills the results pane."""

from __future__ import annotations

from fairdesk.gui.audit.audit_panel import eta_text


def _panel(qtbot, ctx, mini, by="gender"):
    from fairdesk.gui.audit.audit_panel import AuditPanel
    from fairdesk.gui.results.results_panel import ResultsPanel

    audit, results = AuditPanel(ctx), ResultsPanel(ctx)
    for w in (audit, results):
        qtbot.addWidget(w)
    audit.set_model(f"predictions:{mini.predictions}")
    audit.by1.setCurrentText(by)
    audit.n_boot.setValue(200)
    audit.min_items.setValue(5)
    audit.min_speakers.setValue(2)
    return audit, results


def test_a_run_on_predictions_finishes_and_fills_the_results(qtbot, ctx, mini):
    audit, results = _panel(qtbot, ctx, mini)
    assert audit.dataset.currentText() == "mini"
    assert [audit.reference.itemText(i) for i in range(audit.reference.count())][1:] == [
        "female",
        "male",
    ]
    audit.reference.setCurrentText("male")
    progress = []
    with qtbot.waitSignal(audit.run_done, timeout=60000) as blocker:
        job = audit.start()
        job.signals.progress.connect(lambda f, m: progress.append(f))
    run_id = blocker.args[0]
    assert ctx.jobs.wait(5000)
    assert progress and progress[-1] == 1.0
    assert audit.progress.value() == 1000 and f"Run {run_id}" in audit.stage.text()
    assert results.run_id == run_id
    r = results.result
    assert r.by == ("gender",) and r.reference == "male"
    # the job hands the typed run itself (jobs.tasks.audit), the one the store holds
    from fairdesk.jobs.result import AuditRun

    done = audit.last_result["result"]
    assert isinstance(done, AuditRun) and done.run_id == run_id and done == r
    assert results.groups.rowCount() == 2 and results.cards.cards
    assert audit.run_btn.isEnabled() and not audit.cancel_btn.isEnabled()


def test_two_columns_give_pair_labels_and_a_cancelled_run_says_so(qtbot, ctx, mini):
    audit, _ = _panel(qtbot, ctx, mini, by="accent")
    audit.by2.setCurrentText("gender")
    labels = [audit.reference.itemText(i) for i in range(1, audit.reference.count())]
    assert labels[0] == "accent=north × gender=female" and len(labels) == 4
    audit.n_boot.setValue(400)  # a request not in the result cache
    job = audit.start()
    audit.cancel()
    with qtbot.waitSignal(job.signals.finished, timeout=60000):
        pass
    assert "Cancelled" in audit.stage.text()
    assert audit.run_btn.isEnabled()


def test_a_failing_run_shows_the_error(qtbot, ctx, mini, tmp_path):
    audit, _ = _panel(qtbot, ctx, mini)
    audit.set_model(f"predictions:{tmp_path / 'missing.csv'}")
    job = audit.start()
    with qtbot.waitSignal(job.signals.error, timeout=30000):
        pass
    qtbot.waitUntil(lambda: audit.run_btn.isEnabled(), timeout=5000)
    assert "Audit failed" in audit.stage.text() and audit.last_error


def test_eta_text_reads_the_job_message_or_extrapolates():
    assert eta_text(0.5, "transcribed 10/20, ETA 12 s", 3.0) == "about 12 s left"
    assert eta_text(0.5, "statistics", 10.0) == "about 10 s left"
    assert eta_text(0.01, "preparing", 0.5) == "estimating…"
    assert eta_text(0.25, "x", 60.0) == "about 3 min left"


def test_small_cluster_scaling_checkbox_is_on_by_default_and_goes_into_the_request(
    qtbot, ctx, mini
):
    """docs/METHODS.md, "Small numbers of speakers": on by default; unticked, the request
    (and so its cache key and the stored settings) says off; the choice is remembered."""
    from fairdesk.gui.audit.audit_panel import AuditPanel

    audit, _ = _panel(qtbot, ctx, mini)
    assert audit.scaling.isChecked()
    assert audit.scaling.text() == "Small-cluster scaling (speaker scheme)"
    assert audit.request().settings.small_cluster_scaling is True
    audit.scaling.setChecked(False)
    assert audit.request().settings.small_cluster_scaling is False
    state = audit.save_state()
    assert state["small_cluster_scaling"] is False
    again = AuditPanel(ctx)
    qtbot.addWidget(again)
    assert again.scaling.isChecked()
    again.restore_state(state)
    assert not again.scaling.isChecked()
    again.restore_state({"n_bootstrap": 400})  # a state saved before the checkbox: as it is
    assert not again.scaling.isChecked()
