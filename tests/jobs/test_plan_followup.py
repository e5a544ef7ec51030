"""The recording plan's prediction and its follow-up (docs/METHODS.md, "Recording plan"):
the MDE the plan's curve gives at k speakers per side, the prediction kept with a stored
plan, and the sentence every view reads it with."""

from __future__ import annotations

import math

import pytest

from fairdesk.core.recording_plans import GroupQuota, PlanPrediction, RecordingPlan
from fairdesk.jobs.recording_plan import PlanFollowup, mde_on_curve
from fairdesk.presentation.plans import followup_sentence, followup_short

CURVE = ((10, 0.20), (20, 0.15), (40, 0.10))


def test_mde_on_the_plans_curve():
    assert mde_on_curve(CURVE, 20) == (0.15, False)
    # between two points MDE² is linear in 1/k: at k = 15, t = (1/15 - 1/10) / (1/20 - 1/10)
    t = (1 / 15 - 1 / 10) / (1 / 20 - 1 / 10)
    want = math.sqrt(0.20**2 + t * (0.15**2 - 0.20**2))
    assert mde_on_curve(CURVE, 15) == (pytest.approx(want), False)
    # outside, √(k0/k) from the nearest point, marked
    assert mde_on_curve(CURVE, 5) == (pytest.approx(0.20 * math.sqrt(2)), True)
    assert mde_on_curve(CURVE, 160) == (pytest.approx(0.05), True)
    assert mde_on_curve((), 5) == (None, False)
    assert mde_on_curve(CURVE, 0) == (None, False)


def test_the_predicted_mde_is_the_pilots_times_the_curves_ratio():
    from fairdesk.jobs.recording_plan import predicted_mde

    # pilot MDE 0.16 at 10 speakers per side (the audit's scale); the curve (Holm-aware,
    # 0.20 at 10) falls to 0.15 at 20: the plan predicts 0.16 × 0.15 / 0.20 = 0.12 at 20
    assert predicted_mde(_pred(pilot_mde=0.16), 20) == (pytest.approx(0.12), False)
    assert predicted_mde(_pred(pilot_mde=0.16), 10) == (pytest.approx(0.16), False)
    assert predicted_mde(_pred(pilot_mde=0.16), 160)[1] is True
    assert predicted_mde(_pred(pilot_mde=None), 20) == (None, False)
    assert predicted_mde(_pred(k_pilot=None), 20) == (None, False)


def _pred(**kw):
    d = dict(run_id=1, metric="wer", group="child", reference="adult", by=("age_group",),
             pilot_mde=0.165, k_pilot=10, target_gap=0.05, k_star=240, curve=CURVE,
             method="resampling")  # fmt: skip
    d.update(kw)
    return PlanPrediction(**d)


def test_a_stored_plan_keeps_its_prediction_and_language(tmp_path):
    from fairdesk.core.recording_plans import latest_plan, save_plan
    from fairdesk.core.store import Project

    p = Project(tmp_path / "proj", create=True)
    rp = RecordingPlan("rec", (GroupQuota("child", {"age_group": "child"}, 230),), 10,
                       (("a text", "c1"),), prediction=_pred(), language="en")  # fmt: skip
    save_plan(p, rp)
    got = latest_plan(p)
    assert got.prediction == _pred() and got.language == "en"
    p.close()


def test_the_followup_sentence():
    f = PlanFollowup(3, "rec", _pred(), 0.142, (12, 13), 0.149, False, "inconclusive_underpowered")
    assert followup_sentence(f) == (
        "Recording plan 3 (from run 1): the WER child vs adult MDE is now 14.2 pp with 12 "
        "child and 13 adult speakers; the plan predicted 14.9 pp at 12 speakers per side; "
        "pilot 16.5 pp at 10; target 5.0 pp at 240 per side."
    )
    assert followup_short(f) == "MDE 14.2 pp · plan 14.9 pp"
    g = PlanFollowup(
        3, "rec", _pred(k_star=None), None, (2, 3), 0.3, True, "no_difference_detected"
    )
    assert followup_sentence(g) == (
        "Recording plan 3 (from run 1): the WER child vs adult MDE is now not estimable with 2 "
        "child and 3 adult speakers; the plan predicted 30.0 pp at 2 speakers per side, "
        "extrapolated; pilot 16.5 pp at 10; target 5.0 pp, not reachable by speakers; verdict "
        "now no difference detected."
    )
