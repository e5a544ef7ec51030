"""The metadata precheck before inference (METHODS.md §3 "Minimums"): which frame it groups,
how it counts speakers, its messages word for word; and the small-cluster scaling."""

import math

import numpy as np
import pandas as pd
import pytest

from fairdesk.presentation.minimums_words import exclusion_message, shortfall_text
from fairdesk.stats import apply_minimums
from fairdesk.stats.estimability import scale_small_clusters
from fairdesk.stats.minimums import check_groups_before_inference
from fairdesk.stats.slicing import has_speaker_ids


def _worded(excluded):
    """``(group, note)`` pairs with each note in today's words."""
    from fairdesk.presentation.notices import notice_text

    return [(g, notice_text(r)) for g, r in excluded]


def _items():
    """Accents x (5 items, 3 speakers), y (4 items, 2 speakers and one unknown), z (2, 1)."""
    return pd.DataFrame(
        {
            "accent": ["x"] * 5 + ["y"] * 4 + ["z"] * 2,
            "speaker_id": ["a", "a", "b", "c", "c", "d", "e", None, "e", "f", "f"],
            "split": ["tr", "te"] * 5 + ["tr"],
        }
    )


def test_counts_known_speakers_only_and_precheck_fields():
    pc = check_groups_before_inference(_items(), "accent", 2, 2)
    assert pc.sizes == {"x": 5, "y": 4, "z": 2}
    assert pc.speakers == {"x": 3, "y": 2, "z": 1}  # the unknown speaker of y is not counted
    assert pc.kept == ["x", "y"] and pc.reference == "x"
    assert _worded(pc.excluded) == [("z", "1 speaker < min_speakers 2")]
    kept, excluded = apply_minimums(
        _items().rename(columns={"accent": "g"}).assign(group=lambda f: f["g"]), 2, 2
    )
    assert (kept, excluded) == (pc.kept, pc.excluded)


def test_without_speaker_ids_and_with_another_speaker_column():
    no_ids = _items().drop(columns="speaker_id")
    pc = check_groups_before_inference(no_ids, "accent", 2, 50)
    assert pc.speakers is None and pc.kept == ["x", "y", "z"] and pc.shortfall is None
    renamed = _items().rename(columns={"speaker_id": "spk"})
    pc = check_groups_before_inference(renamed, "accent", 2, 2, speaker_col="spk")
    assert pc.speakers == {"x": 3, "y": 2, "z": 1}
    assert not has_speaker_ids(renamed) and has_speaker_ids(_items())
    framed = renamed.assign(g=renamed["accent"])
    kept, excluded = apply_minimums(framed, 2, 2, group_col="g", speaker_col="spk")
    assert (kept, _worded(excluded)) == (["x", "y"], [("z", "1 speaker < min_speakers 2")])


def test_filters_apply_whatever_the_grouping():
    pc = check_groups_before_inference(_items(), "accent", 1, 1, filters={"split": ["tr"]})
    assert pc.sizes == {"x": 3, "y": 2, "z": 1}
    sliced = _items().assign(group=_items()["accent"])
    pc = check_groups_before_inference(sliced, "group", 1, 1, filters={"split": ["te"]})
    assert pc.sizes == {"x": 2, "y": 2, "z": 1}


def test_an_existing_group_column_is_used_as_is_only_when_grouping_by_it():
    items = _items().assign(group=[" p "] * 6 + ["q"] * 5)
    pc = check_groups_before_inference(items, "group", 1, 1)
    assert pc.sizes == {" p ": 6, "q": 5}  # the labels of a sliced frame, not re-sliced
    # grouping by another column ignores a stale group column
    assert check_groups_before_inference(items, "accent", 1, 1).sizes == {"x": 5, "y": 4, "z": 2}
    with pytest.raises(ValueError) as e:
        check_groups_before_inference(_items(), "group", 1, 1)
    assert str(e.value) == (
        "Unknown grouping column(s) ['group']; the frame has columns: accent, speaker_id, split."
    )


def test_reference_named_by_key_and_value():
    for by in ("accent", ["accent"]):
        pc = check_groups_before_inference(_items(), by, 1, 1, reference="accent=y")
        assert pc.reference == "y"


def test_single_group_and_two_groups_one_excluded_messages():
    with pytest.raises(ValueError) as e:
        check_groups_before_inference(_items().assign(accent="x"), "accent", 1, 1)
    assert str(e.value) == (
        "Grouping by 'accent' gives a single group (x): nothing to compare; "
        "group by a column with at least two values."
    )
    two = _items().iloc[:9]
    with pytest.raises(ValueError) as e:
        check_groups_before_inference(two, "accent", 5, 1)
    assert shortfall_text(e.value.shortfall) == exclusion_message(
        {"x": 5, "y": 4}, {"x": 3, "y": 2}, 5, 1
    )


