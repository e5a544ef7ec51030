"""Seconds per clip of occlusion saliency on whisper-tiny.en: exact (30 s encoder window) vs
the short-context approximation, and how far the approximation's curves are from the exact.

Takes ``--clips`` (20) demo clips spread evenly over ``resources/demo/demo_corpus.zip`` (every
accent and speaker group; 2.0-2.9 s each) and times :func:`fairdesk.explain.occlusion` (100 ms
windows, stride 100 ms, zero mask, one masked copy per ``score_many`` call as the explain
stage does on a CPU, so 21-30 scorings per clip) twice per clip: "old", every scoring a full
30 s encoder pass (today's curve, the default), and "new", the model input padded to
``--context`` seconds (``occlusion(..., context_s=...)``). Prints wall and CPU seconds per
clip side by side, the ratio, and the Spearman correlation of each clip's new curve with its
old one (mean, median, minimum over the clips; the approximation would have to reach 0.9 to
be the default). Usage:
``python bench/explain_occlusion.py [--threads 2] [--clips 20] [--context 15]``.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import time
import zipfile

import numpy as np


def demo_clips(n: int = 20) -> list[tuple[np.ndarray, str, str]]:
    """(samples at 16 kHz, reference text, file name) of ``n`` clips spread over the demo."""
    import soundfile as sf
    import soxr

    from fairdesk.core.demo import demo_zip

    z = zipfile.ZipFile(demo_zip())
    rows = list(csv.DictReader(io.StringIO(z.read("metadata.csv").decode("utf-8"))))
    out = []
    for r in rows[:: max(1, len(rows) // n)][:n]:
        data, sr = sf.read(io.BytesIO(z.read(r["file_name"])), dtype="float32", always_2d=False)
        if data.ndim > 1:
            data = data.mean(axis=1)
        audio = soxr.resample(data, sr, 16000).astype(np.float32) if sr != 16000 else data
        out.append((audio, r["text"], r["file_name"]))
    return out


def timed(fn, *args, **kw):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--clips", type=int, default=20)
    ap.add_argument("--context", type=float, default=15.0, help="seconds (new path)")
    a = ap.parse_args()

    from scipy.stats import spearmanr

    from fairdesk.explain import occlusion
    from fairdesk.models.whisper_ct2 import WhisperCT2Backend, tiny_en_path

    clips = demo_clips(a.clips)
    be = WhisperCT2Backend("whisper-tiny.en", tiny_en_path(), "cpu", cpu_threads=a.threads)
    be.score(clips[0][0], clips[0][1])  # load and warm up
    durs = [c[0].size / 16000 for c in clips]
    print(
        f"{len(clips)} demo clips, {min(durs):.2f}-{max(durs):.2f} s (mean {np.mean(durs):.2f} s); "
        f"whisper-tiny.en int8, {a.threads} CPU threads, {os.cpu_count()} cores visible, "
        f"load average {os.getloadavg()[0]:.2f}; new = context {a.context:g} s"
    )
    print(f"{'clip':<34}{'s':>5}{'old wall':>9}{'CPU':>6}{'new wall':>9}{'CPU':>6}{'rho':>7}")
    old_w, old_c, new_w, new_c, rhos = [], [], [], [], []
    for audio, text, name in clips:
        old, w0, c0 = timed(occlusion, be, audio, text, batch_size=1)
        new, w1, c1 = timed(occlusion, be, audio, text, batch_size=1, context_s=a.context)
        rho = float(spearmanr(old.curve, new.curve).statistic)
        old_w.append(w0), old_c.append(c0), new_w.append(w1), new_c.append(c1), rhos.append(rho)
        print(
            f"{name[-34:]:<34}{audio.size / 16000:>5.2f}{w0:>9.2f}{c0:>6.2f}"
            f"{w1:>9.2f}{c1:>6.2f}{rho:>7.3f}",
            flush=True,
        )
    ow, oc, nw, nc = (float(np.mean(x)) for x in (old_w, old_c, new_w, new_c))
    print(f"{'':<16}{'wall s/clip':>12}{'CPU s/clip':>12}")
    print(f"{'old (30 s)':<16}{ow:>12.2f}{oc:>12.2f}")
    print(f"{f'new ({a.context:g} s)':<16}{nw:>12.2f}{nc:>12.2f}")
    print(f"ratio (old / new): wall {ow / nw:.2f}x, CPU {oc / nc:.2f}x")
    print(
        f"Spearman(new curve, old curve) over {len(rhos)} clips: mean {np.mean(rhos):.3f}, "
        f"median {np.median(rhos):.3f}, min {np.min(rhos):.3f}"
    )
    be.close()


if __name__ == "__main__":
    main()
