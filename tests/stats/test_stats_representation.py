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
    assert math.isnan(r.balanced_accuracy)
    assert _w(r.note) == (
        "probe not run: cross-validation needs at least 2 folds (5 asked) but "
        "there are a group of 1 item(s); record more items or speakers per group"
    )
    r = leakage(X, ["a", "a", "b", "b", "b"], ["s1", "s2", "s3", "s4", "s4"], n_splits=1)
    assert (r.n_folds, r.split, r.chance) == (0, "speaker", 0.5)
    assert math.isnan(r.balanced_accuracy) and math.isnan(r.leakage)
    assert _w(r.note) == (
        "probe not run: cross-validation needs at least 2 folds (1 asked) but "
        "there are 4 speaker(s) and at most 3 items per group; record more items "
        "or speakers per group"
    )


def test_silhouette_edges_and_the_seeded_sample():
    rng = np.random.default_rng(5)
    X = rng.normal(0, 1, (60, 4)) + np.repeat(np.eye(4)[:2] * 3, 30, axis=0)
    g = np.repeat(["a", "b"], 30)
    assert silhouette(X, g) == pytest.approx(silhouette_score(X, g, metric="cosine"))  # 2 groups
    assert silhouette(X.tolist(), g.tolist()) == pytest.approx(silhouette(X, g))
    assert math.isnan(silhouette(X[[0, 30]], ["a", "b"]))  # one item per group
    for seed in (0, 3):
        assert silhouette(X, g, max_items=50, seed=seed) == pytest.approx(
            silhouette_score(X, g, metric="cosine", sample_size=50, random_state=seed)
        )
    assert silhouette(X, g, max_items=50) != pytest.approx(silhouette(X, g))
    assert silhouette(X, g, max_items=60) == pytest.approx(silhouette(X, g))


def test_silhouette_default_sample_is_5000_items_seed_0():
    rng = np.random.default_rng(6)
    X = rng.normal(0, 1, (5001, 3)) + np.repeat(np.eye(3)[:3] * 0.5, [1667, 1667, 1667], axis=0)
    g = np.repeat(["a", "b", "c"], [1667, 1667, 1667])
    assert silhouette(X, g) == pytest.approx(
        silhouette_score(X, g, metric="cosine", sample_size=5000, random_state=0), abs=1e-12
    )


def _fake_result(threshold, seed, verdicts, summary):
    from types import SimpleNamespace

    comps = [SimpleNamespace(metric=m, verdict=v) for m, v in verdicts]
    return SimpleNamespace(
        settings=AuditSettings(structure_threshold=threshold, seed=seed),
        comparisons=comps,
        summary=summary,
    )


def test_analysis_takes_threshold_seed_and_disparity_from_the_result():
    X, g, s = _embeddings(np.random.default_rng(9), n_spk=4, per=5, group_shift=0.4)
    res = _fake_result(
        0.9,
        7,
        [
            ("wer", "disparity_detected"),
            ("wer", "no_disparity_detected"),
            ("cer", "significant_but_small"),
        ],
        {"wer": 0, "cer": 0, "em": 0},
    )
    rep = representation_analysis(X, g, s, result=res, seed=0, n_splits=3)
    assert rep.threshold == 0.9 and not rep.structure
    assert rep.leakage == leakage(X, g, s, n_splits=3, seed=7)
    assert rep.leakage != leakage(X, g, s, n_splits=3, seed=0)
    assert rep.silhouette == pytest.approx(silhouette(X, g))
    # a disparity on any comparison of a metric counts; a metric without comparisons has none
    assert rep.cases == {
        "wer": "disparity_not_representation_linked",
        "cer": "no_structure_no_disparity",
        "em": "no_structure_no_disparity",
    }
    plain = representation_analysis(X, g, s)
    assert plain.threshold == 0.1 and plain.leakage == leakage(X, g, s)
    assert plain.leakage != leakage(X, g, s, n_splits=6) and plain.leakage != leakage(
        X, g, s, seed=1
    )


def test_structure_from_either_measure_at_its_threshold():
    X, g, s = _embeddings(np.random.default_rng(8), n_spk=4, per=5, dim=16, group_shift=2.0)
    sil, leak = silhouette(X, g), leakage(X, g, s).leakage
    assert sil < leak
    assert representation_analysis(X, g, s, threshold=leak).structure
    assert not representation_analysis(X, g, s, threshold=leak + 1e-9).structure
    # the probe not run (one fold asked): silhouette alone decides
    assert representation_analysis(X, g, s, threshold=sil, n_splits=1).structure
    assert not representation_analysis(X, g, s, threshold=sil + 1e-9, n_splits=1).structure


