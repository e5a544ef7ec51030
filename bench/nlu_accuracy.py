"""Accuracy and speed of the embedded music NLU (``get_nlu("demo-music")``).

Usage::

    python bench/nlu_accuracy.py [--repeat 50]

Prints intent accuracy and exact match (EM, METHODS.md §2) with Wilson 95% CIs on the
held-out set (``resources/nlu/heldout_music_nlu.py``: templates, verbs, entities and seed the
trainer never sees), per intent; then, labelled as such, the same figures on texts the
classifier was trained on (the demo's reference texts and the trainer's paraphrases), which
only show that it fits its training data; and the parse speed in texts per second.
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


def _module(name: str):
    path = ROOT / "resources" / "nlu" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _train_module():
    return _module("train_music_nlu")


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval of k successes in n (statsmodels)."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return float(lo), float(hi)


def _line(name: str, rows: list[dict], acc: float, em: float) -> str:
    n = len(rows)
    a_lo, a_hi = wilson(round(acc * n), n)
    e_lo, e_hi = wilson(round(em * n), n)
    return (
        f"{name:38s} {n:5d} {acc:6.3f} [{a_lo:.3f}, {a_hi:.3f}] {em:6.3f} [{e_lo:.3f}, {e_hi:.3f}]"
    )


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
    heldout = _module("heldout_music_nlu").heldout_rows()
    header = f"{'set':38s} {'n':>5s} {'intent acc [95% CI]':>22s} {'EM [95% CI]':>22s}"
    print(f"{nlu!r}")
    print("HELD-OUT (templates, verbs, entities and seed never seen by the trainer;")
    print("Wilson 95% CIs):")
    print(header)
    acc, em, failures = score(nlu, heldout)
    print(_line("held-out, all", heldout, acc, em))
    for intent in sorted({r["intent"] for r in heldout}):
        rows = [r for r in heldout if r["intent"] == intent]
        a, e, _ = score(nlu, rows)
        print(_line(f"  held-out, {intent}", rows, a, e))
    if args.show_failures:
        for f in failures:
            print("    ", f)

    sets = {
        "reference texts (clean)": prompts,
        "paraphrases, gazetteer entities": [p for p in paraphrases if p["seen"]],
        "paraphrases, 'unseen' entities": [p for p in paraphrases if not p["seen"]],
    }
    print("\nTRAINING DATA (the classifier was fitted on these texts; not an evaluation):")
    print(header)
    for name, rows in sets.items():
        acc, em, _ = score(nlu, rows)
        print(_line(f"train: {name}", rows, acc, em))

    texts = [p["text"] for p in prompts] * args.repeat
    nlu.parse(texts[:10])
    t0 = time.perf_counter()
    nlu.parse(texts)
    dt = time.perf_counter() - t0
    print(f"parse speed: {len(texts)} texts in {dt:.2f} s = {len(texts) / dt:,.0f} texts/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
