"""The metrics modules' messages and boundaries: hallucination flags, the normaliser choice,
slots, item statistics, transcript checks, the registry, character counts and the phonemizer.

Each test pins one observable result against a hand-worked value or an independent
recomputation: evidence and messages word for word, branch boundaries, dtypes that reach
JSON/Parquet, and the inputs each function reads.
"""

from __future__ import annotations

import json
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
    find_loop,
    item_pitfalls,
    unflagged_columns,
    unstable,
    words_over_nonspeech,
)
from fairdesk.presentation.pitfalls import evidence_line as describe

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
        "flag": "loop",
        "ngram": "a",
        "n": 1,
        "repeats": 2,
        "start_word": 0,
        "words": 2,
        "repeats_in_reference": 0,
    }
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
    loop = find_loop(
        "i do not know do not know do not know do not know".split(), "i do not know".split()
    )
    assert describe(loop) == 'loop: "do not know" x4 in a row from word 2 (1x in the reference)'
    assert describe({"flag": "runaway", "hyp_words": 30, "ref_words": 5, "limit": 15.0}) == (
        "runaway: 30 hypothesis words for 5 reference words (limit 15)"
    )
    assert describe(
        {
            "flag": "over_nonspeech",
            "word": "thanks",
            "start": 1.234,
            "end": 1.5,
            "nonspeech": [1.0, 2.0],
        }
    ) == ('over non-speech: "thanks" at 1.23-1.50 s lies in the non-speech stretch 1.00-2.00 s')
    un = unstable("the cat sat", "the dog sat")
    assert describe(un) == (
        'unstable: two decodes differ by a word edit rate of 0.33 ("the cat sat" vs "the dog sat")'
    )
    other = {"flag": "mystery", "x": 1}
    assert describe(other) == json.dumps(other)


def test_unstable_against_jiwer_and_its_edges():
    a, b = "the red car", "the red bus"
    out = jiwer.process_words(a, b)
    rate = (out.substitutions + out.deletions + out.insertions) / 3
    assert unstable(a, b) == {
        "flag": "unstable",
        "edit_rate": round(rate, 4),
        "decode_a": a,
        "decode_b": b,
    }
    assert unstable(a, b)["edit_rate"] == 0.3333
    # the default threshold is 0.2: a rate of 0.25 is unstable
    assert unstable("a b c d", "a b c e")["edit_rate"] == 0.25
    # one side empty: every word of the other is an edit (rate 1), on either side
    assert unstable("yes", "") == {
        "flag": "unstable",
        "edit_rate": 1.0,
        "decode_a": "yes",
        "decode_b": "",
    }
    assert unstable(None, "yes")["edit_rate"] == 1.0
    assert unstable("", None) is None


def test_unstable_default_normaliser_is_english():
    # Whisper's English normaliser spells "mister" as "mr" and numbers as digits
    assert unstable("mister smith has seven cats", "Mr. Smith has 7 cats") is None


def test_words_over_nonspeech_reads_objects_and_both_word_keys():
    speech, dur = [(1.0, 2.0)], 3.0
    words = [
        SimpleNamespace(text="uh", start=0.2, end=0.5),
        {"word": "um", "start": 2.5, "end": 2.8},
    ]
    out = words_over_nonspeech(words, speech, dur)
    assert out == [
        {"flag": "over_nonspeech", "word": "uh", "start": 0.2, "end": 0.5, "nonspeech": [0.0, 1.0]},
        {"flag": "over_nonspeech", "word": "um", "start": 2.5, "end": 2.8, "nonspeech": [2.0, 3.0]},
    ]
    # an object word without times is skipped, as a dict one
    assert words_over_nonspeech([SimpleNamespace(text="x")], speech, dur) == []


def test_words_over_nonspeech_skips_untimed_words_and_goes_on():
    speech, dur = [(1.0, 2.0)], 3.0
    words = [
        {"text": "a", "start": 0.1, "end": None},  # half a time
        {"text": "b", "start": 0.5, "end": 0.5},  # collapsed to a point
        {"text": "c", "start": 0.2, "end": 0.4},
    ]
    out = words_over_nonspeech(words, speech, dur)
    assert [w["word"] for w in out] == ["c"]


