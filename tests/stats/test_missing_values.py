"""Missing grouping values (docs/METHODS.md, "Missing values"): a descriptive row by default,
the tested group ``(missing)`` with ``include_missing``; the corpus value includes them."""

import numpy as np
import pandas as pd
import pytest

from fairdesk.presentation.minimums_words import exclusion_message, shortfall_text
from fairdesk.presentation.notices import notice_text
from fairdesk.stats import AuditSettings, compare_groups, slice_frame
from fairdesk.stats.minimums import check_groups_before_inference
from fairdesk.stats.slicing import choose_reference, is_missing_value

B = 400


def _frame(seed=0, with_lists=False):
    """us 12 speakers, uk 10, and 8 speakers without an accent (None, '', '  ' or, with
    ``with_lists``, JSON lists and dicts); 10 shared sentences of 5 words each."""
    rng = np.random.default_rng(seed)
    blanks = [None, "", "   ", float("nan")]
    if with_lists:
        blanks = [["x", "y"], {"a": 1}, None, " "]
    rows = []
    for accent, k, p in (("us", 12, 0.1), ("uk", 10, 0.3), ("?", 8, 0.4)):
        for s in range(k):
            for c in range(10):
                value = blanks[s % len(blanks)] if accent == "?" else accent
                rows.append(
                    {
                        "accent": value,
                        "gender": "f" if s % 2 else "m",
                        "speaker_id": f"{accent}{s}",
                        "content_id": f"c{c}",
                        "n_words": 5.0,
                        "n_sub": float(rng.binomial(5, p)),
                        "n_del": 0.0,
                        "n_ins": 0.0,
                    }
                )
    return pd.DataFrame(rows)


def _is_blank(v):
    return is_missing_value(v)


def test_what_counts_as_missing():
    for v in (None, float("nan"), np.nan, pd.NA, "", "  \t", ["x"], {"a": 1}, (), np.array([1])):
        assert is_missing_value(v), v
    for v in ("us", 0, 0.0, False, "(missing)", " x "):
        assert not is_missing_value(v), v


def test_default_no_tested_missing_group_a_descriptive_row(wer):
    df = _frame()
    f = slice_frame(df, "accent")
    res = compare_groups(f, [wer], AuditSettings(n_bootstrap=B))
    assert res.reference == "us"
    assert [c.group for c in res.comparisons] == ["uk"]  # no (missing), no no-value row
    assert [g.group for g in res.groups] == ["us", "uk", "no value for accent"]
    row = res.groups[-1]
    assert row.missing and not row.excluded and not row.compared
    assert all(not g.missing for g in res.groups[:-1])
    assert res.excluded == ()
    blank = df[df["accent"].map(_is_blank)]
    assert row.n_items == len(blank) == 80 and row.n_speakers == 8
    # the row's value: pooled over its own items (an independent sum)
    assert row.values["wer"] == pytest.approx(blank["n_sub"].sum() / blank["n_words"].sum())
    lo, hi = row.ci["wer"]
    assert lo < row.values["wer"] < hi and row.ci_scheme["wer"] == "two_way"
    # the corpus value includes the items with no value, and says so
    overall = res.summary["wer"].overall
    assert overall["n_missing"] == 80 and overall["n_items"] == len(df)
    assert overall["value"] == pytest.approx(df["n_sub"].sum() / df["n_words"].sum())
    # the summary's spread is over the groups only
    assert res.summary["wer"].best_group == "us" and res.summary["wer"].worst_group == "uk"
    # B planned for one comparison (the no-value row is no member of the Holm family)
    assert res.bootstrap.comparisons == 1


def test_the_descriptive_row_ci_is_that_of_its_items_alone(wer):
    df = _frame()
    res = compare_groups(slice_frame(df, "accent"), [wer], AuditSettings(n_bootstrap=B))
    row = res.groups[-1]
    assert row.group == "no value for accent"
    # the same items audited on their own (as a group of a run) give the same value
    alone = df[df["accent"].map(_is_blank)].assign(group="x")
    other = df[~df["accent"].map(_is_blank)].assign(group="y")
    both = compare_groups(pd.concat([alone, other]), [wer], AuditSettings(n_bootstrap=B))
    x = next(g for g in both.groups if g.group == "x")
    assert x.values["wer"] == pytest.approx(row.values["wer"])
    assert x.n_speakers == row.n_speakers
    # its CI resamples its own speakers (and the shared sentences): as wide as that group's
    width = row.ci["wer"][1] - row.ci["wer"][0]
    assert width == pytest.approx(x.ci["wer"][1] - x.ci["wer"][0], rel=0.25)


