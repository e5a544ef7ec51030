"""The statistics give the same numbers whatever the number of threads, and the pair
bootstrap's kept per-speaker totals change nothing (fairdesk.stats.parallel, bootstrap)."""

import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats import AuditSettings, compare_groups
from fairdesk.stats.bootstrap import Side, bootstrap_pair, jackknife_group_speakers
from fairdesk.stats.parallel import THREADS_ENV, parallel_map
from fairdesk.workers import workers_from_env

WER = ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"])
CER = ratio_metric("cer", "CER", ["c_err"], ["n_chars"])


def _crossed_frame(seed: int = 0, groups: int = 5, speakers: int = 11, sentences: int = 30):
    """Every speaker of every group reads the same sentences; WER rises with the group."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(groups):
        for s in range(speakers):
            p = 0.05 + 0.03 * g + rng.normal(0, 0.01)
            for c in range(sentences):
                n = int(rng.integers(5, 12))
                e = int(rng.binomial(n, min(max(p, 0.0), 1.0)))
                rows.append(
                    {
                        "group": f"g{g}",
                        "speaker_id": f"g{g}s{s}",
                        "content_id": f"c{c}",
                        "n_words": n,
                        "n_sub": e,
                        "n_del": 0,
                        "n_ins": int(c % 7 == 0),
                        "n_chars": 5 * n,
                        "c_err": 2 * e,
                    }
                )
    return pd.DataFrame(rows)


def test_compare_groups_is_the_same_on_one_thread_and_on_three(monkeypatch):
    df = _crossed_frame()
    st = AuditSettings(n_bootstrap=400, seed=7)
    monkeypatch.setenv(THREADS_ENV, "1")
    one = compare_groups(df, [WER, CER], st, reference="g0").to_dict()
    monkeypatch.setenv(THREADS_ENV, "3")
    three = compare_groups(df, [WER, CER], st, reference="g0").to_dict()
    assert one == three
    # the jackknife ran (11 speakers, significant gaps), and it gave the same verdicts
    assert {c["verdict"] for c in one["comparisons"]} & {"disparity_detected", "speaker_confounded"}
    assert one["groups"] == three["groups"] and one["summary"] == three["summary"]


def test_kept_totals_change_neither_replicates_nor_jackknife():
    df = _crossed_frame(seed=1, groups=2, speakers=6, sentences=12)
    cols = ["n_sub", "n_del", "n_ins", "n_words"]

    def side(g):
        d = df[df.group == g]
        return Side(
            d[cols].to_numpy(float), d.speaker_id.to_numpy(object), d.content_id.to_numpy(object)
        )

    plain = bootstrap_pair(side("g1"), side("g0"), "two_way", 300, np.random.default_rng(4))
    kept = bootstrap_pair(
        side("g1"), side("g0"), "two_way", 300, np.random.default_rng(4), keep_totals=True
    )
    np.testing.assert_array_equal(plain.group_reps, kept.group_reps)
    np.testing.assert_array_equal(plain.reference_reps, kept.reference_reps)
    assert kept._totals is not None and kept._content_counts is None
    ja = jackknife_group_speakers(plain, np.random.default_rng(9))
    jb = jackknife_group_speakers(kept, np.random.default_rng(9))
    np.testing.assert_array_equal(ja.reps, jb.reps)
    np.testing.assert_array_equal(ja.point, jb.point)
    slim = kept.slim()
    assert slim._totals is None and slim._content_counts is None
    np.testing.assert_array_equal(slim.group_reps, kept.group_reps)


def test_parallel_map_keeps_order_and_raises_the_first_error_in_order():
    assert parallel_map(lambda x: x * x, range(20), threads=4) == [x * x for x in range(20)]

    def boom(x):
        if x in (3, 7):
            raise ValueError(f"item {x}")
        return x

    with pytest.raises(ValueError, match="item 3"):
        parallel_map(boom, range(10), threads=4)


def test_workers_from_env(monkeypatch):
    monkeypatch.setenv(THREADS_ENV, "2")
    assert workers_from_env(THREADS_ENV) == 2
    monkeypatch.setenv(THREADS_ENV, "0")
    assert workers_from_env(THREADS_ENV) == 1
    monkeypatch.setenv(THREADS_ENV, "two")
    with pytest.raises(
        ValueError,
        match=r"FAIRDESK_STATS_THREADS='two' is not a whole number; "
        r"set it to the number of workers",
    ):
        workers_from_env(THREADS_ENV)
    monkeypatch.delenv(THREADS_ENV)
    assert 1 <= workers_from_env(THREADS_ENV, cap=3) <= 3


def test_groups_sharing_content_equals_a_count_by_sets():
    from fairdesk.stats.groupci import groups_sharing_content, shares_content

    rng = np.random.default_rng(2)
    for _ in range(20):
        n = 300
        groups = rng.integers(0, 6, n)
        contents = rng.integers(-1, int(rng.integers(3, 40)), n)
        by_sets = []
        for g in range(7):
            mine = {c for c, gg in zip(contents, groups) if gg == g and c >= 0}
            others = {c for c, gg in zip(contents, groups) if gg != g and c >= 0}
            by_sets.append(len(mine & others) >= 5)
        assert groups_sharing_content(contents, groups, 7).tolist() == by_sets
        assert [shares_content(contents, groups, g) for g in range(7)] == by_sets
        # a negative group code is a group of its own
        shifted = groups - 1
        assert [shares_content(contents, shifted, g - 1) for g in range(7)] == by_sets


def test_parallel_map_runs_at_most_the_asked_threads_at_once():
    """The pool holds min(threads, items) workers: never more items in flight than asked."""
    import threading
    import time

    lock = threading.Lock()
    now = [0]
    most = [0]
    names = set()

    def busy(x):
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
            names.add(threading.current_thread().name)
        time.sleep(0.02)  # long enough for every free worker to pick an item up
        with lock:
            now[0] -= 1
        return x

    assert parallel_map(busy, range(12), threads=3) == list(range(12))
    assert most[0] <= 3 and len(names) <= 3
