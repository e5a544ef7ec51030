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
    return pd.DataFrame(
        {
            "reference": [REFS[i] for i in k],
            "hypothesis": [REFS[i] if s else HYPS[i] for i, s in zip(k, same)],
        }
    )


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
    try:
        two = compute_item_stats(f, language="yo")
    finally:
        # joblib keeps its loky workers for 300 s; a leftover child of the test process is
        # reaped later by whoever waits for any child (mutmut's runner: KeyError on its pid)
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)
    pd.testing.assert_frame_equal(one, two)
    assert one["tone_expected"].sum() > 0 and one["dia_expected"].sum() > 0


def test_flags_by_distinct_inputs_equal_a_row_by_row_check():
    import json

    from fairdesk.metrics.hallucination import (
        HallucinationSettings,
        _text_flags,
        hallucination_columns,
        parse_evidence,
    )

    loop = "play the song " + "the song " * 6
    rows = [
        ("play the song", loop),
        ("play the song", "play the song"),
        ("go", "go go go go go go go go go go go"),
        ("play the song", loop),
        ("go", "go"),
    ]
    f = pd.DataFrame(rows * 3, columns=["reference", "hypothesis"])
    ns = {"flag": "over_nonspeech", "word": "song", "nonspeech": [1.0, 1.5]}
    # the same pair with and without non-speech evidence (as JSON text and as objects)
    f["nonspeech_words"] = [None] * 14 + [[ns]]
    f.loc[1, "nonspeech_words"] = json.dumps([ns])
    norm = get_normalizer(None, "en")
    st = HallucinationSettings()
    got = hallucination_columns(f, language="en")
    for k, (r, h, w) in enumerate(zip(f.reference, f.hypothesis, f.nonspeech_words)):
        ev = _text_flags(norm(r).split(), norm(h).split(), st) + parse_evidence(w)
        assert got["hallucination_evidence"][k] == (
            json.dumps(ev, ensure_ascii=False) if ev else ""
        )
        for c in ("loop", "runaway", "over_nonspeech"):
            assert got[f"hall_{c}"][k] == int(any(e["flag"] == c for e in ev))
        assert got["hallucinated"][k] == int(bool(ev))
    assert got["hall_loop"].tolist()[:5] == [1, 0, 1, 1, 0]
    assert got["hall_over_nonspeech"].tolist()[:2] == [0, 1] and got["hall_over_nonspeech"][14]
    assert got["hallucinated"].sum() == 11


class _InOrder:
    """Stands in for joblib.Parallel: records how it was set up and what it was given, and
    runs the calls in this process, in order (the worker processes themselves are covered by
    test_worker_processes_give_the_same_columns)."""

    made: list = []

    def __init__(self, n_jobs, backend):
        self.n_jobs, self.backend, self.chunks = n_jobs, backend, []
        _InOrder.made.append(self)

    def __call__(self, calls):
        out = []
        for fn, args, kwargs in calls:
            self.chunks.append(args[0])
            out.append(fn(*args, **kwargs))
        return out


def _score(chunk, tag):
    """A scorer whose columns show the rows and the extra argument it was given."""
    return {
        "ref_len": chunk["reference"].str.len().to_numpy(),
        "tag": np.array([f"{tag}{i}" for i in chunk.index], dtype=object),
    }


def test_score_pairs_splits_in_order_and_joins_the_columns(monkeypatch):
    import joblib

    monkeypatch.setattr(joblib, "Parallel", _InOrder)
    _InOrder.made = []
    monkeypatch.setattr(pairs, "MIN_PARALLEL_PAIRS", 50)
    monkeypatch.setenv(pairs.SCORE_ENV, "3")
    p = pd.DataFrame({"reference": [f"r{'x' * i}" for i in range(50)], "hypothesis": "h"})
    got = pairs.score_pairs(p, _score, "t")
    (par,) = _InOrder.made
    assert (par.n_jobs, par.backend) == (3, "loky")
    bounds = np.linspace(0, 50, 13).astype(int)  # 4 chunks per worker
    assert [len(c) for c in par.chunks] == np.diff(bounds).tolist()
    assert all(c.index.tolist() == list(range(len(c))) for c in par.chunks)  # index reset
    assert pd.concat(par.chunks).reference.tolist() == p.reference.tolist()
    assert got["ref_len"].tolist() == [i + 1 for i in range(50)]
    assert got["tag"].tolist() == [f"t{i}" for b in np.diff(bounds) for i in range(b)]
    assert set(got) == {"ref_len", "tag"}
    # fewer rows than chunks: no empty chunk is handed out
    _InOrder.made = []
    monkeypatch.setattr(pairs, "MIN_PARALLEL_PAIRS", 5)
    few = p.iloc[:5].reset_index(drop=True)
    got = pairs.score_pairs(few, _score, "u")
    assert [len(c) for c in _InOrder.made[0].chunks] == [1] * 5
    assert got["ref_len"].tolist() == [1, 2, 3, 4, 5] and got["tag"].tolist() == ["u0"] * 5


def test_score_pairs_stays_in_this_process_when_it_should(monkeypatch):
    import sys

    import joblib

    monkeypatch.setattr(joblib, "Parallel", _InOrder)
    monkeypatch.setattr(pairs, "MIN_PARALLEL_PAIRS", 20)
    p = pd.DataFrame({"reference": ["a"] * 20, "hypothesis": "h"})
    direct = _score(p, "t")

    def runs_here(frame, *args):
        _InOrder.made = []
        got = pairs.score_pairs(frame, _score, *args)
        assert _InOrder.made == []
        return got

    monkeypatch.setenv(pairs.SCORE_ENV, "1")  # one worker
    assert runs_here(p, "t")["tag"].tolist() == direct["tag"].tolist()
    monkeypatch.setenv(pairs.SCORE_ENV, "2")
    assert runs_here(p.iloc[:19], "t")["tag"].tolist() == direct["tag"].tolist()[:19]  # small
    assert runs_here(p, len)["tag"].tolist() == [f"{len}{i}" for i in range(20)]  # a callable
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # a frozen bundle
    assert runs_here(p, "t")["tag"].tolist() == direct["tag"].tolist()
    monkeypatch.delattr(sys, "frozen")
    _InOrder.made = []
    pairs.score_pairs(p, _score, "t")  # 20 rows at a minimum of 20: in parallel
    assert len(_InOrder.made) == 1 and _InOrder.made[0].n_jobs == 2
