"""Small exact checks of a group's own CI scheme (``value_scheme``) and of the group and
corpus CIs (``group_intervals``): messages word for word, counts and notes against
hand-worked values (issue 21: mutation survivors)."""

from dataclasses import replace

import numpy as np
import pytest

from fairdesk.metrics.registry import MetricSpec, ratio_metric
from fairdesk.presentation.interval_words import note_json_text
from fairdesk.presentation.notices import notice_text
from fairdesk.stats.bootstrap import comparison_rng
from fairdesk.stats.groupci import bootstrap_value, group_intervals, percentile_ci
from fairdesk.stats.groupci import value_scheme as _value_scheme
from fairdesk.stats.resampled import resampled_columns

# ratio metrics on statistics (errors, words) and (hits, items); X carries a leading junk
# column so that the metric's columns are not 0..k-1
WER = ratio_metric("wer", "WER", ["e"], ["n"])
EM = ratio_metric("em", "EM", ["h"], ["k"], higher_is_better=True, kind="proportion")
# a metric without a denominator: the rule of three counts items
HITS = MetricSpec("hits", "Hits", ("h",), lambda s: s[..., 0], False, "rate", "transcription")

SPEAKER_MSG = (
    ": speaker and group cannot be told apart, so the group's value has no "
    "estimable interval; record more speakers (--resampling utterance describes "
    "these recordings only)"
)
NO_VARY = "the resampled values do not vary although the items do: no interval"


def rng_for(*parts):
    return comparison_rng(0, *parts)


# --------------------------------------------------------------------------- value_scheme

# (requested, has_speakers, content_shared) -> scheme, written out from the docstring:
# utterance when asked or with neither speakers nor shared content; content asked: content
# with shared content, else speaker (speaker ids) or utterance; otherwise speaker ids give
# two_way (shared content, auto/two_way asked) or speaker; shared content alone: content.
TABLE = {
    ("auto", True, True): "two_way",
    ("auto", True, False): "speaker",
    ("auto", False, True): "content",
    ("auto", False, False): "utterance",
    ("two_way", True, True): "two_way",
    ("two_way", True, False): "speaker",
    ("two_way", False, True): "content",
    ("two_way", False, False): "utterance",
    ("speaker", True, True): "speaker",
    ("speaker", True, False): "speaker",
    ("speaker", False, True): "content",
    ("speaker", False, False): "utterance",
    ("content", True, True): "content",
    ("content", True, False): "speaker",
    ("content", False, True): "content",
    ("content", False, False): "utterance",
    ("utterance", True, True): "utterance",
    ("utterance", True, False): "utterance",
    ("utterance", False, True): "utterance",
    ("utterance", False, False): "utterance",
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
        None,
        "one utterance: nothing to resample",
    )
    assert value_scheme(False, 0, 2, False, "auto") == ("utterance", None)
    # the utterance scheme never asks for speakers
    assert value_scheme(True, 1, 2, False, "utterance") == ("utterance", None)


# --------------------------------------------------------------------------- group_intervals


def value_scheme(*args):
    """``stats.groupci.value_scheme`` with its note in today's words."""
    scheme, note = _value_scheme(*args)
    return scheme, None if note is None else notice_text(note)


def _worded(per, overall):
    """``group_intervals``' coded notes in today's words (what the statistics wrote)."""
    for g in per.values():
        g["ci_note"] = {m: notice_text(n) for m, n in g["ci_note"].items()}
    for o in overall.values():
        o["note"] = note_json_text(o["note"])
    return per, overall


def _gi(
    X,
    specs_cols,
    codes,
    labels,
    analysed=(),
    speakers=None,
    contents=None,
    *,
    requested="auto",
    scale=False,
    n_rep=200,
):
    return _worded(
        *group_intervals(
            np.asarray(X, dtype=float),
            specs_cols,
            np.asarray(codes),
            list(labels),
            list(analysed),
            None if speakers is None else np.asarray(speakers, dtype=np.int64),
            None if contents is None else np.asarray(contents, dtype=np.int64),
            requested=requested,
            scale=scale,
            n_rep=n_rep,
            rng_for=rng_for,
        )
    )