def test_words_over_nonspeech_closed_boundaries_and_rounding():
    # a word exactly filling the stretch [0, 1.0] lies in it
    out = words_over_nonspeech([{"text": "w", "start": 0.0, "end": 1.0}], [(1.0, 2.0)], 2.0)
    assert [w["word"] for w in out] == ["w"]
    # stretch bounds rounded to 3 decimals
    out = words_over_nonspeech(
        [{"text": "w", "start": 1.2, "end": 1.3}], [(0.0, 1.123456)], 1.987654
    )
    assert out[0]["nonspeech"] == [1.123, 1.988]


def test_unflagged_columns_are_integers_even_from_float_columns():
    stats = pd.DataFrame(
        {
            "hallucinated": [0.0, 1.0],
            "n_sub": [1.0, 2.0],
            "n_del": [0.0, 1.0],
            "n_ins": [2.0, 0.0],
            "n_words": [5.0, 4.0],
        }
    )
    out = unflagged_columns(stats)
    assert out["unflagged_errors"].tolist() == [3, 0]
    assert out["unflagged_words"].tolist() == [5, 0]
    assert out["unflagged_errors"].dtype == np.int64
    assert out["unflagged_words"].dtype == np.int64


def test_item_pitfalls_speech_regions_shapes():
    assert item_pitfalls({"speech_regions": [[0.1, 0.9]]}).speech_regions == [[0.1, 0.9]]
    assert item_pitfalls({"speech_regions": "[[0.1, 0.9]]"}).speech_regions == [[0.1, 0.9]]
    assert item_pitfalls({"speech_regions": "  "}).speech_regions is None
    assert item_pitfalls({"speech_regions": float("nan")}).speech_regions is None
    assert item_pitfalls({}).speech_regions is None


def test_hallucination_module_names():
    assert hal.FLAGS == ("loop", "runaway", "over_nonspeech", "unstable")


# --------------------------------------------------------------------------- normaliser choice

from fairdesk.metrics.normalize import _letter_counts, choose_normaliser  # noqa: E402


def test_letter_counts_by_hand():
    assert _letter_counts("ab cd") == (4, 4)  # a space does not end the count
    assert _letter_counts("") == (0, 0)
    # "e" + combining vertical line below (no precomposed form): a letter, not plain
    assert _letter_counts("e\u0329b") == (2, 1)
    assert _letter_counts("be\u0329") == (2, 1)  # the mark at the very end
    assert _letter_counts("e\u0329 b") == (2, 1)  # the mark follows its own letter


def _worded(references, language=None):
    """(name, the reason in words) as a run records it: the basis ``choose_normaliser``
    returns, worded by the presentation (``run.normaliser_*``)."""
    from fairdesk.presentation.notices import notice_text
    from fairdesk.stats.notices import Notice

    name, basis = choose_normaliser(references, language)
    args = {k: v for k, v in basis.items() if k != "basis"}
    return name, notice_text(Notice("run.normaliser_" + basis["basis"], args))


def test_choose_normaliser_by_language_word_for_word():
    assert _worded([], "yo") == (
        "whisper-basic",
        "language 'yo' is not English: basic normaliser, marks kept",
    )
    assert _worded([], "en-GB") == ("whisper-english", "language 'en-GB' is English")
    # "auto" in any case decides from the text
    for lang in ("auto", "AUTO", "Auto"):
        assert _worded(["hello"], lang) == (
            "whisper-english",
            "language auto: 100.0% of the 5 reference letters are plain ASCII (≥ 99%), so "
            "Whisper's English normaliser",
        )


def test_choose_normaliser_from_text_word_for_word():
    assert _worded(["123", None, "?!"]) == (
        "whisper-english",
        "language auto: the references have no letters",
    )
    # 2 texts: 3 plain letters and 1 marked + 1 plain: 4 plain of 5
    assert _worded(["abc", "e\u0329b"]) == (
        "whisper-basic",
        "language auto: only 80.0% of the 5 reference letters are plain ASCII (< 99%), so "
        "Whisper's basic normaliser with diacritics and tone marks kept",
    )
    # exactly 99 plain letters of 100: English (the bound is inclusive)
    name, reason = _worded(["a" * 99, "e\u0329"])
    assert name == "whisper-english"
    assert reason.startswith("language auto: 99.0% of the 100 reference letters")
    assert _worded(["e\u0329" * 2])[1].startswith(
        "language auto: only 0.0% of the 2 reference letters"
    )


