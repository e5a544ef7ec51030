"""compare_groups end to end on tiny frames: refusals word for word, the groups table,
exclusions, the reference, the resampling scheme's refusals, the bootstrap record, the
unresolvable-p boundary, describe-only metrics, the run design and the BLAS thread limit
(issue 21: mutation survivors)."""

import math

import numpy as np
import pandas as pd
import pytest

import fairdesk.stats.compare as compare
import fairdesk.stats.formulas as formulas
from fairdesk.metrics.registry import ratio_metric
from fairdesk.presentation.estimability_words import reason_text
from fairdesk.stats import AuditSettings, compare_groups
from tests.conftest import coded_words as _words

W = ratio_metric("wer", "WER", ["n_sub"], ["n_words"])
C = ratio_metric("cer", "CER", ["n_csub"], ["n_chars"])


def _frame(rows, cols=("group", "speaker_id", "n_sub", "n_words")):
    return pd.DataFrame(rows, columns=list(cols))


def _run(df, specs=(W,), reference="r", describe=(), **kw):
    s = dict(n_bootstrap=200, min_items=1, min_speakers=1)
    s.update(kw)
    return compare_groups(
        df, list(specs), AuditSettings(**s), reference=reference, describe=describe
    )


def _plain(n_r=6, n_g=4):
    """r: n_r one-speaker utterances (1 error in 4 words every other); g: 1 or 2 in 4."""
    rows = [("r", f"t{i}", i % 2, 4) for i in range(n_r)]
    rows += [("g", f"s{i}", 1 + i % 2, 4) for i in range(n_g)]
    return _frame(rows)


# ------------------------------------------------------------------------------ refusals


def test_refusals_word_for_word():
    df = _plain()
    with pytest.raises(ValueError) as e:
        compare_groups(df, [])
    assert str(e.value) == "No metric to compare: pass at least one MetricSpec."
    with pytest.raises(ValueError) as e:
        compare_groups(df, [W, W])
    assert str(e.value) == "Metric ids repeat: ['wer', 'wer']."
    with pytest.raises(ValueError) as e:
        compare_groups(df.rename(columns={"group": "g"}), [W])
    assert str(e.value) == (
        "The frame has no group column 'group'; call slice_frame first. "
        "Columns: g, speaker_id, n_sub, n_words."
    )
    # only the metric that needs a missing column is named
    with pytest.raises(ValueError) as e:
        compare_groups(df, [W, C])
    assert str(e.value) == (
        "The frame lacks the per-item statistic column(s) "
        "['n_csub', 'n_chars'] needed by metrics ['cer']; compute item "
        "stats first."
    )


def test_undefined_statistic_counts_rows_not_cells():
    df = _plain().astype({"n_sub": float, "n_words": float})
    df.loc[1, ["n_sub", "n_words"]] = np.nan  # one row, two cells
    df.loc[3, "n_sub"] = np.nan
    with pytest.raises(ValueError) as e:
        _run(df)
    assert str(e.value) == (
        "Statistic column 'n_sub' is undefined in 2 row(s) (first: row 1); "
        "drop failed items before comparing."
    )


def test_missing_value_in_a_nullable_integer_column_is_reported():
    df = _plain().astype({"n_sub": "Int64"})
    df.loc[2, "n_sub"] = pd.NA
    with pytest.raises(ValueError) as e:
        _run(df)
    assert str(e.value) == (
        "Statistic column 'n_sub' is undefined in 1 row(s) (first: row 2); "
        "drop failed items before comparing."
    )


def test_run_cap_counts_groups_in_the_named_column():
    df = _plain(n_r=6, n_g=4).rename(columns={"group": "lang"})
    df["group"] = "x"  # a stray column named like the default must not be used
    with pytest.raises(ValueError) as e:
        compare_groups(
            df,
            [W],
            AuditSettings(n_bootstrap=200, min_items=1, min_speakers=1, max_items=5),
            group_col="lang",
        )
    assert "for 2 group(s)" in str(e.value)


# ------------------------------------------------------------- groups, exclusions, reference


