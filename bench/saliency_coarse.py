"""Seconds to the Items view's coarse saliency curve (0.5 s occlusion windows) of demo clips
on whisper-tiny.en (int8, CPU), and where they go.

For ``--clips`` (6) demo clips (bench/explain_occlusion.py's selection, 2.0-2.9 s: 6-7
scorings each) it times, per clip:

- ``job, model loaded per job``: :func:`fairdesk.jobs.tasks.saliency` from its start to the
  coarse curve handed over (``partial``), with no backend kept loaded (what every job did
  before: a fresh backend, the model's files in the OS cache);
- ``job, model kept loaded``: the same with the backend the Items view preloads
  (:func:`fairdesk.jobs.tasks.warm_saliency_model`);
- the parts of the coarse curve on a loaded model: log-mel features of every masked copy,
  the 30 s encoder passes, the teacher-forced ``align`` (one call per copy, as scored, and
  one call for all copies, which is not faster), and a fresh backend's load and first pass
  (minus a warm pass).

Wall and CPU seconds (``time.process_time``: every thread of this process; there is no GUI
thread here), the median over the clips. Usage:
``python bench/saliency_coarse.py [--clips 6]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np


def timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def coarse_job(folder, wav, text) -> tuple[float, float]:
    """(wall, CPU) seconds of tasks.saliency up to the coarse curve."""
    import sqlite3

    from fairdesk.jobs import tasks

    class Done(Exception):
        pass

    with sqlite3.connect(str(Path(folder) / "project.sqlite")) as db:
        db.execute("DELETE FROM saliency")
    t, c = time.perf_counter(), time.process_time()
    seen = []

    def partial(out):
        seen.append((time.perf_counter() - t, time.process_time() - c))
        raise Done

    try:
        tasks.saliency(
            folder,
            "whisper-tiny.en",
            wav,
            "h",
            text,
            device="cpu",
            partial=partial,
            progress=lambda f, m: None,
            cancelled=lambda: False,
        )
    except Done:
        pass
    return seen[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clips", type=int, default=6)
    args = ap.parse_args()

    import ctranslate2
    import soundfile as sf

    from bench.explain_occlusion import demo_clips
    from fairdesk.core.store import Project
    from fairdesk.explain.saliency import _mask, occlusion_windows
    from fairdesk.jobs import tasks
    from fairdesk.models import get_backend

    clips = demo_clips(args.clips)
    tmp = Path(tempfile.mkdtemp(prefix="saliency-coarse-"))
    Project(tmp / "proj").close()
    be = get_backend("whisper-tiny.en", device="cpu")
    be.warm()
    rows: dict[str, list[tuple[float, float]]] = {}
    tok = be._get_tokenizer()
    align = be._model.model.align

    def add(name, w, c):
        rows.setdefault(name, []).append((w, c))

    for k, (audio, text, _) in enumerate(clips):
        wav = tmp / f"c{k}.wav"
        sf.write(wav, audio, 16000, subtype="FLOAT")
        tasks.release_saliency_backends()
        add("job, model loaded per job (before)", *coarse_job(tmp / "proj", wav, text))
        tasks.warm_saliency_model("whisper-tiny.en", device="cpu", progress=None, cancelled=None)
        add("job, model kept loaded (after)", *coarse_job(tmp / "proj", wav, text))

        def fresh(audio=audio, text=text):
            with get_backend("whisper-tiny.en", device="cpu") as b:
                b.score(audio, text)

        _, w, c = timed(fresh)
        _, w1, c1 = timed(lambda audio=audio, text=text: be.score(audio, text))
        add("  fresh backend: load + first pass - a warm pass", w - w1, c - c1)
        copies = [audio] + [
            _mask(audio, s, e, "zero", 0) for s, e in occlusion_windows(audio.size, 0.5)
        ]
        feats, w, c = timed(lambda copies=copies: [be._features(a) for a in copies])
        add("  log-mel features, every copy (3000 frames each)", w, c)
        states, w, c = timed(
            lambda feats=feats: [np.asarray(be._encode([f], to_cpu=True)) for f, _ in feats]
        )
        add("  30 s encoder passes, one per copy", w, c)
        ids, n = tok.encode(" " + text), [m for _, m in feats]
        sv = [ctranslate2.StorageView.from_array(s) for s in states]

        def singly(sv=sv, ids=ids, n=n):
            for s, m in zip(sv, n, strict=True):
                align(s, tok.sot_sequence, [ids], [m], median_filter_width=7)

        add("  align, one call per copy", *timed(singly)[1:])
        both = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.concatenate(states)))
        add(
            "  align, one call for every copy",
            *timed(
                lambda both=both, ids=ids, n=n: align(
                    both, tok.sot_sequence, [ids] * len(n), n, median_filter_width=7
                )
            )[1:],
        )
    tasks.release_saliency_backends()
    be.close()
    print(f"{len(clips)} clips, median per clip")
    print(f"{'':52s} {'wall s':>7s} {'CPU s':>7s}")
    for name, vals in rows.items():
        w = statistics.median(v[0] for v in vals)
        c = statistics.median(v[1] for v in vals)
        print(f"{name:52s} {w:7.3f} {c:7.3f}")


if __name__ == "__main__":
    main()
