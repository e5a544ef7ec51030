"""Inference throughput of the Ray engine against the local one, on this one machine, and
the statistics of a 1,000,000-row ``--table`` audit.

Part 1 audits the same items twice with ``whisper-tiny.en`` (the demo project, or
``--project``/``--dataset``): once with ``--engine local``, once with ``--engine ray`` (a
local Ray, as many model replicas as the local engine's threads share the cores: one actor
per CPU slot of the model's CTranslate2 thread count), the prediction cache emptied before
each, and prints items/s of the infer stage (model load included on both sides) and whether
the hypotheses agree item by item. The target is ray ≥ 0.85 × local.

Part 2 runs ``bench/stats_1m.py`` (effective B, wall and CPU time, peak memory).

Run: ``nice -n 10 .venv/bin/python bench/ray_vs_local.py [--project P --dataset D]
[--sample N] [--skip-stats] [--rows 1000000]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path


def _clear(project) -> None:
    with project.transaction() as c:
        c.execute("DELETE FROM run_items")
        c.execute("DELETE FROM predictions")


def infer_rate(project, req) -> tuple[float, dict, float]:
    from fairdesk.jobs import run_audit

    _clear(project)
    t = time.perf_counter()
    out = run_audit(project, req, use_result_cache=False)
    wall = time.perf_counter() - t
    n = out.result.counts.n_inferred
    hyps = dict(zip(out.frame["item_id"], out.frame["hypothesis"], strict=True))
    return n / out.timings["infer_s"], hyps, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--project", default="/tmp/fairdesk-bench-demo")
    ap.add_argument("--dataset", default="demo")
    ap.add_argument("--model", default="whisper-tiny.en")
    ap.add_argument("--by", default="accent")
    ap.add_argument(
        "--sample",
        type=int,
        default=8,
        help="items per group (default 8: 48 demo items; 0 = every item)",
    )
    ap.add_argument("--skip-stats", action="store_true")
    ap.add_argument("--rows", type=int, default=1_000_000)
    a = ap.parse_args()

    from fairdesk.core.store import Project
    from fairdesk.jobs import AuditRequest
    from fairdesk.stats import AuditSettings

    if not (Path(a.project) / "project.sqlite").exists() and a.dataset == "demo":
        subprocess.run(
            [sys.executable, "-m", "fairdesk", "demo", "--project", a.project],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    project = Project(a.project)
    settings = AuditSettings(n_bootstrap=200, min_items=1, min_speakers=1)
    base = dict(
        dataset=a.dataset,
        model=a.model,
        by=(a.by,),
        sample=a.sample or None,
        settings=settings,
        nlu="none",
        metrics=("wer",),
    )
    import ray

    ray.init(include_dashboard=False, log_to_driver=False)
    try:
        local, h_local, w_local = infer_rate(project, AuditRequest(**base))
        remote, h_ray, w_ray = infer_rate(project, AuditRequest(**base, engine="ray"))
    finally:
        ray.shutdown()
    same = h_local == h_ray
    print(
        f"infer, {len(h_local)} items, {a.model}, {os.cpu_count()} cores "
        f"(load {os.getloadavg()[0]:.1f}):"
    )
    print(
        f"  local {local:.2f} items/s (run {w_local:.0f} s)   ray {remote:.2f} items/s "
        f"(run {w_ray:.0f} s)   ray/local {remote / local:.2f} (target >= 0.85)"
    )
    print(f"  hypotheses identical item by item: {same}")
    if not a.skip_stats:
        print(f"statistics, {a.rows:,}-row --table audit:", flush=True)
        here = Path(__file__).resolve().parent
        subprocess.run(
            [sys.executable, str(here / "stats_1m.py"), "--rows", str(a.rows)], check=True
        )


if __name__ == "__main__":
    main()