def test_exclusion_message_word_for_word():
    msg = exclusion_message({"x": 5, "y": 2}, {"x": 5, "y": 2}, 3, 1)
    assert msg == (
        "The minimums (--min-items 3, --min-speakers 1) exclude 1 of 2 group(s): nothing is "
        "left to compare.\n"
        "  group         items      speakers\n"
        "  x             5 ≥ 3         5 ≥ 1  ok\n"
        "  y             2 < 3         2 ≥ 1  excluded\n"
        "To analyse every group, lower the minimums (e.g. --min-items 2) or "
        "record more. A lower minimum costs: wider intervals (fewer items and speakers, so more "
        "comparisons end inconclusive_underpowered); a significant gap in a group with fewer "
        "than 10 speakers reads as speaker_confounded (get more speakers, not 'bias'); and a "
        "group with one speaker is not_estimable (speaker and group cannot be told apart)."
    )
    msg = exclusion_message({"long-name": 40, "b": 40, "c": 3}, None, 30, 5)
    assert msg == (
        "The minimums (--min-items 30) exclude 1 of 3 group(s).\n"
        "  group             items\n"
        "  b               40 ≥ 30  ok\n"
        "  long-name       40 ≥ 30  ok\n"
        "  c                3 < 30  excluded\n"
        "To analyse every group, lower the minimums (e.g. --min-items 3) or record more. A "
        "lower minimum costs: wider intervals (fewer items and speakers, so more comparisons "
        "end inconclusive_underpowered); and a group with one item is not_estimable."
    )


def test_small_cluster_factor_is_sqrt_k_over_k_minus_1_times_t_over_z():
    """docs/METHODS.md, "Small numbers of speakers": f = √(k/(k−1)) · t_{1−α/2,k−1} / z_{1−α/2},
    against scipy's quantiles and a few printed t-table values."""
    from scipy.stats import norm, t

    from fairdesk.stats.estimability import small_cluster_factor

    for k in (2, 3, 4, 5, 7, 12, 20, 40, 200):
        f = math.sqrt(k / (k - 1)) * t.ppf(0.975, k - 1) / norm.ppf(0.975)
        assert small_cluster_factor(k) == pytest.approx(f, rel=1e-12)
        assert small_cluster_factor(k, 0.90) == pytest.approx(
            math.sqrt(k / (k - 1)) * t.ppf(0.95, k - 1) / norm.ppf(0.95), rel=1e-12
        )
    # t-table: t_{0.975, 11} = 2.201, t_{0.975, 19} = 2.093, t_{0.975, 39} = 2.023; z = 1.960
    assert small_cluster_factor(12) == pytest.approx(math.sqrt(12 / 11) * 2.201 / 1.960, abs=1e-3)
    assert small_cluster_factor(20) == pytest.approx(math.sqrt(20 / 19) * 2.093 / 1.960, abs=1e-3)
    assert small_cluster_factor(40) == pytest.approx(math.sqrt(40 / 39) * 2.023 / 1.960, abs=1e-3)
    # the t factor alone widens a 12-speaker interval by about 1.12 (METHODS §9)
    assert t.ppf(0.975, 11) / norm.ppf(0.975) == pytest.approx(1.12, abs=0.005)
    assert small_cluster_factor(1) == small_cluster_factor(0) == 1.0
    # decreasing towards 1 as k grows
    fs = [small_cluster_factor(k) for k in range(2, 200)]
    assert all(x > y > 1.0 for x, y in zip(fs, fs[1:], strict=False))


def test_scale_small_clusters_by_hand():
    from scipy.stats import norm, t

    est = np.array([2.0, 4.0])
    reps = np.array([[3.0, 4.0], [1.0, 6.0]])
    for k in (2, 3, 5):
        f = math.sqrt(k / (k - 1)) * t.ppf(0.975, k - 1) / norm.ppf(0.975)
        expected = np.array([[2.0 + f * 1.0, 4.0], [2.0 - f * 1.0, 4.0 + f * 2.0]])
        np.testing.assert_allclose(scale_small_clusters(reps, est, k), expected)
    f2 = math.sqrt(2) * t.ppf(0.975, 1) / norm.ppf(0.975)
    np.testing.assert_allclose(scale_small_clusters([[3, 4]], [2, 4], 2), [[2 + f2, 4.0]])
    for k in (None, 1, 0):
        assert scale_small_clusters(reps, est, k) is reps


def test_exclusion_message_at_the_thresholds_and_a_group_without_speakers():
    msg = exclusion_message({"a": 40, "b": 30, "c": 3}, {"a": 6, "b": 5}, 30, 5)
    assert msg.split("\n")[:5] == [
        "The minimums (--min-items 30, --min-speakers 5) exclude 1 of 3 group(s).",
        "  group         items      speakers",
        "  a           40 ≥ 30         6 ≥ 5  ok",
        "  b           30 ≥ 30         5 ≥ 5  ok",
        "  c            3 < 30         0 < 5  excluded",
    ]
    assert "(e.g. --min-items 3 --min-speakers 1)" in msg


def test_unknown_speakers_do_not_count_towards_the_minimum():
    framed = _items().assign(group=_items()["accent"])
    # y: speakers d, e and one unknown: 2 known, below a minimum of 3
    kept, excluded = apply_minimums(framed, 1, 3)
    assert kept == ["x"]
    assert dict(_worded(excluded))["y"] == "2 speakers < min_speakers 3"
