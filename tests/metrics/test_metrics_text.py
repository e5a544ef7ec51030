"""Per-item word, character, diacritic and tone counts against hand-worked answers and jiwer."""

import unicodedata

import jiwer
import pytest

from fairdesk.metrics.normalize import basic, english
from fairdesk.metrics.text import (
    CharCounts,
    DiacriticCounts,
    ToneCounts,
    WordCounts,
    char_counts,
    char_counts_many,
    diacritic_counts,
    marked_letters,
    tone_counts,
    word_counts,
    word_counts_many,
)

# ----------------------------------------------------------------------------------- words


def test_word_counts_hand_worked():
    # the cat SAT on THE mat -> the cat SIT on mat: 1 substitution, 1 deletion
    assert word_counts("The cat sat on the mat.", "the cat sit on mat") == WordCounts(6, 1, 1, 0)
    # one inserted word
    assert word_counts("hello world", "Hello, big world!") == WordCounts(2, 0, 0, 1)
    # English normaliser: "seven" == "7", punctuation and case ignored
    assert word_counts("Table for seven.", "table for 7") == WordCounts(3, 0, 0, 0)


@pytest.mark.parametrize(
    "ref, hyp, expected",
    [
        ("", "yes no", WordCounts(0, 0, 0, 2)),
        (None, "yes no", WordCounts(0, 0, 0, 2)),
        ("yes no", "", WordCounts(2, 0, 2, 0)),
        ("yes no", None, WordCounts(2, 0, 2, 0)),
        ("yes no", float("nan"), WordCounts(2, 0, 2, 0)),
        ("", "", WordCounts(0, 0, 0, 0)),
        (None, float("nan"), WordCounts(0, 0, 0, 0)),
        ("...", "!!", WordCounts(0, 0, 0, 0)),
    ],
)
def test_word_counts_empty(ref, hyp, expected):
    assert word_counts(ref, hyp) == expected


def test_word_counts_language():
    # basic normaliser keeps diacritics: àkwà vs akwa is a substitution in Igbo
    assert word_counts("Àkwà ọ́kụ̀", "akwa ọ́kụ̀", language="ig") == WordCounts(2, 1, 0, 0)
    # the English normaliser strips them
    assert word_counts("Àkwà", "akwa", language="en") == WordCounts(1, 0, 0, 0)


REFS = [
    "The quick brown fox jumps over the lazy dog",
    "Book a table for seven people at 7 pm",
    "",
    "I'd like two coffees please",
    "hello world",
    "Turn the volume up to eleven",
]
HYPS = [
    "the quick brown fox jumped over a lazy dog today",
    "book table for seven peoples at seven",
    "hmm okay",
    "",
    "hello world",
    "turn volume up two eleven and",
]


@pytest.mark.parametrize("norm", [english, basic])
def test_pooled_word_counts_equal_jiwer_wer(norm):
    refs = [norm(r) for r in REFS]
    hyps = [norm(h) for h in HYPS]
    counts = word_counts_many(refs, hyps)
    n = sum(c.n_words for c in counts)
    errors = sum(c.n_sub + c.n_del + c.n_ins for c in counts)
    assert errors / n == pytest.approx(jiwer.wer(refs, hyps), abs=1e-12)
    out = jiwer.process_words(refs, hyps)
    assert sum(c.n_sub for c in counts) == out.substitutions
    assert sum(c.n_del for c in counts) == out.deletions
    assert sum(c.n_ins for c in counts) == out.insertions
    # the same counts one item at a time
    single = [word_counts(r, h, normalizer=norm) for r, h in zip(REFS, HYPS, strict=True)]
    assert single == counts


@pytest.mark.parametrize("norm", [english, basic])
def test_pooled_char_counts_equal_jiwer_cer(norm):
    refs = [norm(r) for r in REFS]
    hyps = [norm(h) for h in HYPS]
    counts = char_counts_many(refs, hyps)
    n = sum(c.n_chars for c in counts)
    errors = sum(c.c_sub + c.c_del + c.c_ins for c in counts)
    assert errors / n == pytest.approx(jiwer.cer(refs, hyps), abs=1e-12)
    # spaces count as characters, as in jiwer.cer
    assert n == sum(len(r) for r in refs)


def test_char_counts_hand_worked():
    # "hello world" (11 characters with the space) -> "hello": 6 deletions
    assert char_counts("Hello world!", "hello") == CharCounts(11, 0, 6, 0)
    assert char_counts("abc", "abd") == CharCounts(3, 1, 0, 0)
    assert char_counts("", "ab") == CharCounts(0, 0, 0, 2)
    assert char_counts(None, None) == CharCounts(0, 0, 0, 0)


def test_many_length_mismatch():
    with pytest.raises(ValueError, match="one hypothesis per reference"):
        word_counts_many(["a"], [])


# ----------------------------------------------------------------------------- diacritics