def test_include_missing_makes_a_tested_group_never_the_default_reference(wer):
    df = _frame()
    f = slice_frame(df, "accent", include_missing=True)
    settings = AuditSettings(n_bootstrap=B, include_missing=True)
    res = compare_groups(f, [wer], settings)
    assert res.reference == "us"
    assert {c.group for c in res.comparisons} == {"uk", "(missing)"}
    miss = res.comparison("wer", "(missing)")
    assert np.isfinite(miss.p_adjusted) and miss.verdict != "not_estimable"
    assert all(not g.missing for g in res.groups)
    # the corpus value pools the same items; none of them is outside the groups now
    assert res.summary["wer"].overall["n_missing"] == 0
    assert res.summary["wer"].overall["n_items"] == 300

    big = pd.concat([df, df[df["accent"].map(_is_blank)].assign(content_id="d")])
    big = big.reset_index(drop=True)
    f = slice_frame(big, "accent", include_missing=True)
    assert f["group"].value_counts().index[0] == "(missing)"  # the largest
    res = compare_groups(f, [wer], settings)
    assert res.reference == "us"  # never the default reference
    # named explicitly it may be the reference
    res = compare_groups(f, [wer], settings, reference="(missing)")
    assert res.reference == "(missing)"
    assert {c.group for c in res.comparisons} == {"us", "uk"}


def test_the_no_value_row_cannot_be_the_reference(wer):
    f = slice_frame(_frame(), "accent")
    for name in ("no value for accent", "(missing)"):
        with pytest.raises(ValueError, match="not a group.*--include-missing"):
            compare_groups(f, [wer], AuditSettings(n_bootstrap=B), reference=name)


def test_lists_dicts_and_whitespace_are_missing_not_groups(wer):
    df = _frame(with_lists=True)
    f = slice_frame(df, "accent")
    assert set(f["group"]) == {"us", "uk", "no value for accent"}
    res = compare_groups(f, [wer], AuditSettings(n_bootstrap=B))
    assert res.groups[-1].group == "no value for accent" and res.groups[-1].n_items == 80
    f = slice_frame(df, "accent", include_missing=True)
    assert set(f["group"]) == {"us", "uk", "(missing)"}  # not "['x', 'y']" or "{'a': 1}"


def test_two_keys_missing_either_key(wer):
    df = _frame()
    df.loc[df["speaker_id"] == "us0", "gender"] = "  "  # us0 has no gender
    f = slice_frame(df, ["accent", "gender"])
    labels = set(f["group"])
    assert "no value for gender" in labels and "no value for accent" in labels
    assert f.loc[df["speaker_id"] == "us0", "group"].eq("no value for gender").all()
    assert not any("(missing)" in g for g in labels)
    res = compare_groups(f, [wer], AuditSettings(n_bootstrap=B, min_speakers=2))
    rows = [g for g in res.groups if g.missing]
    assert [g.group for g in rows] == ["no value for accent", "no value for gender"]
    assert [g.n_items for g in rows] == [80, 10]
    assert all(not c.group.startswith("no value") for c in res.comparisons)
    assert res.summary["wer"].overall["n_missing"] == 90
    # both keys missing: the row names both
    df.loc[df["speaker_id"] == "?0", "gender"] = None
    f = slice_frame(df, ["accent", "gender"])
    assert f.loc[df["speaker_id"] == "?0", "group"].eq("no value for accent and gender").all()
    f = slice_frame(df, ["accent", "gender"], include_missing=True)
    assert "accent=(missing) \u00d7 gender=(missing)" in set(f["group"])
    assert f.loc[df["speaker_id"] == "us0", "group"].eq("accent=us \u00d7 gender=(missing)").all()


