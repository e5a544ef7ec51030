"""Word-position heatmap and phone confusions: hand-built tables with planted effects."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics.normalize import english
from fairdesk.metrics.phones import Phonemizer, cmudict, ipa_to_arpabet
from fairdesk.stats.phone_confusion import (
    accentedness_regression,
    annotated_phone_confusion,
    item_phone_pairs,
    model_phone_confusion,
)
from fairdesk.stats.positions import reference_word_errors, word_position_heatmap

REF = "please call stella ask her to bring these things"


def _matched_table():
    rows = []
    words = REF.split()
    for g in ("a", "b"):
        for s in range(5):
            hyp = list(words)
            if g == "b":
                hyp[2] = "stellar"  # group b always loses word 3 (index 2)
            if s == 0:
                hyp = hyp[:-1]  # one speaker of each group drops the last word
            rows.append(
                {
                    "group": g,
                    "speaker_id": f"{g}{s}",
                    "content_id": "p1",
                    "reference": REF,
                    "hypothesis": " ".join(hyp),
                }
            )
    rows.append(
        {
            "group": "a",
            "speaker_id": "a0",
            "content_id": "solo",
            "reference": "only one group",
            "hypothesis": "only one group",
        }
    )
    return pd.DataFrame(rows)


def test_reference_word_errors_marks_substitutions_and_deletions():
    words, flags = reference_word_errors("a b c d", "a x d")
    assert words == ["a", "b", "c", "d"]
    assert flags == [0, 1, 1, 0]  # b substituted, c deleted
    assert reference_word_errors("a b", "")[1] == [1, 1]
    assert reference_word_errors("a b", "a zz b")[1] == [0, 0]  # an insertion counts nowhere


def test_heatmap_recovers_the_planted_word():
    hm = word_position_heatmap(_matched_table(), english)
    assert set(hm) == {"p1"}  # the content read by one group only is left out
    p = hm["p1"]
    assert p["words"] == REF.split() and p["n"] == {"a": 5, "b": 5}
    assert p["groups"]["b"][2] == 1.0 and p["groups"]["a"][2] == 0.0
    assert p["groups"]["a"][-1] == p["groups"]["b"][-1] == pytest.approx(0.2)
    others = [r for i, r in enumerate(p["groups"]["b"]) if i not in (2, 8)]
    assert others == [0.0] * 7


def test_cmudict_and_espeak_fallback():
    d = cmudict()
    assert d["stella"] == ("S", "T", "EH", "L", "AH")
    assert ipa_to_arpabet("h_ə_l_ˈoʊ") == ("HH", "AH", "L", "OW")
    ph = Phonemizer()
    ph.prepare(["stella", "zorblax"])
    assert "zorblax" in ph.from_espeak and ph.phones("zorblax")[:1] == ("Z",)
    assert not any(p.startswith("?") for p in ph.phones("zorblax"))


def test_item_phone_pairs_hand_worked():
    ph = Phonemizer()
    # cat K AE T -> bat B AE T: one K->B; "sat" deleted: S AE T -> -
    pairs = Counter(item_phone_pairs("the cat sat", "the bat", ph))
    assert pairs[("K", "B")] == 1
    assert pairs[("S", "-")] == 1 and pairs[("T", "-")] == 1
    assert pairs[("DH", "DH")] == 1 and pairs[("AE", "AE")] == 1


def test_model_phone_confusion_recovers_planted_confusion():
    rows = []
    for g, hyp in (("th", "i sink so"), ("ok", "i think so")):
        for _ in range(4):
            rows.append({"group": g, "reference": "i think so", "hypothesis": hyp})
    res = model_phone_confusion(pd.DataFrame(rows), english)
    th, ok = res["groups"]["th"], res["groups"]["ok"]
    assert th["top"][0]["ref"] == "TH" and th["top"][0]["hyp"] == "S"
    assert th["top"][0]["count"] == 4 and th["top"][0]["rate"] == 1.0
    assert th["per_phone"]["TH"]["rate"] == 1.0
    assert ok["n_errors"] == 0 and ok["phone_error_rate"] == 0.0
    # reference phones: AY TH IH NG K S OW = 7 per item
    assert th["n_ref_phones"] == 28 and th["phone_error_rate"] == pytest.approx(4 / 28)


def test_annotated_confusion_counts_and_rates():
    errs = [("arabic", "P", "B")] * 3 + [("arabic", "DH", "-"), ("mandarin", "-", "AH")]
    res = annotated_phone_confusion(errs, n_phones={"arabic": {"P": 6, "DH": 2}})
    a = res["arabic"]
    assert a["top"][0] == {"ref": "P", "hyp": "B", "count": 3, "rate": 0.5}
    assert a["per_phone"]["DH"]["rate"] == 0.5 and a["n_ref_phones"] == 8
    assert res["mandarin"]["n_insertions"] == 1


def test_accentedness_absorbs_a_group_effect_that_is_only_pronunciation():
    rng = np.random.default_rng(0)
    rows = []
    for g, mu in (("ref", 0.05), ("l2", 0.20)):  # the group differs only in accentedness
        for _ in range(200):
            acc = max(0.0, rng.normal(mu, 0.04))
            rows.append(
                {"group": g, "accentedness": acc, "wer": 0.05 + 1.5 * acc + rng.normal(0, 0.03)}
            )
    res = accentedness_regression(pd.DataFrame(rows), reference="ref")
    g = res["groups"]["l2"]
    assert g["without"]["p"] < 0.001 and g["absorbed"] and not g["survives"]
    lo, hi = res["beta_accentedness"]["ci"]
    assert lo < 1.5 < hi
    # and a real penalty beyond pronunciation survives
    df = pd.DataFrame(rows)
    df.loc[df["group"] == "l2", "wer"] += 0.1
    g2 = accentedness_regression(df, reference="ref")["groups"]["l2"]
    assert g2["survives"] and g2["with"]["ci"][0] < 0.1 < g2["with"]["ci"][1]


def test_repeated_items_count_as_often_as_they_occur():
    """Each distinct item is aligned once; the tables equal a row-by-row tally."""
    from fairdesk.stats.phone_confusion import tabulate

    base = [
        ("a", "i think so", "i sink so"),
        ("a", "i think so", "i think so"),
        ("b", "call stella", "call stellar"),
        ("b", "i think so", "i sink sew"),
    ]
    rows = [base[k] for k in (0, 0, 0, 1, 2, 2, 3, 0, 3)]
    frame = pd.DataFrame(rows, columns=["group", "reference", "hypothesis"])
    ph = Phonemizer()
    res = model_phone_confusion(frame, english, phonemizer=ph)
    for g in ("a", "b"):
        tally = Counter()
        for gg, r, h in rows:
            if gg == g:
                tally.update(item_phone_pairs(english(r), english(h), ph))
        assert res["groups"][g] == tabulate(tally, 15)
    hm = word_position_heatmap(pd.concat([_matched_table()] * 3, ignore_index=True), english)
    assert hm["p1"]["n"] == {"a": 15, "b": 15}
    assert hm["p1"]["errors"]["b"][2] == 15 and hm["p1"]["errors"]["a"][-1] == 3


def test_confused_pairs_are_the_differing_pairs_of_the_full_alignment():
    from fairdesk.stats.phone_confusion import confused_phone_pairs

    rng = np.random.default_rng(4)
    words = ["think", "sink", "so", "the", "cat", "sat", "stella", "stellar", "a"]
    ph = Phonemizer()
    for _ in range(300):
        r = " ".join(rng.choice(words, rng.integers(0, 6)))
        h = " ".join(rng.choice(words, rng.integers(0, 6)))
        full = [pq for pq in item_phone_pairs(r, h, ph) if pq[0] != pq[1]]
        assert Counter(confused_phone_pairs(r, h, ph)) == Counter(full)
