"""Small exact checks of the group and corpus CIs (``groupci``), the comparison's
not-estimable / no-variation / flag paths (``compare``) and the speaker jackknife, each
against a hand-worked value or the message word for word (issue 21: mutation survivors)."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics.registry import MetricSpec, ratio_metric
from fairdesk.stats import AuditSettings, compare_groups
from fairdesk.stats.bootstrap import (
    Side,
    bootstrap_pair,
    comparison_rng,
    jackknife_group_speakers,
)
from fairdesk.stats.compare import _leave_speakers_out
from fairdesk.stats.groupci import bootstrap_value, group_intervals, percentile_ci, value_scheme
from fairdesk.stats.jackknife import jackknife_tests

# ratio metrics on statistics (errors, words) and (hits, items); X carries a leading junk
# column so that the metric's columns are not 0..k-1
WER = ratio_metric("wer", "WER", ["e"], ["n"])
EM = ratio_metric("em", "EM", ["h"], ["k"], higher_is_better=True, kind="proportion")
# a metric without a denominator: the rule of three counts items
HITS = MetricSpec("hits", "Hits", ("h",), lambda s: s[..., 0], False, "rate", "transcription")

SPEAKER_MSG = (": speaker and group cannot be told apart, so the group's value has no "
               "estimable interval; record more speakers (--resampling utterance describes "
               "these recordings only)")
NO_VARY = "the resampled values do not vary although the items do: no interval"


def rng_for(*parts):
    return comparison_rng(0, *parts)


# --------------------------------------------------------------------------- value_scheme

# (requested, has_speakers, content_shared) -> scheme, written out from the docstring:
# utterance when asked or with neither speakers nor shared content; content asked: content
# with shared content, else speaker (speaker ids) or utterance; otherwise speaker ids give
# two_way (shared content, auto/two_way asked) or speaker; shared content alone: content.
TABLE = {
    ("auto", True, True): "two_way", ("auto", True, False): "speaker",
    ("auto", False, True): "content", ("auto", False, False): "utterance",
    ("two_way", True, True): "two_way", ("two_way", True, False): "speaker",
    ("two_way", False, True): "content", ("two_way", False, False): "utterance",
    ("speaker", True, True): "speaker", ("speaker", True, False): "speaker",
    ("speaker", False, True): "content", ("speaker", False, False): "utterance",
    ("content", True, True): "content", ("content", True, False): "speaker",
    ("content", False, True): "content", ("content", False, False): "utterance",
    ("utterance", True, True): "utterance", ("utterance", True, False): "utterance",
    ("utterance", False, True): "utterance", ("utterance", False, False): "utterance",
}


@pytest.mark.parametrize("key", sorted(TABLE))
def test_value_scheme_truth_table(key):
    requested, has_spk, shared = key
    assert value_scheme(has_spk, 5, 5, shared, requested) == (TABLE[key], None)


def test_value_scheme_minimum_units_and_messages():
    for requested, shared in (("speaker", False), ("two_way", True), ("auto", True)):
        assert value_scheme(True, 1, 9, shared, requested) == (None, "one speaker" + SPEAKER_MSG)
        assert value_scheme(True, 0, 9, shared, requested) == (None, "no speaker" + SPEAKER_MSG)
        assert value_scheme(True, 2, 9, shared, requested)[1] is None
    # one item is enough for speaker/content schemes: only the utterance scheme counts items
    assert value_scheme(True, 2, 1, False, "speaker") == ("speaker", None)
    assert value_scheme(False, 0, 1, True, "auto") == ("content", None)
    assert value_scheme(False, 0, 1, False, "auto") == (None, "one utterance: nothing to resample")
    assert value_scheme(True, 0, 1, True, "utterance") == (
        None, "one utterance: nothing to resample")
    assert value_scheme(False, 0, 2, False, "auto") == ("utterance", None)
    # the utterance scheme never asks for speakers
    assert value_scheme(True, 1, 2, False, "utterance") == ("utterance", None)


# --------------------------------------------------------------------------- group_intervals


def _gi(X, specs_cols, codes, labels, analysed=(), speakers=None, contents=None, *,
        requested="auto", scale=False, n_rep=200):
    return group_intervals(
        np.asarray(X, dtype=float), specs_cols, np.asarray(codes), list(labels),
        list(analysed), None if speakers is None else np.asarray(speakers, dtype=np.int64),
        None if contents is None else np.asarray(contents, dtype=np.int64),
        requested=requested, scale=scale, n_rep=n_rep, rng_for=rng_for,
    )


def test_speaker_counts_with_missing_codes_and_not_estimable_messages():
    # columns: junk, errors, words; group a: one speaker (code 0) three times; b: speaker 1
    # and a missing speaker (its own speaker: 2); c: speakers 2, 3
    X = [[7, 1, 4], [5, 2, 4], [6, 0, 4],
         [1, 1, 5], [2, 3, 5],
         [3, 1, 2], [4, 2, 3]]
    codes = [0, 0, 0, 1, 1, 2, 2]
    spk = [0, 0, 0, 1, -1, 2, 3]
    per, overall = _gi(X, [(WER, [1, 2])], codes, ["a", "b", "c"], speakers=spk)
    assert per["a"] == {"ci": {"wer": None}, "ci_scheme": {"wer": "not_estimable"},
                        "ci_note": {"wer": "one speaker" + SPEAKER_MSG}, "ci_scaled": False}
    for g in ("b", "c"):
        assert per[g]["ci_scheme"] == {"wer": "speaker"} and per[g]["ci_note"] == {}
        assert per[g]["ci_scaled"] is False
        lo, hi = per[g]["ci"]["wer"]
        assert lo < hi
    # the corpus pools every group: group a has one speaker
    assert overall == {"wer": {
        "value": 10 / 27, "ci": None, "scheme": "not_estimable", "n_groups": 3, "n_items": 7,
        "n_speakers": None, "n_contents": None, "scaled": False,
        "note": "a group of the corpus has one speaker" + SPEAKER_MSG}}
    # groups b and c only: two speakers in each stratum (the missing one counted)
    _, ov = _gi(X, [(WER, [1, 2])], codes, ["a", "b", "c"], ["b", "c"], speakers=spk)
    assert ov["wer"]["scheme"] == "speaker" and ov["wer"]["n_speakers"] == 4
    assert ov["wer"]["value"] == pytest.approx(7 / 15) and ov["wer"]["note"] is None
    assert ov["wer"]["n_groups"] == 2 and ov["wer"]["n_items"] == 4
    # group a alone: one speaker, whatever its code
    _, ov = _gi(X, [(WER, [1, 2])], codes, ["a", "b", "c"], ["a"], speakers=spk)
    assert ov["wer"]["note"] == "a group of the corpus has one speaker" + SPEAKER_MSG


def test_corpus_without_speakers_one_utterance():
    X = [[0, 1, 4], [0, 2, 4], [0, 1, 3]]
    per, overall = _gi(X, [(WER, [1, 2])], [0, 0, 1], ["a", "b"])
    assert per["b"]["ci_note"] == {"wer": "one utterance: nothing to resample"}
    assert per["a"]["ci_scheme"] == {"wer": "utterance"}
    assert overall["wer"]["note"] == "a group of the corpus has one utterance: nothing to resample"
    assert overall["wer"]["value"] == pytest.approx(4 / 11)
    assert overall["wer"]["n_contents"] is None and overall["wer"]["n_speakers"] is None


def test_rule_of_three_notes_use_the_denominator_sum():
    # group a: no error on 3 items of 4 words (n = 12 words); group b: every item an exact
    # match (EM 1 on 4 items); group c varies
    X = [[5, 0, 4, 0, 1], [6, 0, 4, 0, 1], [7, 0, 4, 0, 1],
         [1, 2, 3, 1, 1], [2, 1, 3, 1, 1], [3, 1, 2, 1, 1], [4, 2, 5, 1, 1],
         [1, 1, 3, 0, 1], [2, 0, 3, 1, 1], [3, 2, 2, 0, 1]]
    codes = [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    per, overall = _gi(X, [(WER, [1, 2]), (EM, [3, 4])], codes, ["a", "b", "c"])
    assert per["a"]["ci"]["wer"] == [0.0, 0.25]
    assert per["a"]["ci_scheme"]["wer"] == "rule_of_three"
    assert per["a"]["ci_note"]["wer"] == (
        "every unit gives 0: the interval is the rule-of-three bound 3/n (n = 12)")
    assert per["b"]["ci"]["em"] == [0.25, 1.0]
    assert per["b"]["ci_note"]["em"] == (
        "every unit gives 1: the interval is the rule-of-three bound 3/n (n = 4)")
    # EM 0 on 3 items: 3/3 = 1 is the proportion's upper bound
    assert per["a"]["ci"]["em"] == [0.0, 1.0]
    # a rate constant at 1 (every word wrong): no rule of three (only proportions at 1)
    X2 = [[0, 4, 4], [0, 2, 2], [0, 3, 3], [0, 1, 4], [0, 2, 4]]
    per2, _ = _gi(X2, [(WER, [1, 2])], [0, 0, 0, 1, 1], ["a", "b"])
    assert per2["a"]["ci"]["wer"] is None
    assert per2["a"]["ci_note"]["wer"] == NO_VARY
    assert per2["a"]["ci_scheme"]["wer"] == "not_estimable"
    # a rate at 0 with fewer than 3 words: 3/n above 1 is kept for a rate
    X3 = [[0, 0, 1], [0, 0, 1], [0, 1, 4], [0, 2, 4]]
    per3, _ = _gi(X3, [(WER, [1, 2])], [0, 0, 1, 1], ["a", "b"])
    assert per3["a"]["ci"]["wer"] == [0.0, 1.5]


def test_rule_of_three_without_denominator_counts_items():
    X = [[9, 0], [9, 0], [9, 0], [9, 0], [1, 2], [1, 1], [1, 3]]
    per, _ = _gi(X, [(HITS, [1])], [0, 0, 0, 0, 1, 1, 1], ["a", "b"])
    assert per["a"]["ci"]["hits"] == [0.0, 0.75]
    assert per["a"]["ci_note"]["hits"] == (
        "every unit gives 0: the interval is the rule-of-three bound 3/n (n = 4)")


def test_two_replicates_give_a_percentile_interval():
    X = [[0, 1, 4], [0, 3, 4], [0, 0, 4], [0, 1, 2], [0, 2, 2]]
    codes = np.array([0, 0, 0, 1, 1])
    per, _ = _gi(X, [(WER, [1, 2])], codes, ["a", "b"], n_rep=2)
    vb = bootstrap_value(np.asarray(X, float), [np.flatnonzero(codes == 0)], None, None,
                         "utterance", 2, rng_for("group_ci", "a"))
    reps = vb.reps[:, 1] / vb.reps[:, 2]
    assert np.ptp(reps) > 0  # the test needs two different replicates
    assert per["a"]["ci"]["wer"] == list(percentile_ci(reps))
    assert per["a"]["ci_scheme"]["wer"] == "utterance"


def _spread_case(offset, scale=1e12):
    """Two items of ``scale`` words, the second ``offset`` errors above ratio 1/2."""
    X = np.array([[0, scale / 2, scale], [0, scale / 2 + offset, scale],
                  [0, 1, 4], [0, 2, 4]])
    codes = np.array([0, 0, 1, 1])
    return X, codes


def _rep_spread(X, codes, n_rep):
    vb = bootstrap_value(X, [np.flatnonzero(codes == 0)], None, None, "utterance", n_rep,
                         rng_for("group_ci", "a"))
    r = vb.reps[:, 1] / vb.reps[:, 2]
    return float(np.ptp(r)), float(vb.point[1] / vb.point[2])


def test_replicate_spread_tolerance_is_relative_to_max_one_and_value():
    # value near 1/2, replicate spread between 1e-12 and 2e-12: an interval (tolerance
    # 1e-12 · max(1, |v|) = 1e-12)
    X, codes = _spread_case(1.5)
    spread, v = _rep_spread(X, codes, 200)
    assert 1.05e-12 < spread < 1.95e-12 and v < 1
    per, _ = _gi(X, [(WER, [1, 2])], codes, ["a", "b"])
    assert per["a"]["ci_scheme"]["wer"] == "utterance" and per["a"]["ci"]["wer"] is not None
    # value 1e6, spread well below 1e-12 · 1e6 but far above 1e-12 / 1e6: no interval
    X = np.array([[0, 1e13, 1e7], [0, 1e13 + 1, 1e7], [0, 1, 4], [0, 2, 4]])
    spread, v = _rep_spread(X, codes, 200)
    assert 1e-10 < spread < 5e-7 and v == pytest.approx(1e6)
    per, _ = _gi(X, [(WER, [1, 2])], codes, ["a", "b"])
    assert per["a"]["ci"]["wer"] is None and per["a"]["ci_note"]["wer"] == NO_VARY


def _crossed(n_groups=2, spk_per_group=3, contents_per=6, shift=0, seed=1):
    """Every speaker reads contents 0..contents_per-1 (group g's ids shifted by g·shift)."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_groups):
        for s in range(spk_per_group):
            for c in range(contents_per):
                w = int(rng.integers(3, 9))
                rows.append((g, g * spk_per_group + s, g * shift + c, int(rng.integers(0, w)), w))
    a = np.array(rows)
    X = np.column_stack([np.ones(len(a)), a[:, 3], a[:, 4]]).astype(float)
    return X, a[:, 0], a[:, 1], a[:, 2]


def test_corpus_shared_content_counted_on_the_pooled_groups_only():
    # groups 0 and 1 read different sentences; group 2 reads group 0's: pooling 0 and 1
    # shares nothing (speaker scheme), pooling 0 and 2 shares 6 (two_way)
    X, codes, spk, cont = _crossed(n_groups=3, shift=10)
    cont = np.where(codes == 2, cont - 20, cont)
    labels = ["a", "b", "c"]
    _, ov = _gi(X, [(WER, [1, 2])], codes, labels, ["a", "b"], spk, cont)
    assert ov["wer"]["scheme"] == "speaker" and ov["wer"]["n_contents"] is None
    _, ov = _gi(X, [(WER, [1, 2])], codes, labels, ["a", "c"], spk, cont)
    assert ov["wer"]["scheme"] == "two_way" and ov["wer"]["n_contents"] == 6


def test_corpus_shared_content_boundary_of_five():
    X, codes, spk, cont = _crossed(contents_per=5)
    _, ov = _gi(X, [(WER, [1, 2])], codes, ["a", "b"], (), spk, cont)
    assert ov["wer"]["scheme"] == "two_way" and ov["wer"]["n_contents"] == 5
    X, codes, spk, cont = _crossed(contents_per=5, shift=1)  # 4 shared
    _, ov = _gi(X, [(WER, [1, 2])], codes, ["a", "b"], (), spk, cont)
    assert ov["wer"]["scheme"] == "speaker"


def test_scaling_reaches_the_group_and_corpus_intervals():
    X, codes, spk, _ = _crossed()
    per0, ov0 = _gi(X, [(WER, [1, 2])], codes, ["a", "b"], (), spk, requested="speaker")
    per1, ov1 = _gi(X, [(WER, [1, 2])], codes, ["a", "b"], (), spk, requested="speaker",
                    scale=True)
    assert per0["a"]["ci_scaled"] is False and per1["a"]["ci_scaled"] is True
    assert ov0["wer"]["scaled"] is False and ov1["wer"]["scaled"] is True
    # the group's value: same draws, deviations scaled by sqrt(3/2); the CI is affine in them
    v = per0["a"]["ci"]["wer"], per1["a"]["ci"]["wer"]
    assert v[0] != v[1]
    lo0, hi0 = ov0["wer"]["ci"]
    lo1, hi1 = ov1["wer"]["ci"]
    assert hi1 - lo1 > hi0 - lo0


# --------------------------------------------------------------------------- compare_groups

W = ratio_metric("wer", "WER", ["n_sub"], ["n_words"])
E = ratio_metric("em", "EM", ["em"], ["n_items"], higher_is_better=True, kind="proportion")


def _frame(rows, speakers=True, contents=False):
    """rows: (group, speaker, content, n_sub, n_words, em)."""
    df = pd.DataFrame(rows, columns=["group", "speaker_id", "content_id", "n_sub", "n_words",
                                     "em"])
    df["n_items"] = 1
    if not speakers:
        df = df.drop(columns="speaker_id")
    if not contents:
        df = df.drop(columns="content_id")
    return df


def _run(df, specs=(W,), **kw):
    s = dict(n_bootstrap=200, min_items=1, min_speakers=1)
    s.update(kw)
    return compare_groups(df, list(specs), AuditSettings(**s), reference="r")


def _one(res, metric="wer"):
    (c,) = [c for c in res.comparisons if c.metric == metric]
    return c


def _assert_no_test(c):
    for f in ("effect_size", "ci_low", "ci_high", "p_value", "p_adjusted", "mde"):
        v = getattr(c, f)
        assert isinstance(v, float) and math.isnan(v), f


ONE_SPEAKER_REASON = (
    "one speaker in g: speaker and group cannot be told apart, so no interval for the group "
    "can be estimated; record more speakers (--resampling utterance gives an interval that "
    "describes these recordings of this speaker only)")


def test_not_estimable_comparison_every_field():
    # g: one speaker, 4 errors in 16 words; r: one speaker, 2 errors in 25 words
    rows = [("g", "s1", None, e, 4, 0) for e in (1, 2, 0, 1)]
    rows += [("r", "s2", None, e, 5, 0) for e in (0, 1, 0, 0, 1)]
    c = _one(_run(_frame(rows)))
    assert (c.metric, c.group, c.reference) == ("wer", "g", "r")
    assert c.value == pytest.approx(0.25) and c.reference_value == pytest.approx(0.08)
    assert c.gap == pytest.approx(0.17) and c.ratio == pytest.approx(3.125)
    _assert_no_test(c)
    assert c.estimator == "none" and c.verdict == "not_estimable" and c.direction == "worse"
    assert c.design == "unmatched" and c.flags == ("content_confounded",)
    assert c.n_blocks == {"group_speakers": None, "reference_speakers": None, "contents": None,
                          "group_items": 4, "reference_items": 5}
    assert c.n_items == 4 and c.n_speakers is None
    assert c.reason == ONE_SPEAKER_REASON and c.no_variation is None
    assert c.reading == ("WER is 0.25 for g vs 0.08 for the reference r, but no verdict is "
                         "possible: " + ONE_SPEAKER_REASON + ".")


NO_VARIATION_READING = (
    "WER is 0 on every item of both g and the reference r: there is no variation to compare, "
    "which is not evidence of no disparity. With 12 and 10 reference words, the rate of the "
    "other outcome is below 0.25 in g and 0.3 in r (rule of three, 95%); test more or harder "
    "material to tell the groups apart.")


@pytest.mark.parametrize("two_speakers", [False, True])
def test_no_variation_comparison_every_field(two_speakers):
    # no error anywhere: g 3 items × 4 words, r 5 items × 2 words
    spk_g = ["s1", "s2", "s1"] if two_speakers else ["s1"] * 3
    spk_r = ["s3", "s4", "s3", "s4", "s3"] if two_speakers else ["s3"] * 5
    rows = [("g", s, None, 0, 4, 1) for s in spk_g] + [("r", s, None, 0, 2, 1) for s in spk_r]
    res = _run(_frame(rows), specs=(W, E))
    c = _one(res)
    assert (c.group, c.reference, c.value, c.reference_value, c.gap) == ("g", "r", 0.0, 0.0, 0.0)
    assert c.direction == "equal" and c.verdict == "no_variation"
    _assert_no_test(c)
    assert c.estimator == ("speaker" if two_speakers else "none")
    assert c.flags == ("content_confounded",) and c.reason is None
    assert c.no_variation == {"value": 0.0, "unit": "reference words", "n_group": 12.0,
                              "n_reference": 10.0, "bound_group": 0.25, "bound_reference": 0.3}
    assert c.reading == NO_VARIATION_READING
    k = 2 if two_speakers else None
    assert c.n_blocks == {"group_speakers": k, "reference_speakers": k, "contents": None,
                          "group_items": 3, "reference_items": 5}
    assert c.n_items == 3 and c.n_speakers == k
    m = _one(res, "em")  # every item an exact match: constant at 1 on both sides
    assert (m.value, m.reference_value, m.gap, m.verdict) == (1.0, 1.0, 0.0, "no_variation")
    assert m.no_variation["unit"] == "items" and m.no_variation["n_group"] == 3.0


def test_constant_sides_tolerance_relative_to_max_one_and_value():
    # both sides constant; the values differ by 1.5e-12 at 0.5 (beyond 1e-12 · max(1, 0.5)):
    # not no_variation
    big = 10**12
    rows = [("g", s, None, big // 2, big, 0) for s in ("a", "b", "a")]
    rows += [("r", s, None, big // 2 + 1.5, big, 0) for s in ("c", "d", "c")]
    assert _one(_run(_frame(rows))).verdict != "no_variation"
    # at 1e6 the values differ by 1e-7, within 1e-12 · 1e6: no_variation
    rows = [("g", s, None, 10**13, 10**7, 0) for s in ("a", "b", "a")]
    rows += [("r", s, None, 10**13 + 1, 10**7, 0) for s in ("c", "d", "c")]
    assert _one(_run(_frame(rows))).verdict == "no_variation"


ZERO_SPREAD_REASON = (
    "the resampled gaps do not vary although the items do, so the data cannot show how "
    "uncertain the gap is; record more speakers and sentences")


def test_gaps_without_spread_are_not_estimable():
    # every speaker of g at 1/2, of r at 1/4: every replicate gap is exactly 1/4
    rows = [("g", "s1", None, 1, 4, 0), ("g", "s1", None, 3, 4, 0),
            ("g", "s2", None, 2, 4, 0), ("g", "s2", None, 2, 4, 0),
            ("r", "s3", None, 1, 4, 0), ("r", "s3", None, 1, 4, 0),
            ("r", "s4", None, 0, 4, 0), ("r", "s4", None, 2, 4, 0)]
    c = _one(_run(_frame(rows)))
    assert c.verdict == "not_estimable" and c.estimator == "speaker"
    assert c.reason == ZERO_SPREAD_REASON and c.flags == ("content_confounded",)
    assert (c.value, c.reference_value, c.gap) == (0.5, 0.25, 0.25)
    _assert_no_test(c)
    assert c.n_blocks == {"group_speakers": 2, "reference_speakers": 2, "contents": None,
                          "group_items": 4, "reference_items": 4}
    assert c.reading == ("WER is 0.5 for g vs 0.25 for the reference r, but no verdict is "
                         "possible: " + ZERO_SPREAD_REASON + ".")


def test_undefined_gap_keeps_nan_effect_size():
    rows = [("g", s, None, 0, 0, 0) for s in ("s1", "s2", "s1")]
    rows += [("r", s, None, e, 4, 0) for s, e in (("s3", 1), ("s4", 0), ("s3", 2))]
    c = _one(_run(_frame(rows)))
    assert math.isnan(c.value) and math.isnan(c.gap) and c.verdict == "not_computable"
    assert isinstance(c.effect_size, float) and math.isnan(c.effect_size)


def _random_rows(groups=("g", "r"), n_spk=3, n_cont=6, shift=0, seed=3, extra=0):
    rng = np.random.default_rng(seed)
    rows = []
    for gi, g in enumerate(groups):
        for s in range(n_spk):
            for c in range(n_cont):
                w = int(rng.integers(3, 9))
                rows.append((g, f"{g}{s}", f"c{gi * shift + c}", int(rng.integers(0, w)), w,
                             int(rng.integers(0, 2))))
            if gi == 0:
                for x in range(extra):  # items on sentences only this group read
                    rows.append((g, f"{g}{s}", f"x{x}", int(rng.integers(0, 3)), 5, 0))
    return rows


def test_undefined_replicates_flag():
    # g: only speaker s1 has words; a replicate drawing only s2/s3 has no words (undefined)
    rows = [("g", "s1", None, 1, 4, 0), ("g", "s1", None, 2, 4, 0),
            ("g", "s2", None, 0, 0, 0), ("g", "s3", None, 0, 0, 0)]
    rows += [("r", f"t{i % 3}", None, i % 2, 4, 0) for i in range(9)]
    c = _one(_run(_frame(rows)))
    assert c.flags == ("content_confounded", "undefined_replicates_dropped",
                       "fewer_than_10_speakers")
    # every replicate defined: no such flag
    c = _one(_run(_frame(_random_rows(shift=100), contents=True)))
    assert c.estimator == "speaker"
    assert c.flags == ("content_confounded", "fewer_than_10_speakers")


@pytest.mark.parametrize("shift,resampling,k", [(100, "speaker", 3), (0, "two_way", 3),
                                                (100, "auto", 4)])
def test_small_cluster_scaling_widens_the_gap_ci_by_sqrt_k_over_k_minus_1(shift, resampling, k):
    df = _frame(_random_rows(n_spk=k, shift=shift), contents=True)
    plain = _one(_run(df, resampling=resampling))
    scaled = _one(_run(df, resampling=resampling, small_cluster_scaling=True))
    assert plain.estimator == scaled.estimator == ("two_way" if shift == 0 else "speaker")
    f = math.sqrt(k / (k - 1))
    assert scaled.ci_high - scaled.ci_low == pytest.approx(f * (plain.ci_high - plain.ci_low),
                                                           rel=1e-9)
    # the interval is affine in the replicate deviations around the gap
    assert scaled.ci_low - scaled.gap == pytest.approx(f * (plain.ci_low - plain.gap), rel=1e-9)
    assert scaled.mde == pytest.approx(f * plain.mde, rel=1e-9)
    assert "small_cluster_scaled" in scaled.flags and "small_cluster_scaled" not in plain.flags
    # (the wider interval may no longer exclude 0 on its own)
    other = {"small_cluster_scaled", "significant_before_multiplicity_adjustment"}
    assert [x for x in scaled.flags if x not in other] == [
        x for x in plain.flags if x not in other]
    assert "conditional_on_speakers" not in scaled.flags


def test_scaling_leaves_the_content_scheme_alone():
    df = _frame(_random_rows(), contents=True)
    plain = _one(_run(df, resampling="content"))
    scaled = _one(_run(df, resampling="content", small_cluster_scaling=True))
    assert plain.estimator == "content"
    assert (scaled.ci_low, scaled.ci_high, scaled.mde) == (plain.ci_low, plain.ci_high,
                                                           plain.mde)
    assert scaled.flags == plain.flags == ("conditional_on_speakers", "fewer_than_10_speakers")


def _shared_value(rows, g):
    sel = [r for r in rows if r[0] == g and r[2].startswith("c")]
    return sum(r[3] for r in sel) / sum(r[4] for r in sel), len(sel)


@pytest.mark.parametrize("resampling", ["two_way", "content"])
def test_paired_schemes_analyse_the_shared_content(resampling):
    rows = _random_rows(extra=2)
    c = _one(_run(_frame(rows, contents=True), resampling=resampling))
    v, n = _shared_value(rows, "g")
    rv, nr = _shared_value(rows, "r")
    assert c.estimator == resampling
    assert c.value == pytest.approx(v) and c.reference_value == pytest.approx(rv)
    assert n == 18 and c.n_items == 18 and c.n_blocks["group_items"] == 18
    assert c.n_blocks["reference_items"] == nr == 18 and c.n_blocks["contents"] == 6
    assert "shared_content_subset" in c.flags
    # nothing left out: no flag
    full = _one(_run(_frame(_random_rows(), contents=True), resampling=resampling))
    assert "shared_content_subset" not in full.flags and full.n_items == 18
    # the speaker scheme analyses every item
    sp = _one(_run(_frame(rows, contents=True), resampling="speaker"))
    assert sp.n_items == 24 and "shared_content_subset" not in sp.flags
    assert sp.value == pytest.approx(sum(r[3] for r in rows if r[0] == "g")
                                     / sum(r[4] for r in rows if r[0] == "g"))


def test_reference_side_subset_flag():
    # the reference has items on sentences the group never read; the group has none
    rows = [r for r in _random_rows(extra=0)]
    rows += [("r", "r0", f"y{x}", 1, 5, 0) for x in range(3)]
    c = _one(_run(_frame(rows, contents=True), resampling="two_way"))
    assert c.n_blocks["group_items"] == 18 and c.n_blocks["reference_items"] == 18
    assert "shared_content_subset" in c.flags


def _p_rows():
    rng = np.random.default_rng(25)
    rows = []
    for g, base in (("g", 0.35), ("r", 0.25)):
        for s in range(4):
            for _ in range(6):
                rows.append((g, f"{g}{s}", None, int(rng.binomial(10, base)), 10, 0))
    return rows


def _expected_reading(c, rows, verdict_tail, caveat):
    v = sum(r[3] for r in rows if r[0] == "g") / sum(r[4] for r in rows if r[0] == "g")
    rv = sum(r[3] for r in rows if r[0] == "r") / sum(r[4] for r in rows if r[0] == "r")
    assert c.value == pytest.approx(v) and c.reference_value == pytest.approx(rv)
    return (f"WER is {v:.3g} for g vs {rv:.3g} for the reference r (gap {v - rv:+.3g}, 95% CI "
            f"{c.ci_low:.3g} to {c.ci_high:.3g}, p_adjusted {c.p_adjusted:.2g}; "
            f"speaker cluster bootstrap, 4 + 4 speakers): {verdict_tail}; the groups said "
            "different content, so the gap may reflect harder sentences rather than the group "
            f"and is not causal{caveat}.")


def test_adjusted_p_equal_to_alpha_is_not_significant():
    rows = _p_rows()
    df = _frame(rows)
    first = _one(_run(df))
    p = first.p_value
    assert 0.01 < p < 0.045 and first.p_adjusted == p and first.ci_low > 0  # one comparison
    # alpha just above p: significant, and with 4 speakers per group speaker_confounded
    above = _one(_run(df, alpha=p * 1.001))
    assert above.verdict == "speaker_confounded"
    assert above.flags == ("content_confounded", "fewer_than_10_speakers")
    assert above.reading == _expected_reading(
        above, rows, "the gap is significant (worse than the reference) but rests on too few "
        "speakers or on a single speaker, so get more speakers before concluding", "")
    # alpha equal to p: not significant; the CI alone excludes 0 (multiplicity caveat)
    at = _one(_run(df, alpha=p))
    assert at.p_adjusted == p
    assert at.flags == ("content_confounded", "fewer_than_10_speakers",
                        "significant_before_multiplicity_adjustment")
    threshold = min(0.05, 0.25 * at.reference_value)
    assert at.mde > threshold and at.verdict == "inconclusive_underpowered"
    assert at.reading == _expected_reading(
        at, rows, f"inconclusive, not fine: this sample could only detect gaps of {at.mde:.3g} "
        f"or more, above the practical threshold of {threshold:.3g}",
        "; the 95% CI excludes 0 on its own, but not once the 1 comparisons of this run are "
        "taken into account (Holm), so treat it as a lead to confirm")


@pytest.mark.parametrize("hit_in", ["g", "r"])
def test_ci_touching_zero_does_not_exclude_it(hit_in):
    # EM: one exact match among 20 items on one side, none on the other: a replicate without
    # the match gives a gap of exactly 0, so one end of the CI is exactly 0
    rows = [(g, None, None, 0, 1, int(g == hit_in and i == 0)) for g in ("g", "r")
            for i in range(20)]
    c = _one(_run(_frame(rows, speakers=False), specs=(E,)), "em")
    assert c.estimator == "utterance"
    if hit_in == "g":
        assert c.ci_low == 0.0 and c.ci_high > 0
    else:
        assert c.ci_high == 0.0 and c.ci_low < 0
    assert c.p_adjusted >= 0.05
    assert c.flags == ("content_confounded",)
    assert "excludes 0" not in c.reading


# --------------------------------------------------------------------------- speaker jackknife

def _sides(n_spk=12, seed=5, contents=False):
    rng = np.random.default_rng(seed)
    out = []
    for base in (0.5, 0.2):
        stats, spk, cont = [], [], []
        for s in range(n_spk):
            for c in range(6):
                stats.append([rng.binomial(10, base), 10])
                spk.append(f"s{s}")
                cont.append(f"c{c}")
        out.append(Side(np.array(stats, float), np.array(spk, dtype=object),
                        np.array(cont, dtype=object) if contents else None))
    return out


def test_leave_speakers_out_uses_the_jackknife_stream_of_the_pair():
    gs, rs = _sides()
    pb = bootstrap_pair(gs, rs, "speaker", 200, comparison_rng(0, "compare", "g", "r"),
                        keep_totals=True)
    rv = rs.stats[:, 0].sum() / rs.stats[:, 1].sum()
    settings = AuditSettings(seed=7)
    todo = SimpleNamespace(spec=W, status="test", p_value=0.001, reference_value=rv, jack=None)
    high = SimpleNamespace(spec=W, status="test", p_value=0.2, reference_value=rv, jack=None)
    _leave_speakers_out([todo, high], pb, {"wer": [0, 1]}, "g", "r", settings)
    jk = jackknife_group_speakers(pb, comparison_rng(7, "jackknife", "g", "r"))
    ref_reps = pb.reference_reps[:, 0] / pb.reference_reps[:, 1]
    expected = jackknife_tests(jk, W, [0, 1], ref_reps, rv)
    for got, want in zip(todo.jack, expected, strict=True):
        np.testing.assert_array_equal(got, want)
    assert high.jack is None  # p >= alpha: never significant after Holm


def test_content_jackknife_reuses_the_content_draws():
    gs, rs = _sides(n_spk=3, contents=True)
    pb = bootstrap_pair(gs, rs, "content", 50, np.random.default_rng(1), keep_counts=True)
    jk = jackknife_group_speakers(pb, np.random.default_rng(2))
    assert list(jk.speakers) == ["s0", "s1", "s2"]
    w = pb.counts["content"]  # B × C, columns in the order of counts["contents"]
    order = list(pb.counts["contents"])
    df = pd.DataFrame({"s": gs.speakers, "c": gs.contents, "e": gs.stats[:, 0],
                       "n": gs.stats[:, 1]})
    for j, sj in enumerate(["s0", "s1", "s2"]):
        kept = df[df.s != sj].groupby("c")[["e", "n"]].sum().reindex(order)
        np.testing.assert_allclose(jk.reps[j], w @ kept.to_numpy())
        np.testing.assert_allclose(jk.point[j], kept.to_numpy().sum(axis=0))


def test_speaker_jackknife_leaves_the_speaker_out_and_respects_columns():
    # one item per speaker, its statistics one-hot: a replicate's sums count the draws
    S = 5
    stats = np.column_stack([np.eye(S), np.ones(S)])
    gs = Side(stats, np.array([f"s{i}" for i in range(S)], dtype=object))
    rs = Side(stats.copy(), np.array([f"t{i}" for i in range(S)], dtype=object))
    pb = bootstrap_pair(gs, rs, "speaker", 40, np.random.default_rng(0))
    jk = jackknife_group_speakers(pb, np.random.default_rng(1))
    for j in range(S):
        assert (jk.reps[j, :, j] == 0).all()
        np.testing.assert_array_equal(jk.reps[j, :, :S].sum(axis=1), S - 1)
        np.testing.assert_array_equal(jk.reps[j, :, S], S - 1)
    # only some columns replicated: the others stay undefined
    pb = bootstrap_pair(gs, rs, "speaker", 40, np.random.default_rng(0), columns=[0, S])
    jk = jackknife_group_speakers(pb, np.random.default_rng(1))
    assert np.isnan(jk.reps[:, :, 1:S]).all()
    assert np.isfinite(jk.reps[:, :, [0, S]]).all()
    np.testing.assert_array_equal(jk.reps[:, :, S], S - 1)


def test_speaker_jackknife_messages():
    gs, rs = _sides(n_spk=2)
    pb = bootstrap_pair(gs, rs, "utterance", 20, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^The speaker jackknife needs speaker ids on the "
                                         r"group side\.$"):
        jackknife_group_speakers(pb, np.random.default_rng(0))
    one = Side(gs.stats[:6], gs.speakers[:6])
    pb = bootstrap_pair(one, rs, "speaker", 20, np.random.default_rng(0))
    assert pb.n_group_speakers == 1
    with pytest.raises(ValueError, match=r"^The speaker jackknife needs at least two "
                                         r"speakers\.$"):
        jackknife_group_speakers(pb, np.random.default_rng(0))