def test_groups_table_order_reasons_and_notes():
    # r: 6 items / 6 speakers; g: 4 items, one speaker; "a": 1 item without a speaker id
    rows = [("r", f"t{i}", i % 2, 4) for i in range(6)]
    rows += [("g", "s1", e, 4) for e in (1, 2, 0, 1)] + [("a", None, 1, 4)]
    res = _run(_frame(rows))
    # largest first, the last group has no speaker at all (counted 0, excluded)
    assert [
        (gi.group, gi.n_items, gi.n_speakers, gi.excluded, _words(gi.reason)) for gi in res.groups
    ] == [
        ("r", 6, 6, False, None),
        ("g", 4, 1, False, None),
        ("a", 1, 0, True, "0 speakers < min_speakers 1"),
    ]
    assert [(x.group, _words(x.reason)) for x in res.excluded] == [
        ("a", "0 speakers < min_speakers 1")
    ]
    g = res.groups[1]
    assert g.values == {"wer": pytest.approx(0.25)} and g.ci == {"wer": None}
    assert g.ci_scheme == {"wer": "not_estimable"}
    assert res.groups[0].ci_scheme == {"wer": "speaker"}
    assert _words(g.ci_note) == {
        "wer": (
            "one speaker: speaker and group cannot be told apart, so the group's value has no "
            "estimable interval; record more speakers (--resampling utterance describes these "
            "recordings only)"
        )
    }
    assert res.groups[0].ci_note == {}


def test_size_ties_are_ordered_by_name():
    rows = [("r", f"t{i}", i % 2, 4) for i in range(3)]
    rows += [("b", f"u{i}", 1, 4) for i in range(5)] + [("c", f"v{i}", 0, 4) for i in range(3)]
    res = _run(_frame(rows), reference=None)
    assert [gi.group for gi in res.groups] == ["b", "c", "r"]
    assert res.reference == "b"  # the largest group


def test_reference_is_the_largest_eligible_group():
    # "big" has most items but only one speaker: excluded by min_speakers 2
    rows = [("big", "x", 1, 4)] * 8 + [("r", f"t{i}", i % 2, 4) for i in range(6)]
    rows += [("g", f"s{i}", 1, 4) for i in range(4)]
    res = _run(_frame(rows), reference=None, min_speakers=2)
    assert res.reference == "r"
    assert [(x.group, _words(x.reason)) for x in res.excluded] == [
        ("big", "1 speaker < min_speakers 2")
    ]
    assert [c.group for c in res.comparisons] == ["g"]
    with pytest.raises(ValueError, match="big"):
        _run(_frame(rows), reference="big", min_speakers=2)


def test_every_group_excluded_leaves_no_reference_and_no_design():
    rows = [("r", "t1", 0, 4), ("g", "s1", 1, 4)]
    res = _run(_frame(rows), reference=None, min_items=2)
    assert res.reference is None and res.comparisons == () and res.design is None
    assert [x.group for x in res.excluded] == ["g", "r"] or [x.group for x in res.excluded] == [
        "r",
        "g",
    ]
    assert res.summary["wer"].best_group is None
    with pytest.raises(ValueError):
        _run(_frame(rows), reference="r", min_items=2)


# ------------------------------------------------------------------------ resampling scheme

UTT_G = (
    "only 1 utterance in g: there is nothing to resample and no uncertainty can be "
    "estimated; record more utterances"
)


def _spk_reason(k, name):
    return (
        f"{k} speaker in {name}: speaker and group cannot be told apart, so no interval "
        "for the group can be estimated; record more speakers (--resampling utterance "
        "gives an interval that describes these recordings of this speaker only)"
    )


@pytest.mark.parametrize("resampling", ["utterance", "auto"])
def test_one_utterance_is_not_estimable(resampling):
    rows = [("g", None, 1, 4)] + [("r", None, i % 2, 4) for i in range(4)]
    c = _run(_frame(rows).drop(columns="speaker_id"), resampling=resampling).comparisons[0]
    assert (c.verdict, c.estimator, reason_text(c.reason)) == ("not_estimable", "none", UTT_G)
    assert c.value == pytest.approx(0.25) and c.reference_value == pytest.approx(0.125)