# --------------------------------------------------------------------------- slots

from fairdesk.metrics.slots import exact_match, parse_slots, slot_diff  # noqa: E402


def test_parse_slots_drops_missing_values_and_keeps_going():
    assert parse_slots({"artist": None, "genre": "  ", "volume": "7"}) == {"volume": ["7"]}
    assert parse_slots([{"slot": "artist"}, {"slot": "volume", "value": 7}]) == {"volume": [7]}
    assert parse_slots(pd.NA) == {}
    assert parse_slots(float("nan")) == {}


def test_parse_slots_messages_word_for_word():
    bad = '{"artist": ' + "x" * 100
    with pytest.raises(ValueError) as e:
        parse_slots(bad)
    try:
        json.loads(bad)
    except json.JSONDecodeError as exc:
        msg = exc.msg
    assert str(e.value) == (
        f"could not read slots {bad[:80]!r}: not valid JSON ({msg}). Give a dict "
        'or a JSON object such as {"artist": "Adele", "volume": "7"}.'
    )
    with pytest.raises(ValueError) as e:
        parse_slots([{"value": "Adele"}])
    assert str(e.value) == (
        "slot record {'value': 'Adele'} has no name; use one of the keys "
        "['slot', 'name', 'type', 'entity', 'slot_name'] for the slot name and "
        "['value', 'filler', 'text', 'slot_value'] for its value."
    )
    with pytest.raises(ValueError) as e:
        parse_slots(["ab"])  # a 2-character string is not a [name, value] pair
    assert str(e.value) == (
        "slot entry 'ab' is neither a record nor a [name, value] pair; give "
        'slots as {"artist": "Adele"} or [{"slot": "artist", "value": "Adele"}].'
    )
    with pytest.raises(ValueError) as e:
        parse_slots(5)
    assert str(e.value) == (
        'slots must be a dict, a JSON string, or a list, got int; give slots as {"artist": '
        '"Adele"}.'
    )
    # an array's missing-value test is ambiguous: it is not taken for "no slots"
    with pytest.raises(ValueError) as e:
        parse_slots(np.array([["artist", "Adele"], ["volume", "7"]]))
    assert "got ndarray" in str(e.value)


def test_slot_values_use_the_language_normaliser():
    # English: "seven" is 7; any other language keeps the words
    assert exact_match("play", "play", {"volume": "seven"}, {"volume": "7"}) == 1
    assert exact_match("play", "play", {"volume": "seven"}, {"volume": "7"}, "yo") == 0
    assert [d.status for d in slot_diff({"volume": "seven"}, {"volume": "7"})] == ["ok"]
    assert [d.status for d in slot_diff({"volume": "seven"}, {"volume": "7"}, "fr")] == ["wrong"]


# --------------------------------------------------------------------------- item stats

from fairdesk.metrics.items import class_column, compute_item_stats  # noqa: E402


def test_class_column_message():
    assert class_column("yes", "n") == "cls_yes_n"
    with pytest.raises(ValueError) as e:
        class_column("yes", "total")
    assert str(e.value) == "what must be 'n' or 'correct', got 'total'."


def _slu_frame(**cols):
    base = {"ref_intent": ["play", "play"], "hyp_intent": ["play", "play"]}
    return pd.DataFrame({**base, **cols})


def test_slu_slots_on_one_side_only_still_count():
    # reference slots only: the hypothesis has none, so EM fails
    out = compute_item_stats(_slu_frame(ref_slots=['{"artist": "Adele"}', None]))
    assert out["em"].tolist() == [0, 1]
    # hypothesis slots only: an extra slot fails EM too
    out = compute_item_stats(_slu_frame(hyp_slots=['{"artist": "Adele"}', None]))
    assert out["em"].tolist() == [0, 1]
    # no slot columns: EM is the intent match, 1 (not any other number)
    out = compute_item_stats(_slu_frame())
    assert out["em"].tolist() == [1, 1]
    assert out["intent_correct"].tolist() == [1, 1]


