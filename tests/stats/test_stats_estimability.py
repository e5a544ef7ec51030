"""METHODS.md §3 "Estimability": not_estimable, no_variation, the B raise, group CIs."""

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics.registry import ratio_metric
from fairdesk.presentation.estimability_words import reason_text
from fairdesk.presentation.readings import reading
from fairdesk.stats import AuditSettings, compare_groups
from fairdesk.stats.bootstrap import comparison_rng
from fairdesk.stats.compare import planned_bootstrap
from fairdesk.stats.simulation import simulate_audit, small_audit_study


def _one_speaker_frame():
    """Two groups, one speaker each, 20 items of 10 words, different error rates."""
    rows = []
    for g, spk, errs in (("en-gb", "s1", [1] * 8 + [0] * 12), ("en-us", "s2", [3] * 15 + [1] * 5)):
        for k, e in enumerate(errs):
            rows.append(
                {
                    "group": g,
                    "speaker_id": spk,
                    "content_id": f"{g}{k}",
                    "n_words": 10,
                    "n_sub": e,
                    "n_del": 0,
                    "n_ins": 0,
                    "n_items": 1.0,
                    "em": float(e == 0),
                }
            )
    return pd.DataFrame(rows)


def test_one_speaker_per_group_is_not_estimable(wer):
    df = _one_speaker_frame()
    st = AuditSettings(n_bootstrap=400, min_items=1, min_speakers=1)
    res = compare_groups(df, [wer], st, reference="en-gb")
    c = res.comparison("wer", "en-us")
    assert c.verdict == "not_estimable"
    assert c.p_value is not None and math.isnan(c.p_value) and math.isnan(c.p_adjusted)
    assert math.isnan(c.ci_low) and math.isnan(c.mde)
    why = reason_text(c.reason) or ""
    assert "one speaker in en-us" in why and "record more speakers" in why
    assert "no verdict is possible" in reading(c, res)
    assert c.to_dict()["p_value"] is None
    # the group's own CI is not estimable either
    g = next(x for x in res.groups if x.group == "en-us")
    assert g.ci["wer"] is None and g.ci_scheme["wer"] == "not_estimable"


def test_single_speaker_utterance_resampling_only_when_asked(wer):
    df = _one_speaker_frame()
    st = AuditSettings(n_bootstrap=400, min_items=1, min_speakers=1, resampling="utterance")
    res = compare_groups(df, [wer], st, reference="en-gb")
    c = res.comparison("wer", "en-us")
    assert c.verdict not in ("not_estimable", "no_variation")
    assert c.ci_high > c.ci_low
    assert "single_speaker_recordings" in c.flags
    assert "these recordings of this speaker" in reading(c, res)


def test_not_estimable_stays_out_of_holm(wer):
    """One group has one speaker: its comparison has no p; the other's p_adjusted is its own
    p times a family of 1."""
    eff = {"ref": 0.0, "many": 0.2}
    df = simulate_audit(
        np.random.default_rng(3),
        eff,
        design="unmatched",
        speakers_per_group=6,
        utterances_per_speaker=5,
    )
    solo = df[df.group == "many"].copy()
    solo["group"], solo["speaker_id"] = "solo", "solo/spk"
    solo["content_id"] = "solo/" + solo["content_id"].astype(str)
    df = pd.concat([df, solo], ignore_index=True)
    st = AuditSettings(n_bootstrap=400, min_items=1, min_speakers=1)
    res = compare_groups(df, [wer], st, reference="ref")
    assert res.comparison("wer", "solo").verdict == "not_estimable"
    many = res.comparison("wer", "many")
    assert many.p_adjusted == pytest.approx(many.p_value)
    # m counted before the estimability check: 2 comparisons -> ⌈5·2/0.05⌉ = 200 ≤ 400
    assert res.bootstrap.comparisons == 2 and res.bootstrap.used == 400


def _constant_frame(g_correct: float, r_correct: float, n: int = 12):
    rows = []
    for g, ok in (("A", g_correct), ("R", r_correct)):
        for _k in range(n):
            rows.append(
                {
                    "group": g,
                    "n_items": 1.0,
                    "em": ok,
                    "n_words": 5,
                    "n_sub": 0 if ok else 5,
                    "n_del": 0,
                    "n_ins": 0,
                }
            )
    return pd.DataFrame(rows)


def test_constant_groups_are_no_variation_with_rule_of_three(wer, em):
    st = AuditSettings(n_bootstrap=400, min_items=1)
    res = compare_groups(_constant_frame(1.0, 1.0), [em, wer], st, reference="R")
    for metric, n, unit in (("em", 12, "items"), ("wer", 60, "reference words")):
        c = res.comparison(metric, "A")
        assert c.verdict == "no_variation", reading(c, res)
        assert math.isnan(c.p_value) and math.isnan(c.p_adjusted) and math.isnan(c.mde)
        nv = c.no_variation
        assert (nv.n_group, nv.n_reference, nv.unit) == (n, n, unit)
        assert nv.bound_group == pytest.approx(3 / n)
        assert "not evidence of no disparity" in reading(c, res)
    assert res.comparison("em", "A").no_variation.value == 1.0
    # every item wrong in both groups: also no_variation
    res = compare_groups(_constant_frame(0.0, 0.0), [em], st, reference="R")
    assert res.comparison("em", "A").verdict == "no_variation"
    # the constant group's own CI is the rule-of-three interval, never [1, 1]
    g = next(x for x in res.groups if x.group == "A")
    assert g.ci_scheme["em"] == "rule_of_three" and g.ci["em"] == pytest.approx([0, 3 / 12])


