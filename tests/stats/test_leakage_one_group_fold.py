"""The leakage probe's fold whose training part holds a single group.

sklearn's stratified splitters never produce such a fold for the data ``leakage`` accepts
(every group needs two speakers, or k items), but a splitter that did must not crash the
probe or leave items unpredicted: the fold predicts its one training group for every test
item, and the other folds are fitted as usual.
"""

import numpy as np
import pytest
import sklearn.model_selection as ms
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairdesk.stats.representation import leakage


def test_a_fold_trained_on_one_group_predicts_that_group(monkeypatch):
    rng = np.random.default_rng(0)
    n = 12
    g = np.array(["a"] * 6 + ["b"] * 6, dtype=object)
    X = rng.normal(size=(n, 3)) + np.where(g == "a", 0.0, 1.5)[:, None]
    spk = np.array([f"s{i // 2}" for i in range(n)], dtype=object)  # 2 items per speaker
    # fold 1 trains on group a only (and tests on half of each group); fold 2 is ordinary
    folds = [
        (np.array([0, 1, 2]), np.array([3, 4, 5, 6, 7, 8])),
        (np.array([3, 4, 5, 6, 7, 8]), np.array([0, 1, 2, 9, 10, 11])),
    ]

    class OneGroupFolds:
        def __init__(self, n_splits, shuffle, random_state):
            assert n_splits == 5

        def split(self, X_, y_, groups=None):
            return iter(folds)

    monkeypatch.setattr(ms, "StratifiedGroupKFold", OneGroupFolds)
    r = leakage(X, g, spk)
    pred = np.empty(n, dtype=object)
    pred[folds[0][1]] = "a"  # the one group the fold trained on
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    model.fit(X[folds[1][0]], g[folds[1][0]])
    pred[folds[1][1]] = model.predict(X[folds[1][1]])
    want = balanced_accuracy_score(g.astype(str), pred.astype(str))
    assert r.split == "speaker" and r.n_folds == 5
    assert r.balanced_accuracy == pytest.approx(want, abs=1e-12)
    assert r.leakage == pytest.approx(want - 0.5, abs=1e-12)