def test_slu_columns_are_int64_and_blank_intents_unlabelled():
    frame = pd.DataFrame(
        {"ref_intent": ["  ", "play", None, "stop"], "hyp_intent": ["play", "play", "play", "play"]}
    )
    out = compute_item_stats(frame)
    # a blank or missing reference intent leaves the row out; the rows after it still count
    assert out["n_nlu"].tolist() == [0, 1, 0, 1]
    assert out["intent_correct"].tolist() == [0, 1, 0, 0]
    assert out["em"].tolist() == [0, 1, 0, 0]
    for c in ("n_nlu", "em", "intent_correct"):
        assert out[c].dtype == np.int64, c


def test_slu_slot_values_follow_the_language():
    frame = _slu_frame(ref_slots=['{"volume": "seven"}'] * 2, hyp_slots=['{"volume": "7"}'] * 2)
    assert compute_item_stats(frame, language="en")["em"].tolist() == [1, 1]
    assert compute_item_stats(frame, language="yo")["em"].tolist() == [0, 0]


def test_blank_label_is_not_a_class():
    frame = pd.DataFrame({"label": ["a", " ", "b"], "predicted_label": ["a", "a", "a"]})
    out = compute_item_stats(frame)
    assert out["n_cls"].tolist() == [1, 0, 1]
    assert out["correct"].tolist() == [1, 0, 0]


def test_confidence_from_a_nullable_float_column_is_float():
    frame = pd.DataFrame({"confidence": pd.array([0.25, None, 0.75], dtype="Float64")})
    out = compute_item_stats(frame)
    assert out["n_conf"].tolist() == [1, 0, 1]
    assert out["confidence"].tolist() == [0.25, 0.0, 0.75]
    assert out["confidence"].dtype == np.float64


# --------------------------------------------------------------------------- transcript checks

from fairdesk.metrics.inputs import check_transcripts  # noqa: E402


def test_problem_lines_are_plain_ints_or_the_label():
    frame = pd.DataFrame(
        {"reference": ["a", "", "b"], "hypothesis": ["a", "b", "c"]}, index=pd.Index([10, 20, 30])
    )
    _, problems, _ = check_transcripts(frame)
    assert [p["line"] for p in problems] == [20]
    assert type(problems[0]["line"]) is int
    json.dumps(problems)
    # a text index is reported as it is
    frame.index = ["r1", "r2", "r3"]
    assert [p["line"] for p in check_transcripts(frame)[1]] == ["r2"]
    # a line column as text: read as a number when it is one, else kept
    frame["line"] = ["2", "3", "4"]
    _, problems, _ = check_transcripts(frame)
    assert problems[0]["line"] == 3 and type(problems[0]["line"]) is int
    frame["line"] = ["x", "y", "z"]
    assert check_transcripts(frame)[1][0]["line"] == "y"


# --------------------------------------------------------------------------- registry

from fairdesk.metrics.registry import METRICS, class_metric, metric_specs  # noqa: E402


def test_ratio_metric_records_its_numerator():
    assert METRICS["wer"].numerator == ("n_sub", "n_del", "n_ins")
    assert METRICS["insertion_ratio"].numerator == ("n_ins",)
    assert METRICS["insertion_ratio"].denominator == ("n_sub", "n_del", "n_ins")


def test_class_metric_spec_fields_and_message():
    spec = class_metric("macro_recall", ["a", "b"])
    assert (spec.label, spec.higher_is_better, spec.kind, spec.family) == (
        "Macro recall",
        True,
        "rate",
        "classification",
    )
    assert spec.stats == ("cls_a_n", "cls_b_n", "cls_a_correct", "cls_b_correct")
    assert spec.denominator == ("cls_a_n", "cls_b_n")
    assert class_metric("balanced_accuracy", ["a"]).label == "Balanced accuracy"
    # class b absent from the group: the mean of the present classes' recalls only
    assert spec.compute(np.array([4, 0, 3, 0]))[()] == 0.75
    with pytest.raises(ValueError) as e:
        class_metric("macro_recall", [])
    assert str(e.value) == "macro_recall needs at least one class label (columns cls_<label>_n)."


def test_missing_columns_message_for_a_denominator_without_its_own_entry():
    with pytest.raises(ValueError) as e:
        metric_specs(["n_items"], "insertion_ratio")
    assert str(e.value) == (
        "metric 'insertion_ratio' cannot be computed: the item stats lack its columns. "
        "The audit frame needs the columns 'reference' and 'hypothesis'."
    )


# --------------------------------------------------------------------------- text counts

from fairdesk.metrics.text import char_counts  # noqa: E402