def test_forced_speaker_scheme_with_one_reference_speaker():
    rows = [("g", f"s{i}", 1, 4) for i in range(3)] + [("r", "t1", i % 2, 4) for i in range(4)]
    c = _run(_frame(rows), resampling="speaker").comparisons[0]
    assert (c.verdict, c.estimator, reason_text(c.reason)) == (
        "not_estimable",
        "none",
        _spk_reason("one", "r"),
    )


def test_auto_scheme_refusal_names_the_reference():
    rows = [("g", f"s{i}", 1, 4) for i in range(3)] + [("r", "t1", i % 2, 4) for i in range(4)]
    c = _run(_frame(rows)).comparisons[0]
    assert (c.verdict, reason_text(c.reason)) == ("not_estimable", _spk_reason("one", "r"))


def test_forced_scheme_the_data_cannot_support():
    rows = [("g", None, 1, 4), ("g", None, 0, 4)] + [("r", None, i % 2, 4) for i in range(4)]
    with pytest.raises(ValueError) as e:
        _run(_frame(rows).drop(columns="speaker_id"), resampling="speaker")
    assert str(e.value) == (
        "--resampling speaker needs speaker ids (group 'g' vs reference 'r'); use --resampling "
        "auto to let fairdesk pick a scheme the data supports."
    )


def _shared(g_speakers, r_speakers, n_content=6):
    """Both groups read the same n_content sentences; speakers assigned round robin."""
    rows = []
    for k in range(n_content):
        rows.append(("g", g_speakers[k % len(g_speakers)], f"c{k}", 1 + k % 3, 5))
        rows.append(("r", r_speakers[k % len(r_speakers)], f"c{k}", k % 2, 5))
    return _frame(rows, ("group", "speaker_id", "content_id", "n_sub", "n_words"))


def test_auto_falls_back_to_speakers_when_one_speaker_reads_the_shared_text():
    df = _shared(["s1"], ["t1", "t2", "t3"])
    # g's second speaker read other sentences only
    extra = pd.DataFrame([("g", "s2", f"x{k}", 1, 5) for k in range(3)], columns=df.columns)
    c = _run(pd.concat([df, extra], ignore_index=True)).comparisons[0]
    assert c.verdict != "not_estimable" and c.estimator == "speaker"
    assert c.n_blocks.group_speakers == 2 and c.n_blocks.reference_speakers == 3


@pytest.mark.parametrize("scheme", ["utterance", "content"])
def test_single_speaker_flag_below_two_speakers(scheme):
    one = _run(_shared(["s1"], ["t1", "t2", "t3"]), resampling=scheme).comparisons[0]
    two = _run(_shared(["s1", "s2"], ["t1", "t2", "t3"]), resampling=scheme).comparisons[0]
    assert one.estimator == two.estimator == scheme
    assert "single_speaker_recordings" in one.flags
    assert "single_speaker_recordings" not in two.flags
    assert one.design == "matched" and "content_confounded" not in one.flags


# ----------------------------------------------------------- bootstrap record, Holm family


def _three_groups(extra=()):
    rows = [("r", None, i % 2, 4) for i in range(8)]
    rows += [("g1", None, 2 + i % 2, 4) for i in range(8)]
    rows += [("g2", None, 1 + i % 3, 4) for i in range(8)]
    return _frame(rows + list(extra)).drop(columns="speaker_id")


def test_bootstrap_record_counts_groups_times_metrics():
    from fairdesk.presentation.bootstrap_words import bootstrap_json

    df = _three_groups()
    df["n_csub"], df["n_chars"] = df["n_sub"], 4 * df["n_words"]
    res = _run(df, specs=(W, C), n_bootstrap=200, alpha=0.2)
    # m = 2 groups x 2 metrics; ceil(5 * 4 / 0.2) = 100 < 200 requested
    assert bootstrap_json({"bootstrap": res.bootstrap.to_json()})["bootstrap"] == {
        "requested": 200,
        "used": 200,
        "comparisons": 4,
        "required": 100,
        "raised": False,
        "capped": False,
        "rule": 'B >= ceil(5 * comparisons / alpha), at most 20,000 (docs/METHODS.md, "Multiple comparisons (Holm)")',
        "group_ci_replicates": 200,
    }
    res = _run(df, specs=(W, C), n_bootstrap=200, alpha=0.05)
    assert res.bootstrap.required == 400 and res.bootstrap.used == 400
    assert res.bootstrap.group_ci_replicates == 200