def test_a_column_without_values_is_refused_with_its_name_and_count():
    df = _frame().assign(dialect=lambda d: [None, " ", ["a"]] * (len(d) // 3))
    for include in (False, True):
        with pytest.raises(ValueError) as e:
            slice_frame(df, "dialect", include_missing=include)
        assert str(e.value) == (
            "The grouping column 'dialect' has no values: all 300 items have none (empty, "
            "only whitespace, or a list or dict); group by a column that has values."
        )
    with pytest.raises(ValueError, match="'dialect' has no values"):
        slice_frame(df, ["accent", "dialect"])
    with pytest.raises(ValueError, match="'dialect' has no values"):
        check_groups_before_inference(df, "dialect", 1, 1)


def test_precheck_ignores_the_no_value_row():
    df = _frame()
    pc = check_groups_before_inference(df, "accent", 30, 5)
    assert pc.sizes == {"us": 120, "uk": 100} and pc.reference == "us"
    assert pc.excluded == [] and pc.shortfall is None
    # the no-value row is below the minimums but no group: nothing is excluded
    small = pd.concat([df[~df["accent"].map(_is_blank)], df[df["accent"].map(_is_blank)][:3]])
    pc = check_groups_before_inference(small, "accent", 30, 5)
    assert pc.shortfall is None
    pc = check_groups_before_inference(small, "accent", 30, 5, include_missing=True)
    assert [g for g, _ in pc.excluded] == ["(missing)"] and "(missing)" in shortfall_text(
        pc.shortfall
    )
    # with include_missing the largest group with a value is the default reference
    big = pd.concat([df, df[df["accent"].map(_is_blank)].assign(content_id="d")])
    pc = check_groups_before_inference(big, "accent", 30, 5, include_missing=True)
    assert pc.sizes["(missing)"] == 160 and pc.reference == "us"
    with pytest.raises(ValueError, match="not a group"):
        check_groups_before_inference(df, "accent", 30, 5, reference="(missing)")
    # one group with a value and items without: a single group
    one = df[df["accent"].isin(["us"]) | df["accent"].map(_is_blank)]
    with pytest.raises(ValueError, match="single group \\(us and items with no value\\)"):
        check_groups_before_inference(one, "accent", 30, 5)


def test_minimums_message_lowers_only_what_excludes_and_never_to_the_value_given():
    # excluded by speakers alone: no --min-items hint
    msg = exclusion_message({"a": 40, "b": 40}, {"a": 6, "b": 2}, 30, 5)
    assert "(e.g. --min-speakers 2)" in msg and "--min-items 30)" not in msg.split("\n")[-1]
    # excluded by items alone: no --min-speakers hint
    msg = exclusion_message({"a": 40, "b": 3}, {"a": 6, "b": 6}, 30, 5)
    assert "(e.g. --min-items 3)" in msg
    # min_speakers already 1 and a group without a known speaker: nothing to lower
    msg = exclusion_message({"a": 40, "b": 40}, {"a": 6, "b": 0}, 30, 1)
    last = msg.split("\n")[-1]
    assert "lower the minimums" not in last and "record more" in last
    assert "--min-speakers 1" in last and "e.g." not in last


def test_choose_reference_skips_missing_by_default():
    sizes = {"(missing)": 9, "a": 5, "b": 3}
    assert choose_reference(sizes, not_default={"(missing)"}) == "a"
    assert choose_reference(sizes, "(missing)", not_default={"(missing)"}) == "(missing)"
    frame = pd.DataFrame({"group": ["(missing)"] * 3 + ["a"]})
    assert choose_reference(frame) == "a"
    with pytest.raises(ValueError, match="No group with a value"):
        choose_reference({"(missing)": 3}, not_default={"(missing)"})


def test_old_settings_decode_include_missing_off():
    d = AuditSettings().to_dict()
    assert d["include_missing"] is False
    del d["include_missing"]
    assert AuditSettings.from_dict(d).include_missing is False
    assert AuditSettings.from_dict({**d, "include_missing": True}).include_missing is True
    with pytest.raises(ValueError, match="include_missing must be True or False, got 1"):
        AuditSettings(include_missing=1)


def test_a_one_speaker_no_value_row_keeps_the_corpus_interval(wer):
    df = _frame()
    blank = df["accent"].map(_is_blank)
    df = df[~blank | (df["speaker_id"] == "?0")]  # one speaker without an accent
    res = compare_groups(slice_frame(df, "accent"), [wer], AuditSettings(n_bootstrap=B))
    row = res.groups[-1]
    assert row.missing and row.n_speakers == 1 and row.ci["wer"] is None
    assert "one speaker" in notice_text(row.ci_note["wer"])
    overall = res.summary["wer"].overall
    assert overall["ci"] is not None and overall["n_missing"] == 10
    assert overall["ci"][0] < overall["value"] < overall["ci"][1]
