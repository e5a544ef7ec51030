"""Hand-worked comparisons, verdict logic, Holm, summaries and the result objects."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from fairdesk.metrics.registry import ratio_metric
from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.readings import reading
from fairdesk.stats import AuditSettings, compare_groups, gini, weighted_std
from fairdesk.stats.bootstrap import Side, bootstrap_pair, comparison_rng
from fairdesk.stats.formulas import (
    MDE_FACTOR,
    bootstrap_p,
    cohens_h,
    holm_adjust,
    holm_multipliers,
    pooled_sd,
)
from fairdesk.stats.results import BlockCounts
from fairdesk.stats.simulation import simulate_audit
from fairdesk.stats.summary import summarise_metric
from fairdesk.stats.verdicts import (
    decide_verdict,
    direction,
    is_practical,
    practical_threshold,
)


def _hand_frame():
    """Group A: 40 items of 10 words, 20 with one substitution, 4 of those with an insertion.
    Reference R: 50 items of 10 words, 10 with one substitution. No speaker or content ids."""
    a = pd.DataFrame(
        {
            "group": "A",
            "n_words": 10,
            "n_sub": [1] * 20 + [0] * 20,
            "n_del": 0,
            "n_ins": [1] * 4 + [0] * 36,
        }
    )
    r = pd.DataFrame(
        {"group": "R", "n_words": 10, "n_sub": [1] * 10 + [0] * 40, "n_del": 0, "n_ins": 0}
    )
    df = pd.concat([a, r], ignore_index=True)
    df["n_items"] = 1.0
    df["em"] = ((df.n_sub + df.n_del + df.n_ins) == 0).astype(float)
    return df


def test_hand_worked_comparison(specs):
    df = _hand_frame()
    res = compare_groups(df, specs, AuditSettings(n_bootstrap=400, seed=3))
    assert res.reference == "R"  # largest group
    w = res.comparison("wer", "A")
    assert w.value == pytest.approx(24 / 400) and w.reference_value == pytest.approx(10 / 500)
    assert w.gap == pytest.approx(0.04) and w.ratio == pytest.approx(3.0)
    assert w.estimator == "utterance" and w.n_speakers is None
    assert w.n_blocks == BlockCounts(
        group_speakers=None,
        reference_speakers=None,
        contents=None,
        group_items=40,
        reference_items=50,
    )
    # effect size: gap / pooled SD of item-level WERs (blocks = items in the utterance scheme)
    va = (df[df.group == "A"].n_sub + df[df.group == "A"].n_ins) / 10
    vr = df[df.group == "R"].n_sub / 10
    sd = math.sqrt((39 * va.var(ddof=1) + 49 * vr.var(ddof=1)) / 88)
    assert w.effect_size == pytest.approx(0.04 / sd)
    e = res.comparison("em", "A")
    assert e.value == pytest.approx(0.5) and e.reference_value == pytest.approx(0.8)
    h = 2 * math.asin(math.sqrt(0.5)) - 2 * math.asin(math.sqrt(0.8))
    assert e.effect_size == pytest.approx(h) and h == pytest.approx(-0.6435, abs=1e-4)
    assert e.direction == "worse" and w.direction == "worse"
    # CI, p and MDE are the §3 formulas applied to this comparison's own replicates
    a_side = Side(
        df[df.group == "A"][["n_sub", "n_del", "n_ins", "n_words", "em", "n_items"]].to_numpy(float)
    )
    r_side = Side(
        df[df.group == "R"][["n_sub", "n_del", "n_ins", "n_words", "em", "n_items"]].to_numpy(float)
    )
    pb = bootstrap_pair(a_side, r_side, "utterance", 400, comparison_rng(3, "compare", "A", "R"))
    gaps = (
        pb.group_reps[:, :3].sum(1) / pb.group_reps[:, 3]
        - pb.reference_reps[:, :3].sum(1) / pb.reference_reps[:, 3]
    )
    assert (w.ci_low, w.ci_high) == pytest.approx(tuple(np.percentile(gaps, [2.5, 97.5])))
    assert w.p_value == pytest.approx((1 + np.sum(np.abs(gaps - 0.04) >= 0.04)) / 401)
    assert w.mde == pytest.approx((1.959964 + 0.841621) * np.std(gaps, ddof=1), rel=1e-5)
    # Holm over the run's two comparisons
    assert [c.p_adjusted for c in res.comparisons] == pytest.approx(
        list(multipletests([c.p_value for c in res.comparisons], method="holm")[1])
    )
    assert w.verdict == "disparity_detected"  # ratio 3 ≥ 1.25, p tiny
    text = reading(w, res)
    assert "95% CI" in text and "p_adjusted" in text
    assert "utterance bootstrap, 40 + 50 utterances" in text


def test_bootstrap_p_on_known_distribution():
    reps = np.array([0.0, 0.05, 0.1, 0.2, 0.25])
    # |reps - 0.1| = [.1, .05, 0, .1, .15] >= .1 -> 3 of 5
    assert bootstrap_p(0.1, reps) == pytest.approx(4 / 6)
    assert bootstrap_p(-0.1, -reps) == pytest.approx(4 / 6)
    assert bootstrap_p(0.1, np.array([0.1, np.nan])) == pytest.approx(1 / 2)
    assert math.isnan(bootstrap_p(np.nan, reps))
    assert MDE_FACTOR == pytest.approx(1.959964 + 0.841621, abs=1e-6)


def test_holm_equals_statsmodels():
    rng = np.random.default_rng(0)
    for m in (1, 3, 30):
        p = np.round(rng.random(m) ** 3, 3)  # ties included
        np.testing.assert_allclose(holm_adjust(p), multipletests(p, method="holm")[1])
    p = np.array([0.04, np.nan, 0.01, 0.03])
    np.testing.assert_allclose(
        holm_adjust(p)[[0, 2, 3]], multipletests(p[[0, 2, 3]], method="holm")[1]
    )
    assert math.isnan(holm_adjust(p)[1])
    np.testing.assert_array_equal(holm_multipliers([0.04, 0.01, 0.03]), [1, 3, 2])


def test_cohens_h_and_pooled_sd():
    assert cohens_h(0.5, 0.5) == 0
    assert cohens_h(1.0, 0.0) == pytest.approx(math.pi)
    a, b = [1.0, 2.0, 3.0], [2.0, 4.0]
    assert pooled_sd(a, b) == pytest.approx(math.sqrt((2.0 + 2.0) / 3))


def test_gini_and_weighted_std_by_direct_formula():
    x = [1.0, 2.0, 3.0]
    direct = sum(abs(i - j) for i in x for j in x) / (2 * 9 * 2.0)
    assert gini(x) == pytest.approx(direct) == pytest.approx(2 / 9)
    # sorted-rank formula as an independent check
    xs = np.sort(x)
    ranks = np.arange(1, 4)
    assert gini(x) == pytest.approx(2 * (ranks * xs).sum() / (3 * xs.sum()) - 4 / 3)
    assert gini([0.2, 0.2]) == 0.0
    assert weighted_std([0.1, 0.3], [1, 3]) == pytest.approx(math.sqrt(0.0075))


def test_summary_best_worst_and_ratio():
    s = summarise_metric(["a", "b", "c"], [0.1, 0.2, 0.4], [10, 10, 20], [0.1, -0.3], False)
    assert (s.best_group, s.worst_group) == ("a", "c")
    assert s.disparity_ratio == pytest.approx(4.0) and s.max_gap == pytest.approx(-0.3)
    s = summarise_metric(["a", "b", "c"], [0.9, 0.6, 0.6], [10, 10, 20], [], True)
    assert (s.best_group, s.worst_group) == ("a", "b")  # tie on worst broken by name
    assert s.disparity_ratio == pytest.approx(1.5) and math.isnan(s.max_gap)


def test_practical_rules():
    st = AuditSettings()
    wer = ratio_metric("wer", "WER", ["e"], ["n"])
    acc = ratio_metric("acc", "Acc", ["c"], ["n"], higher_is_better=True, kind="proportion")
    lift = ratio_metric("grounding_lift", "Lift", ["a"], ["b"], higher_is_better=True)
    assert is_practical(0.05, 1.1, wer, st)  # absolute gap
    assert is_practical(0.01, 1.25, wer, st)  # ratio
    assert not is_practical(-0.01, 0.5, wer, st)  # ratio counts in the worse direction only
    assert is_practical(-0.01, 0.8, acc, st)  # 1/ratio = 1.25
    assert not is_practical(0.01, 1.5, acc, st)
    assert not is_practical(0.14, 3.0, lift, st) and is_practical(-0.15, 0.5, lift, st)
    assert practical_threshold(0.1, wer, st) == pytest.approx(0.025)
    assert practical_threshold(0.9, wer, st) == pytest.approx(0.05)
    assert practical_threshold(0.1, acc, st) == pytest.approx(0.02)
    assert practical_threshold(0.1, lift, st) == pytest.approx(0.15)
    assert direction(0.1, False) == "worse" and direction(0.1, True) == "better"
    assert direction(0.0, True) == "equal"


@pytest.mark.parametrize(
    "p,practical,mde,confounded,expected",
    [
        (0.01, True, 0.0, True, "speaker_confounded"),
        (0.01, True, 0.0, False, "disparity_detected"),
        (0.01, False, 0.0, False, "significant_but_small"),
        (0.20, True, 0.06, True, "inconclusive_underpowered"),
        (0.20, False, 0.05, False, "no_disparity_detected"),
        (float("nan"), False, 0.0, False, "not_computable"),
    ],
)
def test_verdict_order(p, practical, mde, confounded, expected):
    assert decide_verdict(p, practical, mde, 0.05, 0.05, confounded) == expected


def _speaker_frame(rng, design="matched", effects=None, n_spk=12, **kw):
    df = simulate_audit(
        rng, effects or {"ref": 0.0, "g": 0.6}, design=design, speakers_per_group=n_spk, **kw
    )
    return df


def test_two_way_uses_shared_subset(wer):
    rng = np.random.default_rng(0)
    df = _speaker_frame(rng, n_sentences=15, effects={"ref": 0.0, "g": 0.0})
    # the group drops sentences s0-s4, the reference drops s12-s14: 7 shared
    idx = df["content_id"].str[1:].astype(int)
    df = df[~((df.group == "g") & ((idx < 5) | (idx >= 12))) & ~((df.group == "ref") & (idx >= 12))]
    res = compare_groups(df, [wer], AuditSettings(n_bootstrap=200), reference="ref")
    c = res.comparisons[0]
    shared = df[df.content_id.isin([f"s{i}" for i in range(5, 12)])]
    sv = shared.groupby("group")[["n_sub", "n_del", "n_ins", "n_words"]].sum()
    val = (sv.n_sub + sv.n_del + sv.n_ins) / sv.n_words
    assert c.estimator == "two_way" and c.design == "partially_matched"
    assert c.value == pytest.approx(val["g"]) and c.reference_value == pytest.approx(val["ref"])
    assert c.n_blocks.contents == 7 and "shared_content_subset" in c.flags
    assert res.design == "partially_matched"
    assert "12 + 12 speakers × 7 shared sentences" in reading(c, res)


def test_unmatched_is_content_confounded(wer):
    df = _speaker_frame(np.random.default_rng(1), design="unmatched", utterances_per_speaker=5)
    res = compare_groups(df, [wer], AuditSettings(n_bootstrap=200), reference="ref")
    c = res.comparisons[0]
    assert c.design == "unmatched" and c.estimator == "speaker"
    assert "content_confounded" in c.flags and "not causal" in reading(c, res)
    assert c.n_blocks.contents is None and c.n_blocks.group_speakers == 12


def test_content_override_is_conditional_on_speakers(wer):
    df = _speaker_frame(np.random.default_rng(2))
    st = AuditSettings(n_bootstrap=200, resampling="content")
    res = compare_groups(df, [wer], st, reference="ref")
    c = res.comparisons[0]
    assert c.estimator == "content" and "conditional_on_speakers" in c.flags
    assert "conditional on these speakers" in reading(c, res)
    with pytest.raises(ValueError, match="--resampling two_way needs speaker ids"):
        compare_groups(
            df.drop(columns="speaker_id"),
            [wer],
            AuditSettings(n_bootstrap=200, resampling="two_way"),
        )


def test_content_ids_derived_from_reference_text(wer):
    df = _speaker_frame(np.random.default_rng(2)).drop(columns="speaker_id")
    df["reference"] = df["content_id"].map(lambda c: f"Sentence {c[1:]}, read ALOUD!")
    c = compare_groups(
        df.drop(columns="content_id"), [wer], AuditSettings(n_bootstrap=200), reference="ref"
    ).comparisons[0]
    assert c.estimator == "content" and c.design == "matched" and c.n_blocks.contents == 30


def test_few_speakers_significant_is_speaker_confounded(wer):
    df = _speaker_frame(np.random.default_rng(4), effects={"ref": 0.0, "g": 1.5}, n_spk=6)
    res = compare_groups(df, [wer], AuditSettings(n_bootstrap=400), reference="ref")
    c = res.comparisons[0]
    assert c.p_adjusted < 0.05
    assert c.verdict == "speaker_confounded" and "fewer_than_10_speakers" in c.flags
    assert "get more speakers" in reading(c, res)


def test_exclusions_and_groups_table(specs):
    rng = np.random.default_rng(5)
    df = _speaker_frame(rng, effects={"ref": 0.0, "g": 0.0, "tiny": 0.0})
    df = df[~((df.group == "tiny") & (df.content_id != "s0"))]  # 12 items
    res = compare_groups(df, specs, AuditSettings(n_bootstrap=200))
    assert [(e.group, notice_text(e.reason)) for e in res.excluded] == [
        ("tiny", "12 items < min_items 30")
    ]
    assert {c.group for c in res.comparisons} == {"ref", "g"} - {res.reference}
    info = {g.group: g for g in res.groups}
    assert info["tiny"].excluded and info["tiny"].n_items == 12 and info["tiny"].n_speakers == 12
    assert not info["g"].excluded and set(info["tiny"].values) == {"wer", "em"}
    assert set(res.summary) == {"wer", "em"}


def test_errors(specs):
    df = _hand_frame()
    with pytest.raises(ValueError, match=r"lacks.*\['n_ins'\]"):
        compare_groups(df.drop(columns="n_ins"), specs)
    with pytest.raises(ValueError, match="no group column"):
        compare_groups(df.drop(columns="group"), specs)
    with pytest.raises(ValueError, match="not one of the groups: R, A"):
        compare_groups(df, specs, reference="Z")
    with pytest.raises(ValueError, match="--sample 30"):
        compare_groups(df, specs, AuditSettings(max_items=60))
    bad = df.copy()
    bad.loc[3, "n_words"] = np.nan
    with pytest.raises(ValueError, match="'n_words' is undefined in 1 row"):
        compare_groups(bad, specs)


def test_to_dict_is_json_ready_and_deterministic(specs):
    df = _hand_frame()
    df["n_zero"] = 0.0
    odd = ratio_metric("odd", "Odd", ["n_sub"], ["n_zero"])
    st = AuditSettings(n_bootstrap=200, seed=9)
    res = compare_groups(df, specs + [odd], st)
    d = res.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["settings"]["seed"] == 9
    odd_c = res.comparison("odd", "A")
    assert odd_c.verdict == "not_computable" and odd_c.to_dict()["value"] is None
    assert set(d["comparisons"][0]) == {
        "metric",
        "group",
        "reference",
        "value",
        "reference_value",
        "gap",
        "ratio",
        "effect_size",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "mde",
        "estimator",
        "n_blocks",
        "design",
        "verdict",
        "direction",
        "flags",
        "n_items",
        "n_speakers",
        "reason",
        "no_variation",
        # the ratio's interval, where there is one (docs/METHODS.md)
        "ratio_ci_low",
        "ratio_ci_high",
    }
    assert set(d["summary"]["wer"]) == {
        "max_gap",
        "disparity_ratio",
        "gini",
        "weighted_std",
        "best_group",
        "worst_group",
        "overall",
    }
    assert set(d["summary"]["wer"]["overall"]) >= {"value", "ci", "scheme"}
    assert {"ci", "ci_scheme"} <= set(d["groups"][0])
    assert compare_groups(df, specs + [odd], st).to_dict() == d
    other = compare_groups(df, specs + [odd], AuditSettings(n_bootstrap=200, seed=10))
    assert other.comparison("wer", "A").ci_low != res.comparison("wer", "A").ci_low
    assert other.comparison("wer", "A").gap == res.comparison("wer", "A").gap


def test_p_unresolvable_flag_and_b_raise(wer):
    """With m comparisons the smallest Holm-adjusted bootstrap p is m/(B+1), so B is raised
    to ⌈5·m/α⌉ (§3); only when the 20,000 cap binds can p stay unresolvable."""
    effects = {"ref": 0.0, **{f"g{i}": 2.0 for i in range(12)}}
    df = simulate_audit(np.random.default_rng(0), effects, n_sentences=10)
    res = compare_groups(df, [wer], AuditSettings(n_bootstrap=200), reference="ref")
    assert res.bootstrap.used == 1200 and res.bootstrap.raised  # ⌈5·12/0.05⌉
    assert res.to_dict()["settings"]["n_bootstrap_used"] == 1200
    assert res.to_dict()["settings"]["n_bootstrap"] == 200  # the request stays recorded
    assert not any("p_unresolvable" in c.flags for c in res.comparisons)
    assert min(c.p_adjusted for c in res.comparisons) == pytest.approx(12 / 1201)
    # alpha 0.0005 needs B = 120,000: capped at 20,000, and 12/20,001 ≥ 0.0005
    res = compare_groups(df, [wer], AuditSettings(n_bootstrap=200, alpha=0.0005), reference="ref")
    assert res.bootstrap.used == 20000 and res.bootstrap.capped
    assert all("p_unresolvable" in c.flags for c in res.comparisons)
