"""Accuracy and speed of the embedded music NLU (``get_nlu("demo-music")``).

Usage::

    python bench/nlu_accuracy.py [--repeat 50]

Prints intent accuracy and exact match (EM, METHODS.md §2) on the demo's clean reference
texts, on the training paraphrases (split by whether their entities are in the gazetteer),
and the parse speed in texts per second.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fairdesk.nlu import exact_match, get_nlu  # noqa: E402


def _train_module():
    path = ROOT / "resources" / "nlu" / "train_music_nlu.py"
    spec = importlib.util.spec_from_file_location("train_music_nlu", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def score(nlu, rows: list[dict]) -> tuple[float, float, list[tuple]]:
    """Intent accuracy, EM and the rows that failed EM."""
    results = nlu.parse([r["text"] for r in rows])
    ok_intent = [r["intent"] == p.intent for r, p in zip(rows, results, strict=True)]
    ok_em = [
        exact_match(r["intent"], r["slots"], p.intent, p.slots)
        for r, p in zip(rows, results, strict=True)
    ]
    failures = [
        (r["text"], r["intent"], r["slots"], p.intent, p.slots)
        for r, p, em in zip(rows, results, ok_em, strict=True)
        if not em
    ]
    return sum(ok_intent) / len(rows), sum(ok_em) / len(rows), failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=50, help="copies of the prompts to time")
    ap.add_argument("--show-failures", action="store_true")
    args = ap.parse_args(argv)

    nlu = get_nlu("demo-music")
    train = _train_module()
    prompts = train.load_prompts(ROOT / "resources" / "demo" / "prompts.jsonl")
    paraphrases = train.paraphrases(
        prompts,
        seed=json.loads((ROOT / "resources" / "nlu" / "music_nlu.json").read_text())[
            "trained_from"
        ]["seed"],
    )
    sets = {
        "reference texts (clean)": prompts,
        "paraphrases, gazetteer entities": [p for p in paraphrases if p["seen"]],
        "paraphrases, unseen entities": [p for p in paraphrases if not p["seen"]],
    }
    print(f"{nlu!r}")
    print(f"{'set':34s} {'n':>5s} {'intent acc':>10s} {'EM':>7s}")
    for name, rows in sets.items():
        acc, em, failures = score(nlu, rows)
        print(f"{name:34s} {len(rows):5d} {acc:10.3f} {em:7.3f}")
        if args.show_failures:
            for f in failures:
                print("    ", f)

    texts = [p["text"] for p in prompts] * args.repeat
    nlu.parse(texts[:10])
    t0 = time.perf_counter()
    nlu.parse(texts)
    dt = time.perf_counter() - t0
    print(f"parse speed: {len(texts)} texts in {dt:.2f} s = {len(texts) / dt:,.0f} texts/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