def test_speaker_counts_with_missing_codes_and_not_estimable_messages():
    # columns: junk, errors, words; group a: one speaker (code 0) three times; b: speaker 1
    # and a missing speaker (its own speaker: 2); c: speakers 2, 3
    X = [[7, 1, 4], [5, 2, 4], [6, 0, 4], [1, 1, 5], [2, 3, 5], [3, 1, 2], [4, 2, 3]]
    codes = [0, 0, 0, 1, 1, 2, 2]
    spk = [0, 0, 0, 1, -1, 2, 3]
    per, overall = _gi(X, [(WER, [1, 2])], codes, ["a", "b", "c"], speakers=spk)
    assert per["a"] == {
        "ci": {"wer": None},
        "ci_scheme": {"wer": "not_estimable"},
        "ci_note": {"wer": "one speaker" + SPEAKER_MSG},
        "ci_flags": {},
        "ci_scaled": False,
    }
    for g in ("b", "c"):
        assert per[g]["ci_scheme"] == {"wer": "speaker"} and per[g]["ci_note"] == {}
        assert per[g]["ci_scaled"] is False
        lo, hi = per[g]["ci"]["wer"]
        assert lo < hi
    # the corpus pools every group: group a has one speaker
    assert overall == {
        "wer": {
            "value": 10 / 27,
            "ci": None,
            "scheme": "not_estimable",
            "n_groups": 3,
            "n_items": 7,
            "n_speakers": None,
            "n_contents": None,
            "scaled": False,
            "note": "a group of the corpus has one speaker" + SPEAKER_MSG,
            "flags": [],
        }
    }
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
    X = [
        [5, 0, 4, 0, 1],
        [6, 0, 4, 0, 1],
        [7, 0, 4, 0, 1],
        [1, 2, 3, 1, 1],
        [2, 1, 3, 1, 1],
        [3, 1, 2, 1, 1],
        [4, 2, 5, 1, 1],
        [1, 1, 3, 0, 1],
        [2, 0, 3, 1, 1],
        [3, 2, 2, 0, 1],
    ]
    codes = [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    per, overall = _gi(X, [(WER, [1, 2]), (EM, [3, 4])], codes, ["a", "b", "c"])
    assert per["a"]["ci"]["wer"] == [0.0, 0.25]
    assert per["a"]["ci_scheme"]["wer"] == "rule_of_three"
    assert per["a"]["ci_note"]["wer"] == (
        "every unit gives 0.0%: the interval is the rule-of-three bound 3/n (n = 12)"
    )
    assert per["b"]["ci"]["em"] == [0.25, 1.0]
    assert per["b"]["ci_note"]["em"] == (
        "every unit gives 100.0%: the interval is the rule-of-three bound 3/n (n = 4)"
    )
    # EM 0 on 3 items: 3/3 = 1 is the proportion's upper bound
    assert per["a"]["ci"]["em"] == [0.0, 1.0]
    # a rate constant at 1 (every word wrong): no rule of three (only proportions at 1)
    X2 = [[0, 4, 4], [0, 2, 2], [0, 3, 3], [0, 1, 4], [0, 2, 4]]
    per2, _ = _gi(X2, [(WER, [1, 2])], [0, 0, 0, 1, 1], ["a", "b"])
    assert per2["a"]["ci"]["wer"] is None
    assert per2["a"]["ci_note"]["wer"] == (
        "every unit gives 100.0%, so the resampled values do not vary: no interval"
    )
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
        "every unit gives 0.0%: the interval is the rule-of-three bound 3/n (n = 4)"
    )


def test_two_replicates_give_a_percentile_interval():
    X = [[0, 1, 4], [0, 3, 4], [0, 0, 4], [0, 1, 2], [0, 2, 2]]
    codes = np.array([0, 0, 0, 1, 1])
    per, _ = _gi(X, [(WER, [1, 2])], codes, ["a", "b"], n_rep=2)
    vb = bootstrap_value(
        np.asarray(X, float),
        [np.flatnonzero(codes == 0)],
        None,
        None,
        "utterance",
        2,
        rng_for("group_ci", "a"),
    )
    reps = vb.reps[:, 1] / vb.reps[:, 2]
    assert np.ptp(reps) > 0  # the test needs two different replicates
    assert per["a"]["ci"]["wer"] == list(percentile_ci(reps))
    assert per["a"]["ci_scheme"]["wer"] == "utterance"


def _spread_case(offset, scale=1e12):
    """Two items of ``scale`` words, the second ``offset`` errors above ratio 1/2."""
    X = np.array([[0, scale / 2, scale], [0, scale / 2 + offset, scale], [0, 1, 4], [0, 2, 4]])
    codes = np.array([0, 0, 1, 1])
    return X, codes


