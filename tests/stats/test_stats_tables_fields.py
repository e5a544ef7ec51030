"""The phone, position and seed-003 tables field by field against hand-worked examples.

A stand-in phonemizer (each letter of a word is one phone, so ``cat`` is ``C A T``) keeps the
phone examples worked by hand and the tests fast; the alignments are the ones METHODS.md §7
names (rapidfuzz Levenshtein opcodes over words, editops over the phones of a substitution).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from fairdesk.stats.notices import Notice
from fairdesk.stats.phone_confusion import (
    annotated_phone_confusion,
    confused_phone_pairs,
    item_phone_pairs,
    model_phone_confusion,
    tabulate,
)

METHOD = (
    "words aligned as jiwer aligns them (rapidfuzz Levenshtein opcodes); phones from "
    "CMUdict (pocketsphinx), espeak-ng for words it lacks; phones of substituted words "
    "aligned with rapidfuzz Levenshtein editops"
)


class LetterPhones:
    """One phone per letter, upper case; records the words it was asked to prepare."""

    def __init__(self, from_espeak=(), unknown=()):
        self.from_espeak = set(from_espeak)
        self.unknown = set(unknown)
        self.prepared: list[str] = []

    def prepare(self, words):
        self.prepared.extend(words)

    def phones(self, word):
        return tuple(word.upper())


def _norm(text):
    return " ".join(text.lower().replace(".", "").split())


# --------------------------------------------------------------------------- item pairs


@pytest.mark.parametrize(
    "ref, hyp, full, confused",
    [
        ("", "", [], []),
        ("ab", "", [("A", "-"), ("B", "-")], [("A", "-"), ("B", "-")]),
        ("", "ab", [("-", "A"), ("-", "B")], [("-", "A"), ("-", "B")]),
        ("ab cd", "ab cd", [("A", "A"), ("B", "B"), ("C", "C"), ("D", "D")], []),
        # an insertion after an equal chunk keeps what came before
        (
            "ab cd",
            "ab cd ef",
            [("A", "A"), ("B", "B"), ("C", "C"), ("D", "D"), ("-", "E"), ("-", "F")],
            [("-", "E"), ("-", "F")],
        ),
        (
            "ab cd ef",
            "ab ef",
            [("A", "A"), ("B", "B"), ("C", "-"), ("D", "-"), ("E", "E"), ("F", "F")],
            [("C", "-"), ("D", "-")],
        ),
        # substitution chunks: phone deletion, insertion and replacement inside one word
        ("cat", "at", [("C", "-"), ("A", "A"), ("T", "T")], [("C", "-")]),
        ("cat", "cart", [("-", "R"), ("C", "C"), ("A", "A"), ("T", "T")], [("-", "R")]),
        ("cat", "bat", [("C", "B"), ("A", "A"), ("T", "T")], [("C", "B")]),
    ],
)
def test_item_and_confused_pairs_hand_worked(ref, hyp, full, confused):
    ph = LetterPhones()
    assert item_phone_pairs(ref, hyp, ph) == full
    assert confused_phone_pairs(ref, hyp, ph) == confused


# --------------------------------------------------------------------------- tabulate


def test_tabulate_every_field_by_hand():
    pairs = Counter({("A", "A"): 3, ("A", "B"): 2, ("B", "-"): 1, ("-", "C"): 4, ("B", "B"): 1})
    # n(A) = 3 + 2, n(B) = 1 + 1; the insertion - -> C belongs to no reference phone
    assert tabulate(pairs) == {
        "n_ref_phones": 7,
        "n_errors": 3,
        "n_insertions": 4,
        "phone_error_rate": 3 / 7,
        "top": [
            {"ref": "-", "hyp": "C", "count": 4, "rate": None},
            {"ref": "A", "hyp": "B", "count": 2, "rate": 2 / 5},
            {"ref": "B", "hyp": "-", "count": 1, "rate": 1 / 2},
        ],
        "per_phone": {
            "A": {"n": 5, "errors": 2, "rate": 2 / 5},
            "B": {"n": 2, "errors": 1, "rate": 1 / 2},
        },
        "matrix": {
            "phones": ["-", "A", "B", "C"],
            "counts": [[0, 0, 0, 4], [0, 0, 2, 0], [1, 0, 0, 0], [0, 0, 0, 0]],
        },
    }
    assert tabulate(pairs, top=1)["top"] == [{"ref": "-", "hyp": "C", "count": 4, "rate": None}]


def test_tabulate_given_counts_with_zeros_and_no_reference_phones():
    pairs = Counter({("A", "B"): 1, ("B", "-"): 1})
    t = tabulate(pairs, n_by_phone=Counter({"A": 4, "B": 0}))
    assert t["per_phone"] == {
        "A": {"n": 4, "errors": 1, "rate": 0.25},
        "B": {"n": 0, "errors": 1, "rate": None},
    }
    assert t["top"] == [
        {"ref": "A", "hyp": "B", "count": 1, "rate": 0.25},
        {"ref": "B", "hyp": "-", "count": 1, "rate": None},
    ]
    assert (t["n_ref_phones"], t["n_errors"], t["phone_error_rate"]) == (4, 2, 0.5)
    empty = tabulate(Counter({("-", "A"): 2}))
    assert empty["n_ref_phones"] == 0 and empty["phone_error_rate"] is None
    assert empty["n_insertions"] == 2 and empty["per_phone"] == {}


def test_tabulate_keeps_the_15_most_common_by_default():
    pairs = Counter({(chr(65 + k), chr(97 + k)): 20 - k for k in range(16)})
    top = tabulate(pairs)["top"]
    assert [(c["ref"], c["count"]) for c in top] == [(chr(65 + k), 20 - k) for k in range(15)]


# --------------------------------------------------------------------------- annotated


def test_annotated_confusion_every_field_with_phone_counts():
    errs = [("x", "P", "B"), ("x", "P", "B"), ("x", "DH", ""), ("x", "", "AH")]
    res = annotated_phone_confusion(errs, n_phones={"x": {"P": 4, "T": 3}, "y": {"K": 2}})
    assert list(res) == ["x", "y"]  # y has counts but no error: still reported
    canon = "canonical phones of the annotated items"
    # DH is annotated but absent from the counts: no rate for it
    assert res["x"] == {
        "n_ref_phones": 7,
        "n_errors": 3,
        "n_insertions": 1,
        "phone_error_rate": 3 / 7,
        "top": [
            {"ref": "P", "hyp": "B", "count": 2, "rate": 0.5},
            {"ref": "DH", "hyp": "-", "count": 1, "rate": None},
            {"ref": "-", "hyp": "AH", "count": 1, "rate": None},
        ],
        "per_phone": {
            "P": {"n": 4, "errors": 2, "rate": 0.5},
            "T": {"n": 3, "errors": 0, "rate": 0.0},
        },
        "matrix": {
            "phones": ["-", "AH", "B", "DH", "P"],
            "counts": [[0, 1, 0, 0, 0], [0] * 5, [0] * 5, [1, 0, 0, 0, 0], [0, 0, 2, 0, 0]],
        },
        "rates_over": canon,
    }
    assert res["y"] == {
        "n_ref_phones": 2,
        "n_errors": 0,
        "n_insertions": 0,
        "phone_error_rate": 0.0,
        "top": [],
        "per_phone": {"K": {"n": 2, "errors": 0, "rate": 0.0}},
        "matrix": {"phones": [], "counts": []},
        "rates_over": canon,
    }


def test_annotated_confusion_without_phone_counts():
    errs = [(1, "P", "B"), (1, "P", "B"), (1, "DH", None), (1, None, "AH")]
    res = annotated_phone_confusion(errs)
    assert list(res) == ["1"]
    assert res["1"] == {
        "n_ref_phones": 3,
        "n_errors": 3,
        "n_insertions": 1,
        "phone_error_rate": 1.0,
        "top": [
            {"ref": "P", "hyp": "B", "count": 2, "rate": 1.0},
            {"ref": "DH", "hyp": "-", "count": 1, "rate": 1.0},
            {"ref": "-", "hyp": "AH", "count": 1, "rate": None},
        ],
        "per_phone": {
            "DH": {"n": 1, "errors": 1, "rate": 1.0},
            "P": {"n": 2, "errors": 2, "rate": 1.0},
        },
        "matrix": {
            "phones": ["-", "AH", "B", "DH", "P"],
            "counts": [[0, 1, 0, 0, 0], [0] * 5, [0] * 5, [1, 0, 0, 0, 0], [0, 0, 2, 0, 0]],
        },
        "rates_over": "annotated errors only (no phone counts)",
    }


def test_annotated_confusion_top():
    errs = [("g", f"C{k}", f"P{k}") for k in range(16)]
    assert len(annotated_phone_confusion(errs)["g"]["top"]) == 15
    assert len(annotated_phone_confusion(errs, top=3)["g"]["top"]) == 3


# --------------------------------------------------------------------------- model side


def _model_frame():
    rows = [
        ("a", "aa", "xx"),  # A -> X twice
        ("a", "cd", "cx"),  # D -> X
        ("a", "Ef gh.", "ef g"),  # normalised as the next row: H deleted, 2 items
        ("a", "ef gh", "ef g"),
        ("a", "ij", np.nan),  # no hypothesis: I and J deleted
        ("a", "kl", "kl"),
        ("a", "ad", "ax"),  # D -> X again, from another text
        ("c", "aa", "xx"),  # c: A -> X twice from one item, then D -> X twice from two
        ("c", "cd", "cx"),
        ("c", "cd", "cx"),
        ("c", np.nan, "q"),  # no reference: Q inserted
    ]
    return pd.DataFrame(rows, columns=["group", "reference", "hypothesis"])


def test_model_phone_confusion_every_field_by_hand():
    ph = LetterPhones(
        from_espeak=[f"w{k:03d}" for k in range(250)], unknown=[f"u{k:03d}" for k in range(201)]
    )
    res = model_phone_confusion(_model_frame(), _norm, phonemizer=ph)
    assert list(res) == ["groups", "from_espeak", "unknown", "method"]
    assert res["from_espeak"] == [f"w{k:03d}" for k in range(200)]
    assert res["unknown"] == [f"u{k:03d}" for k in range(200)]
    assert res["method"] == METHOD
    assert set(ph.prepared) == {
        "aa",
        "xx",
        "cd",
        "cx",
        "ef",
        "gh",
        "g",
        "ij",
        "kl",
        "ad",
        "ax",
        "q",
    }
    assert list(res["groups"]) == ["a", "c"]
    # a: reference phones A 2+1, C 1, D 1+1, E F G H 2 each, I J K L 1 each = 18
    z = {"-": 0, "A": 0, "D": 0, "H": 0, "I": 0, "J": 0, "X": 0}
    order = list(z)

    def row(**kw):
        return [kw.get(p, 0) for p in order]

    per = {
        p: {"n": n, "errors": e, "rate": e / n}
        for p, n, e in [
            ("A", 3, 2),
            ("C", 1, 0),
            ("D", 2, 2),
            ("E", 2, 0),
            ("F", 2, 0),
            ("G", 2, 0),
            ("H", 2, 2),
            ("I", 1, 1),
            ("J", 1, 1),
            ("K", 1, 0),
            ("L", 1, 0),
        ]
    }
    assert res["groups"]["a"] == {
        "n_ref_phones": 18,
        "n_errors": 8,
        "n_insertions": 0,
        "phone_error_rate": 8 / 18,
        "top": [
            {"ref": "A", "hyp": "X", "count": 2, "rate": 2 / 3},
            {"ref": "D", "hyp": "X", "count": 2, "rate": 1.0},
            {"ref": "H", "hyp": "-", "count": 2, "rate": 1.0},
            {"ref": "I", "hyp": "-", "count": 1, "rate": 1.0},
            {"ref": "J", "hyp": "-", "count": 1, "rate": 1.0},
        ],
        "per_phone": per,
        "matrix": {
            "phones": order,
            "counts": [
                row(),
                row(X=2),
                row(X=2),
                row(**{"-": 2}),
                row(**{"-": 1}),
                row(**{"-": 1}),
                row(),
            ],
        },
    }
    c = res["groups"]["c"]
    # ties in the order the items first occur, not by how often an item occurs
    assert [(t["ref"], t["hyp"], t["count"]) for t in c["top"]] == [
        ("A", "X", 2),
        ("D", "X", 2),
        ("-", "Q", 1),
    ]
    assert c["n_ref_phones"] == 6 and c["phone_error_rate"] == pytest.approx(4 / 6)
    assert c["n_insertions"] == 1


def test_model_phone_confusion_top_and_group_column():
    frame = pd.DataFrame(
        {"accent": ["q"], "reference": ["abcdefghijklmnop"], "hypothesis": ["qrstuvwxyzqrstuv"]}
    )
    res = model_phone_confusion(frame, _norm, group_col="accent", phonemizer=LetterPhones())
    top = res["groups"]["q"]["top"]
    assert [(t["ref"], t["hyp"]) for t in top] == list(
        zip("ABCDEFGHIJKLMNO", "QRSTUVWXYZQRSTU", strict=True)
    )
    res = model_phone_confusion(frame, _norm, group_col="accent", top=2, phonemizer=LetterPhones())
    assert len(res["groups"]["q"]["top"]) == 2


# --------------------------------------------------------------------------- positions


def _pos_frame(rows, content=True):
    cols = (
        ["group", "content_id", "reference", "hypothesis"]
        if content
        else ["group", "reference", "hypothesis"]
    )
    return pd.DataFrame(rows, columns=cols, dtype=object)


def test_heatmap_nothing_to_show():
    from fairdesk.stats.positions import word_position_heatmap

    assert word_position_heatmap(None, _norm) == {}
    assert word_position_heatmap(pd.DataFrame(columns=["reference", "hypothesis"]), _norm) == {}
    two = _pos_frame([("a", "c", "x y", "x y"), ("b", "c", "x y", "x")])
    assert word_position_heatmap(two.drop(columns="hypothesis"), _norm) == {}
    assert word_position_heatmap(two.drop(columns="reference"), _norm) == {}


def test_heatmap_every_field_with_derived_content_ids():
    from fairdesk.stats.positions import word_position_heatmap

    rows = [
        ("g1", "A b c.", "a b c"),
        ("g1", "a b c", "a x c"),
        ("g1", "a b c", "a b"),
        ("g2", "a b c", ""),
        ("g2", "a b c", None),
    ]
    hm = word_position_heatmap(_pos_frame(rows, content=False), _norm)
    third = 0.333333  # 1/3 rounded to 6 decimals
    assert hm == {
        "a b c": {
            "reference": "a b c",
            "words": ["a", "b", "c"],
            "n_items": 5,
            "n": {"g1": 3, "g2": 2},
            "errors": {"g1": [0, 1, 1], "g2": [2, 2, 2]},
            "groups": {"g1": [0.0, third, third], "g2": [1.0, 1.0, 1.0]},
        }
    }
    entry = hm["a b c"]
    assert list(entry) == ["reference", "words", "n_items", "n", "errors", "groups"]
    assert all(type(v) is int for e in entry["errors"].values() for v in e)


def test_heatmap_which_contents_and_their_order():
    from fairdesk.stats.positions import word_position_heatmap

    rows = [
        ("a", "p2", "x y", "x"),
        ("b", "p2", "x y", "x y"),
        ("a", "p1", "x y", "x y"),
        ("b", "p1", "x y", "y"),
        *[("a", "solo", "x y", "x y")] * 5,
        ("a", "zbig", "x y", "x y"),
        ("a", "zbig", "x y", "x y"),
        ("b", "zbig", "x y", "x y"),
        ("b", "zbig", "x y", ""),
    ]
    f = _pos_frame(rows)
    hm = word_position_heatmap(f, _norm)
    assert list(hm) == ["zbig", "p1", "p2"]  # most read first, then by id; solo: one group
    assert hm["p2"]["errors"] == {"a": [0, 1], "b": [0, 0]}
    assert hm["p1"]["errors"] == {"a": [0, 0], "b": [1, 0]}
    assert hm["zbig"]["n"] == {"a": 2, "b": 2}
    assert list(word_position_heatmap(f, _norm, max_contents=1)) == ["zbig"]
    assert list(word_position_heatmap(f, _norm, min_items=3)) == ["zbig"]
    assert list(word_position_heatmap(f, _norm, min_items=4)) == ["zbig"]
    assert list(word_position_heatmap(f, _norm, min_items=5)) == []


def test_heatmap_keeps_at_most_50_contents_by_default():
    from fairdesk.stats.positions import word_position_heatmap

    rows = [(g, f"c{k:02d}", "x y", "x y") for k in range(51) for g in ("a", "b")]
    assert list(word_position_heatmap(_pos_frame(rows), _norm)) == [f"c{k:02d}" for k in range(50)]


def test_heatmap_content_reference_is_the_most_common_text():
    from fairdesk.stats.positions import word_position_heatmap

    # the variant comes first and sorts last: the majority text still wins
    rows = [("a", "v", "z", "z"), *[(g, "v", "a b", "a") for g in ("a", "b", "b")]]
    hm = word_position_heatmap(_pos_frame(rows), _norm)
    assert hm["v"]["reference"] == "a b" and hm["v"]["n"] == {"a": 1, "b": 2}
    assert hm["v"]["errors"] == {"a": [0, 1], "b": [0, 2]}
    # a tie goes to the text that sorts last
    rows = [(g, "t", "a b", "a b") for g in ("a", "b")] + [(g, "t", "z", "y") for g in "ab"]
    hm = word_position_heatmap(_pos_frame(rows), _norm)
    assert hm["t"]["reference"] == "z" and hm["t"]["errors"] == {"a": [1], "b": [1]}


def test_heatmap_skips_contents_without_words_or_second_group_and_goes_on():
    from fairdesk.stats.positions import word_position_heatmap

    rows = [
        *[(g, "e", None, "x") for g in ("a", "b", "a", "b")],  # no reference words
        ("a", "m", "x y", "x y"),
        ("a", "m", "x y", "x"),
        ("b", "m", "q", "q"),  # b: variant
        ("a", "f", "x y", "x y"),
        ("b", "f", "x y", "x y"),
    ]
    hm = word_position_heatmap(_pos_frame(rows), _norm)
    assert list(hm) == ["f"]
    assert hm["f"]["errors"] == {"a": [0, 0], "b": [0, 0]}


# --------------------------------------------------------------------------- seed 003 table


def _letters(text):
    import unicodedata

    return sum(1 for c in unicodedata.normalize("NFD", text) if c.isalpha())


DIA_ROWS = [
    ("akwà àkwà", "akwa àkwà", "tone"),  # E 3, P 2: D 1
    ("ákwá", "akwa", "tone"),  # E 2, P 0: D 2
    ("òkè ọkè", "òkè ọkè", "tone"),  # E 4, P 4
    ("oke", "òkè", "tone"),  # E 0, P 2: H 2, an item without diacritics
    ("O na-eri oji n'ututu", "Ọ na-eri ọjị n'ụtụtụ", "monotone"),  # E 0, P 6
    ("O na-eri oji n'ututu", "O na-eri oji n'ututu", "monotone"),  # E 0, P 0
    ("akwa", "ákwà", "monotone"),  # E 0, P 2
]
# per item: E, P, D, H, nodia_items, nodia_added, nodia_letters, ref_letters
_LET = [_letters(r) for r, _, _ in DIA_ROWS]
DIA_X = np.array(
    [
        [3, 2, 1, 0, 0, 0, 0, _LET[0]],
        [2, 0, 2, 0, 0, 0, 0, _LET[1]],
        [4, 4, 0, 0, 0, 0, 0, _LET[2]],
        [0, 2, 0, 2, 1, 2, _LET[3], _LET[3]],
        [0, 6, 0, 6, 1, 6, _LET[4], _LET[4]],
        [0, 0, 0, 0, 1, 0, _LET[5], _LET[5]],
        [0, 2, 0, 2, 1, 2, _LET[6], _LET[6]],
    ],
    dtype=float,
)


def _dia_frame(rows=DIA_ROWS):
    return pd.DataFrame(rows, columns=["reference", "hypothesis", "category"])


def _rates_of(S):
    """net loss, RDD, DER, added per 100 letters of summed rows (METHODS.md §2), NaN at 0/0."""
    E, P, D, H, _ni, na, nl, _rl = (S[..., k] for k in range(8))
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "net_loss": np.where(E > 0, (E - P) / E, np.nan),
            "rdd": np.where(E > 0, D / E, np.nan),
            "der": np.where(E > 0, (D + H) / E, np.nan),
            "added_per_100_letters": np.where(nl > 0, 100 * na / nl, np.nan),
        }


def _boot_sums(X, strata, B, seed):
    """Utterance bootstrap sums written from scratch: each stratum in turn draws its items
    (16-bit indices, as fairdesk's draw_counts does below 32,768 blocks)."""
    rng = np.random.default_rng(seed)
    total = np.zeros((B, X.shape[1]))
    for rows in strata:
        idx = rng.integers(0, len(rows), size=(B, len(rows)), dtype=np.int16)
        total += X[np.asarray(rows)[idx]].sum(axis=1)
    return total


def _expected_rates(X, strata, B, seed):
    point = _rates_of(X[np.concatenate(strata)].sum(axis=0))
    reps = _rates_of(_boot_sums(X, strata, B, seed))
    out = {}
    for k, v in point.items():
        if not np.isfinite(v):
            out[k] = {"value": None, "ci": None, "bootstrap_mean": None, "n_replicates": 0}
            continue
        fin = reps[k][np.isfinite(reps[k])]
        out[k] = {
            "value": float(v),
            "ci": list(np.percentile(fin, [2.5, 97.5])),
            "bootstrap_mean": float(fin.mean()),
            "n_replicates": int(fin.size),
        }
        if fin.size < B:
            what = "without" if k == "added_per_100_letters" else "with"
            out[k]["note"] = (
                f"{B - fin.size} replicates drew no item {what} diacritics and are left out"
            )
    return out


def _approx_rates(got, want):
    assert list(got) == list(want)
    for k in want:
        assert got[k].keys() == want[k].keys(), k
        for f, v in want[k].items():
            assert got[k][f] == (pytest.approx(v, abs=1e-12) if v is not None else None), (k, f)


def test_diacritic_table_every_field_against_a_numpy_bootstrap():
    from fairdesk.presentation.diacritics_words import SCHEME_READING, table_json
    from fairdesk.stats.diacritics_table import diacritic_table

    B, seed = 400, 3
    t = table_json(diacritic_table(_dia_frame(), "category", n_bootstrap=B, seed=seed))
    assert list(t) == ["by", "categories", "overall", "settings", "scheme_reading"]
    assert t["by"] == "category" and t["scheme_reading"] == SCHEME_READING
    assert t["settings"] == {
        "count": "letters",
        "include_missing": False,
        "n_bootstrap": B,
        "seed": seed,
        "resampling": "utterance",
        "ci": "percentile 95%",
        "normaliser": "tone-preserving",
    }
    mono, tone = t["categories"]
    strata = {"monotone": [4, 5, 6], "tone": [0, 1, 2, 3]}
    for entry, name in ((mono, "monotone"), (tone, "tone")):
        rows = strata[name]
        S = DIA_X[rows].sum(axis=0).astype(int)
        rates = entry.pop("rates")
        assert entry == {
            "category": name,
            "n_items": len(rows),
            "expected": S[0],
            "produced": S[1],
            "dropped": S[2],
            "added": S[3],
            "letters": S[7],
            "items_without_diacritics": S[4],
            "added_on_items_without_diacritics": S[5],
            "no_diacritics": name == "monotone",
        }
        _approx_rates(rates, _expected_rates(DIA_X, [np.array(rows)], B, seed))
    # tone: replicates without the item "oke" have no letters to add diacritics on
    assert "note" not in tone and "note" not in mono
    ov = t["overall"]
    rates = ov.pop("rates")
    S = DIA_X.sum(axis=0).astype(int)
    assert ov == {
        "n_items": 7,
        "expected": S[0],
        "produced": S[1],
        "dropped": S[2],
        "added": S[3],
        "letters": S[7],
        "items_without_diacritics": S[4],
        "added_on_items_without_diacritics": S[5],
        "n_missing": 0,
    }
    _approx_rates(
        rates,
        _expected_rates(DIA_X, [np.array(strata["monotone"]), np.array(strata["tone"])], B, seed),
    )


def test_diacritic_table_one_utterance_and_missing_values():
    from fairdesk.stats.diacritics_table import diacritic_table

    rows = [
        ("akwà", "akwa", "solo"),
        ("ákwá", "akwa", None),
        ("òkè", "òkè", None),
        (None, "x", "solo"),
    ]  # no reference: left out
    t = diacritic_table(_dia_frame(rows), "category", n_bootstrap=200, seed=1)
    solo, missing = t["categories"]  # the items with no value: their own row, last
    assert missing["category"] == "no value for category" and missing["missing"] is True
    assert "note" not in missing and t["overall"]["n_missing"] == 2
    as_group = diacritic_table(
        _dia_frame(rows), "category", n_bootstrap=200, seed=1, include_missing=True
    )
    assert [c["category"] for c in as_group["categories"]] == ["(missing)", "solo"]
    assert "missing" not in as_group["categories"][0]
    # the same items pooled either way
    assert as_group["overall"]["n_items"] == t["overall"]["n_items"] == 3
    net = [x["overall"]["rates"]["net_loss"]["value"] for x in (t, as_group)]
    assert net[0] == net[1] == pytest.approx(3 / 5)  # E 1 + 2 + 2, P 0 + 0 + 2
    assert missing["rates"]["net_loss"]["n_replicates"] == 200
    assert solo["category"] == "solo" and solo["n_items"] == 1
    assert solo["note"] == {"code": "interval.one_utterance", "args": {}}
    from fairdesk.presentation.diacritics_words import table_json

    assert table_json(t)["categories"][0]["note"] == "one utterance: nothing to resample"
    none = {"ci": None, "bootstrap_mean": None, "n_replicates": 0}
    # akwà -> akwa: E 1, P 0, D 1
    assert solo["rates"] == {
        "net_loss": {"value": 1.0, **none},
        "rdd": {"value": 1.0, **none},
        "der": {"value": 1.0, **none},
        "added_per_100_letters": {"value": None, **none},
    }
    assert "note" not in t["overall"] and t["overall"]["n_items"] == 3
    one = table_json(diacritic_table(_dia_frame(rows[:1]), "category", n_bootstrap=200))
    assert one["overall"]["note"] == "one utterance: nothing to resample"
    assert one["overall"]["rates"]["rdd"] == {"value": 1.0, **none}


def test_diacritic_table_refusals_word_for_word():
    from fairdesk.stats.diacritics_table import diacritic_table

    f = _dia_frame()
    with pytest.raises(ValueError) as e:
        diacritic_table(f.drop(columns="hypothesis"), "category")
    assert str(e.value) == (
        "the items lack the column(s) ['hypothesis']; the table needs "
        "'reference', 'hypothesis' and the category column 'category' "
        "(columns: reference, category)"
    )
    with pytest.raises(ValueError) as e:
        diacritic_table(f, "speaker")
    assert str(e.value).startswith("the items lack the column(s) ['speaker']; ")
    with pytest.raises(ValueError) as e:
        diacritic_table(f, "category", count="words")
    assert str(e.value) == "--count must be 'letters' or 'marks', got 'words'"
    for bad in (199, 20_001):
        with pytest.raises(ValueError) as e:
            diacritic_table(f, "category", n_bootstrap=bad)
        assert (
            str(e.value)
            == f'n_bootstrap must be within 200-20,000 (docs/METHODS.md, "Diacritics by category"), got {bad}'
        )
    assert diacritic_table(f, "category", n_bootstrap=200)["settings"]["n_bootstrap"] == 200


def test_format_table_word_for_word():
    from fairdesk.presentation.diacritics_words import format_table

    none = {"value": None, "ci": None, "bootstrap_mean": None}
    table = {
        "by": "category",
        "settings": {"count": "marks", "n_bootstrap": 10_000, "seed": 7},
        "categories": [
            {
                "category": "a category name longer than 24",
                "n_items": 12,
                "expected": 40,
                "produced": 30,
                "letters": 200,
                "items_without_diacritics": 2,
                "added_on_items_without_diacritics": 3,
                "rates": {
                    "net_loss": {"value": 0.25, "ci": [0.1, 0.4], "bootstrap_mean": 0.26},
                    "rdd": {"value": 0.3, "ci": None, "bootstrap_mean": None},
                    "der": none,
                },
            },
            {
                "category": "mono",
                "n_items": 3,
                "expected": 0,
                "produced": 8,
                "letters": 34,
                "items_without_diacritics": 3,
                "added_on_items_without_diacritics": 8,
                "rates": {
                    "added_per_100_letters": {
                        "value": 23.529,
                        "ci": [10.0, 40.04],
                        "bootstrap_mean": 23.0,
                    }
                },
            },
        ],
        "overall": {
            "n_items": 15,
            "expected": 40,
            "produced": 38,
            "letters": 234,
            "items_without_diacritics": 0,
            "added_on_items_without_diacritics": 0,
            "rates": {
                "net_loss": {"value": 0.05, "ci": [-0.1, 0.2], "bootstrap_mean": 0.04},
                "rdd": none,
                "der": {"value": 1.5, "ci": [1.0, 2.0], "bootstrap_mean": 1.25},
            },
        },
        "scheme_reading": "these recordings only",
    }
    pad = " " * 38
    assert format_table(table) == [
        "Diacritics by category (counting marks; 95% CI and bootstrap mean of 10,000 "
        "utterance resamples, seed 7)",
        "category                   n    E    P  net loss [95% CI] mean",
        "a category name longer t  12   40   30  25.0% [10.0, 40.0] mean 26.0",
        f"{pad}RDD 30.0%; DER -",
        f"{pad}2 item(s) without diacritics: 3 added",
        "mono                       3    0    8  no diacritics in the references: 8 added on "
        "34 letters = 23.5 [10.0, 40.0] mean 23.0 per 100 letters",
        "overall                   15   40   38  5.0% [-10.0, 20.0] mean 4.0",
        f"{pad}RDD -; DER 150.0% [100.0, 200.0] mean 125.0",
        "Reading: these recordings only.",
    ]


def test_nodia_summary_by_hand():
    from fairdesk.metrics import compute_item_stats
    from fairdesk.stats.diacritics_table import nodia_summary

    def stats(rows):
        f = pd.DataFrame(rows, columns=["reference", "hypothesis"])
        return compute_item_stats(
            f, language="und", diacritic_count="letters", normalizer="tone-preserving"
        )

    two = stats([("oke", "òkè"), ("akwa", "akwa"), ("àkwà", "akwa")])
    assert nodia_summary(two) == {
        "n_items": 2,
        "added": 2,
        "letters": 7,
        "per_100_letters": 200 / 7,
    }
    one = stats([("àkwà", "akwa"), ("akwa", "ákwà")])
    assert nodia_summary(one) == {"n_items": 1, "added": 2, "letters": 4, "per_100_letters": 50.0}
    assert nodia_summary(stats([("àkwà", "akwa")])) is None
    assert nodia_summary(pd.DataFrame({"n_words": [3]})) is None
    hand = pd.DataFrame({"nodia_items": [1], "nodia_added": [0], "nodia_letters": [0]})
    assert nodia_summary(hand) == {"n_items": 1, "added": 0, "letters": 0, "per_100_letters": None}


def test_rate_spec_fields():
    """``_spec`` runs at import, before a mutation checker switches a mutant on: it is
    called here too."""
    from fairdesk.stats import diacritics_table as dt

    def fn(s):
        return s[..., 0]

    s = dt._spec("some_id", "some label", fn, ("dia_expected",))
    assert (
        s.id,
        s.label,
        s.stats,
        s.value,
        s.higher_is_better,
        s.kind,
        s.family,
        s.denominator,
    ) == ("some_id", "some label", dt._STATS, fn, False, "rate", "diacritic", ("dia_expected",))
    assert dt._STATS == (
        "dia_expected",
        "dia_produced",
        "dia_dropped",
        "dia_added",
        "nodia_items",
        "nodia_added",
        "nodia_letters",
        "ref_letters",
        "n_items",
    )


def test_rate_block_with_and_without_replicates():
    """A value bootstrap that is not estimable (no replicates) and one with few finite ones."""
    from fairdesk.presentation.interval_words import note_json_text
    from fairdesk.stats import diacritics_table as dt
    from fairdesk.stats.groupci import ValueBootstrap
    from fairdesk.stats.notices import notice

    DROPPED = {"code": "diacritics.replicates_dropped", "args": {"n": 1, "without": False}}

    def sums(E, D):
        v = np.zeros(len(dt._STATS))
        v[0], v[2] = E, D
        return v

    rdd = dt._RATES["rdd"]
    why = notice("interval.one_utterance")
    vb = ValueBootstrap(None, sums(4, 1), None, None, None, 3, problem=why)
    assert dt._rate_block(rdd, vb, None) == {
        "value": 0.25,
        "ci": None,
        "bootstrap_mean": None,
        "n_replicates": 0,
        "note": why.to_json(),
    }
    reps = np.array([sums(4, 1), sums(0, 0), sums(2, 1)])
    vb = ValueBootstrap("utterance", sums(4, 1), reps, None, None, 3)
    lo, hi = np.percentile([0.25, 0.5], [2.5, 97.5])
    assert dt._rate_block(rdd, vb, None) == {
        "value": 0.25,
        "ci": [pytest.approx(lo), pytest.approx(hi)],
        "bootstrap_mean": pytest.approx(0.375),
        "n_replicates": 2,
        "note": DROPPED,
    }
    assert note_json_text(DROPPED) == "1 replicates drew no item with diacritics and are left out"
    vb = ValueBootstrap("utterance", sums(4, 1), reps[:2], None, None, 3)
    assert dt._rate_block(rdd, vb, None) == {
        "value": 0.25,
        "ci": None,
        "bootstrap_mean": None,
        "n_replicates": 1,
        "note": DROPPED,
    }
    vb = ValueBootstrap("utterance", sums(0, 0), reps, None, None, 3)
    assert dt._rate_block(rdd, vb, None) == {
        "value": None,
        "ci": None,
        "bootstrap_mean": None,
        "n_replicates": 0,
    }


def test_diacritic_table_defaults_bounds_and_an_index_column():
    from fairdesk.stats.diacritics_table import diacritic_table

    rows = DIA_ROWS[:2]
    f = _dia_frame(rows)
    t = diacritic_table(f, "category")
    assert (t["settings"]["n_bootstrap"], t["settings"]["seed"]) == (10_000, 0)
    _approx_rates(
        t["categories"][0]["rates"], _expected_rates(DIA_X, [np.array([0, 1])], 10_000, 0)
    )
    t = diacritic_table(f, "category", n_bootstrap=20_000, seed=2)
    assert t["categories"][0]["rates"]["rdd"]["n_replicates"] == 20_000
    # a table saved twice with its pandas index has columns named "index" and "level_0"
    g = f.assign(index=[5, 6], level_0=[0, 1])
    assert diacritic_table(g, "category", n_bootstrap=200)["overall"]["expected"] == 3 + 2


# --------------------------------------------------------------------------- accentedness


def _acc_frame():
    rng = np.random.default_rng(7)
    rows = []
    # a: the largest group; b differs only in accentedness; c has a penalty beyond it
    for g, n, mu, pen in (("b", 25, 0.20, 0.0), ("a", 30, 0.05, 0.0), ("c", 20, 0.10, 0.15)):
        for _ in range(n):
            acc = max(0.0, rng.normal(mu, 0.05))
            rows.append(
                {
                    "L1": g,
                    "accentedness": acc,
                    "score": 0.05 + 1.2 * acc + pen + rng.normal(0, 0.04),
                }
            )
    rows.append({"L1": "a", "accentedness": 0.1, "score": "n/a"})  # not a number: left out
    rows.append({"L1": "b", "accentedness": "?", "score": 0.3})
    return pd.DataFrame(rows)


def _ols(y, cols, alpha):
    import statsmodels.api as sm

    X = np.column_stack([np.ones(len(y)), *cols])
    return sm.OLS(y, X).fit(), alpha


def _coef(fit, k, alpha):
    lo, hi = fit.conf_int(alpha)[k]
    return {
        "coef": pytest.approx(fit.params[k]),
        "ci": [pytest.approx(lo), pytest.approx(hi)],
        "p": pytest.approx(fit.pvalues[k]),
    }


def test_accentedness_regression_every_field_against_statsmodels_ols():
    from fairdesk.stats.phone_confusion import accentedness_regression

    f = _acc_frame()
    alpha = 0.1
    res = accentedness_regression(f, outcome="score", group_col="L1", alpha=alpha)
    d = f.iloc[:-2]
    y, acc, g = (
        d["score"].astype(float).to_numpy(),
        d["accentedness"].astype(float).to_numpy(),
        d["L1"].to_numpy(),
    )
    ib, ic = (g == "b").astype(float), (g == "c").astype(float)
    m1, _ = _ols(y, [acc, ib, ic], alpha)
    m0, _ = _ols(y, [ib, ic], alpha)
    groups = {}
    for name, k1, k0 in (("b", 2, 1), ("c", 3, 2)):
        groups[name] = {
            "without": _coef(m0, k0, alpha),
            "with": _coef(m1, k1, alpha),
            "survives": bool(m1.pvalues[k1] < alpha),
            "absorbed": bool(m0.pvalues[k0] < alpha <= m1.pvalues[k1]),
        }
    assert res == {
        "formula": "score ~ accentedness + C(group)",
        "reference": "a",
        "n": 75,
        "n_per_group": {"a": 30, "b": 25, "c": 20},
        "alpha": alpha,
        "estimable": True,
        "beta_accentedness": _coef(m1, 1, alpha),
        "r2": pytest.approx(m1.rsquared),
        "r2_without": pytest.approx(m0.rsquared),
        "groups": groups,
        "mean_accentedness": {k: pytest.approx(acc[g == k].mean()) for k in "abc"},
    }
    assert list(res["n_per_group"]) == ["a", "b", "c"]
    # the planted effects: b is absorbed by accentedness, c survives it
    assert res["groups"]["b"]["absorbed"] and not res["groups"]["b"]["survives"]
    assert res["groups"]["c"]["survives"] and not res["groups"]["c"]["absorbed"]


def test_accentedness_regression_reference_and_alpha_boundaries():
    from fairdesk.stats.phone_confusion import accentedness_regression

    f = _acc_frame()

    def run(**kw):
        return accentedness_regression(f, outcome="score", group_col="L1", **kw)

    assert run(reference="c")["reference"] == "c"
    assert set(run(reference="c")["groups"]) == {"a", "b"}
    assert run(reference="zz")["reference"] == "a"  # not a group: the largest
    b = run()["groups"]["b"]
    p0, p1 = b["without"]["p"], b["with"]["p"]
    assert p0 < p1
    # at alpha = p exactly, p is not below alpha
    assert run(alpha=p1)["groups"]["b"]["survives"] is False
    assert run(alpha=p1)["groups"]["b"]["absorbed"] is True
    assert run(alpha=p0)["groups"]["b"]["absorbed"] is False


def test_accentedness_regression_too_little_to_fit():
    from fairdesk.stats.phone_confusion import accentedness_regression

    one = pd.DataFrame(
        {
            "group": ["a"] * 6,
            "accentedness": [0.1, 0.2, 0.3, 0.1, 0.2, 0.4],
            "wer": [0.1, 0.2, 0.3, 0.2, 0.2, 0.5],
        }
    )
    assert accentedness_regression(one) is None
    five = pd.DataFrame(
        {
            "group": ["a", "a", "a", "b", "b"],
            "accentedness": [0.1, 0.2, 0.4, 0.3, 0.5],
            "wer": [0.1, 0.25, 0.3, 0.5, 0.55],
        }
    )
    res = accentedness_regression(five)  # 2 groups + 3 rows: the smallest fit
    assert res["estimable"] and res["n"] == 5 and res["reference"] == "a"
    assert accentedness_regression(five.iloc[:4]) is None
    const = five.assign(accentedness=[0.1, 0.1, 0.1, 0.3, 0.3])
    assert accentedness_regression(const) == {
        "formula": "wer ~ accentedness + C(group)",
        "reference": "a",
        "n": 5,
        "n_per_group": {"a": 3, "b": 2},
        "alpha": 0.05,
        "estimable": False,
        "reason": Notice("run.accentedness_collinear"),  # worded in presentation
    }
