"""Normalisers: Whisper English, Whisper basic with diacritics kept, tone-preserving."""

import math
import subprocess
import sys
import unicodedata

import pandas as pd
import pytest

from fairdesk.metrics.normalize import (
    basic,
    english,
    get_normalizer,
    is_english,
    normalizer_for,
    tone_preserving,
)


@pytest.mark.parametrize("fn", [english, basic, tone_preserving])
@pytest.mark.parametrize("missing", [None, float("nan"), math.nan, pd.NA, "", "   "])
def test_missing_text_is_empty(fn, missing):
    assert fn(missing) == ""


def test_english_is_whisper_english():
    from whisper_normalizer.english import EnglishTextNormalizer

    ref = EnglishTextNormalizer()
    for s in ["Seven people, please!", "Mr. Smith's colour", "twenty five   percent", "3.5 kg"]:
        assert english(s) == " ".join(ref(s).split())
    # the one deviation: Whisper leaves a lone "." from an ellipsis; fairdesk drops it
    assert ref("Well...").split() == ["well", "."]
    assert english("Well...") == "well"
    assert english("...") == ""
    assert english("Seven") == "7"
    assert english("Play it LOUDER, please.") == "play it louder please"


def test_basic_keeps_diacritics_and_does_not_split_words():
    # U+0301 on ọ has no precomposed form: the plain basic normaliser would turn it into a space
    s = "Ọ́kụ̀ àkwà, n'ututu!"
    out = basic(s)
    assert out == unicodedata.normalize("NFKC", "ọ́kụ̀ àkwà n ututu")
    assert len(out.split()) == 4
    assert basic("Café [noise] (laughs) OK") == "café ok"


def test_tone_preserving():
    nfd = unicodedata.normalize("NFD", "Àkwà,  Ọ́kụ̀!  «ẹ̀yin»")
    out = tone_preserving(nfd)
    assert out == unicodedata.normalize("NFC", "àkwà ọ́kụ̀ ẹ̀yin")
    assert unicodedata.is_normalized("NFC", out)
    # symbols are not punctuation: kept
    assert tone_preserving("5 + 5 = 10?") == "5 + 5 = 10"


@pytest.mark.parametrize("lang", ["en", "EN", "en-GB", "en_us", "eng", "english"])
def test_english_languages(lang):
    assert is_english(lang)
    assert normalizer_for(lang) is english


@pytest.mark.parametrize("lang", ["yo", "ig", "fr", "ena", None])
def test_other_languages(lang):
    assert normalizer_for(lang) is basic


def test_get_normalizer():
    assert get_normalizer(None, "yo") is basic
    assert get_normalizer("auto", "en") is english
    assert get_normalizer("whisper-english") is english
    assert get_normalizer("tone-preserving") is tone_preserving
    assert get_normalizer(str.upper)("a") == "A"
    with pytest.raises(ValueError, match="whisper-english"):
        get_normalizer("nope")


def test_metrics_import_no_torch_no_qt():
    code = (
        "import sys, fairdesk.metrics as m; m.english('a'); m.basic('a');"
        "bad = [k for k in ('torch', 'PySide6', 'pyqtgraph') if k in sys.modules];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "spelled,written",
    [
        ("SIX EIGHT ZERO TWO", "6 8 0 2"),
        ("six eight zero two", "6802"),
        ("zero three five one", "0 3 5 1"),
        ("zero three five one", "0351"),
        ("nineteen ninety nine", "1999"),
        ("nineteen ninety nine", "19 99"),
        ("call six eight zero two now", "call 6 8 0 2 now"),
        ("one one", "1 1"),
    ],
)
def test_spelled_and_written_digit_strings_compare_equal(spelled, written):
    from fairdesk.metrics.text import word_counts

    assert english(spelled) == english(written)
    wc = word_counts(spelled, written, normalizer=english)
    assert (wc.n_sub, wc.n_del, wc.n_ins) == (0, 0, 0)


def test_join_digits_rule():
    from fairdesk.metrics.normalize import join_digits

    assert join_digits("6 8 0 2") == "6802"
    assert join_digits("room 4 b 12 3") == "room 4 b 123"
    assert join_digits("one 2") == "one 2"  # "one" only counts as 1 for Whisper's output
    assert join_digits("0 3 5 one", one_is_digit=True) == "0351"
    assert join_digits("one of them", one_is_digit=True) == "one of them"
    # the basic normaliser (other languages) joins written digits on both sides too
    assert basic("6 8 0 2") == basic("6802") == "6802"
    assert english("I have 1 dog") == "i have one dog"  # Whisper's own rule, left alone
