"""CI bounds stay inside the metric's range (docs/METHODS.md, "Bounds stay inside the metric's
range"): the small-cluster scaling can push a percentile bound past what the metric can take
(a hallucination rate of 1 flagged in 200 got a negative lower bound); every CI of a group or
corpus value is clamped and flagged ``bound_clamped``; a gap's CI stops at the largest gap the
two ranges allow."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm, t

from fairdesk.cli import main
from fairdesk.metrics.registry import (
    BOUND_CLAMPED,
    METRICS,
    clamp_gap_interval,
    clamp_value_interval,
    gap_range,
    metric_range,
)

WORDS = "the quick brown fox jumps over a lazy dog today".split()


def _one_flagged_table() -> pd.DataFrame:
    """Two groups of 10 speakers × 10 utterances; one utterance of group a runs away (its
    hypothesis has more than 2 × its reference words + 5): 1 flagged in 200."""
    rng = np.random.default_rng(1)
    rows = []
    for g in ("a", "b"):
        for s in range(10):
            for _ in range(10):
                ref = " ".join(rng.choice(WORDS, 6))
                hyp = ref if rng.random() > 0.3 else " ".join(ref.split()[:-1])
                rows.append(
                    {"reference": ref, "hypothesis": hyp, "speaker_id": f"{g}{s}", "grp": g}
                )
    rows[5]["hypothesis"] = rows[5]["reference"] + " " + " ".join(["and then"] * 12)
    return pd.DataFrame(rows)


def _factor(k: int) -> float:
    return math.sqrt(k / (k - 1)) * t.ppf(0.975, k - 1) / norm.ppf(0.975)


def test_metric_ranges():
    for m in ("wer", "cer", "der", "sub_rate", "ins_rate", "wer_unflagged", "ter"):
        assert metric_range(m) == (0.0, math.inf)
    for m in ("em", "accuracy", "intent_accuracy", "hallucination_rate", "rdd"):
        assert metric_range(m) == (0.0, 1.0)
        assert METRICS[m].value_range == (0.0, 1.0)
    assert metric_range("balanced_accuracy") == (0.0, 1.0)
    assert metric_range("diacritic_net_loss") == (-math.inf, 1.0)
    assert metric_range("no_such_metric") == (-math.inf, math.inf)
    assert gap_range("em") == (-1.0, 1.0) and gap_range("em", 2) == (-2.0, 2.0)
    assert gap_range("wer") == (-math.inf, math.inf)


def test_clamp_helpers():
    assert clamp_value_interval("hallucination_rate", -0.004, 0.015) == (0.0, 0.015, True)
    assert clamp_value_interval("em", 0.9, 1.03) == (0.9, 1.0, True)
    assert clamp_value_interval("wer", 0.1, 1.7) == (0.1, 1.7, False)  # WER may exceed 1
    assert clamp_value_interval("wer", -0.01, 0.2) == (0.0, 0.2, True)
    lo, hi, c = clamp_value_interval("wer", math.nan, math.nan)
    assert math.isnan(lo) and math.isnan(hi) and not c
    # gaps are not clamped at 0, only at the largest gap the ranges allow
    assert clamp_gap_interval("em", -0.3, 0.2) == (-0.3, 0.2, False)
    assert clamp_gap_interval("em", -1.2, 0.2) == (-1.0, 0.2, True)
    assert clamp_gap_interval("wer", -3.0, 5.0) == (-3.0, 5.0, False)
    assert clamp_gap_interval("accuracy", -2.4, 1.1, span=2) == (-2.0, 1.1, True)


def test_one_flagged_in_200_has_lower_bound_0_and_the_flag_in_the_api():
    from fairdesk.api import audit_table
    from fairdesk.stats.bootstrap import comparison_rng, draw_counts

    df = _one_flagged_table()
    B = 500
    run = audit_table(df, by="grp", reference="b", n_bootstrap=B)
    a = next(g for g in run.groups if g.group == "a")
    assert a.values["hallucination_rate"] == pytest.approx(1 / 100)
    assert a.ci_scheme["hallucination_rate"] == "speaker"
    # the unclamped interval, recomputed here: the group's speakers drawn as the audit draws
    # them, each replicate's rate moved from 1/100 by the t factor with k = 10
    spk = pd.factorize(df.loc[df["grp"] == "a", "speaker_id"])[0]
    flagged = np.zeros(100)
    flagged[5] = 1.0
    per_spk = np.stack(
        [np.bincount(spk, weights=flagged, minlength=10), np.bincount(spk, minlength=10)], 1
    )
    u = draw_counts(comparison_rng(0, "group_ci", "a"), 10, B)
    point = per_spk.sum(0)
    reps = point + _factor(10) * (u @ per_spk - point)
    lo, hi = np.percentile(reps[:, 0] / reps[:, 1], [2.5, 97.5])
    assert lo < 0  # what the scaling alone gives
    assert list(a.ci["hallucination_rate"]) == [0.0, pytest.approx(hi, rel=1e-12)]
    assert list(a.ci_flags["hallucination_rate"]) == [BOUND_CLAMPED]
    assert "wer" not in a.ci_flags  # WER's interval was not clamped
    overall = run.summary["hallucination_rate"].overall
    assert overall["ci"][0] == 0.0 and BOUND_CLAMPED in overall["flags"]
    # no CI bound of a group or corpus value outside its metric's range, for any metric
    for g in run.groups:
        for m, ci in (g.ci or {}).items():
            if ci:
                lo_m, hi_m = metric_range(m)
                assert lo_m <= ci[0] <= ci[1] <= hi_m, (g.group, m, ci)
    for m, s in run.summary.items():
        ci = (s.overall or {}).get("ci")
        if ci:
            assert metric_range(m)[0] <= ci[0] <= ci[1] <= metric_range(m)[1]


def test_one_flagged_in_200_in_the_console_and_json(tmp_path, capsys):
    path = tmp_path / "t.csv"
    _one_flagged_table().to_csv(path, index=False)
    out = tmp_path / "r.json"
    args = ["audit", "--table", str(path), "--by", "grp", "--reference", "b"]
    assert main([*args, "--n-bootstrap", "400", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    (row,) = [x for x in text.splitlines() if x.startswith("a ")]
    assert "[-" not in row  # no negative bound of a value
    assert " 1.0 [0.0, " in row  # the hallucination rate 1.0% [0.0, ...]
    (note,) = [x for x in text.splitlines() if x.startswith("bound_clamped:")]
    assert note.startswith("bound_clamped: the Halluc. CI of a, (corpus) reached past")
    assert "(0.0% to 100.0%)" in note
    doc = json.loads(out.read_text())
    ga = next(g for g in doc["groups"] if g["group"] == "a")
    assert ga["ci"]["hallucination_rate"][0] == 0.0
    assert ga["ci_flags"]["hallucination_rate"] == [BOUND_CLAMPED]
    assert doc["summary"]["hallucination_rate"]["overall"]["flags"] == [BOUND_CLAMPED]


def test_gap_ci_stops_at_the_largest_gap_the_ranges_allow():
    """A proportion gap scaled by the t factor of 2 + 2 speakers (f ≈ 8.9) would reach past
    ±1: cut there, and flagged."""
    from fairdesk.metrics.registry import ratio_metric
    from fairdesk.stats import AuditSettings, compare_groups

    em = ratio_metric("em", "EM", ("em",), ("n",), higher_is_better=True, kind="proportion")
    rows = []
    for g, p in (("g", (1, 0)), ("r", (0, 1))):
        for s, v in enumerate(p):
            rows += [(g, f"{g}{s}", float(v), 1.0)] * 15
    df = pd.DataFrame(rows, columns=["group", "speaker_id", "em", "n"])
    st = AuditSettings(n_bootstrap=400, min_items=1, min_speakers=1)
    c = compare_groups(df, [em], st, reference="r").comparisons[0]
    assert c.estimator == "speaker" and "small_cluster_scaled" in c.flags
    assert -1.0 <= c.ci_low <= c.ci_high <= 1.0
    assert BOUND_CLAMPED in c.flags
    assert c.ci_low == -1.0 or c.ci_high == 1.0
    off = compare_groups(
        df, [em], AuditSettings(n_bootstrap=400, min_items=1, min_speakers=1,
                                small_cluster_scaling=False), reference="r"
    ).comparisons[0]  # fmt: skip
    assert BOUND_CLAMPED not in off.flags  # plain percentiles of gaps stay inside