def _probe_by_hand(X, y, groups, k, seed):
    """The probe recomputed with sklearn: scaled logistic regression, out-of-fold balanced
    accuracy over k shuffled folds (by speaker when ``groups`` is given)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    y = np.asarray(y).astype(str)
    if groups is None:
        splits = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(X, y)
    else:
        splits = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed).split(
            X, y, groups=groups
        )
    pred = np.empty(len(y), dtype=object)
    for train, test in splits:
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
        pred[test] = model.fit(X[train], y[train]).predict(X[test])
    return balanced_accuracy_score(y, pred.astype(str))


def _scaled_data(seed, n_spk=4, per=6):
    X, g, s = _embeddings(np.random.default_rng(seed), n_spk=n_spk, per=per, dim=4, group_shift=0.8)
    X[:, 1] *= 50.0  # scales differ: the probe standardises
    return X, g, s


@pytest.mark.parametrize("n_splits, seed", [(2, 0), (3, 5), (4, 11)])
def test_probe_equals_sklearn_by_hand(n_splits, seed):
    X, g, s = _scaled_data(1)
    two = g != "G2"  # and with two groups
    for X_, g_, spk, chance in (
        (X, g, s, 1 / 3),
        (X, g, None, 1 / 3),
        (X[two], g[two], s[two], 1 / 2),
        (X[two], g[two], None, 1 / 2),
    ):
        r = leakage(X_, g_, spk, n_splits=n_splits, seed=seed)
        expected = _probe_by_hand(X_, g_, spk, n_splits, seed)
        assert r.balanced_accuracy == pytest.approx(expected)
        assert r.leakage == pytest.approx(expected - chance) and r.chance == pytest.approx(chance)
    for spk in (s, None):
        r = leakage(X, g, spk, n_splits=n_splits, seed=seed)
        expected = _probe_by_hand(X, g, spk, n_splits, seed)
        assert r.balanced_accuracy == pytest.approx(expected)
        assert r.leakage == pytest.approx(expected - 1 / 3) and r.chance == pytest.approx(1 / 3)
        assert (r.n_folds, r.split, _w(r.note)) == (
            n_splits,
            "speaker" if spk is not None else "item",
            "",
        )


def test_fewer_folds_notes_word_for_word():
    X, g, s = _scaled_data(2, n_spk=2, per=5)  # 6 speakers, 10 items per group
    r = leakage(X, g, s, n_splits=8)
    assert (r.n_folds, _w(r.note)) == (
        6,
        "6 folds instead of 8: groups of 10 to 10 items, 6 speakers",
    )
    assert r.balanced_accuracy == pytest.approx(_probe_by_hand(X, g, s, 6, 0))
    X, g, s = _scaled_data(3, n_spk=3, per=1)  # 9 speakers, 3 items per group
    r = leakage(X, g, s)
    assert (r.n_folds, _w(r.note)) == (
        3,
        "3 folds instead of 5: groups of 3 to 3 items, 9 speakers",
    )
    keep = np.r_[0:3, 3:9]  # groups of 3, 3 and 3 items; item folds
    r = leakage(X[keep], g[keep], None, n_splits=4)
    assert (r.n_folds, r.split, _w(r.note)) == (
        3,
        "item",
        "3 folds instead of 4: groups of 3 to 3 items",
    )
    X, g, s = _scaled_data(4)
    keep = np.r_[0:24, 24:27, 48:72]  # the middle group keeps 3 items
    r = leakage(X[keep], g[keep], None)
    assert _w(r.note) == "3 folds instead of 5: groups of 3 to 24 items"


def test_probe_edges_word_for_word():
    X = np.random.default_rng(0).normal(size=(6, 3))
    one = leakage(X, ["a"] * 6)
    assert (one.n_folds, one.split, one.chance, _w(one.note)) == (0, "none", 1.0, "")
    assert math.isnan(one.leakage) and math.isnan(one.balanced_accuracy)
    empty = leakage(np.zeros((0, 3)), [])
    assert empty.split == "none" and math.isnan(empty.chance)
    for emb, groups, shape in (
        (np.zeros((3, 2)), ["a", "b"], "(3, 2)"),
        (np.zeros(3), ["a", "b", "a"], "(3,)"),
    ):
        with pytest.raises(ValueError) as e:
            leakage(emb, groups)
        assert str(e.value) == (
            f"embeddings must be (n_items, dim) with one group per item; "
            f"got {shape} embeddings and {len(groups)} group labels."
        )
    lone = leakage(
        np.random.default_rng(1).normal(size=(14, 3)),
        list("aabbccddeeffgg"),
        ["s"] * 2 + ["t"] * 2 + ["u"] * 2 + ["v"] * 2 + ["w"] * 2 + ["x", "y"] + ["z"] * 2,
    )
    assert (lone.n_folds, lone.split, lone.chance) == (0, "speaker", pytest.approx(1 / 7))
    assert math.isnan(lone.leakage) and math.isnan(lone.balanced_accuracy)
    assert _w(lone.note) == (
        "probe not run: group(s) a, b, c, d, e have a single speaker, and "
        "speaker-split folds need two per group; record more items or "
        "speakers per group"
    )


def test_items_without_speaker_are_their_own_speakers():
    X, g, s = _scaled_data(5)
    s = s.astype(object)
    s[g == "G2"] = None  # G2: no speaker ids at all
    s[np.flatnonzero(g == "G1")[::2]] = math.nan
    r = leakage(X, g, s, n_splits=3)
    assert r.split == "speaker" and r.n_folds == 3
    assert 0.0 <= r.balanced_accuracy <= 1.0
    every = leakage(X, g, [None] * len(g), n_splits=3)
    assert every == leakage(X, g, None, n_splits=3)


def test_analysis_passes_its_seed_to_the_silhouette_sample():
    rng = np.random.default_rng(6)
    X = rng.normal(0, 1, (5001, 3)) + np.repeat(np.eye(3) * 0.5, [1667, 1667, 1667], axis=0)
    g = np.repeat(["a", "b", "c"], [1667, 1667, 1667])
    rep = representation_analysis(X, g, seed=7, n_splits=2)
    assert rep.silhouette == pytest.approx(
        silhouette_score(X, g, metric="cosine", sample_size=5000, random_state=7), abs=1e-12
    )
    assert rep.silhouette != pytest.approx(silhouette(X, g), abs=1e-12)


def _w(note):
    """A probe's coded note in today's words ("" when it ran as asked, as before)."""
    from fairdesk.presentation.notices import notice_text

    return "" if note is None else notice_text(note)
