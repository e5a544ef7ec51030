"""Hallucination flags of METHODS.md §2 on hand-built texts and hand-made word times."""

import json

import pandas as pd
import pytest

from fairdesk.metrics.hallucination import (
    HallucinationSettings,
    find_loop,
    hallucination_columns,
    item_pitfalls,
    runaway,
    unstable,
    words_over_nonspeech,
)
from fairdesk.presentation.pitfalls import evidence_line as describe
from fairdesk.presentation.pitfalls import evidence_lines


def flags(ref, hyp, **kw):
    frame = pd.DataFrame({"reference": [ref], "hypothesis": [hyp], **kw})
    out = hallucination_columns(frame, "whisper-english")
    return out.iloc[0], json.loads(out["hallucination_evidence"].iloc[0] or "[]")


def test_planted_loops_are_flagged_with_their_ngram_and_count():
    row, ev = flags("I do not know", "I do not know do not know do not know do not know")
    assert row["hall_loop"] == 1 and row["hallucinated"] == 1
    (loop,) = [e for e in ev if e["flag"] == "loop"]
    assert loop["ngram"] == "do not know" and loop["repeats"] == 4 and loop["n"] == 3
    assert loop["start_word"] == 1 and loop["repeats_in_reference"] == 1
    # the example: a 1-gram pair looping 60 times is also a runaway
    row, ev = flags("thank you for the tea", "thank you " * 60)
    assert row["hall_loop"] == 1 and row["hall_runaway"] == 1
    loop = [e for e in ev if e["flag"] == "loop"][0]
    assert (loop["ngram"], loop["repeats"]) == ("thank you", 60)
    # a 1-gram repeated: the smallest n is reported
    assert find_loop("no no no no no".split(), ["yes"])["ngram"] == "no"


def test_ordinary_errors_and_repetitions_in_the_reference_are_not_flagged():
    cases = [
        ("the cat sat on the mat", "the cat sat on a mat"),  # substitution
        ("the cat sat on the mat", "cat sat mat"),  # deletions
        ("play the song now", "play the the song now"),  # one repeat
        ("go go go go", "go go go go"),  # said by the speaker
        ("very very very very good", "very very very very very good"),  # in the reference
        ("twenty five", "25"),  # normalised
        ("", ""),
    ]
    for ref, hyp in cases:
        row, ev = flags(ref, hyp)
        assert row["hallucinated"] == 0, (ref, hyp, ev)
    # three repeats are not a loop (n-gram repeated >= 4 times in a row)
    assert find_loop("a b a b a b".split(), []) is None
    assert find_loop("a b a b a b a b".split(), [])["repeats"] == 4


def test_runaway_threshold_is_two_times_reference_plus_five():
    ref = "alpha bravo charlie delta echo"  # 5 words -> limit 15
    assert runaway(15, 5) is None
    assert runaway(16, 5) == {"flag": "runaway", "hyp_words": 16, "ref_words": 5, "limit": 15.0}
    hyp15 = " ".join(f"word{chr(97 + i)}" for i in range(15))
    assert flags(ref, hyp15)[0]["hall_runaway"] == 0
    row, ev = flags(ref, hyp15 + " extra")
    assert row["hall_runaway"] == 1 and ev[0]["hyp_words"] == 16
    # empty reference: 6 words are a runaway, 5 are not
    assert runaway(6, 0) and runaway(5, 0) is None


def test_words_over_nonspeech_need_the_whole_span_in_a_gap():
    speech = [(0.5, 1.5), (2.0, 2.6)]  # non-speech: 0-0.5, 1.5-2.0, 2.6-4.0
    words = [
        {"text": "hello", "start": 0.6, "end": 1.0},  # in speech
        {"text": "there", "start": 1.4, "end": 1.7},  # straddles speech / gap
        {"text": "um", "start": 1.6, "end": 1.9},  # wholly in the 1.5-2.0 gap
        {"text": "thank", "start": 3.0, "end": 3.2},  # trailing silence
        {"text": "you", "start": None, "end": None},  # no times: skipped
    ]
    ev = words_over_nonspeech(words, speech, 4.0)
    assert [(e["word"], e["nonspeech"]) for e in ev] == [("um", [1.5, 2.0]), ("thank", [2.6, 4.0])]
    row, out = flags("hello there", "hello there um thank", nonspeech_words=[json.dumps(ev)])
    assert row["hall_over_nonspeech"] == 1 and row["hallucinated"] == 1
    assert "lies in the non-speech stretch 2.60-4.00 s" in describe(out[1])


def test_unstable_uses_a_symmetric_word_edit_rate():
    assert unstable("the cat sat", "the cat sat") is None
    ev = unstable("the cat sat on the mat", "the dog sat", threshold=0.2)
    # jiwer: 1 substitution + 3 deletions over the longer decode's 6 words
    assert ev["edit_rate"] == pytest.approx(4 / 6, abs=1e-4)
    assert unstable("a b c d e f g h i j", "a b c d e f g h i x", threshold=0.1) is None
    frame = pd.DataFrame(
        {
            "reference": ["a b"],
            "hypothesis": ["a b"],
            "hypothesis_sampled_a": ["a b"],
            "hypothesis_sampled_b": ["c d e"],
        }
    )
    assert hallucination_columns(frame, "whisper-english")["hall_unstable"].iloc[0] == 1


def test_settings_change_the_thresholds_and_item_pitfalls_reads_stored_rows():
    st = HallucinationSettings(min_repeats=3)
    frame = pd.DataFrame({"reference": ["x"], "hypothesis": ["a b a b a b"]})
    assert hallucination_columns(frame, "whisper-english", settings=st)["hall_loop"].iloc[0] == 1
    with pytest.raises(ValueError):
        HallucinationSettings(min_repeats=1)
    row = {
        "hallucination_evidence": json.dumps(
            [{"flag": "runaway", "hyp_words": 20, "ref_words": 3, "limit": 11.0}]
        ),
        "nonspeech_share": 0.25,
        "snr_db": float("nan"),
        "speech_regions": "[[0.1, 0.9]]",
    }
    rep = item_pitfalls(row)
    assert evidence_lines(rep.evidence) == [
        "runaway: 20 hypothesis words for 3 reference words (limit 11)"
    ]
    assert rep.acoustics == {"nonspeech_share": 0.25, "snr_db": None}
    assert rep.speech_regions == [[0.1, 0.9]]
    assert item_pitfalls({}).evidence == ()


def test_words_whose_times_collapsed_to_a_point_are_not_evidence():
    words = [{"text": "Okay,", "start": 0.0, "end": 0.0}, {"text": "go", "start": 3.0, "end": 3.0}]
    assert words_over_nonspeech(words, [(0.45, 1.3)], 4.0) == []
