import numpy as np
import pandas as pd
import pytest

from fairdesk.stats import (
    apply_minimums,
    check_run_cap,
    choose_reference,
    slice_frame,
    stratified_sample,
)


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "item_id": [f"i{i}" for i in range(8)],
            "speaker_id": ["a", "a", "b", "c", "c", "d", None, "e"],
            "accent": ["en-gb", "en-gb", "en-us", "en-us", None, "en-gb", "en-us", "en-us"],
            "gender": ["f", "m", "f", "f", "m", "m", "f", "f"],
            "split": ["x", "x", "x", "y", "x", "y", "x", "x"],
        }
    )


def test_one_key_labels_and_missing(frame):
    out = slice_frame(frame, ["accent"])
    labels = ["en-gb", "en-gb", "en-us", "en-us", "?", "en-gb", "en-us", "en-us"]
    assert list(out["group"]) == [x.replace("?", "no value for accent") for x in labels]
    assert list(out["group_missing"]) == [x == "?" for x in labels]
    out = slice_frame(frame, ["accent"], include_missing=True)
    assert list(out["group"]) == [x.replace("?", "(missing)") for x in labels]
    assert list(out["group_missing"]) == [x == "?" for x in labels]
    assert "group" not in frame.columns  # input untouched


def test_two_keys_cross_product_label(frame):
    out = slice_frame(frame, ["accent", "gender"])
    assert out["group"].iloc[0] == "accent=en-gb \u00d7 gender=f"
    assert out["group"].iloc[4] == "no value for accent"
    assert out["group"].nunique() == 4
    out = slice_frame(frame, ["accent", "gender"], include_missing=True)
    assert out["group"].iloc[4] == "accent=(missing) \u00d7 gender=m"
    assert out["group"].nunique() == 4


def test_filters_keep_listed_values(frame):
    out = slice_frame(frame, "accent", {"split": ["x"]})
    assert len(out) == 6 and set(out["split"]) == {"x"}


def test_filter_column_cannot_be_key(frame):
    with pytest.raises(ValueError, match="both a filter and a grouping key"):
        slice_frame(frame, ["accent"], {"accent": ["en-gb"]})


def test_unknown_column_lists_columns(frame):
    with pytest.raises(ValueError, match="accnt.*item_id, speaker_id, accent"):
        slice_frame(frame, ["accnt"])
    with pytest.raises(ValueError, match="filter"):
        slice_frame(frame, ["accent"], {"nope": ["1"]})


def test_key_count_and_empty_result(frame):
    with pytest.raises(ValueError, match="one or two"):
        slice_frame(frame, ["accent", "gender", "split"])
    with pytest.raises(ValueError, match="one or two"):
        slice_frame(frame, [])
    with pytest.raises(ValueError, match="No rows left"):
        slice_frame(frame, ["accent"], {"split": ["z"]})


def test_reference_default_largest_ties_by_name():
    df = pd.DataFrame({"group": ["b", "b", "a", "a", "c"]})
    assert choose_reference(df) == "a"
    df = pd.DataFrame({"group": ["b", "b", "b", "a", "a", "c"]})
    assert choose_reference(df) == "b"
    assert choose_reference(df, eligible=["a", "c"]) == "a"


def test_reference_by_value_or_full_label(frame):
    one = slice_frame(frame, ["accent"])
    assert choose_reference(one, "en-gb") == "en-gb"
    assert choose_reference(one, "accent=en-gb", by=["accent"]) == "en-gb"
    two = slice_frame(frame, ["accent", "gender"])
    label = "accent=en-us \u00d7 gender=f"
    assert choose_reference(two, label) == label


def test_unknown_or_excluded_reference(frame):
    one = slice_frame(frame, ["accent"])
    with pytest.raises(ValueError, match="not one of the groups: en-us, en-gb, no value for"):
        choose_reference(one, "fr-fr")
    with pytest.raises(ValueError, match="excluded"):
        choose_reference(one, "en-gb", eligible=["en-us"])


