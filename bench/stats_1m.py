"""A ``--table`` audit of 1,000,000 rows: time and peak memory of the whole command.

The table (Parquet): 100 groups × 20 speakers (2,000 speakers), every speaker reading the
same 500 sentences (a matched design: two-way bootstrap, speakers × sentences), 500
utterances per speaker, sentences of 6-13 English words (2,000 words of the CMUdict that
pocketsphinx ships). Hypotheses are the reference with a group- and speaker-dependent number
of word errors (substitution, deletion, insertion), so every group has its own WER; about a
quarter of the rows differ from their reference (174,277 distinct pairs).
Two metrics (``--metric wer --metric cer``); B = 2,000 asked for, raised by METHODS.md §3 to
⌈5·m/α⌉ with m = 99 × 2 comparisons; the speaker jackknife runs for significant results.

Prints the effective B, the wall and CPU time of the audit (``fairdesk audit --table ...
--max-items N``, run in this process; the CPU time is this process's, the scoring's worker
processes not included), where the wall time went (the result's ``timings``) and the peak
resident memory: of this process (``getrusage``) and of it with its worker processes
(sampled from ``/proc``).

``--stats-only`` times the statistics alone (``compare_groups`` on per-item counts drawn
the same way), without reading the table or scoring the text.

Run: ``nice -n 10 .venv/bin/python bench/stats_1m.py [--rows 1000000] [--profile]
[--stats-only]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

N_GROUPS, SPK_PER_GROUP, N_SENT = 100, 20, 500
N_VOCAB = 2000


def vocabulary(n: int = N_VOCAB, seed: int = 0) -> list[str]:
    """``n`` English words (letters only, 3 to 9 of them) drawn from the CMUdict that the
    pocketsphinx package ships: transcripts of real words, as the normaliser and the phone
    tables meet them."""
    from fairdesk.metrics.phones import cmudict

    words = sorted(w for w in cmudict() if w.isalpha() and w.isascii() and 3 <= len(w) <= 9)
    rng = np.random.default_rng(seed)
    return [words[i] for i in sorted(rng.choice(len(words), n, replace=False))]


def make_table(path: Path, n_rows: int, seed: int = 0) -> None:
    """Write the synthetic audit table (see the module docstring) to ``path``."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    vocab = vocabulary()
    n_spk = N_GROUPS * SPK_PER_GROUP
    sent_len = rng.integers(6, 14, N_SENT)
    sents = [rng.choice(len(vocab), n) for n in sent_len]
    spk = np.repeat(np.arange(n_spk), -(-n_rows // n_spk))[:n_rows]
    rng.shuffle(spk)
    content = rng.integers(0, N_SENT, n_rows)
    group = spk // SPK_PER_GROUP
    # error rate per item: group effect + speaker effect
    p_err = 0.04 + 0.10 * (group / N_GROUPS) + rng.normal(0, 0.02, n_spk)[spk]
    n_err = rng.binomial(3, np.clip(p_err, 0.0, 1.0))
    refs, hyps = [], []
    kinds = rng.integers(0, 3, (n_rows, 3))
    pos = rng.random((n_rows, 3))
    subs = rng.integers(0, len(vocab), (n_rows, 3))
    for i in range(n_rows):
        words = list(sents[content[i]])
        refs.append(" ".join(vocab[w] for w in words))
        for e in range(n_err[i]):
            j = int(pos[i, e] * len(words))
            k = kinds[i, e]
            if k == 0 and words:
                words[min(j, len(words) - 1)] = subs[i, e]
            elif k == 1 and len(words) > 1:
                del words[min(j, len(words) - 1)]
            else:
                words.insert(j, subs[i, e])
        hyps.append(" ".join(vocab[w] for w in words))
    pd.DataFrame(
        {
            "reference": refs,
            "hypothesis": hyps,
            "speaker_id": [f"s{s}" for s in spk],
            "content_id": [f"c{c}" for c in content],
            "accent": [f"g{g:03d}" for g in group],
        }
    ).to_parquet(path, index=False)


class TreeMemory:
    """Peak resident memory of this process and its descendants together (the scoring's
    worker processes included), sampled every 0.1 s from ``/proc``."""

    def __init__(self):
        import threading

        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    @staticmethod
    def _rss(pid: int) -> int:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def _tree(self) -> int:
        parent: dict[int, int] = {}
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        pids, todo = {os.getpid()}, [os.getpid()]
        while todo:
            p = todo.pop()
            for c, pp in parent.items():
                if pp == p and c not in pids:
                    pids.add(c)
                    todo.append(c)
        return sum(self._rss(p) for p in pids)

    def _loop(self):
        while not self._stop.wait(0.1):
            self.peak = max(self.peak, self._tree())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def run(table: Path, n_rows: int, profile: bool = False) -> dict:
    from fairdesk.cli import main

    out = Path(tempfile.mkdtemp()) / "res.json"
    args = [
        "audit",
        "--table",
        str(table),
        "--by",
        "accent",
        "--metric",
        "wer",
        "--metric",
        "cer",
        "--n-bootstrap",
        "2000",
        "--max-items",
        str(n_rows),
        "--language",
        "en",
        "--json",
        str(out),
        "--quiet",
    ]
    t0, c0 = time.perf_counter(), time.process_time()
    if profile:
        import cProfile
        import pstats

        pr = cProfile.Profile()
        rc = pr.runcall(main, args)
        pstats.Stats(pr).sort_stats("cumulative").print_stats(35)
    else:
        rc = main(args)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    res = json.loads(out.read_text())
    comps = res["comparisons"]
    return {
        "rc": rc,
        "rows": n_rows,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "bootstrap": res["settings"].get("bootstrap") or res.get("bootstrap"),
        "n_comparisons": len(comps),
        "estimators": sorted({c["estimator"] for c in comps}),
        "verdicts": {
            v: sum(c["verdict"] == v for c in comps) for v in sorted({c["verdict"] for c in comps})
        },
        "timings": res.get("timings", {}),
    }


def run_stats_only(n_rows: int, seed: int = 0) -> dict:
    """``compare_groups`` alone on per-item counts drawn like the table's (no text scoring):
    the statistics part of the audit, WER and CER tested, B raised as in the audit."""
    import pandas as pd

    from fairdesk.metrics.registry import ratio_metric
    from fairdesk.stats import AuditSettings, compare_groups

    rng = np.random.default_rng(seed)
    n_spk = N_GROUPS * SPK_PER_GROUP
    spk = np.repeat(np.arange(n_spk), -(-n_rows // n_spk))[:n_rows]
    group = spk // SPK_PER_GROUP
    content = rng.integers(0, N_SENT, n_rows)
    n_words = rng.integers(6, 14, N_SENT)[content]
    p_err = np.clip(0.04 + 0.10 * (group / N_GROUPS) + rng.normal(0, 0.02, n_spk)[spk], 0, 1)
    err = rng.binomial(3, p_err)
    kind = rng.integers(0, 3, n_rows)
    frame = pd.DataFrame(
        {
            "group": [f"g{g:03d}" for g in group],
            "speaker_id": spk,
            "content_id": content,
            "n_words": n_words,
            "n_sub": err * (kind == 0),
            "n_del": err * (kind == 1),
            "n_ins": err * (kind == 2),
            "n_chars": n_words * 5,
            "c_sub": err * 2 * (kind == 0),
            "c_del": err * 4 * (kind == 1),
            "c_ins": err * 4 * (kind == 2),
        }
    )
    specs = [
        ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"]),
        ratio_metric("cer", "CER", ["c_sub", "c_del", "c_ins"], ["n_chars"]),
    ]
    settings = AuditSettings(n_bootstrap=2000, max_items=n_rows, max_items_lifted=n_rows > 20_000)
    t0, c0 = time.perf_counter(), time.process_time()
    res = compare_groups(frame, specs, settings).to_dict()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    comps = res["comparisons"]
    return {
        "rows": n_rows,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "bootstrap": res["bootstrap"],
        "n_comparisons": len(comps),
        "estimators": sorted({c["estimator"] for c in comps}),
        "verdicts": {
            v: sum(c["verdict"] == v for c in comps) for v in sorted({c["verdict"] for c in comps})
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--table", help="reuse this Parquet file (written when missing)")
    ap.add_argument(
        "--stats-only",
        action="store_true",
        help="time compare_groups alone on per-item counts (no table, no text)",
    )
    a = ap.parse_args()
    if a.stats_only:
        r = run_stats_only(a.rows)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
        print(
            f"statistics only (compare_groups): rows {r['rows']:,}  comparisons "
            f"{r['n_comparisons']}  estimators {r['estimators']}"
        )
        print(f"bootstrap: {r['bootstrap']}")
        print(f"verdicts: {r['verdicts']}")
        print(
            f"wall {r['wall_s']} s, CPU {r['cpu_s']} s ({os.cpu_count()} cores, load "
            f"{os.getloadavg()[0]:.1f}); peak RSS {peak:.2f} GiB"
        )
        return
    table = Path(a.table or Path(tempfile.gettempdir()) / f"fairdesk-bench-words-{a.rows}.parquet")
    if not table.exists():
        t = time.perf_counter()
        make_table(table, a.rows)
        print(f"table written: {table} ({time.perf_counter() - t:.0f} s, not timed below)")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with TreeMemory() as tree:
        r = run(table, a.rows, a.profile)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    print(f"rows {r['rows']:,}  comparisons {r['n_comparisons']}  estimators {r['estimators']}")
    print(f"bootstrap: {r['bootstrap']}")
    print(f"verdicts: {r['verdicts']}")
    print(
        f"audit: wall {r['wall_s']} s, CPU {r['cpu_s']} s (this process; {os.cpu_count()} "
        f"cores, load {os.getloadavg()[0]:.1f}); peak RSS {peak:.2f} GiB "
        f"(before the audit {rss0 / 1024 / 1024:.2f} GiB); with the scoring's worker "
        f"processes {tree.peak / 2**30:.2f} GiB at most"
    )
    t = r["timings"]
    if t:
        print(
            "where the audit's time went (wall s): "
            + ", ".join(f"{k.removesuffix('_s')} {v:.1f}" for k, v in t.items())
            + f"; reading the table and writing the results {r['wall_s'] - sum(t.values()):.1f}"
        )


if __name__ == "__main__":
    main()
