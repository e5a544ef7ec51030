"""Comparing systems on the same items (docs/METHODS.md, "Comparing systems on the same
items"): the paired bootstrap against an independent numpy implementation given the same
resample counts, the verdict rules on hand-made cases, the common item set and Holm."""

import math

import numpy as np
import pandas as pd
import pytest

from fairdesk.stats.formulas import holm_adjust
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.simulation import simulate_audit
from fairdesk.stats.system_verdicts import gap_verdict, system_verdict
from fairdesk.stats.systems import compare_systems


def _two_systems(design, seed=0, k=12):
    rng = np.random.default_rng(seed)
    a = simulate_audit(
        rng,
        {"adult": 0.0, "child": 0.7},
        design=design,
        speakers_per_group=k,
        utterances_per_speaker=15,
    )
    a["item_id"] = [f"i{i}" for i in range(len(a))]
    b = a.copy()
    # B fixes about a third of the child substitutions and adds some adult ones
    fix = rng.binomial(b["n_sub"].to_numpy(), np.where(b["group"] == "child", 0.35, 0.0))
    b["n_sub"] = b["n_sub"] - fix + rng.binomial(1, np.where(b["group"] == "adult", 0.1, 0.0))
    b["em"] = ((b["n_sub"] + b["n_del"] + b["n_ins"]) == 0).astype(float)
    return a, b


def _factor(k: int) -> float:
    """docs/METHODS.md, "Small numbers of speakers": √(k/(k−1)) · t_{0.975, k−1} / z_{0.975}."""
    from scipy.stats import norm, t

    return math.sqrt(k / (k - 1)) * t.ppf(0.975, k - 1) / norm.ppf(0.975)


def _numpy_corpus_ci(a, b, draws, scaled):
    """The corpus-wide WER difference CI recomputed from the counts alone (numpy)."""
    c = draws["corpus"]
    ids = list(draws["item_ids"])
    a = a.set_index("item_id").loc[ids]
    b = b.set_index("item_id").loc[ids]
    err_a = (a["n_sub"] + a["n_del"] + a["n_ins"]).to_numpy(float)
    err_b = (b["n_sub"] + b["n_del"] + b["n_ins"]).to_numpy(float)
    n = a["n_words"].to_numpy(float)
    tot = np.zeros((len(c["strata"][0]), 3))  # replicate sums of err_a, err_b, n
    for rows, u, r in zip(draws["corpus_strata"], c["strata"], c["row_of_item"], strict=True):
        wt = u[:, r]  # each item weighted by its speaker's count
        if c["content"] is not None:
            wt = wt * c["content"][:, c["content_of_row"][rows]]
        part = np.stack([wt @ err_a[rows], wt @ err_b[rows], wt @ n[rows]], axis=1)
        if scaled:
            k = u.shape[1]
            point = np.array([err_a[rows].sum(), err_b[rows].sum(), n[rows].sum()])
            part = point + _factor(k) * (part - point)
        tot += part
    delta = tot[:, 1] / tot[:, 2] - tot[:, 0] / tot[:, 2]
    point = err_b.sum() / n.sum() - err_a.sum() / n.sum()
    if c["content"] is not None:  # the two-way correction (docs/METHODS.md)
        delta = point + (delta - point) * _numpy_two_way_factor(a, draws, err_b - err_a - point * n)
    return np.percentile(delta, [2.5, 97.5]), point


def _numpy_two_way_factor(a, draws, y):
    """√(moment / bootstrap variance) × t/z of the corpus WER difference, its per-item
    linearisation ``y`` (e_B − e_A − Δ·n, over N) tabulated by speaker × sentence."""
    from scipy.stats import norm, t

    y = y / a["n_words"].sum()
    contents = pd.factorize(a["content_id"])[0]
    C = contents.max() + 1
    tabs, tabs_c = [], []
    for rows in draws["corpus_strata"]:
        spk = pd.factorize(a["speaker_id"].to_numpy()[rows])[0]
        for out, v in ((tabs, y[rows]), (tabs_c, y[rows] - y[rows].mean())):
            T = np.zeros((spk.max() + 1, C))
            np.add.at(T, (spk, contents[rows]), v)
            out.append(T)
    boot, mom = 0.0, 0.0
    for h, (T, Tc) in enumerate(zip(tabs, tabs_c, strict=True)):
        k, tot = T.shape[0], T.sum()
        R, K = T.sum(axis=1), T.sum(axis=0)
        boot += (1 - 1 / C) * R @ R + (1 - 1 / k) * K @ K + (T**2).sum()
        boot -= (1 / k + 1 / C - 1 / (k * C)) * tot**2
        Rc, Kc = Tc.sum(axis=1), Tc.sum(axis=0)
        mom += (Rc @ Rc + Kc @ Kc - (Tc**2).sum()) / ((1 - 1 / k) * (1 - 1 / C))
        for T2, Tc2 in zip(tabs[:h], tabs_c[:h], strict=True):
            boot += 2 * (K @ T2.sum(axis=0) - tot * T2.sum() / C)
            mom += 2 * (Kc @ Tc2.sum(axis=0)) / (1 - 1 / C)
    G = min(C, *(T.shape[0] for T in tabs))
    return min(1.0, math.sqrt(mom / boot) * t.ppf(0.975, G - 1) / norm.ppf(0.975))


