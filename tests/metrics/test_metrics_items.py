"""compute_item_stats + METRICS: every group metric against a hand-worked or library value."""

import jiwer
import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics import METRICS, compute_item_stats, metric_specs
from fairdesk.metrics.normalize import basic, english


def value(stats, metric_id, mask=None):
    """Pooled group value: sum the spec's stats over the rows, then map the sums."""
    spec = next(s for s in metric_specs(stats, [metric_id]))
    rows = stats if mask is None else stats[mask]
    return float(spec.compute(rows[list(spec.stats)].sum().to_numpy()))


@pytest.fixture
def words_frame():
    return pd.DataFrame(
        {
            "reference": ["The cat sat on the mat.", "hello world", ""],
            "hypothesis": ["the cat sit on mat", "Hello, big world!", "yes"],
        },
        index=[10, 20, 30],
    )


def test_word_metrics_hand_worked(words_frame):
    stats = compute_item_stats(words_frame)
    assert list(stats.index) == [10, 20, 30]
    assert stats["n_items"].tolist() == [1, 1, 1]
    # S, D, I, N by hand: (1, 1, 0, 6), (0, 0, 1, 2), (0, 0, 1, 0)
    assert stats[["n_sub", "n_del", "n_ins", "n_words"]].to_numpy().tolist() == [
        [1, 1, 0, 6],
        [0, 0, 1, 2],
        [0, 0, 1, 0],
    ]
    assert value(stats, "wer") == pytest.approx(4 / 8)
    assert value(stats, "sub_rate") == pytest.approx(1 / 8)
    assert value(stats, "del_rate") == pytest.approx(1 / 8)
    assert value(stats, "ins_rate") == pytest.approx(2 / 8)
    assert value(stats, "insertion_ratio") == pytest.approx(2 / 4)
    # characters: "the cat sat on the mat" (22) -> 1 substitution + 4 deletions = 5;
    # "hello world" (11) -> 4 insertions ("big "); "" -> 3 insertions ("yes")
    assert stats["n_chars"].tolist() == [22, 11, 0]
    assert value(stats, "cer") == pytest.approx(12 / 33)


def test_group_wer_cer_equal_jiwer_on_normalised_strings():
    rng = np.random.default_rng(3)
    vocab = "play the song by adele at volume seven in kitchen please turn it up".split()
    rows = []
    for i in range(120):
        ref = " ".join(rng.choice(vocab, rng.integers(0, 9)))
        hyp = ref.split()
        for _ in range(rng.integers(0, 3)):
            op = rng.integers(0, 3)
            if op == 0 and hyp:
                hyp[rng.integers(len(hyp))] = str(rng.choice(vocab))
            elif op == 1 and hyp:
                hyp.pop(rng.integers(len(hyp)))
            else:
                hyp.insert(rng.integers(len(hyp) + 1), str(rng.choice(vocab)))
        rows.append(
            {
                "reference": ref.capitalize() + ".",
                "hypothesis": " ".join(hyp),
                "group": "abc"[i % 3],
            }
        )
    frame = pd.DataFrame(rows)
    for language, norm in (("en", english), ("yo", basic)):
        stats = compute_item_stats(frame, language=language)
        for g in "abc":
            mask = frame["group"] == g
            refs = [norm(r) for r in frame.loc[mask, "reference"]]
            hyps = [norm(h) for h in frame.loc[mask, "hypothesis"]]
            assert value(stats, "wer", mask) == pytest.approx(jiwer.wer(refs, hyps), abs=1e-12)
            assert value(stats, "cer", mask) == pytest.approx(jiwer.cer(refs, hyps), abs=1e-12)


def test_diacritic_and_tone_metrics_hand_worked():
    frame = pd.DataFrame(
        {
            "reference": ["àkwà", "akwa", "àkwà", "akwà"],
            "hypothesis": ["akwa", "ákwá", "ákwá", "àkwa"],
        }
    )
    stats = compute_item_stats(frame, language="ig")
    # E, P per item: (2, 0), (0, 2), (2, 2), (1, 1) -> D = (2, 0, 0, 0), H = (0, 2, 0, 0)
    assert stats["dia_expected"].tolist() == [2, 0, 2, 1]
    assert stats["dia_produced"].tolist() == [0, 2, 2, 1]
    assert value(stats, "der") == pytest.approx((2 + 2) / 5)
    assert value(stats, "rdd") == pytest.approx(2 / 5)
    assert value(stats, "diacritic_net_loss") == pytest.approx(0.0)
    # tones: dropped 2 + 0 + 0 + 1, hallucinated 0 + 2 + 0 + 1, wrong 0 + 0 + 2 + 0; E = 5
    assert value(stats, "ter") == pytest.approx(8 / 5)
    assert value(stats, "ter_dropped") == pytest.approx(3 / 5)
    assert value(stats, "ter_hallucinated") == pytest.approx(3 / 5)
    assert value(stats, "ter_wrong") == pytest.approx(2 / 5)


