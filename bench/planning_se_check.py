"""Where the matched (two-way) plan's power goes (docs/METHODS.md, "Recording plan"):
per simulated pilot, the plan's SE at k* beside what audits at k* really give, side by side.

For --pilots pilots of 12 speakers per group (the §9 model, a true WER gap equal to the
practical threshold): the plan's SE(k*) (the two-way bootstrap's variance on subsets of the
pilot's speakers, fitted over k), the mean two-way bootstrap SE of --audits audits simulated
at k* speakers per group (what their test uses) and the true SD of their gaps. Run:
``.venv/bin/python bench/planning_se_check.py [--design matched] [--pilots 6] [--audits 40]``.

Measured on this machine's 2 shared cores (6 pilots × 40 audits, 13 s), matched: plan SE(k*)
0.0149-0.0150 (the target gap / z-factor) against a bootstrap SE at k* of 0.0137-0.0173 (mean
0.0156) and a true SD of 0.0104-0.0157 (mean 0.0129). The plan predicts the audits' own SE;
that SE exceeds the true SD by about a fifth (the two-way bootstrap counts the speaker ×
sentence noise more than once), which is why bench/planning_power.py finds the matched
plan's power above 80% (83.1%). Before the subset fit (drawing k > k_p speakers with
replacement) the plan's SE(k*) was 0.0151 where audits at k* gave 0.0088-0.0130.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fairdesk.stats.compare import compare_groups
from fairdesk.stats.plans import resampling_plan
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.simulation import _study_specs, simulate_audit, true_values

try:
    from planning_power import DESIGNS, _effect_for_gap
except ImportError:  # run from the repository root
    from bench.planning_power import DESIGNS, _effect_for_gap


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--design", choices=sorted(DESIGNS), default="matched")
    ap.add_argument("--pilots", type=int, default=6)
    ap.add_argument("--audits", type=int, default=40)
    ap.add_argument("--bootstrap", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    specs = [s for s in _study_specs() if s.id == "wer"]
    ref = true_values(0.0, n_draws=400_000)["wer"]
    gap = min(0.05, 0.25 * ref)
    effect = _effect_for_gap(gap, ref)
    rng = np.random.default_rng(a.seed)
    sim = DESIGNS[a.design]
    st = AuditSettings(n_bootstrap=a.bootstrap, seed=0, min_items=1, min_speakers=1)
    t0 = time.perf_counter()
    print(f"{a.design}: gap {gap:.4f}; pilots of 12 speakers per group, m = 1, power 0.8")
    print(f"{'pilot':>5}{'SE pilot':>10}{'k*':>5}{'closed k':>9}{'plan SE(k*)':>13}"
          f"{'boot SE at k*':>15}{'true SD at k*':>15}")  # fmt: skip
    for i in range(a.pilots):
        f = simulate_audit(rng, {"ref": 0.0, "grp": effect}, design=a.design, **sim)
        res = compare_groups(f, specs, st, reference="ref")
        cp = resampling_plan(
            f, res, {s.id: s for s in specs}, gap=gap, which=[("wer", "grp")], seed=i
        ).comparisons[0]
        k = cp.speakers_needed
        if k is None:
            print(f"{i:>5}  no plan reaches the gap")
            continue
        gaps, ses = [], []
        for j in range(a.audits):
            x = simulate_audit(
                rng, {"ref": 0.0, "grp": effect}, design=a.design, speakers_per_group=k, **sim
            )
            s2 = AuditSettings(n_bootstrap=a.bootstrap, seed=j, min_items=1, min_speakers=1)
            c = compare_groups(x, specs, s2, reference="ref").comparisons[0]
            gaps.append(c.gap)
            ses.append(c.mde / 2.8016)
        se_k = next(p.se for p in cp.curve if p.k == k)
        print(f"{i:>5}{res.comparisons[0].mde / 2.8016:>10.4f}{k:>5}{cp.closed_form_k or 0:>9}"
              f"{se_k:>13.4f}{np.mean(ses):>15.4f}{np.std(gaps, ddof=1):>15.4f}")  # fmt: skip
    print(f"run time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
