"""Small pieces of the comparison engine checked on their own: content ids from references,
the rule-of-three denominators, the resampling override's messages word for word, the
speaker jackknife's refusal."""

import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics.registry import MetricSpec, ratio_metric
from fairdesk.stats.bootstrap import Side, bootstrap_pair, choose_scheme, jackknife_group_speakers
from fairdesk.stats.compare import derive_content_ids
from fairdesk.stats.comparison import denominator

TAIL = "; use --resampling auto to let fairdesk pick a scheme the data supports."


def test_content_ids_from_references():
    out = derive_content_ids(pd.Series(["Hello, World!", None, float("nan"), "  Don't  STOP  ", 3]))
    assert out.iloc[0] == "hello world" and out.iloc[3] == "don't stop" and out.iloc[4] == "3"
    assert out.iloc[1:3].isna().all()


@pytest.mark.parametrize(
    "den, kind, unit",
    [
        ("n_words", "rate", "reference words"),
        ("n_chars", "rate", "reference characters"),
        ("dia_expected", "rate", "expected diacritics"),
        ("tone_expected", "rate", "expected tone marks"),
        ("n_other", "rate", "units"),
        ("n_words", "proportion", "items"),
    ],
)
def test_rule_of_three_denominators(den, kind, unit):
    spec = ratio_metric("m", "M", ["e"], [den], kind=kind)
    X = np.array([[9.0, 1.0, 10.0], [9.0, 2.0, 20.0]])  # columns: other, e, den
    assert denominator(spec, X, [1, 2]) == (30.0, unit)


def test_rule_of_three_without_a_denominator_counts_items():
    spec = MetricSpec("acc", "Acc", ("c",), lambda s: s[..., 0], True, "rate")
    assert denominator(spec, np.ones((7, 1)), [0]) == (7.0, "items")


@pytest.mark.parametrize(
    "args, message",
    [
        ((False, 2, "speaker"), "--resampling speaker needs speaker ids" + TAIL),
        (
            (False, 2, "speaker", " for scot"),
            "--resampling speaker needs speaker ids for scot" + TAIL,
        ),
        (
            (False, 2, "two_way"),
            "--resampling two_way needs speaker ids and at least 5 content ids "
            "shared with the reference (found 2)" + TAIL,
        ),
        (
            (False, 3, "content", " for x"),
            "--resampling content needs at least 5 content ids "
            "shared with the reference (found 3) for x" + TAIL,
        ),
        (
            (True, 9, "bogus"),
            "Unknown resampling 'bogus'; choose auto or one of ('two_way', "
            "'speaker', 'content', 'utterance').",
        ),
    ],
)
def test_resampling_override_messages_word_for_word(args, message):
    with pytest.raises(ValueError) as e:
        choose_scheme(*args)
    assert str(e.value) == message


def test_resampling_overrides_the_data_supports():
    assert choose_scheme(False, 5, "content") == "content"
    assert choose_scheme(False, 0, "utterance") == "utterance"
    assert choose_scheme(True, 0, "speaker") == "speaker"
    assert choose_scheme(True, 5, "two_way") == "two_way"


def test_jackknife_refuses_without_group_speakers():
    rng = np.random.default_rng(0)
    a = Side(
        rng.integers(0, 5, (20, 2)).astype(float) + [0, 10],
        np.array([f"s{i % 4}" for i in range(20)], dtype=object),
    )
    r = Side(
        rng.integers(0, 5, (20, 2)).astype(float) + [0, 10],
        np.array([f"r{i % 4}" for i in range(20)], dtype=object),
    )
    pb = bootstrap_pair(a, r, "utterance", 200, np.random.default_rng(1))
    with pytest.raises(ValueError) as e:
        jackknife_group_speakers(pb, np.random.default_rng(2))
    assert str(e.value) == "The speaker jackknife needs speaker ids on the group side."