def test_seed_003_net_loss_and_negative_net_loss():
    frame = pd.DataFrame(
        {
            "reference": [" ".join(["àkwà"] * 10), " ".join(["ákwá"] * 14) + " ọ́."],
            "hypothesis": [
                " ".join(["akwà"] * 10),
                " ".join(["ákwá"] * 4) + " akwá " + " ".join(["akwa"] * 9) + " o",
            ],
        }
    )
    stats = compute_item_stats(frame, language="ig")
    assert stats["dia_expected"].sum() == 49 and stats["dia_produced"].sum() == 19
    assert round(value(stats, "diacritic_net_loss"), 3) == 0.612
    assert value(stats, "rdd") == pytest.approx(30 / 49)  # no item over-produces here
    # a model that only adds diacritics has a negative net loss
    added = compute_item_stats(pd.DataFrame({"reference": ["àkwa"], "hypothesis": ["àkwà"]}))
    assert value(added, "diacritic_net_loss") == pytest.approx(-1.0)
    assert value(added, "der") == pytest.approx(1.0)


def test_marks_mode_only_changes_dia_columns():
    frame = pd.DataFrame({"reference": ["ọ́"], "hypothesis": ["o"]})
    letters = compute_item_stats(frame, language="yo")
    marks = compute_item_stats(frame, language="yo", diacritic_count="marks")
    assert letters["dia_expected"].item() == 1
    assert marks["dia_expected"].item() == 2
    assert letters["tone_expected"].item() == marks["tone_expected"].item() == 1
    with pytest.raises(ValueError, match="letters"):
        compute_item_stats(frame, diacritic_count="both")


def test_slu_metrics_hand_worked():
    frame = pd.DataFrame(
        {
            "item_id": ["a", "b", "c", "d"],
            "ref_intent": ["PlayMusic", "PlayMusic", "Pause", None],
            "hyp_intent": ["play_music", "PlayMusic", "PlayMusic", "Pause"],
            "ref_slots": [{"artist": "Adele"}, '{"artist": "Beyoncé"}', None, None],
            "hyp_slots": ['{"artist": "adele"}', {"artist": "beyonse"}, {}, None],
        }
    )
    stats = compute_item_stats(frame)
    assert stats["em"].tolist() == [1, 0, 0, 0]
    assert stats["intent_correct"].tolist() == [1, 1, 0, 0]
    assert stats["n_nlu"].tolist() == [1, 1, 1, 0]  # item d has no reference intent
    assert value(stats, "em") == pytest.approx(1 / 3)
    assert value(stats, "intent_accuracy") == pytest.approx(2 / 3)
    assert METRICS["em"].higher_is_better and METRICS["em"].kind == "proportion"


def test_bad_slots_name_the_row():
    frame = pd.DataFrame(
        {
            "item_id": ["x1"],
            "ref_intent": ["Play"],
            "hyp_intent": ["Play"],
            "ref_slots": ["{oops"],
            "hyp_slots": [None],
        }
    )
    with pytest.raises(ValueError, match="'x1'"):
        compute_item_stats(frame)


def test_classification_metrics_hand_worked():
    frame = pd.DataFrame(
        {
            "label": ["a", "a", "b", "c", None],
            "predicted_label": ["a", "b", "b", None, "a"],
            "confidence": [0.9, 0.5, np.nan, 0.4, 0.2],
        }
    )
    stats = compute_item_stats(frame)
    assert stats["n_cls"].tolist() == [1, 1, 1, 1, 0]
    assert stats["correct"].tolist() == [1, 0, 1, 0, 0]
    assert stats["cls_a_n"].tolist() == [1, 1, 0, 0, 0]
    assert stats["cls_a_correct"].tolist() == [1, 0, 0, 0, 0]
    assert value(stats, "accuracy") == pytest.approx(2 / 4)
    # recall a = 1/2, b = 1/1, c = 0/1
    assert value(stats, "balanced_accuracy") == pytest.approx((0.5 + 1 + 0) / 3)
    assert value(stats, "macro_recall") == pytest.approx((0.5 + 1 + 0) / 3)
    assert value(stats, "mean_confidence") == pytest.approx((0.9 + 0.5 + 0.4 + 0.2) / 4)


