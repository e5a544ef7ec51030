"""The fixed metric table against METHODS.md §2, written out here, and each metric's value
recomputed by hand. ``_fixed_metrics()`` is called inside the test (as well as checking the
import-time ``METRICS``), so that a mutation checker can switch its mutants on."""

import numpy as np
import pytest

from fairdesk.metrics import registry
from fairdesk.metrics.registry import METRICS, ratio_metric

W = ("n_sub", "n_del", "n_ins")
T = ("tone_dropped", "tone_hallucinated", "tone_wrong")
TR, DIA, SLU, CLS, GRD = "transcription", "diacritic", "slu", "classification", "grounding"
# id: (label, numerator stats, denominator stats, higher_is_better, kind, family)
TABLE = {
    "wer": ("Word error rate (WER)", W, ("n_words",), False, "rate", TR),
    "sub_rate": ("Substitution rate S/N", ("n_sub",), ("n_words",), False, "rate", TR),
    "del_rate": ("Deletion rate D/N", ("n_del",), ("n_words",), False, "rate", TR),
    "ins_rate": ("Insertion rate I/N", ("n_ins",), ("n_words",), False, "rate", TR),
    "insertion_ratio": ("Insertion ratio I/(S+D+I)", ("n_ins",), W, False, "rate", TR),
    "hallucination_rate": (
        "Hallucination rate (share of items flagged)",
        ("hallucinated",),
        ("n_items",),
        False,
        "proportion",
        TR,
    ),
    "wer_unflagged": (
        "WER without flagged items",
        ("unflagged_errors",),
        ("unflagged_words",),
        False,
        "rate",
        TR,
    ),
    "cer": (
        "Character error rate (CER)",
        ("c_sub", "c_del", "c_ins"),
        ("n_chars",),
        False,
        "rate",
        TR,
    ),
    "der": (
        "Diacritic error rate (D+H)/E",
        ("dia_dropped", "dia_added"),
        ("dia_expected",),
        False,
        "rate",
        DIA,
    ),
    "rdd": ("Raw diacritic drop rate D/E", ("dia_dropped",), ("dia_expected",), False, "rate", DIA),
    "diacritic_net_loss": (
        "Diacritic net loss (E-P)/E",
        None,
        ("dia_expected",),
        False,
        "rate",
        DIA,
    ),
    "ter": ("Tone error rate (TER)", T, ("tone_expected",), False, "rate", DIA),
    "ter_dropped": (
        "Tone marks dropped / E",
        ("tone_dropped",),
        ("tone_expected",),
        False,
        "rate",
        DIA,
    ),
    "ter_hallucinated": (
        "Tone marks hallucinated / E",
        ("tone_hallucinated",),
        ("tone_expected",),
        False,
        "rate",
        DIA,
    ),
    "ter_wrong": ("Wrong tone marks / E", ("tone_wrong",), ("tone_expected",), False, "rate", DIA),
    "em": ("Exact match (EM)", ("em",), ("n_nlu",), True, "proportion", SLU),
    "intent_accuracy": (
        "Intent accuracy",
        ("intent_correct",),
        ("n_nlu",),
        True,
        "proportion",
        SLU,
    ),
    "accuracy": ("Accuracy", ("correct",), ("n_cls",), True, "proportion", CLS),
    "grounding_lift": ("Grounding lift", ("grounding_lift",), ("n_grounded",), True, "rate", GRD),
    "mean_confidence": ("Mean confidence", ("confidence",), ("n_conf",), True, "rate", CLS),
}


def _expected_value(id_, stats, sums):
    col = {s: sums[..., i] for i, s in enumerate(stats)}
    label, num, den, *_ = TABLE[id_]
    if num is None:  # net loss: (E - P) / E
        top = col["dia_expected"] - col["dia_produced"]
    else:
        top = sum(col[s] for s in num)
    bottom = sum(col[s] for s in den)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bottom == 0, np.nan, top / bottom)


@pytest.mark.parametrize("table", ["fresh", "imported"])
def test_the_fixed_metric_table(table):
    specs = registry._fixed_metrics() if table == "fresh" else METRICS
    assert list(specs) == list(TABLE)
    rng = np.random.default_rng(0)
    for id_, spec in specs.items():
        label, num, den, hib, kind, family = TABLE[id_]
        assert (
            spec.id,
            spec.label,
            spec.higher_is_better,
            spec.kind,
            spec.family,
            spec.denominator,
        ) == (id_, label, hib, kind, family, den), id_
        want_stats = (
            ("dia_expected", "dia_produced") if num is None else tuple(dict.fromkeys(num + den))
        )
        assert spec.stats == want_stats, id_
        sums = rng.integers(1, 50, size=(3, 4, len(spec.stats))).astype(float)
        np.testing.assert_allclose(spec.compute(sums), _expected_value(id_, spec.stats, sums))
        zero = np.zeros(len(spec.stats))
        assert np.isnan(spec.compute(zero)), id_  # zero denominator: undefined


def test_ratio_metric_builds_what_it_is_given():
    spec = ratio_metric("x", "X rate", ["a", "b"], ["b", "c"])
    assert (spec.id, spec.label, spec.stats, spec.denominator) == (
        "x",
        "X rate",
        ("a", "b", "c"),
        ("b", "c"),
    )
    assert (spec.higher_is_better, spec.kind, spec.family) == (False, "rate", "transcription")
    sums = np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0]])
    np.testing.assert_allclose(spec.compute(sums), [3 / 5, 4 / 6])
    assert spec.compute(np.array([1.0, 2.0, 3.0])) == pytest.approx(3 / 5)
    other = ratio_metric(
        "y", "Y", ("p",), ("n",), higher_is_better=True, kind="proportion", family="slu"
    )
    assert (other.higher_is_better, other.kind, other.family) == (True, "proportion", "slu")


def test_missing_columns_message_names_what_to_add():
    for id_, needs in [
        ("wer", "'reference' and 'hypothesis'"),
        ("em", "'ref_intent' and 'hyp_intent'"),
        ("accuracy", "'label' and 'predicted_label'"),
        ("mean_confidence", "'confidence'"),
    ]:
        assert registry._missing_message(id_) == (
            f"metric {id_!r} cannot be computed: the item stats lack its columns. "
            f"The audit frame needs the columns {needs}."
        )
