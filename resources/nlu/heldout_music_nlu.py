"""A held-out test set for the embedded music NLU, never seen by its trainer.

``train_music_nlu.py`` trains on the demo prompts and on paraphrases built from its own
templates, verbs and entities (the "unseen" ones included). Scoring the NLU on those texts
grades it on its training data. This module writes a different set: its carrier phrases,
play verbs, entities and volume levels appear nowhere in the trainer (nor in the demo
prompts), and its random draws use another seed. ``tests/nlu/test_heldout.py`` checks that
the two sets share no text, template, verb or entity. The set is for *measuring* only: it
must not be used to tune the NLU (fix on other data, then measure here again).

Usage::

    python resources/nlu/heldout_music_nlu.py            # print the rows as JSONL
"""

from __future__ import annotations

import json
import random

#: Not the trainer's seed (its default is 0; the shipped artifact records its own).
HELDOUT_SEED = 20261130

HELDOUT_ENTITIES = {
    "artist": ["aretha franklin", "johnny cash", "jimi hendrix", "amy winehouse",
               "bruce springsteen", "whitney houston", "elton john", "bob dylan",
               "tracy chapman", "the clash", "lana del rey", "stromae"],
    "song": ["purple haze", "fast car", "valerie", "born to run", "rocket man", "ring of fire",
             "blowin in the wind", "alors on danse", "video games", "london calling",
             "i will always love you", "chain of fools"],
    "album": ["giant steps", "back to black", "nebraska", "a love supreme", "electric ladyland",
              "born to die", "highway 61 revisited", "at folsom prison"],
    "playlist": ["gym", "late night", "sunday brunch", "commute", "bedtime", "coding",
                 "birthday bash", "nineties rock"],
}  # fmt: skip

HELDOUT_VERBS = ["play me", "shuffle", "give me", "i wanna hear", "lets hear",
                 "would you play", "can i hear", "i want to listen to"]  # fmt: skip

HELDOUT_PLAY_TEMPLATES = [
    "{verb} the track {song} by {artist}",
    "{verb} {song} performed by {artist}",
    "{verb} a few songs by {artist}",
    "{verb} some {artist}",
    "{verb} the record {album}",
    "{verb} the record {album} by {artist}",
    "{verb} {artist} please",
    "{verb} {song} now",
    "{verb} the playlist called {playlist}",
    "{verb} our {playlist} playlist",
    "{verb} tracks from {album}",
    "{verb} the tune {song}",
]

HELDOUT_OTHER = {
    "VolumeUp": ["crank it up", "bump up the volume", "could you make it a little louder",
                 "i can barely hear this", "boost the volume", "more volume please"],
    "VolumeDown": ["bring the volume down", "it is way too loud", "softer please",
                   "lower it a bit", "can you make it less loud", "cut the volume a little"],
    "SetVolume": ["set the sound level to {n}", "adjust the volume to {n}",
                  "i want the volume at {n}", "volume level {n} please"],
    "Pause": ["hang on pause that", "pause right there", "freeze the music",
              "hit pause", "stop the track for now", "wait pause it"],
    "Resume": ["start the music again", "keep going", "pick up where you left off",
               "play it again from where it stopped", "unpause the music", "resume please"],
    "Next": ["skip it", "move on to the next one", "next tune", "skip forward one track",
             "i want the next song", "go to the next one please"],
    "Previous": ["back one", "the song before this one", "go back a track",
                 "play the one before", "previous tune", "rewind to the last song"],
}  # fmt: skip

#: Volume levels the trainer never uses (spoken form, label in digits as the prompts have it).
HELDOUT_LEVELS = [("eleven", "11"), ("twelve", "12"), ("thirteen", "13"), ("forty", "40"),
                  ("25", "25"), ("30", "30")]  # fmt: skip


def heldout_rows(seed: int = HELDOUT_SEED, per_template: int = 5) -> list[dict]:
    """The held-out rows: ``{"text", "intent", "slots", "template"}``."""
    rng = random.Random(seed)
    out: list[dict] = []
    for template in HELDOUT_PLAY_TEMPLATES:
        names = [n for n in ("song", "artist", "album", "playlist") if "{" + n + "}" in template]
        for _ in range(per_template):
            slots = {n: rng.choice(HELDOUT_ENTITIES[n]) for n in names}
            text = template.format(verb=rng.choice(HELDOUT_VERBS), **slots)
            out.append({"text": text, "intent": "PlayMusic", "slots": slots, "template": template})
    for intent, templates in HELDOUT_OTHER.items():
        for template in templates:
            if "{n}" in template:
                for spoken, label in rng.sample(HELDOUT_LEVELS, 3):
                    out.append(
                        {
                            "text": template.format(n=spoken),
                            "intent": intent,
                            "slots": {"volume": label},
                            "template": template,
                        }
                    )
            else:
                out.append({"text": template, "intent": intent, "slots": {}, "template": template})
    # one row per distinct text (a repeated draw would count twice)
    seen: set[str] = set()
    unique = []
    for r in out:
        if r["text"] not in seen:
            seen.add(r["text"])
            unique.append(r)
    return unique


if __name__ == "__main__":
    for row in heldout_rows():
        print(json.dumps(row, ensure_ascii=False))
