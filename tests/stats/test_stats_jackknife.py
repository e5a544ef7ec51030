"""The speaker rules of ``speaker_confounded`` (METHODS.md §3, verdict 1) on constructed audits.

Every speaker reads 10 utterances of 20 words; their error counts are set by hand, so the
group values, the gap and each leave-one-speaker-out gap are known exactly and are recomputed
here with pandas, independently of fairdesk.
"""

import pandas as pd
import pytest

from fairdesk.presentation.readings import reading
from fairdesk.stats import AuditSettings, compare_groups

WORDS, UTTS = 20, 10


def _speaker_rows(group: str, speaker: str, wer: float) -> list[dict]:
    errors = round(wer * WORDS * UTTS)
    per = [errors // UTTS + (1 if i < errors % UTTS else 0) for i in range(UTTS)]
    return [
        {
            "group": group,
            "speaker_id": speaker,
            "n_words": WORDS,
            "n_sub": e,
            "n_del": 0,
            "n_ins": 0,
        }
        for e in per
    ]


def _audit(group_wers: list[float], ref_wers: list[float]) -> pd.DataFrame:
    rows = []
    for i, w in enumerate(group_wers):
        rows += _speaker_rows("g", f"g{i}", w)
    for i, w in enumerate(ref_wers):
        rows += _speaker_rows("ref", f"r{i}", w)
    return pd.DataFrame(rows)  # no content ids: the speaker scheme


def _wer(df: pd.DataFrame) -> float:
    return float((df.n_sub + df.n_del + df.n_ins).sum() / df.n_words.sum())


REF = [0.29, 0.31] * 6  # 12 reference speakers, pooled WER 0.30


def _run(df, wer):
    st = AuditSettings(n_bootstrap=1000, seed=3)
    return compare_groups(df, [wer], st, reference="ref")


def _compare(df, wer):
    return _run(df, wer).comparisons[0]


def test_leaving_out_one_speaker_keeps_significance_but_not_practical_size(wer):
    # 11 speakers at 0.345 and one at 0.43: the pooled gap is just practical (>= 0.05, ratio
    # 1.17 < 1.25); without the 0.43 speaker it is 0.045 (not practical) yet still clearly
    # significant, so the verdict must be speaker_confounded, not disparity_detected.
    df = _audit([0.345] * 11 + [0.43], REF)
    ref_v = _wer(df[df.group == "ref"])
    gap = _wer(df[df.group == "g"]) - ref_v
    assert ref_v == pytest.approx(0.30) and gap >= 0.05 and (gap + ref_v) / ref_v < 1.25
    loo = {
        s: _wer(df[(df.group == "g") & (df.speaker_id != s)]) - ref_v
        for s in df[df.group == "g"].speaker_id.unique()
    }
    assert loo["g11"] == pytest.approx(0.045) and min(loo.values()) < 0.05

    res = _run(df, wer)
    c = res.comparisons[0]
    assert c.estimator == "speaker" and c.n_speakers == 12
    assert c.gap == pytest.approx(gap) and c.p_adjusted < 0.01  # significant, practical
    assert c.verdict == "speaker_confounded"
    assert "speaker_jackknife_flip" in c.flags and "fewer_than_10_speakers" not in c.flags
    assert "get more speakers" in reading(c, res)


def test_a_gap_that_survives_every_leave_one_out_is_a_disparity(wer):
    # the control: the same audit with the outlier speaker at the group's level
    df = _audit([0.36] * 12, REF)
    c = _compare(df, wer)
    assert c.gap == pytest.approx(0.06) and c.verdict == "disparity_detected"
    assert "speaker_jackknife_flip" not in c.flags


@pytest.mark.parametrize(
    "n_speakers, verdict",
    [(9, "speaker_confounded"), (10, "disparity_detected"), (11, "disparity_detected")],
)
def test_the_10_speaker_boundary(wer, n_speakers, verdict):
    # a large, uniform gap (0.30 -> 0.40): only the speaker count decides
    df = _audit([0.39, 0.41] * (n_speakers // 2) + [0.40] * (n_speakers % 2), REF)
    c = _compare(df, wer)
    assert c.n_speakers == n_speakers and c.p_adjusted < 0.01
    assert c.gap == pytest.approx(0.10)
    assert c.verdict == verdict
    assert ("fewer_than_10_speakers" in c.flags) == (n_speakers < 10)