def test_confidence_must_be_numeric():
    frame = pd.DataFrame({"item_id": ["q"], "confidence": ["high"]})
    with pytest.raises(ValueError, match="'high' is not a number"):
        compute_item_stats(frame)


def test_balanced_accuracy_equals_sklearn():
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, recall_score

    rng = np.random.default_rng(0)
    n = 600
    true = rng.choice(["angry", "happy", "neutral", "sad"], n, p=[0.1, 0.2, 0.5, 0.2])
    pred = np.where(rng.random(n) < 0.6, true, rng.choice(["angry", "happy", "neutral"], n))
    group = rng.choice(["g1", "g2", "g3"], n)
    frame = pd.DataFrame({"label": true, "predicted_label": pred, "group": group})
    stats = compute_item_stats(frame)
    for g in ["g1", "g2", "g3"]:
        m = group == g
        assert value(stats, "balanced_accuracy", m) == pytest.approx(
            balanced_accuracy_score(true[m], pred[m]), abs=1e-12
        )
        assert value(stats, "macro_recall", m) == pytest.approx(
            recall_score(true[m], pred[m], average="macro", labels=sorted(set(true[m]))),
            abs=1e-12,
        )
        assert value(stats, "accuracy", m) == pytest.approx(accuracy_score(true[m], pred[m]))
    # a group with a class absent: averaged over the classes it has, as sklearn does
    m = (group == "g1") & (true != "sad")
    assert value(stats, "balanced_accuracy", m) == pytest.approx(
        balanced_accuracy_score(true[m], pred[m]), abs=1e-12
    )


def test_spec_compute_vectorised_over_replicates(words_frame):
    stats = compute_item_stats(words_frame)
    spec = METRICS["wer"]
    weights = np.array([[1, 1, 1], [2, 0, 1], [0, 0, 1]], dtype=float)  # bootstrap counts
    sums = weights @ stats[list(spec.stats)].to_numpy(float)
    out = spec.compute(sums)
    assert out.shape == (3,)
    assert out[0] == pytest.approx(4 / 8)
    assert out[1] == pytest.approx((2 * 2 + 1) / 12)
    assert np.isnan(out[2])  # only the empty reference: N = 0, undefined


@pytest.mark.parametrize(
    "ref, hyp, expected",
    [
        (None, None, [0, 0, 0, 0]),
        ("", "a b", [0, 0, 0, 2]),
        ("a b", None, [2, 0, 2, 0]),
        (float("nan"), "", [0, 0, 0, 0]),
    ],
)
def test_empty_and_missing_text(ref, hyp, expected):
    stats = compute_item_stats(pd.DataFrame({"reference": [ref], "hypothesis": [hyp]}))
    assert stats[["n_words", "n_sub", "n_del", "n_ins"]].iloc[0].tolist() == expected
    assert stats[["dia_expected", "tone_expected"]].iloc[0].tolist() == [0, 0]


def test_empty_frame_and_no_inputs():
    stats = compute_item_stats(pd.DataFrame({"reference": [], "hypothesis": []}))
    assert len(stats) == 0 and "n_words" in stats.columns
    only_meta = compute_item_stats(pd.DataFrame({"accent": ["x", "y"]}))
    assert only_meta.columns.tolist() == ["n_items"]
    with pytest.raises(TypeError, match="DataFrame"):
        compute_item_stats([{"reference": "a"}])


def test_stats_are_fast_enough_for_a_run_cap_sample():
    # 2,000 rows (a tenth of the 20,000-item cap) must take well under a second or two
    import time

    rng = np.random.default_rng(1)
    vocab = "play the song by adele at volume seven in kitchen please".split()
    refs = [" ".join(rng.choice(vocab, 8)) for _ in range(200)]
    frame = pd.DataFrame(
        {
            "reference": [refs[i % 200] for i in range(2000)],
            "hypothesis": [" ".join(rng.choice(vocab, 8)) for _ in range(2000)],
        }
    )
    t = time.perf_counter()
    compute_item_stats(frame, language="yo")
    assert time.perf_counter() - t < 5.0


def test_integer_labels_with_missing_values():
    # pandas stores [1, 2, None] as floats; 1.0 must still match a predicted 1
    frame = pd.DataFrame({"label": [1, 2, None], "predicted_label": [1, 2, 2]})
    stats = compute_item_stats(frame)
    assert stats["correct"].tolist() == [1, 1, 0]
    assert {"cls_1_n", "cls_2_n"} <= set(stats.columns)
