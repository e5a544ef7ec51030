"""Per-item stats and confusion matrices keep their types, names and order (the columns are
summed and written out downstream: an object or float count column is a bug there)."""

import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics.confusion import confusion_matrix
from fairdesk.metrics.items import compute_item_stats


def test_classification_and_confidence_columns_are_typed():
    frame = pd.DataFrame(
        {
            "item_id": ["a", "b", "c", "d"],
            "label": ["cat", "dog", "cat", None],
            "predicted_label": ["cat", "cat", None, "dog"],
            "confidence": [0.9, None, 0.25, 0.5],
        }
    )
    st = compute_item_stats(frame)
    for col in ("n_cls", "correct", "cls_cat_n", "cls_cat_correct", "cls_dog_n", "n_conf"):
        assert st[col].dtype == np.int64, col
    assert st["confidence"].dtype == np.float64
    assert st["n_cls"].tolist() == [1, 1, 1, 0] and st["correct"].tolist() == [1, 0, 0, 0]
    assert st["cls_cat_correct"].tolist() == [1, 0, 0, 0]
    assert st["n_conf"].tolist() == [1, 0, 1, 1]
    assert st["confidence"].tolist() == [0.9, 0.0, 0.25, 0.5]
    bad = frame.assign(confidence=["high", 0.1, 0.2, 0.3])
    with pytest.raises(ValueError) as e:
        compute_item_stats(bad)
    assert str(e.value) == (
        "column 'confidence', row 0 (item 'a'): 'high' is not a number; "
        "give a probability in [0, 1] or leave it empty."
    )
    with pytest.raises(ValueError) as e:
        compute_item_stats(bad.drop(columns="item_id"))
    assert "(item ?)" in str(e.value)


def test_confusion_matrix_names_types_and_group_order():
    frame = pd.DataFrame(
        {
            "group": ["z", "a", "z", "m"],
            "label": ["x", "y", "y", "x"],
            "predicted_label": ["x", "x", "y", "y"],
        }
    )
    out = confusion_matrix(frame)  # the default group column is "group"
    assert list(out) == ["a", "m", "z"]  # groups in sorted order
    cm = out["z"]
    assert cm.index.name == "label" and cm.columns.name == "predicted_label"
    assert all(dt == np.int64 for dt in cm.dtypes)
    assert cm.to_dict() == {"x": {"x": 1, "y": 0}, "y": {"x": 0, "y": 1}}
    intents = confusion_matrix(
        frame.rename(columns={"label": "ref_intent", "predicted_label": "hyp_intent"}),
        true_col="ref_intent",
        pred_col="hyp_intent",
    )
    assert intents["a"].index.name == "ref_intent" and intents["a"].columns.name == "hyp_intent"
