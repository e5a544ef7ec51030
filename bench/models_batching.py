"""Which way of decoding a batch of short clips is fastest for whisper-tiny.en on CPU?

Synthesises 20 short English clips with espeak-ng (1-4 s), then times, for greedy and beam 5:
one ``transcribe`` call per clip (``strategy="sequential"``), the same from 2 Python threads
with CTranslate2 ``num_workers=2`` and 1 thread each, and faster-whisper's
``BatchedInferencePipeline`` (``strategy="batched"``) at several batch sizes.
Prints items/s on the wall clock and per CPU-second (the second is the fairer number on a
shared machine). Usage: ``python bench/models_batching.py [--threads 2] [--clips 20]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import soundfile as sf
import soxr

from fairdesk.models.whisper_ct2 import WhisperCT2Backend, tiny_en_path

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Please call Stella and ask her to bring these things.",
    "I would like a cup of coffee with milk.",
    "The weather today is sunny and warm.",
    "Open the door and turn on the light.",
    "She sells sea shells by the sea shore.",
    "My phone number is easy to remember.",
    "We will meet at the station at noon.",
    "Turn left at the next corner.",
    "This book is on the table.",
]


def make_clips(n: int) -> list[np.ndarray]:
    if shutil.which("espeak-ng") is None:
        raise SystemExit("espeak-ng is needed to synthesise the clips")
    clips = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            path = os.path.join(tmp, f"{i}.wav")
            voice = ["en-us", "en-gb", "en-us+f3"][i // len(SENTENCES) % 3]
            subprocess.run(
                ["espeak-ng", "-v", voice, "-w", path, SENTENCES[i % len(SENTENCES)]], check=True
            )
            a, sr = sf.read(path, dtype="float32")
            clips.append(soxr.resample(a, sr, 16000).astype(np.float32))
    return clips


def timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--clips", type=int, default=20)
    args = ap.parse_args()
    clips = make_clips(args.clips)
    print(
        f"{len(clips)} clips, {sum(map(len, clips)) / 16000:.1f} s of audio, {args.threads} threads"
    )
    path = tiny_en_path()
    for beam in (1, 5):
        runs = [("sequential", dict(strategy="sequential"), None)]
        runs += [
            (f"batched bs{bs}", dict(strategy="batched", batch_size=bs), None) for bs in (4, 8, 20)
        ]
        runs += [("2 py threads x num_workers=2", dict(cpu_threads=1, num_workers=2), 2)]
        for name, kw, pool in runs:
            kw.setdefault("cpu_threads", args.threads)
            b = WhisperCT2Backend("whisper-tiny.en", path, "cpu", beam_size=beam, **kw)
            b.transcribe(clips[:2])  # warm-up
            if pool:
                with ThreadPoolExecutor(pool) as ex:
                    wall, cpu = timed(
                        lambda ex=ex, b=b: list(ex.map(lambda c: b.transcribe([c]), clips))
                    )
            else:
                wall, cpu = timed(lambda b=b: b.transcribe(clips))
            print(
                f"beam {beam} {name:32s} {len(clips) / wall:6.2f} items/s wall  "
                f"{len(clips) / cpu:6.2f} items/CPU-s"
            )
            b.close()


if __name__ == "__main__":
    main()