@pytest.mark.parametrize("design, scheme", [("matched", "two_way"), ("unmatched", "speaker")])
def test_corpus_difference_ci_equals_numpy_with_the_same_counts(wer, em, design, scheme):
    a, b = _two_systems(design)
    r = compare_systems(
        {"A": a, "B": b},
        [wer, em],
        AuditSettings(n_bootstrap=400),
        keep_draws=True,
        audits=False,
    )
    d = r.difference("B", "wer")
    assert r.draws["corpus_scheme"] == scheme == d.estimator
    (lo, hi), delta = _numpy_corpus_ci(a, b, r.draws, scaled=scheme == "speaker")
    assert d.difference == pytest.approx(delta, abs=1e-12)
    assert (d.ci_low, d.ci_high) == pytest.approx((lo, hi), abs=1e-9)
    assert r.draws["corpus"]["strata"][0].shape[0] == r.bootstrap.used
    assert ("two_way_corrected" in d.flags) == (scheme == "two_way")


def test_gap_difference_equals_numpy_with_the_same_counts(wer):
    a, b = _two_systems("unmatched", seed=3)
    r = compare_systems(
        {"A": a, "B": b}, [wer], AuditSettings(n_bootstrap=300), keep_draws=True, audits=False
    )
    g = next(x for x in r.groups if x != r.reference)
    gd = r.gap_difference("B", "wer", g)
    assert gd.estimator == "speaker"
    counts = r.draws["gaps"][g]
    ids = list(r.draws["item_ids"])
    meta = a.set_index("item_id").loc[ids]

    def side_wer(frame, grp, u, labels):
        f = frame.set_index("item_id").loc[ids]
        f = f[meta["group"] == grp]
        err = (f["n_sub"] + f["n_del"] + f["n_ins"]).to_numpy(float)
        n = f["n_words"].to_numpy(float)
        spk = pd.factorize(meta.loc[meta["group"] == grp, "speaker_id"])[0]
        # counts columns are in the order of the side's speaker codes (first appearance)
        assert len(labels) == u.shape[1]
        w = u[:, spk]
        v, reps = err.sum() / n.sum(), (w @ err) / (w @ n)
        k = u.shape[1]
        return v, v + _factor(k) * (reps - v)

    gaps = {}
    for name, f in (("A", a), ("B", b)):
        vg, rg = side_wer(f, g, counts["group"], counts["group_rows"])
        vr, rr = side_wer(f, r.reference, counts["reference"], counts["reference_rows"])
        gaps[name] = (vg - vr, rg - rr)
    delta = gaps["B"][0] - gaps["A"][0]
    reps = gaps["B"][1] - gaps["A"][1]
    assert gd.difference == pytest.approx(delta, abs=1e-12)
    assert (gd.ci_low, gd.ci_high) == pytest.approx(tuple(np.percentile(reps, [2.5, 97.5])))
    p = (1 + np.count_nonzero(np.abs(reps - delta) >= abs(delta))) / (len(reps) + 1)
    assert gd.p_value == pytest.approx(p)


def test_holm_runs_over_every_system_and_gap_test_and_b_is_raised(wer, em):
    a, b = _two_systems("matched", seed=1)
    s = AuditSettings(n_bootstrap=200)
    r = compare_systems({"A": a, "B": b}, [wer, em], s, audits=False)
    # corpus + 2 groups + 1 gap difference, per metric
    assert r.bootstrap.comparisons == 8
    assert r.bootstrap.used == math.ceil(5 * 8 / s.alpha)
    tests = [*r.differences, *r.gap_differences]
    p = np.array([t.p_value for t in tests])
    adj = np.array([t.p_adjusted for t in tests])
    np.testing.assert_allclose(adj, holm_adjust(p), equal_nan=True)
    assert r.bootstrap.family == int(np.isfinite(p).sum())