def test_minimums_with_reasons(frame):
    one = slice_frame(frame, ["accent"])
    kept, excluded = apply_minimums(one, min_items=3, min_speakers=3)
    # en-us: 4 items, speakers b, c, e (+ one unknown) -> kept; en-gb: 3 items, 2 speakers
    assert kept == ["en-us"]
    reasons = dict(_worded(excluded))
    assert reasons == {"en-gb": "2 speakers < min_speakers 3"}  # no value: no group
    with_missing = slice_frame(frame, ["accent"], include_missing=True)
    _, excluded = apply_minimums(with_missing, min_items=3, min_speakers=3, include_missing=True)
    reasons = dict(_worded(excluded))
    assert reasons["(missing)"] == "1 item < min_items 3; 1 speaker < min_speakers 3"


def test_minimums_without_speaker_ids(frame):
    one = slice_frame(frame.drop(columns="speaker_id"), ["accent"])
    kept, excluded = apply_minimums(one, min_items=3, min_speakers=50)
    assert kept == ["en-us", "en-gb"] and excluded == []


def test_run_cap_offers_stratified_sample():
    df = pd.DataFrame({"group": ["a"] * 30 + ["b"] * 20})
    check_run_cap(df, 50)
    with pytest.raises(ValueError, match=r"50 items, more than the cap of 40.*--sample 20"):
        check_run_cap(df, 40)


def test_stratified_sample_spreads_over_speakers():
    rng = np.random.default_rng(0)
    rows = []
    for g, n_spk in [("a", 4), ("b", 10)]:
        for s in range(n_spk):
            for i in range(int(rng.integers(3, 30))):
                rows.append({"group": g, "speaker_id": f"{g}{s}", "n": i})
    df = pd.DataFrame(rows)
    out = stratified_sample(df, "group", 8, seed=1)
    per = out.groupby(["group", "speaker_id"]).size()
    assert out.groupby("group").size().to_dict() == {"a": 8, "b": 8}
    assert per.loc["a"].tolist() == [2, 2, 2, 2]  # 8 over 4 speakers
    assert per.loc["b"].max() == 1 and len(per.loc["b"]) == 8  # 8 distinct of 10
    again = stratified_sample(df, "group", 8, seed=1)
    pd.testing.assert_frame_equal(out, again)
    other = stratified_sample(df, "group", 8, seed=2)
    assert not out.index.equals(other.index)
    # groups smaller than n keep everything; keys can be raw columns
    assert len(stratified_sample(df, ["group"], 10_000, seed=0)) == len(df)
    with pytest.raises(ValueError, match="n_per_group"):
        stratified_sample(df, "group", 0)


def test_stratified_sample_aligns_content_across_groups():
    """In a matched corpus the per-group samples read the same sentences (keeps pairing)."""
    rows = [
        {"group": g, "speaker_id": f"{g}{s}", "content_id": f"c{c:02d}"}
        for g in ("a", "b", "c")
        for s in range(10)
        for c in range(39)
    ]
    df = pd.DataFrame(rows)
    out = stratified_sample(df, "group", 40, seed=3)
    per_group = {g: set(sub["content_id"]) for g, sub in out.groupby("group")}
    assert per_group["a"] == per_group["b"] == per_group["c"]
    assert len(per_group["a"]) == 39  # 40 items cycle through every sentence once first
    assert out.groupby(["group", "speaker_id"]).size().max() == 4


def test_stratified_sample_refusals_word_for_word():
    df = pd.DataFrame({"group": ["a", "b"]})
    for bad in (0, 2.5, True, "3"):
        with pytest.raises(ValueError) as e:
            stratified_sample(df, "group", bad)
        assert str(e.value) == f"n_per_group must be a positive integer, got {bad!r}."
    with pytest.raises(ValueError) as e:
        stratified_sample(df, "accent", 2)
    assert str(e.value) == "Unknown grouping column(s) ['accent']; the frame has columns: group."


def test_stratified_sample_edges():
    rows = [
        {"group": g, "speaker_id": f"{g}{s}", "content_id": f"c{c}"}
        for g in ("a", "b")
        for s in range(3)
        for c in range(4)
    ]
    df = pd.DataFrame(rows)
    pd.testing.assert_frame_equal(
        stratified_sample(df, "group", 5), stratified_sample(df, "group", 5, seed=0)
    )  # default seed
    one = stratified_sample(df, "group", 1, seed=4)
    assert one.groupby("group").size().to_dict() == {"a": 1, "b": 1}
    assert stratified_sample(df, "group", np.int64(2)).groupby("group").size().tolist() == [2, 2]
    empty = stratified_sample(df.iloc[:0], "group", 3)  # no rows: an empty sample, no error
    assert empty.empty and list(empty.columns) == list(df.columns)
    exact = stratified_sample(df, "group", 12, seed=1)  # a group of exactly n keeps everything
    pd.testing.assert_frame_equal(exact, df)


