"""metric_specs / METRICS / confusion_matrix."""

import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics import (
    CLASS_METRIC_IDS,
    METRIC_IDS,
    METRICS,
    NO_PREDICTION,
    class_labels,
    class_metric,
    compute_item_stats,
    confusion_matrix,
    metric_specs,
)

CONTRACT_IDS = {
    "wer", "cer", "sub_rate", "del_rate", "ins_rate", "insertion_ratio", "der", "rdd",
    "diacritic_net_loss", "ter", "ter_dropped", "ter_hallucinated", "ter_wrong", "em",
    "intent_accuracy", "accuracy", "balanced_accuracy", "macro_recall", "mean_confidence",
    "grounding_lift", "hallucination_rate", "wer_unflagged",
}  # fmt: skip
#: Metrics whose per-item columns come from a later stage (explain; the hallucination flags
#: of jobs.pitfalls), not compute_item_stats.
STAGE_IDS = ("grounding_lift", "hallucination_rate", "wer_unflagged")


def test_every_contract_id_is_known():
    assert set(METRIC_IDS) == CONTRACT_IDS
    assert set(METRICS) == CONTRACT_IDS - set(CLASS_METRIC_IDS)
    for spec in METRICS.values():
        assert spec.family in {"transcription", "diacritic", "slu", "classification", "grounding"}
        assert spec.kind in {"rate", "proportion"}
        assert spec.denominator and set(spec.denominator) <= set(spec.stats)
    higher = {i for i, s in METRICS.items() if s.higher_is_better}
    assert higher == {"em", "intent_accuracy", "accuracy", "mean_confidence", "grounding_lift"}


def _full_frame():
    return pd.DataFrame(
        {
            "reference": ["àkwà ọ́kụ̀", "hello"],
            "hypothesis": ["akwa ọ́kụ̀", "hello"],
            "ref_intent": ["Play", "Pause"],
            "hyp_intent": ["Play", "Play"],
            "label": ["x", "y"],
            "predicted_label": ["x", "x"],
            "confidence": [0.5, 0.7],
        }
    )


def test_metric_specs_all_in_canonical_order():
    stats = compute_item_stats(_full_frame(), language="ig")
    ids = [s.id for s in metric_specs(stats)]
    assert ids == [i for i in METRIC_IDS if i not in STAGE_IDS]
    # same call, same order
    assert [s.id for s in metric_specs(stats)] == ids


def test_metric_specs_skip_undefined_and_missing():
    frame = pd.DataFrame({"reference": ["the cat"], "hypothesis": ["the hat"]})
    stats = compute_item_stats(frame)
    ids = [s.id for s in metric_specs(stats)]
    # no diacritics anywhere: DER/TER are undefined (E = 0), so not offered by default
    assert ids == ["wer", "sub_rate", "del_rate", "ins_rate", "insertion_ratio", "cer"]
    # asked for explicitly, they are returned (values NaN)
    der = metric_specs(stats, ["der"])[0]
    assert np.isnan(der.compute(stats[list(der.stats)].sum().to_numpy()))
    # column names alone: no denominator check
    assert "der" in [s.id for s in metric_specs(stats.columns)]


def test_metric_specs_wanted_order_and_errors():
    stats = compute_item_stats(_full_frame(), language="ig")
    assert [s.id for s in metric_specs(stats, ["em", "wer", "em"])] == ["em", "wer"]
    assert [s.id for s in metric_specs(stats, "ter")] == ["ter"]
    with pytest.raises(ValueError, match="valid ids are: wer, sub_rate"):
        metric_specs(stats, ["wer", "bleu"])
    only_text = compute_item_stats(_full_frame()[["reference", "hypothesis"]])
    with pytest.raises(ValueError, match="'ref_intent' and 'hyp_intent'"):
        metric_specs(only_text, ["em"])
    with pytest.raises(ValueError, match="'label' and 'predicted_label'"):
        metric_specs(only_text, ["balanced_accuracy"])


def test_class_metric_built_from_label_columns():
    stats = compute_item_stats(_full_frame())
    assert class_labels(stats.columns) == ["x", "y"]
    spec = metric_specs(stats, ["balanced_accuracy"])[0]
    assert spec.stats == ("cls_x_n", "cls_y_n", "cls_x_correct", "cls_y_correct")
    assert spec.denominator == ("cls_x_n", "cls_y_n")
    # recall x = 1/1, y = 0/1
    assert spec.compute(stats[list(spec.stats)].sum().to_numpy()) == pytest.approx(0.5)
    # replicate where no class is present -> NaN, one class -> its recall
    sums = np.array([[0, 0, 0, 0], [2, 0, 1, 0]], dtype=float)
    out = spec.compute(sums)
    assert np.isnan(out[0]) and out[1] == pytest.approx(0.5)
    # labels with underscores survive the column-name round trip
    assert class_labels(["cls_a_n_n", "cls_a_n_correct", "cls_b_n"]) == ["a_n"]
    with pytest.raises(ValueError):
        class_metric("f1", ["x"])


def test_confusion_matrix_rows_sum_to_group_sizes():
    from sklearn.metrics import confusion_matrix as sk_confusion

    rng = np.random.default_rng(5)
    n = 300
    labels = ["angry", "happy", "neutral"]
    true = rng.choice(labels, n)
    pred = np.where(rng.random(n) < 0.5, true, rng.choice(labels + ["sad"], n))
    group = rng.choice(["f", "m"], n)
    frame = pd.DataFrame({"group": group, "label": true, "predicted_label": pred})
    cms = confusion_matrix(frame, "group")
    assert sorted(cms) == ["f", "m"]
    all_labels = ["angry", "happy", "neutral", "sad"]
    for g, cm in cms.items():
        m = group == g
        assert list(cm.index) == all_labels and list(cm.columns) == all_labels
        assert int(cm.to_numpy().sum()) == m.sum()
        for lab in labels:
            assert cm.loc[lab].sum() == ((true == lab) & m).sum()
        expected = sk_confusion(true[m], pred[m], labels=all_labels)
        np.testing.assert_array_equal(cm.to_numpy(), expected)


def test_confusion_matrix_missing_values_and_intents():
    frame = pd.DataFrame(
        {
            "group": ["a", "a", "a", "b"],
            "ref_intent": ["Play", "Play", None, "Pause"],
            "hyp_intent": ["Play", None, "Play", "Play"],
        }
    )
    cms = confusion_matrix(frame, "group", "ref_intent", "hyp_intent")
    assert list(cms["a"].columns) == ["Pause", "Play", NO_PREDICTION]
    assert cms["a"].loc["Play"].tolist() == [0, 1, 1]
    assert int(cms["a"].to_numpy().sum()) == 2  # the unlabelled item is left out
    assert cms["b"].loc["Pause", "Play"] == 1
    with pytest.raises(ValueError, match="'nope' is not in the frame"):
        confusion_matrix(frame, "nope")