def test_dot_below_and_acute_count_once():
    # ọ́ = o + U+0323 (dot below) + U+0301 (acute): one diacritic-bearing letter, two marks
    assert marked_letters("ọ́") == 1
    assert marked_letters("ọ́", count="marks") == 2
    assert marked_letters(unicodedata.normalize("NFD", "ọ́")) == 1
    assert diacritic_counts("ọ́", "o") == DiacriticCounts(1, 0, 1, 0)
    assert diacritic_counts("ọ́", "o", count="marks") == DiacriticCounts(2, 0, 2, 0)
    assert diacritic_counts("ọ́", "ọ", count="marks") == DiacriticCounts(2, 1, 1, 0)


def test_diacritic_counts_hand_worked():
    # Ọ́kụ̀ àkwà: ọ́, ụ̀, à, à = 4 letters; marks: 2 + 2 + 1 + 1 = 6
    assert marked_letters("Ọ́kụ̀ àkwà!") == 4
    assert marked_letters("Ọ́kụ̀ àkwà!", count="marks") == 6
    # hypothesis adds two marks the reference lacks: H = 2
    assert diacritic_counts("akwa", "àkwà") == DiacriticCounts(0, 2, 0, 2)
    # marks on digits or spaces never count
    assert marked_letters("1\u0301 \u0300") == 0
    assert marked_letters(None) == 0
    with pytest.raises(ValueError, match="letters"):
        marked_letters("a", count="words")


def test_seed_003_net_loss_example():
    # seeds/003: 49 expected diacritic-bearing characters, 19 produced -> net loss 30/49
    items = [
        (" ".join(["àkwà"] * 10), " ".join(["akwà"] * 10)),  # E 20, P 10
        (
            " ".join(["ákwá"] * 14) + " ọ́",  # E 29
            " ".join(["ákwá"] * 4) + " akwá " + " ".join(["akwa"] * 9) + " o",  # P 9
        ),
    ]
    counts = [diacritic_counts(r, h) for r, h in items]
    e = sum(c.dia_expected for c in counts)
    p = sum(c.dia_produced for c in counts)
    assert (e, p) == (49, 19)
    assert round((e - p) / e, 3) == 0.612
    assert (e - p) / e == pytest.approx(30 / 49)


# ----------------------------------------------------------------------------------- tones


@pytest.mark.parametrize(
    "ref, hyp, expected",
    [
        ("àkwà", "akwa", ToneCounts(2, 2, 0, 0)),  # egg -> crying: both tones dropped
        ("akwa", "ákwá", ToneCounts(0, 0, 2, 0)),  # crying -> bridge: two hallucinated
        ("àkwà", "ákwá", ToneCounts(2, 0, 0, 2)),  # egg -> bridge: two wrong tones
        ("akwà", "àkwa", ToneCounts(1, 1, 1, 0)),  # cloth -> ? : one dropped, one added
        ("àkwà", "àkwà", ToneCounts(2, 0, 0, 0)),
        ("àkwà ọ́", "àkwà", ToneCounts(3, 1, 0, 0)),  # unaligned marked ref letter: dropped
        ("akwa", "akwa é", ToneCounts(0, 0, 1, 0)),  # unaligned marked hyp letter: hallucinated
        ("ọ́", "ọ̀", ToneCounts(1, 0, 0, 1)),  # mark sets {dot, acute} vs {dot, grave}
        ("ọ́", "ọ", ToneCounts(1, 0, 0, 1)),  # tone lost, dot kept: the mark set differs
        # only the dot below changes: the last mark (acute) is the same on both sides, so a
        # comparison of the last mark alone would miss it (issue 21)
        ("ọ́", "ó", ToneCounts(1, 0, 0, 1)),
        ("ó", "ọ́", ToneCounts(1, 0, 0, 1)),
        ("ọ̀ ọ́", "ò ọ́", ToneCounts(2, 0, 0, 1)),
        ("o\u0301\u0323", "o\u0323\u0301", ToneCounts(1, 0, 0, 0)),  # same set, any order
        ("", "", ToneCounts(0, 0, 0, 0)),
        (None, "à", ToneCounts(0, 0, 1, 0)),
        ("à", None, ToneCounts(1, 1, 0, 0)),
    ],
)
def test_tone_counts_cases(ref, hyp, expected):
    assert tone_counts(ref, hyp) == expected


def test_tone_counts_nfc_nfd_equivalent():
    assert tone_counts(unicodedata.normalize("NFD", "àkwà"), "àkwà") == ToneCounts(2, 0, 0, 0)


def test_tone_counts_differ_from_der_when_marks_move():
    # akwà -> àkwa: E == P so DER sees nothing; TER sees a dropped and a hallucinated tone
    assert diacritic_counts("akwà", "àkwa") == DiacriticCounts(1, 1, 0, 0)
    t = tone_counts("akwà", "àkwa")
    assert (t.tone_dropped + t.tone_hallucinated + t.tone_wrong) / t.tone_expected == 2.0
