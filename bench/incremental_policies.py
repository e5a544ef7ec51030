"""Incremental recognition: models × policies (Whetten et al.'s Table 2), METHODS.md, "Incremental recognition".

Builds utterances from the demo corpus (``fairdesk.core.demo.open_demo`` into a temporary
project): per accent, ``--per-accent`` speakers, each utterance ``--concat`` consecutive
prompts of one speaker joined with 0.3 s of silence (demo prompts last 1-3.7 s, too short for a
sliding window to cut; ``--concat 1`` uses the raw clips). Every utterance is streamed in
``--chunk`` second chunks with each ``--model`` (warmed up first) through ``--policy``
(default: seed 001's columns: the engine's own partials where it streams natively, the literal
sliding window, the snapped one, concatenation; and local agreement), and the pooled metrics
are printed per model × policy, then as one table (rows WER, LAT (per word), LAT (pooled),
EO, RPS, SPR, RTF) beside METHODS §6's reference figures.

Usage: .venv/bin/python bench/incremental_policies.py [--model whisper-tiny.en
       --model pocketsphinx-en-us] [--per-accent 4] [--concat 3]
       [--accents en-us en-gb-scotland en-029] [--threads 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REFERENCE = {  # METHODS.md §6, whisper tiny.en int8, 2 threads, 60 utterances, 3 accents
    "concatenation": "WER 17.0%, EO 0.30",
    "local-agreement (displayed)": "WER 17.4%, EO 0.28",
    "local-agreement (committed)": "EO 0",
    "sliding-literal": "WER 54.5%, 257 of 267 cuts inside a word (before the straddle rule)",
}


def build_utterances(items, accents, per_accent, concat, gap_s=0.3):
    from fairdesk.constants import SAMPLE_RATE
    from fairdesk.core.audio import load

    out = []
    for accent in accents:
        part = items[items["accent"] == accent]
        speakers = sorted(part["speaker_id"].unique())[:per_accent]
        for k, spk in enumerate(speakers):
            mine = part[part["speaker_id"] == spk].sort_values("content_id")
            # a different run of prompts per speaker slot, the same across accents (matched)
            start = (k * concat) % max(1, len(mine) - concat)
            rows = mine.iloc[start : start + concat]
            pieces, texts = [], []
            gap = np.zeros(int(gap_s * SAMPLE_RATE), dtype=np.float32)
            for _, r in rows.iterrows():
                pieces += [load(Path(r["root"]) / r["path"]).samples, gap]
                texts.append(r["text"])
            audio = np.concatenate(pieces[:-1]).astype(np.float32)
            out.append(
                {
                    "id": f"{spk}:{'+'.join(rows['content_id'])}",
                    "accent": accent,
                    "speaker_id": spk,
                    "content_id": "+".join(rows["content_id"]),
                    "text": " ".join(texts),
                    "audio": audio,
                }
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--accents", nargs="+", default=["en-us", "en-gb-scotland", "en-029"])
    ap.add_argument("--per-accent", type=int, default=4)
    ap.add_argument("--concat", type=int, default=3)
    ap.add_argument("--chunk", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--model",
        action="append",
        help="repeatable (default whisper-tiny.en and pocketsphinx-en-us)",
    )
    ap.add_argument(
        "--policy",
        action="append",
        help="repeatable (default native, sliding-literal, sliding, "
        "concatenation, local-agreement)",
    )
    ap.add_argument("--json", help="write the summary and per-item rows here")
    a = ap.parse_args()

    from fairdesk.cli.incremental import print_table
    from fairdesk.core.demo import open_demo
    from fairdesk.core.store import Project
    from fairdesk.incremental import (
        evaluate,
        hardware,
        models_table,
        summarise,
        supports_native,
        warm_up,
    )
    from fairdesk.incremental.job import open_backend
    from fairdesk.incremental.result import ModelsTable

    models = a.model or ["whisper-tiny.en", "pocketsphinx-en-us"]
    policies = a.policy or [
        "native",
        "sliding-literal",
        "sliding",
        "concatenation",
        "local-agreement",
    ]
    tmp = Path(tempfile.mkdtemp(prefix="fairdesk-inc-bench-"))
    proj = Project(tmp / "demo")
    open_demo(proj)
    ds = proj.dataset("demo")
    items = proj.items(ds)
    items["root"] = str(ds.root)
    utts = build_utterances(items, a.accents, a.per_accent, a.concat)
    total_audio = sum(u["audio"].size for u in utts) / 16000
    print(
        f"{len(utts)} utterances ({a.concat} prompts each), {total_audio:.1f} s of audio, "
        f"accents {', '.join(a.accents)}",
        flush=True,
    )
    hw = hardware(a.threads)
    print(f"hardware: {hw}", flush=True)

    audio_of = {u["id"]: u["audio"] for u in utts}
    rows = [{k: v for k, v in u.items() if k != "audio"} for u in utts]
    frames, decoders, failures = [], [], []
    t0 = time.perf_counter()
    for model in models:
        be, threads = open_backend(model, "cpu", a.threads)
        pols = [p for p in policies if p != "native" or supports_native(be)]
        warm_s = warm_up(be, utts[0]["audio"])
        dec = {"model": model, **be.settings, "cpu_threads": threads}
        decoders.append(dec)
        print(f"decoder: {dec}\nwarm-up {warm_s:.2f} s (excluded); policies {pols}", flush=True)

        def progress(done, total, msg, model=model):
            print(
                f"\r{model[:18]} [{done}/{total}] {time.perf_counter() - t0:6.0f} s {msg[:40]:<40}",
                end="",
                file=sys.stderr,
                flush=True,
            )

        frame, fails, _ = evaluate(
            be, rows, lambda it: audio_of[it["id"]], pols, a.chunk, progress=progress, model=model
        )
        print(file=sys.stderr)
        be.close()
        frames.append(frame)
        failures += fails
    import pandas as pd

    frame = pd.concat(frames, ignore_index=True)
    summary = summarise(frame)

    def f(v, fmt):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "-"
        return "inf" if isinstance(v, float) and math.isinf(v) else fmt.format(v)

    print(
        f"\n{'model / policy':<44}{'WER':>7}{'LATsd':>7}{'LATpl':>7}{'EO':>7}{'EO ed':>7}"
        f"{'upd/R':>7}{'RPS':>7}{'R/aud':>7}{'RTF':>6}{'FWL':>6}{'stab':>6}{'trims':>6}"
        f"{'cuts':>6}{'strd':>6}"
    )
    for r in summary:
        name = (
            r.policy if not r.policy.startswith("local-agreement") else f"{r.policy} ({r.stream})"
        )
        t = r.totals
        print(
            f"{((r.model or '')[:16] + ' ' + name)[:43]:<44}{f(r.wer, '{:.1%}'):>7}"
            f"{f(r.lat_seed001, '{:.3f}'):>7}{f(r.lat_pooled, '{:.3f}'):>7}"
            f"{f(r.eo, '{:.3f}'):>7}"
            f"{f(r.eo_edit, '{:.3f}'):>7}{f(r.revoke_update_share, '{:.2f}'):>7}"
            f"{f(r.rps, '{:.2f}'):>7}"
            f"{f(r.revokes_per_audio_second, '{:.2f}'):>7}{f(r.rtf, '{:.2f}'):>6}"
            f"{f(r.final_word_latency, '{:.2f}'):>6}"
            f"{f(r.stabilisation_latency, '{:.2f}'):>6}{t.n_trims:>6}{t.n_cuts:>6}"
            f"{t.n_straddled:>6}"
        )
    table = models_table(summary)
    print_table(ModelsTable.from_json(table, summary))
    print(
        '\nMETHODS\' reference figures ("Incremental recognition") (faster-whisper default decoding, 60 utterances):'
    )
    for k, v in REFERENCE.items():
        print(f"  {k:<29}{v}")
    print(f"\nper accent (WER / EO), {len(utts) // len(a.accents)} utterances each:")
    for (model, pol, stream), part in frame.groupby(["model", "policy", "stream"], sort=False):
        cells = []
        for acc, g in part.groupby("accent"):
            wer = (g.n_sub.sum() + g.n_del.sum() + g.n_ins.sum()) / g.n_words.sum()
            eo = g.n_revokes.sum() / max(1, g.n_adds.sum() + g.n_revokes.sum())
            cells.append(f"{acc} {wer:.1%}/{eo:.2f}")
        name = pol + ("" if stream == "displayed" else " (" + stream + ")")
        print(f"  {(model[:16] + ' ' + name)[:43]:<44}" + "  ".join(cells))
    print(
        f"\ndecode wall time {frame.drop_duplicates(['model', 'id', 'policy']).decode_s.sum():.1f}"
        f" s, run {time.perf_counter() - t0:.0f} s, load average "
        f"{os.getloadavg()[0]:.2f}; failures: {failures or 'none'}"
    )
    if a.json:
        Path(a.json).write_text(
            json.dumps(
                {
                    "hardware": hw,
                    "decoders": decoders,
                    "chunk_s": a.chunk,
                    "summary": [r.to_json() for r in summary],
                    "table": table,
                    "items": frame.drop(columns=["text"]).to_dict("records"),
                },
                default=lambda o: o.item() if hasattr(o, "item") else str(o),
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
