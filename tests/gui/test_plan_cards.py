"""The recording plan in the GUI (docs/METHODS.md, "Recording plan"): the underpowered cards
carry the plan sentence, their button opens the MDE-versus-speakers chart of the plan's
curve, and a recording plan made from it shows its quota in the Record tab, which moves as
speakers are recorded from an input file."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QInputDialog, QLineEdit

from fairdesk.presentation.plans import per_side, plan_sentence, side_rows
from fairdesk.stats.formulas import MDE_FACTOR
from tests.conftest import underpowered_pilot


@pytest.fixture(scope="module")
def pilot(tmp_path_factory):
    return underpowered_pilot(tmp_path_factory.mktemp("plan_gui"))


@pytest.fixture
def ctx(pilot):
    from fairdesk.gui.context import Context

    c = Context(pilot[0])
    yield c
    c.close(10000)


def test_underpowered_cards_carry_the_plan_sentence_and_open_the_chart(qtbot, ctx, pilot):
    from fairdesk.gui.results.plan_view import PlanDialog
    from fairdesk.gui.results.verdict_cards import VerdictCards
    from fairdesk.gui.widgets.theme import esc

    run = ctx.audit_run(1)
    plan = run.plan
    w = VerdictCards()
    qtbot.addWidget(w)
    w.set_result(run)
    under = [k for k in w.cards if k.comparison.verdict == "inconclusive_underpowered"]
    assert under and len(under) == len(plan.comparisons)
    for card in under:
        cp = card.comparison_plan
        assert (cp.metric, cp.group) == (card.comparison.metric, card.comparison.group)
        assert card.plan_text == plan_sentence(cp, plan)  # presentation's sentence, verbatim
        assert esc(card.plan_text) in card.toolTip()  # rich text: escaped
    others = [k for k in w.cards if k not in under]
    assert all(k.plan_button is None for k in others)
    card = under[0]
    w.show_reading(card.comparison)
    assert esc(card.plan_text) in w.reading.text()
    with qtbot.waitSignal(w.plan_requested) as sig:
        card.plan_button.click()
    cp, got_plan = sig.args
    assert cp is card.comparison_plan and got_plan is plan

    dlg = PlanDialog(cp, plan, project=ctx.project, run_id=1, by=("accent",))
    qtbot.addWidget(dlg)
    assert dlg.sentence.text() == plan_sentence(cp, plan)
    # the line is the plan's dense curve, the markers its table's points, both on the
    # cards' scale (alpha 0.05, 80% power): the pilot's point is the card's MDE
    to_card = 100 * MDE_FACTOR / cp.z_factor
    x, y = dlg.chart.line.getData()
    assert list(x) == [p.k for p in cp.dense] and len(x) > 3 * len(cp.curve)
    np.testing.assert_allclose(y, [p.mde * to_card for p in cp.dense])
    x, y = dlg.chart.curve.getData()
    assert list(x) == [p.k for p in cp.curve]
    assert dlg.chart.target.value() == pytest.approx(cp.target_gap * to_card)
    assert dlg.chart.pilot.value() == 6  # the pilot's speakers per side
    px, py = dlg.chart.pilot_point.getData()
    card_mde = run.comparison(cp.metric, cp.group).mde
    assert (px[0], py[0]) == (6, pytest.approx(card_mde * 100))
    # the caption is plain text: "pilot's", never "pilot&#x27;s"
    assert dlg.caption.textFormat() == Qt.PlainText and "&#" not in dlg.caption.text()
    assert "the pilot's speakers" in dlg.caption.text()
    rows = [
        tuple(dlg.sides.item(i, j).text() for j in range(dlg.sides.columnCount()))
        for i in range(dlg.sides.rowCount())
    ]
    assert rows == side_rows(cp)
    # the stored resampling plan cannot reach its 1.2-point target within 20 x 6 speakers
    # per side: "more than 120", no quota to plan, and the button says why
    assert plan.method == "resampling" and not cp.reachable and cp.limit == "search"
    assert plan_sentence(cp, plan).startswith("More than 120 speakers per side")
    assert dlg.chart.k_star is None and not dlg.record_btn.isEnabled()
    assert dlg.record_btn.toolTip().startswith("more than 120 speakers per side")


def answer_input(qtbot, text: str) -> None:
    """When the next modal QInputDialog opens, type ``text`` into it and click OK (its
    widgets, as a user does)."""
    tries = []

    def fill():
        dlg = QApplication.activeModalWidget()
        if not isinstance(dlg, QInputDialog):
            tries.append(1)
            assert len(tries) < 200, "no input dialog opened"
            QTimer.singleShot(20, fill)
            return
        edit = dlg.findChild(QLineEdit)
        edit.selectAll()
        qtbot.keyClicks(edit, text)
        ok = dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok)
        qtbot.mouseClick(ok, Qt.LeftButton)

    QTimer.singleShot(0, fill)


def _voice(path):
    sr = 16000
    t = np.arange(int(sr * 0.6)) / sr
    x = 0.4 * np.sin(2 * np.pi * 220 * t) * np.clip(np.sin(2 * np.pi * 2 * t), 0, 1)
    sf.write(str(path), x.astype(np.float32), sr, subtype="FLOAT")
    return path


def _record_and_accept(qtbot, w):
    w.start_recording()
    assert w.recorder.recording
    recorded = []
    w.take_recorded.connect(recorded.append)
    # the input file ends and the panel stops the take itself (its timer sees the end; the
    # test once stopped it too, and lost the race when the timer came first)
    qtbot.waitUntil(lambda: not w.recorder.recording, timeout=15000)
    assert len(recorded) == 1
    w._refresh_takes(select=0)
    with qtbot.waitSignal(w.take_accepted, timeout=10000):
        assert w.accept() is not None


def test_a_recording_plan_shows_its_quota_and_it_moves_as_speakers_record(qtbot, ctx, tmp_path):
    from fairdesk.core.recording_plans import latest_plan
    from fairdesk.gui.record.record_panel import RecordPanel
    from fairdesk.gui.results.plan_view import PlanDialog
    from fairdesk.jobs.plan_run import plan_stored_run

    # a 5-point target is reachable: the resampling plan of `fairdesk plan --gap 0.05`
    plan, run = plan_stored_run(ctx.project, 1, gap=0.05, n_rep=200)
    cp = next(c for c in plan.comparisons if c.metric == "wer")
    assert cp.reachable and cp.design == "matched"
    w = RecordPanel(ctx, input_file=_voice(tmp_path / "voice.wav"), file_speed=4.0)
    qtbot.addWidget(w)
    w.show()
    assert w.quota.plan is None and not w.quota.isVisible()

    dlg = PlanDialog(cp, plan, project=ctx.project, run_id=1, by=tuple(run.by))
    qtbot.addWidget(dlg)
    dlg.recording_planned.connect(ctx.recording_planned.emit)
    answer_input(qtbot, "plan-b")  # the dataset name, typed into the dialog
    with qtbot.waitSignal(ctx.recording_planned):
        qtbot.mouseClick(dlg.record_btn, Qt.LeftButton)
    rp = dlg.recording_plan
    assert rp is not None and latest_plan(ctx.project).id == rp.id
    want = {n.group: n.new_speakers for n in (cp.group_need, cp.reference_need) if n.new_speakers}
    assert {g.group: g.speakers for g in rp.groups} == want
    assert {g.group: g.values for g in rp.groups}["b"] == {"accent": "b"}
    # a matched design records the pilot's own prompts (here one text, read as c0..c4)
    assert rp.prompts == (("play the song now", "c0"),)
    assert rp.utterances_per_speaker == 1

    # the Record tab shows it, ready for the first group (b): dataset, accent, prompts
    box = w.quota
    assert box.plan.id == rp.id and box.isVisible()
    assert box.source.text() == (
        "Dataset “plan-b”, 1 utterance per speaker; prompts: the pilot's own prompts (matched "
        f"design). For WER b vs a (run 1): {per_side(cp.speakers_needed)}."
    )
    k = [g.group for g in rp.groups].index("b")
    box.use_group(k)
    assert w.form.values()["dataset"] == "plan-b"
    assert w.form.values()["metadata"]["accent"] == "b"
    assert [p.text for p in w.prompt_list.prompts] == ["play the song now"]
    quota_b = rp.groups[k].speakers
    assert box.labels[k].text() == f"b: 0 of {quota_b:,} speakers, 0 complete (1 utterance each)"

    for n, spk in enumerate(("nb1", "nb2"), 1):
        w.speaker_id.setText(spk)
        w.go(0)
        _record_and_accept(qtbot, w)
        assert box.progress[k].started == n
        assert box.labels[k].text() == (
            f"b: {n} of {quota_b:,} speakers, {n} complete (1 utterance each)"
        )
        assert box.bars[k].value() == n
    # the recordings get the pilot's language (the plan's prompt list names it), so that
    # they can be audited with the pilot
    assert rp.language == "en" and ctx.project.dataset("plan-b").language == "en"
    items = ctx.project.items(ctx.project.dataset("plan-b"))
    assert sorted(items["speaker_id"]) == ["nb1", "nb2"] and set(items["accent"]) == {"b"}
    # the other group's quota has not moved
    assert all(q.started == 0 for i, q in enumerate(box.progress) if i != k)

    # the pilot and the new recordings audited together: the new MDE beside the plan's
    _audit_grown_and_see_the_followup(qtbot, ctx, tmp_path, rp, cp)


def _audit_grown_and_see_the_followup(qtbot, ctx, tmp_path, rp, cp):
    from fairdesk.cli.audit import print_followups
    from fairdesk.core.dataset_sets import open_set, set_items
    from fairdesk.gui.results.results_panel import ResultsPanel
    from fairdesk.jobs.audit import AuditRequest, run_audit
    from fairdesk.jobs.recording_plan import mde_on_curve, plan_followups
    from fairdesk.presentation.plans import followup_sentence, followup_short, followup_title
    from fairdesk.stats.settings import AuditSettings

    p = ctx.project
    assert rp.prediction.run_id == 1 and rp.prediction.k_star == cp.speakers_needed
    assert rp.prediction.curve == tuple((k.k, k.mde) for k in cp.curve)
    rows = ["id,text"]
    for i in set_items(p, open_set(p, ["d", "plan-b"]))["id"]:
        _ds, _, key = i.partition("/")
        lose = key.startswith("b/") and int(key[2]) % 2 == 0  # some pilot b speakers err
        rows.append(f"{i},{'play the song' if lose else 'play the song now'}")
    preds = tmp_path / "grown.csv"
    preds.write_text("\n".join(rows) + "\n")
    req = AuditRequest(
        dataset="d",
        more_datasets=("plan-b",),
        model=f"predictions:{preds}",
        by=("accent",),
        reference="a",
        nlu="none",
        settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2),
    )
    run = run_audit(p, req).result
    assert run.group("b").n_speakers == 8 and run.group("a").n_speakers == 6
    ups = plan_followups(p, run)
    assert len(ups) == 1
    f = ups[0]
    c = run.comparison("wer", "b")
    assert f.plan_id == rp.id and f.mde_now == pytest.approx(c.mde)
    assert f.speakers_now == (8, 6)
    # the plan's relative shrinkage, applied to the pilot's MDE (the audit's own scale)
    pred = rp.prediction
    assert pred.k_pilot == 6 and pred.pilot_mde == pytest.approx(cp.pilot_mde)
    ratio = mde_on_curve(pred.curve, 6)[0] / mde_on_curve(pred.curve, 6)[0]
    assert f.predicted_now == pytest.approx(pred.pilot_mde * ratio)
    text = followup_sentence(f)
    assert text.startswith(f"Recording plan {rp.id} (from run 1): the WER b vs a MDE is now ")
    assert "with 8 b and 6 a speakers" in text and "at 6 speakers per side" in text

    panel = ResultsPanel(ctx)
    qtbot.addWidget(panel)
    panel.show_result(run)
    card = next(
        k for k in panel.cards.cards if (k.comparison.metric, k.comparison.group) == ("wer", "b")
    )
    assert card.followup is not None and card.followup_label.text() == followup_short(f)
    assert all(k.followup is None for k in panel.cards.cards if k is not card)
    from fairdesk.gui.widgets.theme import esc

    assert esc(followup_title(f)) in panel.header.text()
    panel.cards.show_reading(card.comparison)
    assert esc(text) in panel.cards.reading.text()
    import io

    buf = io.StringIO()
    print_followups(str(p.folder), run, file=buf)
    assert buf.getvalue().strip() == text
    # the report's section says the same sentence
    import html as _html

    from fairdesk.reports.data import load_run
    from fairdesk.reports.html import render, report_context

    ctx_r = report_context(load_run(p, run.run_id))
    assert ctx_r["followups"] == [text]
    page = render(ctx_r)
    assert "Against the recording plan" in page and _html.escape(text, quote=False) in page
    assert "on d + plan-b" in page