@pytest.mark.parametrize(
    ("alpha", "flagged"), [(2 / 201, True), (2 / 200, False), (2 / 201.5, True)]
)
def test_unresolvable_boundary(monkeypatch, alpha, flagged):
    # B capped at 200 (the cap patched down): the smallest Holm-adjusted p of a family of 2 is
    # 2/(B+1); the flag is raised exactly when that is not below alpha
    monkeypatch.setattr(formulas, "MAX_BOOTSTRAP", 200)
    res = _run(_three_groups(), alpha=alpha)
    assert res.bootstrap.used == 200 and res.bootstrap.capped
    tested = [c for c in res.comparisons if c.verdict != "not_estimable"]
    assert len(tested) == 2
    assert all(("p_unresolvable" in c.flags) is flagged for c in tested)


def test_boundary_counts_only_comparisons_with_a_p_value(monkeypatch):
    monkeypatch.setattr(formulas, "MAX_BOOTSTRAP", 200)
    # g3's words are all 0: its WER is undefined, tested but without a p-value
    extra = [("g3", None, 0, 0)] * 8
    res = _run(_three_groups(extra), alpha=2.5 / 201)
    by = {c.group: c for c in res.comparisons}
    assert math.isnan(by["g3"].p_value)
    assert not any("p_unresolvable" in c.flags for c in res.comparisons)
    assert all(math.isfinite(by[g].p_adjusted) for g in ("g1", "g2"))


# ------------------------------------------------------------- describe, summary, design


def test_describe_only_metric_and_summary_gaps():
    df = _three_groups([("g3", None, 0, 0)] * 8)
    df["n_csub"], df["n_chars"] = df["n_sub"], 4 * df["n_words"]
    # the WER spec passed again under describe is dropped (it is tested)
    res = _run(df, describe=(C, W))
    assert {c.metric for c in res.comparisons} == {"wer"}
    assert set(res.summary) == {"wer", "cer"}
    g1 = next(gi for gi in res.groups if gi.group == "g1")
    assert g1.values == {"wer": pytest.approx(20 / 32), "cer": pytest.approx(20 / 128)}
    # describe-only: no comparisons, so no gap
    assert math.isnan(res.summary["cer"].max_gap)
    assert res.summary["cer"].worst_group == "g1" and res.summary["cer"].best_group == "r"
    # WER gaps: g1 - r = 20/32 - 4/32, g2 - r = 15/32 - 4/32 (g3 undefined)
    assert res.summary["wer"].max_gap == pytest.approx(16 / 32)
    assert res.summary["wer"].worst_group == "g1" and res.summary["wer"].best_group == "r"
    assert res.summary["wer"].weighted_std == pytest.approx(
        float(np.sqrt(np.cov([20 / 32, 15 / 32, 4 / 32], aweights=[8, 8, 8], ddof=0)))
    )


def test_summary_leaves_out_not_estimable_gaps():
    # g: one utterance, WER 3/4 (gap 0.625, not estimable); h: a tested gap of 2/8 - 1/8
    rows = [("r", None, i % 2, 4) for i in range(4)] + [("g", None, 3, 4)]
    rows += [("h", None, 1, 4) for _ in range(4)]
    df = _frame(rows).drop(columns="speaker_id")
    res = _run(df)
    by = {c.group: c.verdict for c in res.comparisons}
    assert by["g"] == "not_estimable" and by["h"] != "not_estimable"
    assert res.summary["wer"].max_gap == pytest.approx(0.25 - 0.125)
    # sizes 4, 4, 1 weight the spread of 0.125, 0.25, 0.75
    v, w = np.array([0.125, 0.25, 0.75]), np.array([4, 4, 1])
    m = np.average(v, weights=w)
    assert res.summary["wer"].weighted_std == pytest.approx(
        math.sqrt(np.average((v - m) ** 2, weights=w))
    )
    # a higher-is-better metric ranks the other way round
    up = ratio_metric("hits", "Hits", ["n_sub"], ["n_words"], higher_is_better=True)
    res = _run(df, describe=(up,))
    assert (res.summary["hits"].best_group, res.summary["hits"].worst_group) == ("g", "r")