def _rep_spread(X, codes, n_rep):
    vb = bootstrap_value(
        X, [np.flatnonzero(codes == 0)], None, None, "utterance", n_rep, rng_for("group_ci", "a")
    )
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
    # (the items, 1e6 and 1e6 + 1e-7, are equal within the same tolerance)
    assert per["a"]["ci"]["wer"] is None and per["a"]["ci_note"]["wer"] == (
        "every unit gives 100000000.0%, so the resampled values do not vary: no interval"
    )


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
    per1, ov1 = _gi(X, [(WER, [1, 2])], codes, ["a", "b"], (), spk, requested="speaker", scale=True)
    assert per0["a"]["ci_scaled"] is False and per1["a"]["ci_scaled"] is True
    assert ov0["wer"]["scaled"] is False and ov1["wer"]["scaled"] is True
    # the group's value: same draws, deviations scaled by the t factor; the CI is affine in them
    v = per0["a"]["ci"]["wer"], per1["a"]["ci"]["wer"]
    assert v[0] != v[1]
    lo0, hi0 = ov0["wer"]["ci"]
    lo1, hi1 = ov1["wer"]["ci"]
    assert hi1 - lo1 > hi0 - lo0


def test_replicate_spread_equal_to_the_tolerance_is_no_spread():
    # items at 0 and 2e-12 (value 1e-12); three replicates at 0 and 1e-12 only: a spread of
    # exactly 1e-12 = 1e-12 · max(1, |v|) counts as none
    X = np.array([[0, 0, 1e12], [0, 2, 1e12], [0, 1, 4], [0, 2, 4]])
    codes = np.array([0, 0, 1, 1])
    spread, v = _rep_spread(X, codes, 3)
    assert spread == 1e-12 and v == 1e-12
    per, _ = _gi(X, [(WER, [1, 2])], codes, ["a", "b"], n_rep=3)
    assert per["a"]["ci"]["wer"] is None and per["a"]["ci_note"]["wer"] == NO_VARY


# --------------------------------------------------------------------------- resampled_columns


def test_resampled_columns_sum_whole_number_ratio_parts_once():
    # columns: n_sub, n_del, n_ins, n_words, em, n_items, conf (not whole), n_chars
    X = np.array(
        [[1, 0, 2, 9, 0, 1, 0.5, 30], [0, 1, 0, 4, 1, 1, 0.25, 12], [2, 2, 1, 7, 0, 1, 0.75, 20]],
        dtype=float,
    )
    wer = ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"])
    sub = ratio_metric("sub", "Subs", ["n_ins", "n_sub", "n_del"], ["n_words"])  # same sets
    em = ratio_metric("em", "EM", ["em"], ["n_items"], higher_is_better=True, kind="proportion")
    conf = ratio_metric("conf", "Conf", ["conf"], ["n_items"])  # a non-whole numerator
    two = ratio_metric("two", "Two", ["n_sub"], ["n_words", "n_chars"])  # two-part denominator
    cols = {
        "wer": [0, 1, 2, 3],
        "sub": [2, 0, 1, 3],
        "em": [4, 5],
        "conf": [6, 5],
        "two": [0, 3, 7],
    }
    per_conf = ratio_metric("pc", "PC", ["n_sub"], ["conf"])  # a non-whole denominator
    specs = [wer, sub, em, conf, two, HITS, per_conf]
    cols["hits"] = [4]
    cols["pc"] = [0, 6]
    Xr, specs_r, cols_r = resampled_columns(X, specs, cols)
    # distinct sets in order of first use: {sub,del,ins}, {words}, {em}, {items}, {conf},
    # {sub}, {words, chars}
    assert cols_r == {
        "wer": [0, 1],
        "sub": [0, 1],
        "em": [2, 3],
        "conf": [4, 3],
        "two": [5, 6],
        "hits": [2],
        "pc": [5, 4],
    }
    want = np.column_stack(
        [X[:, :3].sum(axis=1), X[:, 3], X[:, 4], X[:, 5], X[:, 6], X[:, 0], X[:, 3] + X[:, 7]]
    )
    np.testing.assert_array_equal(Xr, want)
    w, s2, e, c, t, h, p = specs_r
    assert (w.id, w.label, w.kind, w.higher_is_better) == ("wer", "WER", "rate", False)
    assert w.stats == ("wer:numerator", "n_words") and w.denominator == ("n_words",)
    assert w.numerator == ("wer:numerator",)
    assert (e.id, e.kind, e.higher_is_better, e.denominator) == (
        "em",
        "proportion",
        True,
        ("n_items",),
    )
    assert t.stats == ("two:numerator", "two:denominator")
    assert t.denominator == ("two:denominator",)
    assert c is conf and h is HITS and p is per_conf  # not summed ahead: kept as they are
    for spec, rs in zip(specs, specs_r, strict=True):
        np.testing.assert_allclose(
            rs.compute(Xr[:, cols_r[spec.id]].sum(axis=0)),
            spec.compute(X[:, cols[spec.id]].sum(axis=0)),
        )
    # a whole-number column read only in part (a stat the spec does not list) is kept apart
    odd = replace(wer, numerator=("n_sub", "n_other"))
    _, (kept,), _ = resampled_columns(X, [odd], {"wer": [0, 1, 2, 3]})
    assert kept is odd
