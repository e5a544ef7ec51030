"""The recording plan in the GUI (docs/METHODS.md, "Recording plan"): the underpowered cards
carry the plan sentence, their button opens the MDE-versus-speakers chart of the plan's
curve, and a recording plan made from it shows its quota in the Record tab, which moves as
speakers are recorded from an input file."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from fairdesk.presentation.plans import plan_sentence, side_rows
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
    from fairdesk.gui.plan_view import PlanDialog
    from fairdesk.gui.theme import esc
    from fairdesk.gui.verdict_cards import VerdictCards

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
    x, y = dlg.chart.curve.getData()
    assert list(x) == [p.k for p in cp.curve]
    np.testing.assert_allclose(y, [p.mde * 100 for p in cp.curve])
    assert dlg.chart.target.value() == pytest.approx(cp.target_gap * 100)
    assert dlg.chart.pilot.value() == 6  # the pilot's speakers per side
    rows = [
        tuple(dlg.sides.item(i, j).text() for j in range(dlg.sides.columnCount()))
        for i in range(dlg.sides.rowCount())
    ]
    assert rows == side_rows(cp)
    # the stored (closed-form) plan cannot reach its 1.2-point target: no quota to plan
    assert not cp.reachable and dlg.chart.k_star is None and not dlg.record_btn.isEnabled()


def _voice(path):
    sr = 16000
    t = np.arange(int(sr * 0.6)) / sr
    x = 0.4 * np.sin(2 * np.pi * 220 * t) * np.clip(np.sin(2 * np.pi * 2 * t), 0, 1)
    sf.write(str(path), x.astype(np.float32), sr, subtype="FLOAT")
    return path


def _record_and_accept(qtbot, w):
    w.start_recording()
    assert w.recorder.recording
    stream = w.recorder._stream
    qtbot.waitUntil(lambda: stream.finished.is_set(), timeout=15000)
    take = w.stop_recording()
    assert take is not None
    w._refresh_takes(select=0)
    with qtbot.waitSignal(w.take_accepted, timeout=10000):
        assert w.accept() is not None


def test_a_recording_plan_shows_its_quota_and_it_moves_as_speakers_record(qtbot, ctx, tmp_path):
    from fairdesk.core.recording_plans import latest_plan
    from fairdesk.gui.plan_view import PlanDialog
    from fairdesk.gui.record_panel import RecordPanel
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
    with qtbot.waitSignal(ctx.recording_planned):
        rp = dlg.plan_session(dataset="plan-b")
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
    items = ctx.project.items(ctx.project.dataset("plan-b"))
    assert sorted(items["speaker_id"]) == ["nb1", "nb2"] and set(items["accent"]) == {"b"}
    # the other group's quota has not moved
    assert all(q.started == 0 for i, q in enumerate(box.progress) if i != k)