def test_jackknife_needs_two_group_speakers():
    rng = np.random.default_rng(0)

    def side(speakers):
        n = len(speakers)
        return Side(
            rng.integers(0, 5, (n, 2)).astype(float) + [0, 10], np.array(speakers, dtype=object)
        )

    ref = side([f"r{i % 4}" for i in range(20)])
    two = bootstrap_pair(side(["a"] * 5 + ["b"] * 5), ref, "speaker", 200, np.random.default_rng(1))
    jk = jackknife_group_speakers(two, np.random.default_rng(2))
    assert list(jk.speakers) == ["a", "b"] and jk.reps.shape == (2, 200, 2)
    one = bootstrap_pair(side(["a"] * 10), ref, "speaker", 200, np.random.default_rng(1))
    with pytest.raises(ValueError) as e:
        jackknife_group_speakers(one, np.random.default_rng(2))
    assert str(e.value) == "The speaker jackknife needs at least two speakers."


def test_shared_content_counts_by_hand():
    from fairdesk.stats.groupci import shared_content_count, shares_content

    # content codes (-1: missing) and group codes of 12 items
    c = np.array([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, -1])
    g = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    # contents 0-4 occur in both groups; 5 only in group 0; the missing code counts nowhere
    assert shared_content_count(c, g) == 5
    assert shared_content_count(c, g, rows=np.arange(8)) == 2  # groups share 0 and 1 there
    assert shared_content_count(np.full(4, -1), np.array([0, 0, 1, 1])) == 0
    assert shared_content_count(np.array([-1, 0, 0]), np.array([0, 0, 1])) == 1
    assert shares_content(c, g, 0) and shares_content(c, g, 1)
    assert not shares_content(c, g, 0, rows=np.arange(10))  # 4 shared: below 5
    c2 = np.array([1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6])
    g2 = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2])
    assert shares_content(c2, g2, 0) and not shares_content(c2, g2, 2)
    c3 = np.array([0, 1, 2, 3, 4, 0, 1, 2, 3, 4])  # code 0 is a content like any other
    g3 = np.array([0] * 5 + [1] * 5)
    assert shares_content(c3, g3, 0) and shared_content_count(c3, g3) == 5


def test_local_codes_give_each_missing_code_its_own_block():
    from fairdesk.stats.groupci import _local

    dense, n = _local(np.array([3, -1, 3, 7, -1]))
    # 3 → 0, 7 → 1, each missing its own new block after them
    assert dense.tolist() == [0, 2, 0, 1, 3] and n == 4 and dense.dtype == np.int64
    dense, n = _local(np.array([-1, -1]))
    assert dense.tolist() == [0, 1] and n == 2
    dense, n = _local(np.array([1, 0, 1]))
    assert dense.tolist() == [1, 0, 1] and n == 2


def test_rule_of_three_interval_of_a_constant_group():
    from fairdesk.stats.groupci import _const_interval

    zeros, ones = np.zeros(4), np.ones(4)
    assert _const_interval(zeros, 10, False) == (0.0, pytest.approx(0.3))
    assert _const_interval(zeros, 1, False) == (0.0, 3.0)
    assert _const_interval(zeros, 10, True) == (0.0, pytest.approx(0.3))
    assert _const_interval(zeros, 2, True) == (0.0, 1.0)  # 3/n capped at 1
    assert _const_interval(ones, 10, True) == (pytest.approx(0.7), 1.0)
    assert _const_interval(ones, 2, True) == (0.0, 1.0)
    assert _const_interval(ones, 10, False) is None  # a rate constant at 1: no bound
    assert _const_interval(np.full(3, 0.5), 10, True) is None
    assert _const_interval(np.array([0.0, 1.0]), 10, True) is None
    for n in (0, -3, None):
        assert _const_interval(zeros, n, False) is None


def test_comparison_rng_derivation():
    import hashlib

    from fairdesk.stats.bootstrap import comparison_rng

    h = int.from_bytes(hashlib.blake2b(b"scot\x1fus", digest_size=8).digest(), "little")
    expected = np.random.default_rng(np.random.SeedSequence([7, h & 0xFFFFFFFF, h >> 32]))
    np.testing.assert_array_equal(
        comparison_rng(7, "scot", "us").integers(0, 2**31, 5), expected.integers(0, 2**31, 5)
    )
    a = comparison_rng(7, "scot", "us").random(3)
    assert not np.allclose(a, comparison_rng(7, "scotus").random(3))
    assert not np.allclose(a, comparison_rng(8, "scot", "us").random(3))