def test_stratified_sample_every_speaker_before_any_second_item():
    rows = []
    for g in ("a", "b"):
        rows += [{"group": g, "speaker_id": f"{g}-single{s}"} for s in range(5)]
        rows += [{"group": g, "speaker_id": f"{g}-many"} for _ in range(10)]
    out = stratified_sample(pd.DataFrame(rows), "group", 8, seed=0)
    per = out.groupby(["group", "speaker_id"]).size()
    for g in ("a", "b"):
        assert per.loc[g].to_dict() == {**{f"{g}-single{s}": 1 for s in range(5)}, f"{g}-many": 3}


def test_stratified_sample_items_without_speaker_are_their_own_speakers():
    rows = [{"group": "a", "speaker_id": "k"} for _ in range(4)]
    rows += [{"group": "a", "speaker_id": None} for _ in range(4)]
    for seed in range(5):
        out = stratified_sample(pd.DataFrame(rows), "group", 4, seed=seed)
        assert len(out) == 4 and (out["speaker_id"] == "k").sum() <= 1
    no_column = pd.DataFrame({"group": ["a"] * 6 + ["b"] * 2, "x": range(8)})
    out = stratified_sample(no_column, "group", 3, seed=2)
    assert out.groupby("group").size().to_dict() == {"a": 3, "b": 2}


def test_stratified_sample_follows_the_content_order_and_takes_the_nearest_after():
    """The content order is the seed's first draw: a permutation of the sorted content ids;
    turn t asks for the content of rank t, and a speaker without it gives the nearest after."""
    contents = [f"c{c}" for c in range(6)]
    seed = 5
    perm = np.random.default_rng(seed).permutation(len(contents))
    by_rank = [sorted(contents)[i] for i in perm]
    full = pd.DataFrame({"group": "a", "speaker_id": "s", "content_id": contents})
    out = stratified_sample(full, "group", 3, seed=seed)
    assert set(out["content_id"]) == set(by_rank[:3])
    # group a's speaker lacks the content of rank 1, which group b has
    lacking = pd.concat([full[full["content_id"] != by_rank[1]], full.assign(group="b")])
    out = stratified_sample(lacking, "group", 3, seed=seed)
    assert set(out[out["group"] == "a"]["content_id"]) == {by_rank[0], by_rank[2], by_rank[3]}
    assert set(out[out["group"] == "b"]["content_id"]) == set(by_rank[:3])


def test_slice_messages_word_for_word():
    f = pd.DataFrame({"accent": ["en-gb", "en-us"], "split": ["x", "y"]})
    cases = [
        ((["accent", "accent"], None), "The grouping keys repeat a column: ['accent', 'accent']."),
        (
            (["accent"], {"nope": ["1"]}),
            "Unknown filter column(s) ['nope']; the frame has columns: accent, split.",
        ),
        (
            (["accent"], {"accent": ["en-gb"]}),
            "Column(s) ['accent'] can't be both a filter and a grouping key; filter on another "
            "column or group by it without filtering.",
        ),
        (
            (["accent"], {"split": ["z"]}),
            "No rows left after the filters {'split': ['z']}; check the allowed values against the "
            "values present in those columns.",
        ),
    ]
    for args, message in cases:
        with pytest.raises(ValueError) as e:
            slice_frame(f, *args)
        assert str(e.value) == message


def test_filter_values_scalars_missing_and_several_columns(frame):
    # a single value, text or not, is one allowed value
    assert list(slice_frame(frame, "gender", {"accent": "en-gb"})["item_id"]) == ["i0", "i1", "i5"]
    num = frame.assign(n=[1, 2, 1, 2, 1, 2, 1, 2])
    assert list(slice_frame(num, "accent", {"n": 2})["item_id"]) == ["i1", "i3", "i5", "i7"]
    # None selects the missing values
    assert list(slice_frame(frame, "gender", {"accent": [None]})["item_id"]) == ["i4"]
    # every filter must hold
    out = slice_frame(frame, "gender", {"accent": ["en-us"], "split": ["x"]})
    assert list(out["item_id"]) == ["i2", "i6", "i7"]


