import math

import numpy as np
import pytest
from sklearn.metrics import silhouette_score

from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats import AuditSettings, compare_groups
from fairdesk.stats.representation import (
    case_label,
    leakage,
    representation_analysis,
    silhouette,
)
from fairdesk.stats.simulation import _study_specs, simulate_audit


def _embeddings(rng, n_spk=8, per=10, dim=16, group_shift=0.0, speaker_sd=0.0):
    X, g, s = [], [], []
    for grp in range(3):
        mean = np.zeros(dim)
        mean[grp] = group_shift
        for k in range(n_spk):
            spk_vec = rng.normal(0, speaker_sd, dim)
            X.append(rng.normal(0, 1, (per, dim)) + mean + spk_vec + 5.0)
            g += [f"G{grp}"] * per
            s += [f"G{grp}/s{k}"] * per
    return np.vstack(X), np.array(g), np.array(s)


def test_silhouette_is_sklearn_cosine():
    X, g, _ = _embeddings(np.random.default_rng(0), group_shift=3.0)
    assert silhouette(X, g) == pytest.approx(silhouette_score(X, g, metric="cosine"))
    assert silhouette(X, g) > 0.1
    assert math.isnan(silhouette(X, ["a"] * len(X)))
    with pytest.raises(ValueError, match="one group per item"):
        silhouette(X, g[:-1])


def test_leakage_detects_structure_and_not_noise():
    X, g, s = _embeddings(np.random.default_rng(1), group_shift=3.0)
    r = leakage(X, g, s)
    assert r.split == "speaker" and r.chance == pytest.approx(1 / 3)
    assert r.leakage > 0.5 and r.leakage == pytest.approx(r.balanced_accuracy - 1 / 3)
    X, g, s = _embeddings(np.random.default_rng(2), group_shift=0.0)
    assert abs(leakage(X, g, s).leakage) < 0.15


def test_folds_are_split_by_speaker():
    """Speaker identity is strongly encoded but groups carry no signal: item-level folds
    would 'learn' the group by recognising speakers; speaker folds must not."""
    X, g, s = _embeddings(np.random.default_rng(3), n_spk=10, group_shift=0.0, speaker_sd=3.0)
    by_speaker = leakage(X, g, s)
    by_item = leakage(X, g, None)
    assert by_item.split == "item" and by_item.leakage > 0.4
    assert by_speaker.leakage < 0.2


def test_case_labels():
    assert case_label(True, True) == "representation_linked_disparity"
    assert case_label(True, False) == "representation_only"
    assert case_label(False, True) == "disparity_not_representation_linked"
    assert case_label(False, False) == "no_structure_no_disparity"


def test_analysis_with_audit_result():
    rng = np.random.default_rng(4)
    df = simulate_audit(rng, {"ref": 0.0, "g": 1.0}, design="matched", speakers_per_group=15)
    df["n_x"] = rng.binomial(df["n_words"], 0.1)  # a metric the group doesn't affect
    specs = [s for s in _study_specs() if s.id == "wer"]
    specs.append(ratio_metric("x_rate", "X rate", ["n_x"], ["n_words"]))
    res = compare_groups(df, specs, AuditSettings(n_bootstrap=300), reference="ref")
    assert res.comparison("wer", "g").verdict == "disparity_detected"
    assert res.comparison("x_rate", "g").verdict != "disparity_detected"
    # embeddings carrying the group
    emb = (
        rng.normal(0, 1, (len(df), 8))
        + np.where(df["group"].to_numpy() == "g", 2.0, 0.0)[:, None] * np.eye(8)[0]
    )
    rep = representation_analysis(emb, df["group"], df["speaker_id"], result=res)
    assert rep.structure
    assert rep.cases == {"wer": "representation_linked_disparity", "x_rate": "representation_only"}
    flat = rng.normal(0, 1, (len(df), 8))
    rep = representation_analysis(flat, df["group"], df["speaker_id"], result=res)
    assert not rep.structure
    assert rep.cases["wer"] == "disparity_not_representation_linked"
    assert rep.to_dict()["leakage"]["split"] == "speaker"
    rep = representation_analysis(flat, df["group"], disparity={"x": False}, threshold=0.5)
    assert rep.cases == {"x": "no_structure_no_disparity"} and rep.threshold == 0.5


def test_probe_not_run_with_too_few_folds_word_for_word():
    X = np.random.default_rng(0).normal(size=(5, 3))
    r = leakage(X, ["a", "a", "a", "a", "b"], None)
    assert (r.n_folds, r.split, r.chance) == (0, "item", 0.5) and math.isnan(r.leakage)
    assert r.note == ("probe not run: cross-validation needs at least 2 folds (5 asked) but "
                      "there are a group of 1 item(s); record more items or speakers per group")
    r = leakage(X, ["a", "a", "b", "b", "b"], ["s1", "s2", "s3", "s4", "s4"], n_splits=1)
    assert (r.n_folds, r.split) == (0, "speaker") and math.isnan(r.balanced_accuracy)
    assert r.note == ("probe not run: cross-validation needs at least 2 folds (1 asked) but "
                      "there are 4 speaker(s) and at most 3 items per group; record more items "
                      "or speakers per group")
