"""Build the embedded music NLU artifact from the demo's labelled prompts.

Usage::

    python resources/nlu/train_music_nlu.py [--prompts resources/demo/prompts.jsonl]
                                            [--out resources/nlu/music_nlu.json] [--seed 0]

Trains the intent classifier (TF-IDF word 1-2-grams + char 2-4-grams, multinomial
LogisticRegression) on the prompts plus paraphrases generated from templates (slot values
drawn from the prompts' entities and from a few entities the prompts do not contain), gathers
the gazetteer from the prompts' slot values, and writes everything as plain JSON. Before
writing, it checks that fairdesk's numpy re-implementation predicts exactly what scikit-learn
predicts on every training text, and stops if it does not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fairdesk.nlu.features import ANALYZERS, LinearTextClassifier, TfidfSpace  # noqa: E402
from fairdesk.nlu.music import ARTIFACT_FORMAT, ARTIFACT_VERSION  # noqa: E402
from fairdesk.nlu.normalize import normalize_text  # noqa: E402

DEFAULT_PROMPTS = ROOT / "resources" / "demo" / "prompts.jsonl"
DEFAULT_OUT = ROOT / "resources" / "nlu" / "music_nlu.json"

# Entities the prompts do not contain: used only in paraphrases, so the intent classifier
# learns the carrier phrases rather than the demo's entity names (never in the gazetteer).
UNSEEN = {
    "artist": ["norah jones", "the rolling stones", "miles davis", "coldplay", "stevie wonder",
               "radiohead", "nina simone", "daft punk", "kendrick lamar", "celine dion"],
    "song": ["wonderwall", "imagine", "hey jude", "superstition", "clocks", "respect",
             "smells like teen spirit", "hallelujah", "creep", "waterloo"],
    "album": ["kind of blue", "nevermind", "back in black", "random access memories",
              "ok computer", "blue", "graceland", "21"],
    "playlist": ["party", "focus", "dinner", "running", "throwback", "study", "summer hits",
                 "rainy day"],
}  # fmt: skip

VERBS = ["play", "put on", "can you play", "i want to hear", "please play", "start",
         "could you play", "let me hear", "i would like to listen to", "queue up"]  # fmt: skip

PLAY_TEMPLATES = [
    "{verb} {song} by {artist}",
    "{verb} the song {song} by {artist}",
    "{verb} {song}",
    "{verb} the song {song}",
    "{verb} the album {album}",
    "{verb} the album {album} by {artist}",
    "{verb} {album} by {artist}",
    "{verb} some music by {artist}",
    "{verb} something by {artist}",
    "{verb} songs by {artist}",
    "{verb} music by {artist}",
    "{verb} {artist}",
    "{verb} my {playlist} playlist",
    "{verb} the {playlist} playlist",
    "{verb} {song} from the album {album}",
]

OTHER_TEMPLATES = {
    "VolumeUp": ["turn it up", "louder", "louder please", "make it louder", "increase the volume",
                 "volume up", "turn up the volume", "can you turn it up a bit", "raise the volume",
                 "a bit louder", "turn the music up", "i cannot hear it turn it up",
                 "pump up the volume", "make the music louder"],
    "VolumeDown": ["turn it down", "quieter", "make it quieter", "lower the volume",
                   "volume down", "decrease the volume", "too loud", "turn down the volume",
                   "a bit softer please", "turn the music down", "that is too loud",
                   "reduce the volume", "make it softer", "quieter please"],
    "SetVolume": ["set the volume to {n}", "volume {n}", "change the volume to {n}",
                  "put the volume at {n}", "turn the volume to {n}", "set volume level to {n}",
                  "volume to {n} please", "make the volume {n}"],
    "Pause": ["pause", "pause the music", "pause it", "stop the music", "stop playing",
              "hold on", "pause playback", "stop for a second", "pause the song",
              "stop the song for a moment", "pause for a minute", "stop it"],
    "Resume": ["resume", "resume the music", "continue", "continue playing", "carry on",
               "unpause", "keep playing", "resume playback", "go on playing",
               "continue the music", "resume the song", "carry on with the music"],
    "Next": ["next", "next song", "skip", "skip this song", "skip to the next track",
             "play the next song", "next track please", "go to the next track",
             "skip this track", "next one", "play the next one", "skip ahead to the next song"],
    "Previous": ["previous song", "go back", "play the previous track", "back to the last song",
                 "go back one song", "previous", "replay the last track", "previous track please",
                 "go to the previous song", "play the previous song", "back one track",
                 "play that last song again"],
}  # fmt: skip

NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
           "1", "2", "4", "5", "6", "8", "9", "10", "fifteen", "twenty"]  # fmt: skip


def load_prompts(path: str | Path) -> list[dict]:
    """Read the demo's labelled prompts (JSONL: content_id, text, intent, slots)."""
    rows = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}, line {n}: not valid JSON ({exc})") from exc
        if not isinstance(row, dict) or not row.get("text") or not row.get("intent"):
            raise ValueError(f"{path}, line {n}: needs non-empty 'text' and 'intent'")
        rows.append({"text": row["text"], "intent": row["intent"], "slots": row.get("slots") or {}})
    if not rows:
        raise ValueError(f"{path} holds no prompts")
    return rows


def gazetteer(prompts: list[dict]) -> dict[str, list[str]]:
    """Slot name -> sorted distinct normalised values found in the prompts."""
    gaz: dict[str, set[str]] = {}
    for p in prompts:
        for name, value in p["slots"].items():
            v = normalize_text(str(value))
            if v:
                gaz.setdefault(name, set()).add(v)
    return {k: sorted(v) for k, v in sorted(gaz.items())}