def test_group_labels_follow_the_kept_rows(frame):
    out = slice_frame(frame, "accent", {"split": ["y"]})
    assert list(out.index) == [3, 5] and list(out["group"]) == ["en-us", "en-gb"]
    blank = pd.DataFrame({"k": ["a", " ", "b", ""]})
    assert list(slice_frame(blank, "k")["group"]) == ["a", "no value for k", "b", "no value for k"]
    assert list(slice_frame(blank, "k", include_missing=True)["group"]) == [
        "a",
        "(missing)",
        "b",
        "(missing)",
    ]


def test_reference_messages_word_for_word():
    sizes = {"a": 3, "b": 5}
    for args, kw, message in [
        (("c",), {}, "Reference group 'c' is not one of the groups: b, a."),
        (
            ("a",),
            {"eligible": ["b"]},
            "Reference group 'a' is excluded by the minimums; pick one of: b.",
        ),
        (
            ("a",),
            {"eligible": []},
            "Reference group 'a' is excluded by the minimums; pick one of: (none).",
        ),
        ((None,), {"eligible": []}, "No group is eligible as reference (all are excluded)."),
        (
            ("accent=c",),
            {"by": "accent"},
            "Reference group 'accent=c' is not one of the groups: b, a.",
        ),
        (
            ("gender=a",),
            {"by": "accent"},
            "Reference group 'gender=a' is not one of the groups: b, a.",
        ),
        (
            ("accent=a",),
            {"by": ["accent", "gender"]},
            "Reference group 'accent=a' is not one of the groups: b, a.",
        ),
    ]:
        with pytest.raises(ValueError) as e:
            choose_reference(sizes, *args, **kw)
        assert str(e.value) == message
    assert choose_reference(sizes, " accent = a ".strip(), by="accent") == "a"
    assert choose_reference(sizes, "accent= a", by=("accent",)) == "a"
    assert choose_reference({"b": 2, "a": 2, "c": 1}) == "a"  # ties by name
    assert choose_reference(pd.DataFrame({"g": ["x", "y", "y"]}), group_col="g") == "y"
    assert choose_reference(sizes, eligible={"a"}) == "a"


def test_run_cap_message_word_for_word():
    df = pd.DataFrame({"group": ["a"] * 3000 + ["b"] * 2000})
    check_run_cap(df, 5000)
    with pytest.raises(ValueError) as e:
        check_run_cap(df, 1000)
    assert str(e.value) == (
        "The run has 5,000 items, more than the cap of 1,000 (max_items). Analyse a stratified "
        "sample instead: `--sample N` draws N items per group spread over its speakers, e.g. "
        "`--sample 500` for 2 group(s), or lift the cap explicitly with `--max-items N`."
    )
    with pytest.raises(ValueError, match=r"`--sample 4` for 1 group\(s\)"):
        check_run_cap(pd.DataFrame({"x": range(5)}), 4)  # no group column: one group
    with pytest.raises(ValueError, match=r"`--sample 1` for 3 group\(s\)"):
        check_run_cap(pd.DataFrame({"g": ["a", "b", "c"]}), 2, group_col="g")


def test_reference_value_with_equals_sign_and_missing_speaker_counts():
    from fairdesk.stats.slicing import group_sizes, minimums_from_counts

    assert choose_reference({"a=b": 3, "c": 5}, "accent=a=b", by="accent") == "a=b"
    with pytest.raises(ValueError) as e:
        choose_reference({"a": 3, "b": 5, "c": 1}, "c", eligible=["a", "b"])
    assert str(e.value) == "Reference group 'c' is excluded by the minimums; pick one of: b, a."
    # a group missing from the speaker counts has no known speaker
    kept, excluded = minimums_from_counts({"a": 5, "b": 5}, {"a": 3}, 1, 1)
    assert (kept, _worded(excluded)) == (["a"], [("b", "0 speakers < min_speakers 1")])
    sizes = group_sizes(pd.DataFrame({"group": []}))
    assert sizes.empty and sizes.dtype == np.int64


def _worded(excluded):
    """``(group, note)`` pairs with each note in today's words."""
    from fairdesk.presentation.notices import notice_text

    return [(g, notice_text(r)) for g, r in excluded]