def test_common_items_drop_and_list_each_systems_failures(wer):
    a, b = _two_systems("matched", seed=2)
    b = b.drop(index=[5]).copy()
    b.loc[7, "n_sub"] = np.nan
    r = compare_systems(
        {"A": a, "B": b}, [wer], AuditSettings(n_bootstrap=200), failed={"A": ["i9"]}, audits=False
    )
    assert r.common.failed == {"A": ("i9",), "B": ("i5", "i7")}
    assert r.common.n_items == len(a) - 3
    assert r.common.per_system == {"A": len(a) - 1, "B": len(a) - 2}


def test_repeated_item_id_is_refused_with_its_id(wer):
    a, b = _two_systems("matched")
    b.loc[1, "item_id"] = "i0"
    with pytest.raises(ValueError, match="'i0' occurs more than once .* system 'B'"):
        compare_systems({"A": a, "B": b}, [wer], audits=False)


def test_identical_systems_are_not_estimable_not_no_difference(wer):
    a, _ = _two_systems("matched")
    r = compare_systems(
        {"A": a, "B": a.copy()}, [wer], AuditSettings(n_bootstrap=200), audits=False
    )
    assert {d.verdict for d in r.differences} == {"not_estimable"}
    assert {d.verdict for d in r.gap_differences} == {"not_estimable"}
    assert all(math.isnan(d.p_adjusted) for d in r.differences)


def test_per_system_audits_run_on_the_common_items(wer):
    a, b = _two_systems("matched")
    b = b.drop(index=[0])
    r = compare_systems({"A": a, "B": b}, [wer], AuditSettings(n_bootstrap=200))
    for name in ("A", "B"):
        assert sum(gi.n_items for gi in r.audits[name].groups) == len(a) - 1


# -------------------------------------------------------------- verdict rules by hand
T, ALPHA = 0.05, 0.05


@pytest.mark.parametrize(
    "delta, p, mde, hib, expected",
    [
        (-0.08, 0.01, 0.02, False, "better"),  # lower error
        (0.08, 0.01, 0.02, False, "worse"),
        (0.08, 0.01, 0.02, True, "better"),  # higher exact match
        (0.02, 0.01, 0.02, False, "difference_small"),
        (0.02, 0.20, 0.09, False, "inconclusive_underpowered"),
        (0.01, 0.20, 0.03, False, "no_difference_detected"),
        (0.05, 0.049, 0.0, False, "worse"),  # |Δ| = threshold counts as practical
    ],
)
def test_system_verdicts(delta, p, mde, hib, expected):
    assert system_verdict(delta, p, mde, T, ALPHA, hib) == expected


@pytest.mark.parametrize(
    "gap_a, gap_b, p, mde, expected",
    [
        (0.12, 0.04, 0.01, 0.02, "fairer"),  # same sign, smaller
        (0.06, -0.01, 0.01, 0.02, "fairer"),  # flips but |gap_B| below the threshold
        (0.08, -0.07, 0.01, 0.02, "reversed"),  # flips and still practical
        (0.02, -0.06, 0.01, 0.02, "reversed"),  # flips and grows: the other side loses now
        (0.04, 0.10, 0.01, 0.02, "less_fair"),
        (0.10, 0.08, 0.01, 0.02, "difference_small"),
        (0.10, 0.04, 0.30, 0.09, "inconclusive_underpowered"),
        (0.10, 0.09, 0.30, 0.03, "no_difference_detected"),
        (0.10, 0.04, math.nan, 0.03, "not_computable"),
    ],
)
def test_gap_verdicts(gap_a, gap_b, p, mde, expected):
    assert gap_verdict(gap_a, gap_b, p, mde, T, ALPHA) == expected


def test_planted_narrowing_reads_fairer(wer):
    rng = np.random.default_rng(5)
    a = simulate_audit(rng, {"adult": 0.0, "child": 1.0}, speakers_per_group=40)
    a["item_id"] = np.arange(len(a))
    b = a.copy()
    child = (b["group"] == "child").to_numpy()
    b.loc[child, "n_sub"] = rng.binomial(b.loc[child, "n_sub"].to_numpy(), 0.3)
    r = compare_systems(
        {"A": a, "B": b}, [wer], AuditSettings(n_bootstrap=500), reference="adult", audits=False
    )
    gd = r.gap_difference("B", "wer", "child")
    assert gd.baseline_gap > gd.gap > 0
    assert gd.verdict == "fairer"
    assert r.difference("B", "wer", "child").verdict == "better"