def test_char_counts_uses_the_given_normaliser():
    # the identity keeps case and punctuation: jiwer.process_characters on the raw texts
    ref, hyp = "Ab,", "ab"
    out = jiwer.process_characters(ref, hyp)
    got = char_counts(ref, hyp, normalizer=lambda s: s)
    assert tuple(got) == (len(ref), out.substitutions, out.deletions, out.insertions)
    assert tuple(char_counts(ref, hyp)) == (2, 0, 0, 0)  # English normaliser: equal


# --------------------------------------------------------------------------- phones

from fairdesk.metrics import phones as ph  # noqa: E402


def _quick(fn, seconds=2.0):
    """fn() in a daemon thread: fails instead of hanging on an endless loop."""
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("v", fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert "v" in box, "did not finish"
    return box["v"]


def test_ipa_to_arpabet_by_hand():
    assert _quick(lambda: ph.ipa_to_arpabet("kæt")) == ("K", "AE", "T")
    assert _quick(lambda: ph.ipa_to_arpabet("ˈhɛloʊ_wɝld")) == (
        "HH",
        "EH",
        "L",
        "OW",
        "W",
        "ER",
        "L",
        "D",
    )
    # a symbol outside the table is kept, marked, and the next ones still read
    assert _quick(lambda: ph.ipa_to_arpabet("kQæt")) == ("K", "?Q", "AE", "T")
    assert _quick(lambda: ph.ipa_to_arpabet("Qæ")) == ("?Q", "AE")


def test_cmudict_path_layouts_and_message(tmp_path, monkeypatch):
    import pocketsphinx

    real = ph.cmudict_path()
    assert real.name == "cmudict-en-us.dict" and real.is_file()
    assert real.parent == Path(pocketsphinx.get_model_path()) / "en-us"

    monkeypatch.setattr(pocketsphinx, "get_model_path", lambda: str(tmp_path))
    with pytest.raises(FileNotFoundError) as e:
        ph.cmudict_path()
    assert str(e.value) == (
        f"{tmp_path}: no cmudict-en-us.dict; reinstall the pocketsphinx package"
    )
    flat = tmp_path / "cmudict-en-us.dict"
    flat.write_text("a AH0\n")
    assert ph.cmudict_path() == flat
    (tmp_path / "en-us").mkdir()
    nested = tmp_path / "en-us" / "cmudict-en-us.dict"
    nested.write_text("a AH0\n")
    assert ph.cmudict_path() == nested


def _fake_espeak(tmp_path, body: str) -> str:
    """An executable standing in for espeak-ng; it logs its arguments, one call a line."""
    log = tmp_path / "calls.log"
    exe = tmp_path / "espeak-ng"
    exe.write_text(f"#!/bin/sh\necho \"$*\" >> '{log}'\n{body}\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return str(exe)


def _calls(tmp_path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def test_phonemizer_without_espeak(monkeypatch):
    monkeypatch.setattr(ph.shutil, "which", lambda name: None)
    p = ph.Phonemizer()
    assert p.espeak is None
    # CMUdict words: any case, apostrophes around them dropped
    hello = ph.cmudict()["hello"]
    assert p.phones("Hello") == hello
    assert p.phones("'hello'") == hello
    assert p.phones("zzqxv") == ()
    assert p.unknown == {"zzqxv"}
    assert p.from_espeak == set()


def test_phonemizer_one_espeak_call_for_all_new_words(tmp_path):
    # one output line per input line, the word itself as "IPA"
    exe = _fake_espeak(tmp_path, "cat")
    p = ph.Phonemizer(espeak=exe)
    p.prepare(["hello"])  # a CMUdict word: no call
    p.prepare(["hello", "zok", "zbIt"])
    assert _calls(tmp_path) == ["-q -v en-us --ipa --sep=_"]
    assert p.cache["zok"] == ("Z", "OW", "K")
    assert p.cache["zbIt"] == ("Z", "B", "?I", "T")
    assert p.from_espeak == {"zok", "zbIt"}
    assert p.unknown == set()


def test_phonemizer_word_at_a_time_when_espeak_joins_lines(tmp_path):
    # several lines in: one line out (as some espeak-ng builds do); one word in: the word
    # split over two lines; the word "mvute" gives nothing and a failing exit status
    body = (
        "in=$(cat)\n"
        'case "$in" in\n'
        '  *"\n"*) echo "$in" | tr "\\n" " "; echo ;;\n'
        "  mvute) exit 1 ;;\n"
        '  *) echo "$in" | cut -c1-2; echo "$in" | cut -c3- ;;\n'
        "esac"
    )
    exe = _fake_espeak(tmp_path, body)
    p = ph.Phonemizer(espeak=exe)
    p.prepare(["zok", "mvute", "vzist"])
    assert len(_calls(tmp_path)) == 4  # the batch, then each word
    assert p.cache["zok"] == ("Z", "OW", "K")
    assert p.cache["vzist"] == ("V", "Z", "IY", "S", "T")
    assert p.cache["mvute"] == ()
    assert p.from_espeak == {"zok", "vzist"}
    assert p.unknown == {"mvute"}


def test_confidence_from_a_nullable_boolean_column_is_float():
    # pandas keeps a nullable boolean column boolean through to_numeric: still float values
    frame = pd.DataFrame({"confidence": pd.array([True, None, False], dtype="boolean")})
    out = compute_item_stats(frame)
    assert out["n_conf"].tolist() == [1, 0, 1]
    assert out["confidence"].tolist() == [1.0, 0.0, 0.0]
    assert out["confidence"].dtype == np.float64


def test_loop_after_other_words_and_a_second_run():
    # the scan goes on after a run from where that run ends: "a" x4 from word 3, then "b" x2
    hyp = "x y a a a a b b".split()
    ev = _quick(lambda: find_loop(hyp, [], max_n=2, min_repeats=2))
    assert (ev["ngram"], ev["repeats"], ev["start_word"]) == ("a", 4, 2)
    assert _quick(lambda: hal._runs(hyp, 1)) == [(2, 4), (6, 2)]


def test_hallucination_columns_with_evidence_given_as_objects():
    ev = [
        {"flag": "over_nonspeech", "word": "uh", "start": 0.1, "end": 0.3, "nonspeech": [0.0, 1.0]}
    ]
    frame = pd.DataFrame(
        {
            "reference": ["hello there"] * 3,
            "hypothesis": ["hello there"] * 3,
            "nonspeech_words": [ev, None, ev],
        }
    )
    out = hal.hallucination_columns(frame)
    assert out["hall_over_nonspeech"].tolist() == [1, 0, 1]
    assert out["hallucinated"].tolist() == [1, 0, 1]
    assert json.loads(out["hallucination_evidence"].iloc[2]) == ev
    assert out["hallucination_evidence"].iloc[1] == ""


def test_loop_choice_by_words_covered_and_the_ngram_limits():
    # "a" x8 covers 8 words, "b c" x5 covers 10: the 2-gram run wins, found after the
    # "a a" run of the same n is passed over
    hyp = ["a"] * 8 + ["b", "c"] * 5
    ev = find_loop(hyp, [])
    assert (ev["ngram"], ev["repeats"], ev["start_word"], ev["words"]) == ("b c", 5, 8, 10)
    # "a a" repeated is never a 2-gram loop, even where "a" itself is in the reference
    assert find_loop(["a"] * 8, ["a"] * 4) is None
    # n-grams up to max_n only
    assert find_loop("a b a b a b a b".split(), [], max_n=1) is None
    assert find_loop("a b a b a b a b".split(), [], max_n=2)["ngram"] == "a b"


def test_loop_run_is_read_from_its_first_ngram():
    # "a b" x3 from word 2 is said twice in the reference (min_repeats 2): no loop; the
    # rotation "b a" inside that same run is not a second one
    assert find_loop("a a b a b a b a".split(), "a a a a b a b b".split(), 4, 2) is None


def test_runaway_thresholds_from_the_settings():
    frame = pd.DataFrame(
        {
            "reference": [" ".join(["w"] * 10), "red car"],
            "hypothesis": [" ".join(["w"] * 20), "red car big fast blue"],
        }
    )
    # default 2 x 10 + 5 = 25 > 20 words: no runaway; 2 x 2 + 5 = 9 > 5: none either
    assert hal.hallucination_columns(frame)["hall_runaway"].tolist() == [0, 0]
    st = HallucinationSettings(runaway_slack=0)  # 2 x 2 + 0 = 4 < 5 words
    assert hal.hallucination_columns(frame, settings=st)["hall_runaway"].tolist() == [0, 1]
