"""The sentences of a comparison of systems (fairdesk.presentation.systems) on hand-made
records: narrowing, widening, reversal, untested."""

import math

from fairdesk.presentation.systems import gap_difference_sentence, system_difference_sentence
from fairdesk.stats.system_results import GapDifference, SystemDifference


def _gap(baseline_gap, gap, lo, hi, p=0.01, verdict="fairer", **kw):
    d = dict(
        metric="wer",
        system="B",
        baseline="A",
        group="age=child",
        reference="age=adult",
        gap=gap,
        baseline_gap=baseline_gap,
        difference=gap - baseline_gap,
        ci_low=lo,
        ci_high=hi,
        p_value=p,
        p_adjusted=p,
        mde=0.02,
        threshold=0.05,
        estimator="two_way",
        n_blocks=None,
        design="matched",
        verdict=verdict,
    )
    d.update(kw)
    return GapDifference(**d)


def test_narrowing_reads_as_the_issue_example():
    d = _gap(0.12, 0.059, -0.103, -0.020)
    assert gap_difference_sentence(d) == (
        "B narrows the child-vs-adult WER gap by 6.1 points [2.0, 10.3], p_adj 0.010: fairer"
    )


def test_widening_and_a_gap_in_the_other_direction():
    d = _gap(0.04, 0.10, 0.03, 0.09, verdict="less_fair")
    assert gap_difference_sentence(d) == (
        "B widens the child-vs-adult WER gap by 6.0 points [3.0, 9.0], p_adj 0.010: less fair"
    )
    # the group better than the reference (gap < 0) and B moves it towards 0: narrows
    d = _gap(-0.10, -0.03, 0.04, 0.10)
    assert gap_difference_sentence(d).startswith("B narrows the child-vs-adult WER gap by 7.0")


def test_reversed_names_both_gaps():
    d = _gap(0.08, -0.07, -0.2, -0.1, verdict="reversed")
    assert gap_difference_sentence(d) == (
        "B reverses the child-vs-adult WER gap: +8.0 with A, -7.0 with B (change -15.0 "
        "[-20.0, -10.0]), p_adj 0.010: reversed"
    )


def test_untested_gives_the_reason():
    d = _gap(
        0.0,
        0.0,
        math.nan,
        math.nan,
        p=math.nan,
        verdict="not_estimable",
        reason="one speaker in child",
    )
    assert gap_difference_sentence(d) == (
        "B vs A, the child-vs-adult WER gap: not estimable (one speaker in child)."
    )


def test_system_difference_sentence():
    d = SystemDifference(
        metric="wer",
        system="B",
        baseline="A",
        group="child",
        value=0.2,
        baseline_value=0.248,
        difference=-0.048,
        ci_low=-0.067,
        ci_high=-0.029,
        p_value=0.002,
        p_adjusted=0.002,
        mde=0.01,
        threshold=0.05,
        estimator="two_way",
        n_items=300,
        n_speakers=12,
        n_contents=30,
        direction="better",
        verdict="difference_small",
    )
    assert system_difference_sentence(d) == (
        "B has a lower WER than A in child by 4.8 points [2.9, 6.7], p_adj 0.002: difference small"
    )