def test_run_design_matched_and_unmatched():
    assert _run(_shared(["s1", "s2"], ["t1", "t2", "t3"])).design == "matched"
    assert _run(_plain()).design == "unmatched"


# ------------------------------------------------------------------ jackknife, BLAS threads


def test_speaker_jackknife_runs_on_its_own_stream(monkeypatch):
    rows = [("g", f"s{i}", 2 + i % 3, 5) for i in range(10) for k in range(2)]
    rows += [("r", f"t{i}", i % 2, 5) for i in range(10) for k in range(2)]
    seen = []
    real = compare.comparison_rng

    def spy(seed, *parts):
        seen.append(parts)
        return real(seed, *parts)

    monkeypatch.setattr(compare, "comparison_rng", spy)
    c = _run(_frame(rows)).comparisons[0]
    assert c.estimator == "speaker" and c.verdict == "disparity_detected"
    assert "speaker_jackknife_flip" not in c.flags
    assert ("jackknife", "g", "r") in seen and ("compare", "g", "r") in seen


def test_blas_limited_to_one_thread_only(monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import sklearn.utils  # noqa: F401  (loads an OpenMP runtime beside BLAS)

    monkeypatch.setattr(compare, "_BLAS_CONTROLLER", None)  # as in a fresh process
    before = {lib["filepath"]: lib["num_threads"] for lib in threadpoolctl.threadpool_info()}
    with compare._single_blas_thread():
        inside = threadpoolctl.threadpool_info()
    assert compare._BLAS_CONTROLLER is not None
    assert any(lib["user_api"] == "blas" for lib in inside)
    for lib in inside:
        want = 1 if lib["user_api"] == "blas" else before[lib["filepath"]]
        assert lib["num_threads"] == want, lib
    monkeypatch.setattr(compare, "_BLAS_CONTROLLER", None)
    assert _run(_plain()).comparisons[0].group == "g"


def test_content_design_when_the_reference_has_no_present_content():
    from fairdesk.stats.bootstrap import Side, content_design

    group = Side(np.ones((3, 2)), contents=np.array([0, 1, 2]))
    ref = Side(np.ones((2, 2)), contents=np.array([-1, -1]))  # every id missing
    assert content_design(group, ref) == ("unmatched", 0, 0.0)


def test_parallel_map_threads(monkeypatch):
    import threading

    from fairdesk.stats.parallel import THREADS_ENV, parallel_map

    def who(x):
        return x * 10, threading.current_thread().name

    here = threading.current_thread().name
    # one thread (or less): the calling thread does it all, in order
    for n in (1, 0):
        assert parallel_map(who, [1, 2, 3], threads=n) == [(10, here), (20, here), (30, here)]
    # two threads: a pool, still in input order
    out = parallel_map(who, [1, 2, 3], threads=2)
    assert [v for v, _ in out] == [10, 20, 30]
    assert all(name.startswith("fairdesk-stats") for _, name in out)
    # the argument wins over the environment
    monkeypatch.setenv(THREADS_ENV, "1")
    out = parallel_map(who, [1, 2], threads=3)
    assert all(name.startswith("fairdesk-stats") for _, name in out)
    assert parallel_map(who, [1, 2]) == [(10, here), (20, here)]


def test_constant_group_has_no_interval():
    # every g item: 1 error in 4 words (0.25, no rule-of-three bound away from 0)
    rows = [("r", f"t{i}", i % 2, 4) for i in range(6)] + [("g", f"s{i}", 1, 4) for i in range(4)]
    g = next(gi for gi in _run(_frame(rows)).groups if gi.group == "g")
    assert g.ci == {"wer": None} and g.ci_scheme == {"wer": "not_estimable"}
    assert _words(g.ci_note) == {
        "wer": "every unit gives 25.0%, so the resampled values do not vary: no interval"
    }


def test_bootstrap_value_record():
    from fairdesk.stats.groupci import bootstrap_value

    X = np.c_[[0, 1, 2, 1, 3, 0], np.full(6, 4.0)]
    spk = np.array([0, 0, 1, 1, 2, 2])
    one_content = np.zeros(6, dtype=np.int64)
    rows = [np.arange(6)]
    vb = bootstrap_value(X, rows, spk, one_content, "speaker", 50, np.random.default_rng(0))
    assert (vb.scheme, vb.n_speakers, vb.n_contents, vb.n_items, vb.scaled) == (
        "speaker",
        3,
        None,
        6,
        False,
    )
    np.testing.assert_array_equal(vb.point, [7.0, 24.0])
    vb = bootstrap_value(
        X, rows, spk, one_content, "two_way", 50, np.random.default_rng(0), scale=True
    )
    # the two-way scheme is never scaled (docs/METHODS.md, "Small numbers of speakers")
    assert (vb.n_speakers, vb.n_contents, vb.scaled) == (3, 1, False)
    np.testing.assert_array_equal(
        vb.reps,
        bootstrap_value(X, rows, spk, one_content, "two_way", 50, np.random.default_rng(0)).reps,
    )
    # one content: the two-way replicates vary only through the speaker draw
    assert np.ptp(vb.reps[:, 0]) > 0
    vb = bootstrap_value(
        X, rows, spk, one_content, "utterance", 50, np.random.default_rng(0), scale=True
    )
    assert (vb.n_speakers, vb.n_contents, vb.n_items, vb.scaled) == (None, None, 6, False)


def test_bootstrap_value_scaling_centres_on_the_observed_sums():
    from fairdesk.stats.groupci import bootstrap_value

    X = np.c_[[0, 1, 2, 1, 3, 0], np.full(6, 4.0)]
    spk = np.array([0, 0, 1, 1, 2, 2])
    plain = bootstrap_value(X, [np.arange(6)], spk, None, "speaker", 50, np.random.default_rng(4))
    scaled = bootstrap_value(
        X, [np.arange(6)], spk, None, "speaker", 50, np.random.default_rng(4), scale=True
    )
    from scipy.stats import norm, t

    centre = np.array([7.0, 24.0])
    f = math.sqrt(3 / 2) * t.ppf(0.975, 2) / norm.ppf(0.975)  # 3 speakers
    np.testing.assert_allclose(scaled.reps, centre + f * (plain.reps - centre))


def test_bootstrap_value_content_draw_over_strata_with_different_contents():
    from fairdesk.stats.bootstrap import draw_counts
    from fairdesk.stats.groupci import bootstrap_value

    X = np.c_[[1, 2, 0, 3, 1, 1, 2, 0], np.full(8, 5.0)]
    contents = np.array([0, 1, 0, 1, 1, 2, 1, 2])  # stratum 1: contents 0, 1; stratum 2: 1, 2
    strata = [np.arange(4), np.arange(4, 8)]
    vb = bootstrap_value(X, strata, None, contents, "content", 40, np.random.default_rng(7))
    assert (vb.n_contents, vb.n_items) == (3, 8)
    per_content = np.array([X[contents == c].sum(axis=0) for c in range(3)])
    w = draw_counts(np.random.default_rng(7), 3, 40)
    np.testing.assert_allclose(vb.reps, w @ per_content)


def test_group_whose_speakers_agree_has_no_interval():
    """Items differ (0.25 and 0) but both speakers total 1 error in 8 words: every speaker
    resample gives 0.125, so there is no interval, and the note says why."""
    rows = [("r", f"t{i}", i % 2, 4) for i in range(6)]
    rows += [("g", "s0", 1, 4), ("g", "s0", 0, 4), ("g", "s1", 0, 4), ("g", "s1", 1, 4)]
    g = next(gi for gi in _run(_frame(rows)).groups if gi.group == "g")
    assert g.values["wer"] == 0.125
    assert g.ci == {"wer": None} and g.ci_scheme == {"wer": "not_estimable"}
    assert _words(g.ci_note) == {
        "wer": "the resampled values do not vary although the items do: no interval"
    }
