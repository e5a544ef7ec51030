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
