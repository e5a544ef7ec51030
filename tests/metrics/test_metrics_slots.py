"""Exact match (EM), intent match and per-slot diffs."""

import json

import jiwer
import pytest

from fairdesk.metrics.normalize import english
from fairdesk.metrics.slots import (
    SlotDiff,
    exact_match,
    intent_match,
    normalize_label,
    parse_slots,
    slot_diff,
)


def test_misheard_artist_em_zero_while_wer_small():
    ref = "play the song halo by beyoncé in the living room please"
    hyp = "play the song halo by beyonse in the living room please"
    wer = jiwer.wer(english(ref), english(hyp))
    assert wer == pytest.approx(1 / 11)
    ref_slots = {"song": "Halo", "artist": "Beyoncé", "room": "living room"}
    hyp_slots = {"song": "halo", "artist": "beyonse", "room": "Living Room"}
    assert exact_match("PlayMusic", "PlayMusic", ref_slots, hyp_slots) == 0
    assert intent_match("PlayMusic", "PlayMusic") == 1
    assert slot_diff(ref_slots, hyp_slots) == [
        SlotDiff("song", "ok", "Halo", "halo"),
        SlotDiff("artist", "wrong", "Beyoncé", "beyonse"),
        SlotDiff("room", "ok", "living room", "Living Room"),
    ]


@pytest.mark.parametrize(
    "ref_value, hyp_value, em",
    [
        ("seven", "7", 1),
        ("seven", 7, 1),
        ("Seven!", "7.0", 1),  # Whisper's normaliser reads "7.0" as "7"
        ("seven", "7.5", 0),
        (7.0, "seven", 1),  # an integral float from a JSON/pandas column is 7
        ("twenty five", "25", 1),
        ("seven", "eight", 0),
        ("one hundred and two", "102", 1),
    ],
)
def test_number_words_in_slot_values(ref_value, hyp_value, em):
    assert exact_match("VolumeSet", "volume_set", {"level": ref_value}, {"level": hyp_value}) == em


def test_whole_dict_compared():
    ref = {"artist": "Adele", "volume": "7"}
    # a missing slot fails
    assert exact_match("Play", "Play", ref, {"artist": "adele"}) == 0
    # an extra slot fails
    assert exact_match("Play", "Play", ref, {**ref, "room": "kitchen"}) == 0
    # slot names are normalised too, values by case/punctuation
    assert exact_match("Play", "play", ref, {"Artist": "ADELE.", "Volume": "seven"}) == 1
    # wrong intent fails even with perfect slots
    assert exact_match("Play", "Pause", ref, ref) == 0
    assert slot_diff(ref, {"artist": "adele", "room": "kitchen"}) == [
        SlotDiff("artist", "ok", "Adele", "adele"),
        SlotDiff("volume", "missed", "7", None),
        SlotDiff("room", "extra", None, "kitchen"),
    ]


def test_no_slots_and_missing_intents():
    assert exact_match("Pause", "pause") == 1
    assert exact_match("Pause", "pause", None, float("nan")) == 1
    assert exact_match("Pause", "pause", {}, "") == 1
    assert exact_match("Pause", None) == 0
    assert exact_match(None, None) == 0
    assert intent_match(float("nan"), "x") == 0


def test_slot_formats():
    as_dict = {"artist": "Adele", "song": "Hello"}
    as_json = json.dumps(as_dict)
    as_records = [{"type": "artist", "filler": "Adele"}, {"slot": "song", "value": "Hello"}]
    as_pairs = [["artist", "Adele"], ("song", "Hello")]
    for form in (as_json, as_records, as_pairs):
        assert exact_match("Play", "Play", as_dict, form) == 1
    assert parse_slots(as_json) == {"artist": ["Adele"], "song": ["Hello"]}
    # a repeated slot is a multiset of values, order free
    two = [("artist", "Adele"), ("artist", "Sia")]
    assert exact_match("Play", "Play", two, {"artist": ["sia", "adele"]}) == 1
    assert exact_match("Play", "Play", two, {"artist": "adele"}) == 0
    # a slot whose value is missing or empty is absent
    assert parse_slots({"artist": None, "song": ""}) == {}
    assert parse_slots("null") == {}


def test_bad_slots_say_what_to_do():
    with pytest.raises(ValueError, match="JSON object such as"):
        parse_slots("{artist: Adele")
    with pytest.raises(ValueError, match="slot name"):
        parse_slots([{"value": "Adele"}])
    with pytest.raises(ValueError, match="must be a dict"):
        parse_slots(42)


def test_normalize_label():
    assert normalize_label("PlayMusic") == normalize_label("play_music") == "playmusic"
    assert normalize_label(" Play music ") == "playmusic"
    assert normalize_label(None) == ""


def test_slot_diff_non_english_keeps_diacritics():
    # Igbo slot values: the basic normaliser keeps tone marks, so a dropped tone is wrong
    assert slot_diff({"item": "àkwà"}, {"item": "akwa"}, language="ig")[0].status == "wrong"
    assert slot_diff({"item": "Àkwà"}, {"item": "àkwà"}, language="ig")[0].status == "ok"
    assert SlotDiff("a", "ok", "x", "x").to_dict() == {
        "slot": "a",
        "status": "ok",
        "reference": "x",
        "hypothesis": "x",
    }
