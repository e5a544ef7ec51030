"""Behaviour the mutation run (bench/mutation.py, package ``metrics``) found unchecked.

Each test pins one observable result against a hand-worked value or an independent
recomputation: evidence and messages word for word, branch boundaries, dtypes that reach
JSON/Parquet, and the inputs each function reads.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from types import SimpleNamespace

import jiwer
import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics import hallucination as hal
from fairdesk.metrics.hallucination import (
    HallucinationSettings,
    describe,
    find_loop,
    item_pitfalls,
    unflagged_columns,
    unstable,
    words_over_nonspeech,
)

# --------------------------------------------------------------------------- hallucination


def test_loop_repeats_in_reference_counted_by_hand():
    hyp = "no no no no".split()
    # the reference has no "no": 0 repeats there
    assert find_loop(hyp, "yes sir".split())["repeats_in_reference"] == 0
    # "x no no": the longest back-to-back run of "no" is 2 (not 3, not counted from "x")
    assert find_loop(hyp, "x no no".split())["repeats_in_reference"] == 2
    # a 2-gram: "a b" appears twice in a row at the reference's end
    ev = find_loop("a b a b a b a b".split(), "c a b a b".split())
    assert (ev["ngram"], ev["n"], ev["repeats"], ev["repeats_in_reference"]) == ("a b", 2, 4, 2)


def test_loop_with_the_smallest_allowed_min_repeats():
    # min_repeats=2 is allowed by the settings: a word said twice is a loop
    assert find_loop(["a", "a"], [], max_n=4, min_repeats=2) == {
        "flag": "loop", "ngram": "a", "n": 1, "repeats": 2, "start_word": 0, "words": 2,
        "repeats_in_reference": 0}
    ev = find_loop("x a b a b".split(), [], max_n=2, min_repeats=2)
    assert (ev["ngram"], ev["repeats"], ev["start_word"]) == ("a b", 2, 1)


def test_settings_boundaries_and_messages():
    HallucinationSettings(max_ngram=1, min_repeats=2, unstable_rate=0.0)
    HallucinationSettings(unstable_rate=1.0)
    with pytest.raises(ValueError) as e:
        HallucinationSettings(max_ngram=0)
    assert str(e.value) == "max_ngram must be >= 1 and min_repeats >= 2, got 0 and 4"
    with pytest.raises(ValueError) as e:
        HallucinationSettings(min_repeats=1)
    assert str(e.value) == "max_ngram must be >= 1 and min_repeats >= 2, got 4 and 1"
    with pytest.raises(ValueError) as e:
        HallucinationSettings(unstable_rate=1.5)
    assert str(e.value) == "unstable_rate must be in [0, 1], got 1.5"
    with pytest.raises(ValueError) as e:
        HallucinationSettings(unstable_rate=-0.1)
    assert str(e.value) == "unstable_rate must be in [0, 1], got -0.1"


def test_describe_every_flag_word_for_word():
    loop = find_loop("i do not know do not know do not know do not know".split(),
                     "i do not know".split())
    assert describe(loop) == 'loop: "do not know" x4 in a row from word 2 (1x in the reference)'
    assert describe({"flag": "runaway", "hyp_words": 30, "ref_words": 5, "limit": 15.0}) == (
        "runaway: 30 hypothesis words for 5 reference words (limit 15)")
    assert describe({"flag": "over_nonspeech", "word": "thanks", "start": 1.234, "end": 1.5,
                     "nonspeech": [1.0, 2.0]}) == (
        'over non-speech: "thanks" at 1.23-1.50 s lies in the non-speech stretch 1.00-2.00 s')
    un = unstable("the cat sat", "the dog sat")
    assert describe(un) == (
        'unstable: two decodes differ by a word edit rate of 0.33 ("the cat sat" vs '
        '"the dog sat")')
    other = {"flag": "mystery", "x": 1}
    assert describe(other) == json.dumps(other)


def test_unstable_against_jiwer_and_its_edges():
    a, b = "the red car", "the red bus"
    out = jiwer.process_words(a, b)
    rate = (out.substitutions + out.deletions + out.insertions) / 3
    assert unstable(a, b) == {"flag": "unstable", "edit_rate": round(rate, 4),
                              "decode_a": a, "decode_b": b}
    assert unstable(a, b)["edit_rate"] == 0.3333
    # the default threshold is 0.2: a rate of 0.25 is unstable
    assert unstable("a b c d", "a b c e")["edit_rate"] == 0.25
    # one side empty: every word of the other is an edit (rate 1), on either side
    assert unstable("yes", "") == {"flag": "unstable", "edit_rate": 1.0, "decode_a": "yes",
                                   "decode_b": ""}
    assert unstable(None, "yes")["edit_rate"] == 1.0
    assert unstable("", None) is None


def test_unstable_default_normaliser_is_english():
    # Whisper's English normaliser spells "mister" as "mr" and numbers as digits
    assert unstable("mister smith has seven cats", "Mr. Smith has 7 cats") is None


def test_words_over_nonspeech_reads_objects_and_both_word_keys():
    speech, dur = [(1.0, 2.0)], 3.0
    words = [SimpleNamespace(text="uh", start=0.2, end=0.5),
             {"word": "um", "start": 2.5, "end": 2.8}]
    out = words_over_nonspeech(words, speech, dur)
    assert out == [
        {"flag": "over_nonspeech", "word": "uh", "start": 0.2, "end": 0.5, "nonspeech": [0.0, 1.0]},
        {"flag": "over_nonspeech", "word": "um", "start": 2.5, "end": 2.8, "nonspeech": [2.0, 3.0]},
    ]
    # an object word without times is skipped, as a dict one
    assert words_over_nonspeech([SimpleNamespace(text="x")], speech, dur) == []


def test_words_over_nonspeech_skips_untimed_words_and_goes_on():
    speech, dur = [(1.0, 2.0)], 3.0
    words = [{"text": "a", "start": 0.1, "end": None},   # half a time
             {"text": "b", "start": 0.5, "end": 0.5},     # collapsed to a point
             {"text": "c", "start": 0.2, "end": 0.4}]
    out = words_over_nonspeech(words, speech, dur)
    assert [w["word"] for w in out] == ["c"]


def test_words_over_nonspeech_closed_boundaries_and_rounding():
    # a word exactly filling the stretch [0, 1.0] lies in it
    out = words_over_nonspeech([{"text": "w", "start": 0.0, "end": 1.0}], [(1.0, 2.0)], 2.0)
    assert [w["word"] for w in out] == ["w"]
    # stretch bounds rounded to 3 decimals
    out = words_over_nonspeech([{"text": "w", "start": 1.2, "end": 1.3}],
                               [(0.0, 1.123456)], 1.987654)
    assert out[0]["nonspeech"] == [1.123, 1.988]


def test_unflagged_columns_are_integers_even_from_float_columns():
    stats = pd.DataFrame({"hallucinated": [0.0, 1.0], "n_sub": [1.0, 2.0], "n_del": [0.0, 1.0],
                          "n_ins": [2.0, 0.0], "n_words": [5.0, 4.0]})
    out = unflagged_columns(stats)
    assert out["unflagged_errors"].tolist() == [3, 0]
    assert out["unflagged_words"].tolist() == [5, 0]
    assert out["unflagged_errors"].dtype == np.int64
    assert out["unflagged_words"].dtype == np.int64


def test_item_pitfalls_speech_regions_shapes():
    assert item_pitfalls({"speech_regions": [[0.1, 0.9]]})["speech_regions"] == [[0.1, 0.9]]
    assert item_pitfalls({"speech_regions": "[[0.1, 0.9]]"})["speech_regions"] == [[0.1, 0.9]]
    assert item_pitfalls({"speech_regions": "  "})["speech_regions"] is None
    assert item_pitfalls({"speech_regions": float("nan")})["speech_regions"] is None
    assert item_pitfalls({})["speech_regions"] is None


def test_hallucination_module_names():
    assert hal.FLAGS == ("loop", "runaway", "over_nonspeech", "unstable")
