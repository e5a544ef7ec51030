"""Verdict rules at their boundaries (METHODS.md §3); the readings' words are tested in
tests/test_presentation_sentences.py."""

import math

from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats import AuditSettings
from fairdesk.stats.verdicts import (
    decide_verdict,
    is_grounding,
    is_practical,
    practical_threshold,
)


def test_decide_verdict_at_alpha():
    # p_adjusted equal to alpha is not significant (§3: p_adjusted < alpha)
    assert decide_verdict(0.05, True, 0.01, 0.05, 0.05, False) == "no_disparity_detected"
    assert decide_verdict(0.0499, True, 0.01, 0.05, 0.05, False) == "disparity_detected"
    assert decide_verdict(0.05, True, 0.06, 0.05, 0.05, True) == "inconclusive_underpowered"


def test_grounding_family_and_practical_edges():
    st = AuditSettings()
    fam = ratio_metric("lift2", "Lift 2", ["a"], ["b"], higher_is_better=True, family="grounding")
    assert is_grounding(fam)
    assert practical_threshold(0.5, fam, st) == st.grounding_gap
    acc = ratio_metric("acc", "Acc", ["c"], ["n"], higher_is_better=True, kind="proportion")
    wer = ratio_metric("wer", "WER", ["e"], ["n"])
    assert not is_grounding(acc)
    assert not is_practical(math.nan, 5.0, wer, st)  # an undefined gap is never practical
    assert not is_practical(0.01, math.nan, wer, st)  # small gap, no ratio: not practical
    # higher is better: a ratio of exactly 1 is no disparity, a ratio of 0 is infinitely worse
    assert not is_practical(0.01, 1.0, acc, st)
    assert is_practical(-0.01, 0.0, acc, st)
