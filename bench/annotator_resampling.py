"""Coverage of ``--reference-text resample`` on simulated audits whose references come from two
annotators who each change a tone mark with probability q (docs/METHODS.md, "References from
several annotators", Validation).

Each simulated audit: two groups of S speakers, 10 items per speaker, 6 tone-bearing letters
per item with a true mark (none / grave / acute). The model gets a letter's mark wrong with
probability p (logit-normal per speaker: base -2.0, speaker sd 0.3; the group adds 0.4 on the
logit scale: the planted gap). Each of two annotators writes every mark, changing it to one of
the other two with probability q, independently. An item's statistics against each annotator's
version are its TER counts (wrong marks, expected marks); ``resample`` averages them and each
replicate draws one version per item. The estimand is the gap of "errors against a randomly
chosen annotator", ``q + p (1 - 3q/2)`` per letter, whose population value comes from
2,000,000 Monte Carlo draws of the speakers' p. Each row prints the coverage of the gap's 95%
CI with ``resample`` and, on the same audits, without the version draws (the averaged
statistics alone), and both mean CI widths.

Run: ``.venv/bin/python bench/annotator_resampling.py [--audits 1000] [--bootstrap 500]
[--workers N] [--quick]``; ``--quick`` (for CI) runs a few audits per row to the end.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

LETTERS = 6
ITEMS_PER_SPEAKER = 10
BASE_LOGIT = -2.0
GAP_LOGIT = 0.4
SPEAKER_SD = 0.3
QS = (0.0, 0.05, 0.15)
SPEAKERS = (12, 40)


def _p(logit):
    return 1.0 / (1.0 + np.exp(-logit))


def true_gap(q: float, draws: int = 2_000_000, seed: int = 123) -> float:
    """The population gap of the error rate against a randomly chosen annotator."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, SPEAKER_SD, draws)
    p_ref = _p(BASE_LOGIT + z).mean()
    p_grp = _p(BASE_LOGIT + GAP_LOGIT + z).mean()
    return float((p_grp - p_ref) * (1 - 1.5 * q))


def simulate(n_speakers: int, q: float, rng: np.random.Generator):
    """One audit: (frame with the averaged statistics, per-row version statistics)."""
    rows, versions = [], {}
    for group, shift in (("reference", 0.0), ("group", GAP_LOGIT)):
        for s in range(n_speakers):
            p = _p(BASE_LOGIT + shift + rng.normal(0.0, SPEAKER_SD))
            for _k in range(ITEMS_PER_SPEAKER):
                truth = rng.integers(0, 3, LETTERS)
                model = np.where(
                    rng.random(LETTERS) < p, (truth + rng.integers(1, 3, LETTERS)) % 3, truth
                )
                errs = []
                for _a in range(2):
                    ann = np.where(
                        rng.random(LETTERS) < q, (truth + rng.integers(1, 3, LETTERS)) % 3, truth
                    )
                    errs.append(float((model != ann).sum()))
                per = pd.DataFrame(
                    {
                        "tone_expected": [float(LETTERS)] * 2,
                        "tone_dropped": [0.0, 0.0],
                        "tone_hallucinated": [0.0, 0.0],
                        "tone_wrong": errs,
                    }
                )
                if errs[0] != errs[1]:
                    versions[len(rows)] = per
                rows.append(
                    {
                        "group": group,
                        "speaker_id": f"{group}{s}",
                        "content_id": None,
                        **per.mean().to_dict(),
                    }
                )
    return pd.DataFrame(rows), versions


def _audits(n_speakers: int, q: float, first: int, last: int, bootstrap: int, seed: int):
    """Audits ``first..last-1`` of a row: per audit and analysis, (covered, CI width)."""
    from fairdesk.metrics import metric_specs
    from fairdesk.stats import compare_groups
    from fairdesk.stats.settings import AuditSettings

    truth = true_gap(q)
    out = []
    for a in range(first, last):
        rng = np.random.default_rng([seed, n_speakers, int(q * 1000), a])
        frame, versions = simulate(n_speakers, q, rng)
        specs = metric_specs(frame, ["ter"])
        settings = AuditSettings(n_bootstrap=bootstrap, min_items=2, min_speakers=2, seed=seed + a)
        got = {}
        for name, vs in (("resample", versions), ("averaged", None)):
            c = compare_groups(frame, specs, settings, reference="reference", versions=vs)
            c = c.comparisons[0]
            if c.ci_low is None or c.ci_high is None:
                got[name] = (False, float("nan"))
            else:
                got[name] = (bool(c.ci_low <= truth <= c.ci_high), c.ci_high - c.ci_low)
        out.append(got)
    return out


def run_row(n_speakers: int, q: float, audits: int, bootstrap: int, seed: int, workers: int):
    """Coverage and mean CI width of both analyses over ``audits`` simulated audits."""
    from concurrent.futures import ProcessPoolExecutor

    step = max(1, audits // max(1, workers * 4))
    chunks = [(a, min(audits, a + step)) for a in range(0, audits, step)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = pool.map(
                _audits,
                *zip(*[(n_speakers, q, a, b, bootstrap, seed) for a, b in chunks]),
            )
            results = [r for part in parts for r in part]
    else:
        results = [r for a, b in chunks for r in _audits(n_speakers, q, a, b, bootstrap, seed)]
    cov = {k: float(np.mean([r[k][0] for r in results])) for k in ("resample", "averaged")}
    width = {k: float(np.nanmean([r[k][1] for r in results])) for k in ("resample", "averaged")}
    return {"truth": true_gap(q), "coverage": cov, "width": width}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--audits", type=int, default=1000)
    ap.add_argument("--bootstrap", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="a few audits per row (CI)")
    ap.add_argument("--workers", type=int, default=1, help="processes (audits split among them)")
    args = ap.parse_args()
    audits = 4 if args.quick else args.audits
    bootstrap = 200 if args.quick else args.bootstrap
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"--audits {audits} --bootstrap {bootstrap} --seed {args.seed}; {os.cpu_count()} cores, "
        f"load average {load[0]:.2f}"
    )
    print(
        f"{LETTERS} marked letters × {ITEMS_PER_SPEAKER} items per speaker; model logit "
        f"{BASE_LOGIT} (+{GAP_LOGIT} in the group), speaker sd {SPEAKER_SD}; two annotators; "
        "target coverage of resample: 93-97%"
    )
    print(
        f"{'speakers':>8} {'q':>5} {'true gap':>9} {'resample cov.':>14} {'width':>7} "
        f"{'averaged cov.':>14} {'width':>7}"
    )
    t0 = time.perf_counter()
    for n in SPEAKERS:
        for q in QS:
            r = run_row(n, q, audits, bootstrap, args.seed, args.workers)
            print(
                f"{n:>8} {q:>5.2f} {100 * r['truth']:>8.2f}pp "
                f"{100 * r['coverage']['resample']:>13.1f}% {100 * r['width']['resample']:>6.2f}pp "
                f"{100 * r['coverage']['averaged']:>13.1f}% {100 * r['width']['averaged']:>6.2f}pp",
                flush=True,
            )
    print(f"run time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
