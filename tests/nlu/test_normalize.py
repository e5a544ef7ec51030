"""Slot normalisation and exact match, checked against hand-worked answers."""

from __future__ import annotations

import pytest

from fairdesk.nlu.normalize import (
    digits_to_words,
    exact_match,
    normalize_slot_value,
    normalize_slots,
    normalize_text,
    slots_match,
    words_to_digits,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("set the volume to seven", "set the volume to 7"),
        ("twenty five", "25"),
        ("twenty-five", "25"),
        ("one hundred and five", "105"),
        ("two thousand and twenty", "2020"),
        ("nineteen", "19"),
        ("one two three", "1 2 3"),
        ("zero zero seven", "0 0 7"),
        ("rock and roll", "rock and roll"),
        ("a hundred", "a hundred"),
        ("it is too loud", "it is too loud"),
    ],
)
def test_number_words_become_digits(text, expected):
    assert normalize_text(text) == expected


@pytest.mark.parametrize("n", [0, 1, 7, 13, 20, 25, 99, 100, 105, 999, 1000, 2024, 54321])
def test_digits_round_trip_through_words(n):
    words = digits_to_words(str(n))
    assert not any(c.isdigit() for c in words)
    assert words_to_digits(words) == str(n)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Michael Jackson", "michael jackson"),
        ("AC/DC", "ac dc"),
        ("Beyoncé", "beyonce"),
        ("Don't Stop Me Now!", "dont stop me now"),
        ("Simon & Garfunkel", "simon and garfunkel"),
        ("seven", "7"),
        (7, "seven"),
        ("Rumours", "rumors"),
        ("  road   trip ", "road trip"),
    ],
)
def test_slot_values_equal_after_normalisation(a, b):
    assert normalize_slot_value(a) == normalize_slot_value(b)


def test_different_names_stay_different():
    assert normalize_slot_value("michael jackson") != normalize_slot_value("michael jason")


def test_normalize_slots_drops_empty_and_lowercases_names():
    assert normalize_slots({"Artist": "Queen", "song": "  ", "album": None}) == {"artist": "queen"}
    assert normalize_slots(None) == {}


def test_exact_match_needs_intent_and_every_slot():
    ref = {"song": "Bohemian Rhapsody", "artist": "Queen"}
    assert exact_match(
        "PlayMusic", ref, "playmusic", {"artist": "queen", "song": "bohemian rhapsody"}
    )
    assert not exact_match("PlayMusic", ref, "PlayMusic", {"song": "bohemian rhapsody"})
    extra = dict(ref, playlist="workout")
    assert not exact_match("PlayMusic", ref, "PlayMusic", extra)
    assert not exact_match("PlayMusic", ref, "Pause", ref)
    assert not exact_match("", {}, "", {})
    assert exact_match("SetVolume", {"volume": "seven"}, "SetVolume", {"volume": "7"})
    assert slots_match({}, {"song": ""})


def test_nlu_exact_match_is_the_audit_exact_match():
    """One EM: the NLU's exact_match gives what the audit's metric gives, on the demo prompts
    parsed by the demo NLU (correct labels and the NLU's own, sometimes wrong, parses)."""
    import json
    from pathlib import Path

    from fairdesk.metrics import exact_match as audit_em
    from fairdesk.nlu import get_nlu

    root = Path(__file__).resolve().parents[2]
    prompts = [
        json.loads(x)
        for x in (root / "resources" / "demo" / "prompts.jsonl").read_text().splitlines()
        if x
    ]
    parsed = get_nlu("demo-music").parse([p["text"] for p in prompts])
    pairs = [(p["intent"], p["slots"], r.intent, r.slots) for p, r in zip(prompts, parsed)]
    pairs += [(p["intent"], p["slots"], p["intent"], {}) for p in prompts]
    for ri, rs, hi, hs in pairs:
        assert exact_match(ri, rs, hi, hs) == audit_em(ri, hi, rs, hs, "en")
