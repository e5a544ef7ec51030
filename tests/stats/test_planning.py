"""The recording plan (docs/METHODS.md, "Planning: how many speakers would settle it"):
numbers against hand computations and a direct numpy resampling."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from scipy.stats import t as scipy_t

from fairdesk.stats.compare import compare_groups
from fairdesk.stats.planning import (
    closed_form_k,
    closed_form_se,
    merge_needs,
    side_need,
    speaker_curve,
    z_factor,
)
from fairdesk.stats.plans import closed_form_plan, group_sizes, resampling_plan
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.simulation import _study_specs, simulate_audit

WER = {s.id: s for s in _study_specs() if s.id == "wer"}
SETTINGS = AuditSettings(n_bootstrap=1000, seed=0, min_items=1, min_speakers=1)


def _audit(design, seed=1, speakers=12, **kw):
    rng = np.random.default_rng(seed)
    frame = simulate_audit(
        rng, {"ref": 0.0, "grp": 0.3}, design=design, speakers_per_group=speakers, **kw
    )
    return frame, compare_groups(frame, list(WER.values()), SETTINGS, reference="ref")


def test_z_factor_is_the_bonferroni_quantile_plus_the_power_quantile():
    assert z_factor(0.05, 1, 0.8) == pytest.approx(1.959964 + 0.841621, abs=1e-5)
    assert z_factor(0.05, 4, 0.9) == pytest.approx(norm.ppf(1 - 0.00625) + norm.ppf(0.9))
    with pytest.raises(ValueError, match="power"):
        z_factor(0.05, 1, 1.0)


def test_closed_form_against_a_hand_computation():
    # SE_pilot 0.02 at 12 speakers a side; alpha .05, m 1, power .8: zf = 2.8016
    assert closed_form_se(0.02, 12, 12, 48) == pytest.approx(0.02 * math.sqrt(12 / 48))
    # k* = ceil(12 * (zf * 0.02 / 0.05)^2) = ceil(12 * 1.25577) = 16
    zf = z_factor(0.05, 1, 0.8)
    assert math.ceil(12 * (zf * 0.02 / 0.05) ** 2) == 16
    assert closed_form_k(0.02, 12, 12, zf, 0.05, 240) == 16
    # a side with more speakers keeps them: SE^2 = SE_p^2 (1/k + 1/30) / (1/12 + 1/30)
    assert closed_form_se(0.02, 12, 30, 20) == pytest.approx(
        0.02 * math.sqrt((1 / 20 + 1 / 30) / (1 / 12 + 1 / 30))
    )
    # beyond the search limit: None
    assert closed_form_k(0.2, 12, 12, zf, 0.01, 240) is None


def _direct_se(frame, k, n_rep, seed):
    """SE of the WER gap at k speakers a side, drawn with plain numpy (indices per
    replicate), times sqrt(k_p / (k_p - 1)) per side."""
    rng = np.random.default_rng(seed)
    vals = {}
    for g in ("grp", "ref"):
        sub = frame[frame["group"] == g]
        per = sub.groupby("speaker_id")[["n_err", "n_words"]].sum().to_numpy(float)
        kp = len(per)
        idx = rng.integers(0, kp, size=(n_rep, max(k, kp)))
        s = per[idx].sum(axis=1)
        v = s[:, 0] / s[:, 1]
        vals[g] = v.mean() + (v - v.mean()) * math.sqrt(kp / (kp - 1))
    return float(np.std(vals["grp"] - vals["ref"], ddof=1))


def test_speaker_curve_matches_a_direct_numpy_resampling():
    frame, res = _audit("unmatched", utterances_per_speaker=15)
    from fairdesk.stats.plans import _sides

    side, spec, cols = _sides(frame, WER["wer"])
    ks = [12, 24, 48, 96]
    se = speaker_curve(
        side("grp"), side("ref"), spec, cols, "speaker", ks, n_rep=6000,
        rng=np.random.default_rng(5),
    )  # fmt: skip
    direct = [_direct_se(frame, k, 6000, 9) for k in ks]
    assert se == pytest.approx(direct, rel=0.05)
    # the curve falls as 1/sqrt(k) in the speaker scheme (content nested in speakers)
    assert se[3] == pytest.approx(se[0] / math.sqrt(96 / 12), rel=0.08)
    # at the pilot's k it is the audit's own SE: its MDE / 2.8016 is scaled by
    # √(k/(k−1)) · t_{.975, 11} / z_{.975}; the curve carries √(k/(k−1)) only
    t_part = scipy_t.ppf(0.975, 11) / norm.ppf(0.975)
    assert se[0] == pytest.approx(res.comparisons[0].mde / 2.8015852 / t_part, rel=0.06)


def test_k_star_moves_the_right_way_with_power_gap_and_m():
    frame, res = _audit("unmatched", utterances_per_speaker=15)

    def k(**kw):
        plan = resampling_plan(frame, res, WER, which=[("wer", "grp")], n_rep=500, **kw)
        return plan.comparisons[0].speakers_needed

    base = k()
    assert base is not None and base > 12
    assert k(power=0.9) >= base >= k(power=0.6)
    assert k(gap=0.06) <= base <= k(gap=0.03)
    assert k(future_m=10) >= base
    # the same request gives the same plan
    assert k() == base


def test_plan_sides_new_speakers_utterances_and_hours():
    frame, res = _audit("unmatched", utterances_per_speaker=15)
    frame["duration"] = 3.0
    plan = resampling_plan(frame, res, WER, which=[("wer", "grp")], n_rep=400)
    c = plan.comparisons[0]
    k = c.speakers_needed
    assert c.group_need.new_speakers == k - 12 == c.reference_need.new_speakers
    assert c.group_need.utterances_per_speaker == 15.0
    assert c.group_need.new_utterances == (k - 12) * 15
    assert c.group_need.hours == pytest.approx((k - 12) * 15 * 3.0 / 3600)
    assert plan.future_m == 1 and plan.alpha_adjusted == 0.05
    # the closed-form check is close in the speaker scheme
    assert abs(c.closed_form_k - k) <= max(3, 0.2 * k)
    assert any(p.k == k for p in c.curve)


def test_a_reference_shared_by_comparisons_takes_the_largest_need():
    a = side_need("ref", 10, 30, 5, 2.0)
    b = side_need("ref", 10, 50, 5, 2.0)
    g = side_need("g", 10, 30, 5, 2.0)
    merged = {n.group: n for n in merge_needs([a, g, b])}
    assert merged["ref"].speakers_needed == 50 and merged["ref"].new_speakers == 40
    # a side with more than k* speakers needs none
    assert side_need("ref", 60, 30, 5, 2.0).new_speakers == 0


def _content_heavy_frame(seed=3):
    """Matched design: 12 speakers a group, 8 shared sentences whose difficulty differs
    strongly between the groups (a content x group effect), little speaker variance."""
    rng = np.random.default_rng(seed)
    rows = []
    sent = rng.normal(0, 0.6, size=(2, 8))
    for gi, g in enumerate(("ref", "grp")):
        for s in range(12):
            for c in range(8):
                p = 1 / (1 + math.exp(-(-1.7 + 0.2 * gi + sent[gi, c])))
                n = 10
                e = rng.binomial(n, p)
                rows.append(dict(group=g, speaker_id=f"{g}{s}", content_id=f"c{c}",
                                 n_words=n, n_sub=e, n_del=0, n_ins=0, n_err=e))  # fmt: skip
    return pd.DataFrame(rows)


def test_two_way_content_floor_is_not_reachable_by_adding_speakers():
    frame = _content_heavy_frame()
    res = compare_groups(frame, list(WER.values()), SETTINGS, reference="ref")
    c0 = res.comparisons[0]
    assert c0.estimator == "two_way"
    plan = resampling_plan(frame, res, WER, which=[("wer", "grp")], n_rep=400, gap=0.1)
    c = plan.comparisons[0]
    assert c.speakers_needed is None and not c.reachable and c.limit == "content"
    assert c.floor_mde >= 0.1
    # the curve levels off at the floor, well above what 1/sqrt(k) would give
    last = c.curve[-1]
    assert last.mde >= c.floor_mde * 0.9
    # contents are planned too, and they are the cheaper (the only) way
    assert c.contents is not None and c.contents.contents_now == 8
    assert c.contents.contents_needed is not None and c.contents.contents_needed > 8
    assert c.contents.cheaper == "contents"
    assert c.contents.new_utterances == (c.contents.contents_needed - 8) * 24


def test_closed_form_plan_covers_the_underpowered_comparisons_and_round_trips():
    from fairdesk.jobs.result import AuditRun
    from fairdesk.jobs.result_codec import canonical
    from fairdesk.stats.planning_types import Plan

    frame, res = _audit("unmatched", seed=4, utterances_per_speaker=15)
    assert res.comparisons[0].verdict == "inconclusive_underpowered"
    frame["duration"] = 2.0
    plan = closed_form_plan(res, WER, group_sizes(frame))
    c = plan.comparisons[0]
    assert plan.method == "closed_form" and "closed form" in plan.label
    # SE_pilot: the audit's MDE / 2.8016 without the t part of the small-cluster factor
    # (12 speakers a side: t_{.975, 11} / z_{.975})
    se_p = res.comparisons[0].mde / 2.8015852181129683 / (scipy_t.ppf(0.975, 11) / norm.ppf(0.975))
    assert c.speakers_needed == closed_form_k(se_p, 12, 12, c.z_factor, c.target_gap, 240)
    assert c.group_need.hours == pytest.approx(c.group_need.new_utterances * 2.0 / 3600)
    run = AuditRun.from_parts(res, plan=canonical(plan, Plan))
    again = AuditRun.from_json(json.loads(json.dumps(run.to_json())))
    assert again.plan == run.plan and again == run
    # no underpowered comparison: no plan
    assert closed_form_plan(res, {}, {}) is None
