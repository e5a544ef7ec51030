"""Time compute_item_stats on a 20,000-row synthetic audit frame (the run cap).

Run: .venv/bin/python bench/metrics_item_stats.py
"""

import random
import time

import pandas as pd

from fairdesk.metrics import compute_item_stats, metric_specs, normalize


def make_frame(n=20000, n_sentences=500, seed=0):
    rng = random.Random(seed)
    words = "play the song by adele at volume seven in the kitchen please turn it up now".split()
    refs = [" ".join(rng.choices(words, k=rng.randint(4, 12))) for _ in range(n_sentences)]
    rows = []
    for i in range(n):
        ref = refs[i % n_sentences]
        hyp = ref.split()
        if rng.random() < 0.5:
            hyp[rng.randrange(len(hyp))] = rng.choice(words)
        rows.append(
            {
                "item_id": str(i),
                "reference": ref,
                "hypothesis": " ".join(hyp),
                "ref_intent": "PlayMusic",
                "hyp_intent": rng.choice(["PlayMusic", "Pause"]),
                "ref_slots": {"artist": "Adele"},
                "hyp_slots": {"artist": rng.choice(["Adele", "adel"])},
                "label": rng.choice("abc"),
                "predicted_label": rng.choice("abc"),
                "confidence": rng.random(),
            }
        )
    return pd.DataFrame(rows)


def main():
    frame = make_frame()
    for language in ("en", "yo"):
        normalize._english_str.cache_clear()
        normalize._basic_str.cache_clear()
        t = time.perf_counter()
        stats = compute_item_stats(frame, language=language)
        dt = time.perf_counter() - t
        ids = [s.id for s in metric_specs(stats)]
        print(
            f"{language}: {len(frame)} rows in {dt:.2f} s ({dt / len(frame) * 1e6:.0f} us/row); "
            f"{stats.shape[1]} stat columns; metrics: {', '.join(ids)}"
        )


if __name__ == "__main__":
    main()