def test_constant_at_different_values_is_a_disparity(em):
    st = AuditSettings(n_bootstrap=400, min_items=1)
    c = compare_groups(_constant_frame(0.0, 1.0, n=30), [em], st, reference="R").comparison(
        "em", "A"
    )
    assert c.verdict == "disparity_detected" and c.direction == "worse"
    assert c.gap == -1.0 and c.p_value == pytest.approx(1 / 401)


def _identical_speakers_frame(matched: bool):
    """3 speakers per side whose per-speaker sums are identical (items vary inside them)."""
    rows = []
    for g, e in (("A", 2), ("R", 1)):
        for s in range(3):
            for k in range(4):
                rows.append(
                    {
                        "group": g,
                        "speaker_id": f"{g}{s}",
                        "n_items": 1.0,
                        "content_id": f"c{k}" if matched else f"{g}{s}{k}",
                        "n_words": 10,
                        "n_sub": e * k,
                        "n_del": 0,
                        "n_ins": 0,
                    }
                )
    return pd.DataFrame(rows)


def test_zero_spread_is_not_estimable(wer):
    st = AuditSettings(n_bootstrap=400, min_items=1, min_speakers=1)
    c = compare_groups(_identical_speakers_frame(False), [wer], st, reference="R").comparison(
        "wer", "A"
    )
    assert c.estimator == "speaker" and c.verdict == "not_estimable"
    assert c.reason is not None and c.reason.code == "estimability.no_spread"
    assert "do not vary" in (reason_text(c.reason) or "")