def paraphrases(prompts: list[dict], seed: int = 0, per_template: int = 6) -> list[dict]:
    """Template paraphrases for the intents the prompts contain.

    Returns
    -------
    list of dict
        ``{"text", "intent", "slots", "seen"}``; ``seen`` is False when a slot value comes
        from :data:`UNSEEN` (an entity outside the gazetteer).
    """
    rng = random.Random(seed)
    intents = {p["intent"] for p in prompts}
    gaz = gazetteer(prompts)
    out: list[dict] = []
    if "PlayMusic" in intents:
        for template in PLAY_TEMPLATES:
            names = [
                n for n in ("song", "artist", "album", "playlist") if "{" + n + "}" in template
            ]
            if any(not gaz.get(n) for n in names):
                continue
            for k in range(per_template):
                seen = k % 3 != 2  # one fill in three uses entities outside the gazetteer
                slots = {n: rng.choice(gaz[n] if seen else UNSEEN[n]) for n in names}
                verb = rng.choice(VERBS)
                out.append(
                    {
                        "text": template.format(verb=verb, **slots),
                        "intent": "PlayMusic",
                        "slots": slots,
                        "seen": seen,
                    }
                )
    for intent, templates in OTHER_TEMPLATES.items():
        if intent not in intents:
            continue
        slot_names = sorted({n for p in prompts if p["intent"] == intent for n in p["slots"]})
        for template in templates:
            if "{n}" in template:
                if not slot_names:
                    continue
                for n in rng.sample(NUMBERS, 4):
                    out.append(
                        {
                            "text": template.format(n=n),
                            "intent": intent,
                            "slots": {slot_names[0]: n},
                            "seen": True,
                        }
                    )
            else:
                out.append({"text": template, "intent": intent, "slots": {}, "seen": True})
    return out


def training_rows(prompts: list[dict], seed: int = 0) -> list[dict]:
    """Prompts (twice: they are what the demo reads) followed by their paraphrases."""
    return prompts + prompts + paraphrases(prompts, seed=seed)


def fit(texts: list[str], intents: list[str], c: float = 10.0):
    """Fit the TF-IDF spaces and the logistic regression with scikit-learn."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vecs = {
        name: TfidfVectorizer(analyzer=fn, sublinear_tf=True, min_df=1, dtype=np.float64)
        for name, fn in ANALYZERS.items()
    }
    x = hstack([v.fit_transform(texts) for v in vecs.values()]).tocsr()
    clf = LogisticRegression(C=c, max_iter=5000).fit(x, intents)
    spaces = [
        TfidfSpace(name, v.get_feature_names_out().tolist(), v.idf_.tolist())
        for name, v in vecs.items()
    ]
    model = LinearTextClassifier(spaces, clf.classes_.tolist(), clf.coef_, clf.intercept_)
    return model, clf, x


def train(prompts_path=DEFAULT_PROMPTS, out_path=DEFAULT_OUT, seed: int = 0) -> dict:
    """Train, check against scikit-learn, write the artifact and return a short report."""
    import sklearn

    prompts = load_prompts(prompts_path)
    rows = training_rows(prompts, seed=seed)
    texts = [normalize_text(r["text"]) for r in rows]
    intents = [r["intent"] for r in rows]
    model, clf, x = fit(texts, intents)

    # The shipped artifact holds rounded numbers: check the loaded copy, not the fitted one.
    stored = LinearTextClassifier.from_dict(json.loads(json.dumps(model.to_dict())))
    ours = stored.predict(texts)
    theirs = clf.predict(x).tolist()
    mismatches = [(t, a, b) for t, a, b in zip(texts, ours, theirs, strict=True) if a != b]
    proba_diff = float(np.abs(stored.predict_proba(texts) - clf.predict_proba(x)).max())
    if mismatches or proba_diff > 1e-3:
        raise SystemExit(
            f"numpy predictions differ from scikit-learn on {len(mismatches)} training texts "
            f"(max probability difference {proba_diff:.2g}), e.g. {mismatches[:3]}"
        )

    gaz = gazetteer(prompts)
    intent_slots: dict[str, set[str]] = {}
    for p in prompts:
        intent_slots.setdefault(p["intent"], set()).update(p["slots"])
    numeric = sorted(k for k, vals in gaz.items() if all(v.isdigit() for v in vals))
    prompts_bytes = Path(prompts_path).read_bytes()
    artifact = {
        "format": ARTIFACT_FORMAT,
        "version": ARTIFACT_VERSION,
        "trained_from": {
            "prompts_sha256": hashlib.sha256(prompts_bytes).hexdigest(),
            "n_prompts": len(prompts),
            "n_paraphrases": len(rows) - 2 * len(prompts),
            "seed": seed,
            "sklearn_version": sklearn.__version__,
        },
        "check": {
            "n_texts": len(texts),
            "numpy_equals_sklearn": True,
            "max_abs_proba_diff": proba_diff,
        },
        "intent_slots": {k: sorted(v) for k, v in sorted(intent_slots.items()) if v},
        "numeric_slots": numeric,
        "gazetteer": gaz,
        "classifier": model.to_dict(),
    }
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(
        json.dumps(artifact, separators=(",", ":"), ensure_ascii=False) + "\n", encoding="utf-8"
    )
    n_features = sum(len(s.idf) for s in model.spaces)
    return {
        "out": str(out_path),
        "bytes": out_path.stat().st_size,
        "n_texts": len(texts),
        "n_features": n_features,
        "classes": model.classes,
        "max_abs_proba_diff": proba_diff,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", default=str(DEFAULT_PROMPTS))
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    report = train(args.prompts, args.out, args.seed)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
