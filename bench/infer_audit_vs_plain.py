"""Inference speed: fairdesk's audit on whisper-tiny.en versus a plain faster-whisper loop.

Both run in this one process over the same demo files (default 64: the first N items of a
stratified sample across the six accents), one after the other, with the same model, the same
number of CPU threads and the same decoding settings (beam 5, temperature 0, English, word
timestamps). Prints items per second of each, their ratio (target: fairdesk >= 0.9x), and the
time of fairdesk's cached re-run of the identical request (target: under 1 s).

Usage: .venv/bin/python bench/infer_audit_vs_plain.py [--n 64] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()

    import pandas as pd

    from fairdesk.core.demo import open_demo
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.models import get_backend
    from fairdesk.stats import AuditSettings

    tmp = Path(tempfile.mkdtemp(prefix="fairdesk-bench-"))
    demo = Project(tmp / "demo")
    open_demo(demo)
    items = demo.items(demo.dataset("demo"))
    per = max(1, -(-a.n // items["accent"].nunique()))
    sel = items.groupby("accent").sample(n=per, random_state=0).head(a.n)
    root = demo.dataset("demo").root
    manifest = root / "bench_manifest.csv"
    pd.DataFrame(
        {
            "path": sel["path"],
            "text": sel["text"],
            "speaker_id": sel["speaker_id"],
            "content_id": sel["content_id"],
            "accent": sel["accent"],
        }
    ).to_csv(manifest, index=False)
    proj = Project(tmp / "bench")
    import_dataset(proj, "bench", manifest)
    paths = [str(root / p) for p in sel["path"]]
    n = len(paths)
    print(f"{n} demo files, {a.threads} CPU threads, whisper-tiny.en int8")

    # 1. the plain loop: faster-whisper called directly, one file after the other
    from faster_whisper import WhisperModel

    from fairdesk.models.whisper_ct2 import tiny_en_path

    model = WhisperModel(
        str(tiny_en_path()), device="cpu", compute_type="int8", cpu_threads=a.threads
    )
    model.transcribe(paths[0], language="en", beam_size=5)  # warm-up, excluded
    t0 = time.perf_counter()
    for p in paths:
        segs, _ = model.transcribe(
            p,
            language="en",
            beam_size=5,
            temperature=0.0,
            word_timestamps=True,
            condition_on_previous_text=False,
        )
        "".join(s.text for s in segs)
    plain = time.perf_counter() - t0
    del model

    # 2. fairdesk's audit (model load excluded the same way: the backend is warmed up first)
    backend = get_backend("whisper-tiny.en", cpu_threads=a.threads)
    from fairdesk.core import audio

    backend.transcribe([audio.load(paths[0]).samples])  # warm-up, excluded
    req = AuditRequest(
        dataset="bench",
        model="whisper-tiny.en",
        by=("accent",),
        nlu="none",
        settings=AuditSettings(min_items=2, min_speakers=1),
    )
    t0 = time.perf_counter()
    out = run_audit(proj, req, backend=backend)
    audit = time.perf_counter() - t0
    assert out.result.counts.n_inferred == n

    # 3. the identical request again, from a fresh backend object as a new session would
    t0 = time.perf_counter()
    again = run_audit(proj, req)
    cached = time.perf_counter() - t0
    assert again.from_cache

    print(f"{'':<28}{'seconds':>9}{'items/s':>9}")
    print(f"{'plain faster-whisper loop':<28}{plain:>9.2f}{n / plain:>9.2f}")
    print(f"{'fairdesk audit (full job)':<28}{audit:>9.2f}{n / audit:>9.2f}")
    print(f"ratio fairdesk / plain (items per second): {plain / audit:.2f}x (target >= 0.9x)")
    print(f"cached re-run of the identical audit: {cached:.3f} s (target < 1 s)")


if __name__ == "__main__":
    main()