def test_effect_size_with_zero_block_sd_is_undefined(wer):
    """Matched, identical speakers: the two-way replicates vary through the sentences, but
    the speaker blocks have SD 0, so the effect size is undefined (not 2e15)."""
    df = pd.concat([_identical_speakers_frame(True)] * 2, ignore_index=True)
    df.loc[len(df) // 2 :, "content_id"] = df.loc[len(df) // 2 :, "content_id"] + "b"
    st = AuditSettings(n_bootstrap=400, min_items=1, min_speakers=1)
    c = compare_groups(df, [wer], st, reference="R").comparison("wer", "A")
    assert c.estimator == "two_way" and c.ci_high > c.ci_low
    assert math.isnan(c.effect_size) and c.to_dict()["effect_size"] is None


def test_b_raise_rule():
    assert planned_bootstrap(2000, 30, 0.05).used == 3000
    r = planned_bootstrap(2000, 10, 0.05)
    assert r.used == 2000 and r.raised is False
    r = planned_bootstrap(2000, 300, 0.05)
    assert r.required == 30000 and r.used == 20000 and r.capped
    assert planned_bootstrap(200, 7, 0.05).used == 700


def test_group_ci_equals_a_numpy_loop():
    """The utterance-scheme group CI and corpus CI redone by hand with the same streams
    (fairdesk draws block indices as 16-bit integers below 32,768 blocks: draw_counts)."""
    rng = np.random.default_rng(5)
    rows = []
    for g, n in (("A", 23), ("R", 31)):
        for _ in range(n):
            w = int(rng.integers(3, 12))
            rows.append(
                {
                    "group": g,
                    "n_words": w,
                    "n_sub": int(rng.binomial(w, 0.2)),
                    "n_del": 0,
                    "n_ins": int(rng.integers(0, 2)),
                    "n_items": 1.0,
                }
            )
    df = pd.DataFrame(rows)
    wer = ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"])
    B, seed = 500, 4
    res = compare_groups(df, [wer], AuditSettings(n_bootstrap=B, seed=seed, min_items=1))
    err = (df.n_sub + df.n_del + df.n_ins).to_numpy(float)
    words = df.n_words.to_numpy(float)
    for g in res.groups:
        ix = np.flatnonzero(df.group == g.group)
        r = comparison_rng(seed, "group_ci", g.group)
        draw = r.integers(0, len(ix), size=(B, len(ix)), dtype=np.int16)
        reps = err[ix][draw].sum(1) / words[ix][draw].sum(1)
        assert g.ci_scheme["wer"] == "utterance"
        assert g.ci["wer"] == pytest.approx(list(np.percentile(reps, [2.5, 97.5])))
    # corpus: both groups pooled, items redrawn within each group (reference first: largest)
    r = comparison_rng(seed, "corpus_ci")
    tot_e, tot_w = np.zeros(B), np.zeros(B)
    for g in ("R", "A"):
        ix = np.flatnonzero(df.group == g)
        draw = r.integers(0, len(ix), size=(B, len(ix)), dtype=np.int16)
        tot_e += err[ix][draw].sum(1)
        tot_w += words[ix][draw].sum(1)
    ov = res.summary["wer"].overall
    assert ov["value"] == pytest.approx(err.sum() / words.sum())
    assert ov["ci"] == pytest.approx(list(np.percentile(tot_e / tot_w, [2.5, 97.5])))
    d = res.to_dict()
    assert d["groups"][0]["ci"]["wer"] == pytest.approx(res.groups[0].ci["wer"])
    assert d["summary"]["wer"]["overall"]["scheme"] == "utterance"


def test_group_ci_two_way_when_content_is_shared(wer):
    df = simulate_audit(np.random.default_rng(2), {"ref": 0.0, "g": 0.3}, speakers_per_group=8)
    res = compare_groups(df, [wer], AuditSettings(n_bootstrap=300, min_speakers=1))
    assert {g.ci_scheme["wer"] for g in res.groups} == {"two_way"}
    assert res.summary["wer"].overall["scheme"] == "two_way"
    assert res.summary["wer"].overall["n_speakers"] == 16
    for g in res.groups:
        lo, hi = g.ci["wer"]
        assert lo < g.values["wer"] < hi
    # the two-way scheme is not scaled (docs/METHODS.md, "Small numbers of speakers"): the
    # default (scaling on) and scaling off give the same intervals, and no flag
    off = compare_groups(
        df, [wer], AuditSettings(n_bootstrap=300, min_speakers=1, small_cluster_scaling=False)
    )
    assert res.settings.small_cluster_scaling is True
    assert [g.ci for g in res.groups] == [g.ci for g in off.groups]
    assert res.summary["wer"].overall == off.summary["wer"].overall
    assert res.summary["wer"].overall["scaled"] is False
    c, c_off = res.comparisons[0], off.comparisons[0]
    assert (c.estimator, c.ci_low, c.ci_high) == ("two_way", c_off.ci_low, c_off.ci_high)
    assert "small_cluster_scaled" not in c.flags


def test_group_and_corpus_cis_by_speakers_are_scaled_with_each_groups_k(wer):
    """Unmatched design (the speaker scheme), 4 and 7 speakers: each group's CI and the
    corpus CI recomputed here from the speakers' sums and the documented draws, each
    stratum's replicate sums moved from its observed sums by √(k/(k−1)) · t_{0.975,k−1} /
    z_{0.975} with its own k."""
    from scipy.stats import norm, t

    from fairdesk.stats.bootstrap import comparison_rng, draw_counts

    rng = np.random.default_rng(4)
    frames = [
        simulate_audit(rng, {g: e}, design="unmatched", speakers_per_group=k,
                       utterances_per_speaker=5)
        for g, e, k in (("ref", 0.0, 7), ("g", 0.4, 4))
    ]  # fmt: skip
    df = pd.concat(frames, ignore_index=True)
    B = 300
    st = AuditSettings(n_bootstrap=B, min_items=1, min_speakers=1)
    res = compare_groups(df, [wer], st, reference="ref")
    assert {g.ci_scheme["wer"] for g in res.groups} == {"speaker"}
    ov = res.summary["wer"].overall
    assert (ov["scheme"], ov["scaled"], ov["n_speakers"]) == ("speaker", True, 11)

    def per_speaker(g):  # (k, 2) error and word sums, speakers in their order of appearance
        sub = df[df["group"] == g]
        s = sub.groupby("speaker_id", sort=False)[["n_err", "n_words"]].sum()
        return s.to_numpy(float)

    def scaled_reps(T, u):
        k, point = len(T), T.sum(0)
        f = np.sqrt(k / (k - 1)) * t.ppf(0.975, k - 1) / norm.ppf(0.975)
        return point + f * (u @ T - point)

    for g in res.groups:
        T = per_speaker(g.group)
        u = draw_counts(comparison_rng(0, "group_ci", g.group), len(T), B)
        reps = scaled_reps(T, u)
        assert g.ci["wer"] == pytest.approx(
            list(np.percentile(reps[:, 0] / reps[:, 1], [2.5, 97.5])), rel=1e-12
        )
    # the corpus: one stratum per group (the order of the groups analysed), one generator
    crng = comparison_rng(0, "corpus_ci")
    strata = [per_speaker(g.group) for g in res.groups]
    tot = sum(scaled_reps(T, draw_counts(crng, len(T), B)) for T in strata)
    assert ov["ci"] == pytest.approx(
        list(np.percentile(tot[:, 0] / tot[:, 1], [2.5, 97.5])), rel=1e-12
    )
    # and off: the plain draws (narrower)
    off = compare_groups(df, [wer], replace(st, small_cluster_scaling=False), reference="ref")
    assert off.summary["wer"].overall["scaled"] is False
    for a, b in zip(res.groups, off.groups, strict=True):
        assert np.diff(a.ci["wer"])[0] > np.diff(b.ci["wer"])[0]


def test_small_audits_never_give_a_verdict_from_a_degenerate_distribution():
    r = small_audit_study(n_audits=150, n_bootstrap=200, seed=5)
    assert r["degenerate"] > 50  # the study does produce degenerate comparisons
    assert r["violations"] == 0, r
