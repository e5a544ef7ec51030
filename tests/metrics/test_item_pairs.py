"""Per-item statistics score each distinct (reference, hypothesis) pair once, in worker
processes for large tables, with the same numbers as scoring row by row."""

import jiwer
import numpy as np
import pandas as pd

import fairdesk.metrics.pairs as pairs
from fairdesk.metrics import compute_item_stats
from fairdesk.metrics.normalize import get_normalizer

REFS = ["the cat sat on the mat", "àkwà ákwá akwa", "twenty one pilots", "ọ́kọ̀ ọkọ"]
HYPS = ["the cat sat on a mat", "akwa ákwá àkwà", "21 pilots", "okọ̀ ọkọ"]


def _frame(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    k = rng.integers(0, len(REFS), n)
    same = rng.random(n) < 0.5
    return pd.DataFrame({"reference": [REFS[i] for i in k],
                         "hypothesis": [REFS[i] if s else HYPS[i] for i, s in zip(k, same)]})


def test_repeated_pairs_get_the_numbers_of_a_row_by_row_jiwer_count():
    f = _frame()
    st = compute_item_stats(f, language="en")
    norm = get_normalizer(None, "en")
    for row, (r, h) in enumerate(zip(f.reference, f.hypothesis)):
        o = jiwer.process_words(norm(r), norm(h))
        got = st.iloc[row]
        assert (got.n_sub, got.n_del, got.n_ins) == (o.substitutions, o.deletions, o.insertions)
        assert got.n_words == len(norm(r).split())


def test_worker_processes_give_the_same_columns(monkeypatch):
    f = _frame(600, seed=3)
    f["hypothesis"] = [h + f" extra{i % 50}" for i, h in enumerate(f.hypothesis)]  # 200 pairs
    monkeypatch.setenv(pairs.SCORE_ENV, "1")
    one = compute_item_stats(f, language="yo")
    monkeypatch.setenv(pairs.SCORE_ENV, "2")
    monkeypatch.setattr(pairs, "MIN_PARALLEL_PAIRS", 10)
    two = compute_item_stats(f, language="yo")
    pd.testing.assert_frame_equal(one, two)
    assert one["tone_expected"].sum() > 0 and one["dia_expected"].sum() > 0
