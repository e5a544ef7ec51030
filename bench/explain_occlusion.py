"""Seconds per item of occlusion saliency on whisper-tiny.en: batched vs one window at a time.

Takes the demo clip whose duration is closest to 2 s (``resources/demo/demo_corpus.zip``),
and times :func:`fairdesk.explain.occlusion` (100 ms windows, stride 100 ms, zero mask, so
21 scorings of a 2 s clip) with every masked copy sent through ``score_many`` in one call
(the backend batches the encoder ``--backend-batch`` clips at a time) and with one
``score_many`` call per copy. Prints wall and CPU seconds per item side by side, the ratio,
and checks both give the same curve. Usage:
``python bench/explain_occlusion.py [--threads 2] [--repeats 1] [--backend-batch 8]``.
"""

from __future__ import annotations

import argparse
import io
import os
import time
import zipfile

import numpy as np


def demo_clip(target_s: float = 2.0) -> tuple[np.ndarray, str, str]:
    """(samples, reference text, file name) of the demo clip closest to ``target_s``."""
    import csv

    import soundfile as sf
    import soxr

    from fairdesk.core.demo import demo_zip

    z = zipfile.ZipFile(demo_zip())
    rows = list(csv.DictReader(io.StringIO(z.read("metadata.csv").decode("utf-8"))))
    best = None
    for r in rows[:120]:  # enough candidates; decoding all 2,340 would dominate the bench
        data, sr = sf.read(io.BytesIO(z.read(r["file_name"])), dtype="float32", always_2d=False)
        if data.ndim > 1:
            data = data.mean(axis=1)
        d = abs(data.size / sr - target_s)
        if best is None or d < best[0]:
            best = (d, data, sr, r)
    _, data, sr, r = best
    audio = soxr.resample(data, sr, 16000).astype(np.float32) if sr != 16000 else data
    return audio, r["text"], r["file_name"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--backend-batch", type=int, default=8)
    a = ap.parse_args()

    from fairdesk.explain import occlusion
    from fairdesk.models.whisper_ct2 import WhisperCT2Backend, tiny_en_path

    audio, text, name = demo_clip()
    be = WhisperCT2Backend(
        "whisper-tiny.en", tiny_en_path(), "cpu", cpu_threads=a.threads, batch_size=a.backend_batch
    )
    be.score(audio, text)  # load and warm up
    n_windows = int(np.ceil(audio.size / 1600))
    print(
        f"clip {name}: {audio.size / 16000:.2f} s, {n_windows} windows of 100 ms + the "
        f"unmasked clip = {n_windows + 1} scorings; reference {text!r}"
    )
    print(
        f"whisper-tiny.en int8, {a.threads} CPU threads, backend batch {a.backend_batch}, "
        f"{os.cpu_count()} cores visible, repeats {a.repeats}"
    )
    results = {}
    curves = {}
    for label, batch in (("batched", n_windows + 1), ("one at a time", 1)):
        wall, cpu = [], []
        for _ in range(a.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            sal = occlusion(be, audio, text, batch_size=batch)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        results[label] = (float(np.median(wall)), float(np.median(cpu)))
        curves[label] = sal.curve
    print(f"{'':<16}{'wall s/item':>12}{'CPU s/item':>12}")
    for label, (w, c) in results.items():
        print(f"{label:<16}{w:>12.2f}{c:>12.2f}")
    (wb, cb), (ws, cs) = results["batched"], results["one at a time"]
    print(f"ratio (one at a time / batched): wall {ws / wb:.2f}x, CPU {cs / cb:.2f}x")
    same = np.allclose(curves["batched"], curves["one at a time"], atol=1e-3)
    print(
        f"same curve: {same} (max |diff| "
        f"{float(np.max(np.abs(curves['batched'] - curves['one at a time']))):.2g})"
    )
    be.close()


if __name__ == "__main__":
    main()
