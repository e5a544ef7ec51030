"""Coverage of the 95% CIs on simulated audits with known truth (METHODS.md §9).

Prints scheme, design, speakers per group, coverage of the true WER gap and mean CI width.
Run: ``.venv/bin/python bench/stats_coverage.py [--audits 300] [--bootstrap 500] [--quick]``.
"""

from __future__ import annotations

import argparse
import time

from fairdesk.stats.simulation import coverage_study, familywise_study

CASES = [
    # (label, design, speakers, resampling, extra simulate_audit arguments, §9 target)
    ("two-way", "matched", 12, "auto", {}, "94-99%"),
    ("two-way", "matched", 40, "auto", {}, "94-99%"),
    ("speaker", "unmatched", 12, "auto", {"utterances_per_speaker": 15}, "93-97%"),
    ("speaker", "unmatched", 20, "auto", {"utterances_per_speaker": 15}, "93-97%"),
    ("speaker", "unmatched", 40, "auto", {"utterances_per_speaker": 15}, "93-97%"),
    ("utterance", "independent", None, "auto", {"n_utterances": 400}, "93-97%"),
    # §3's argument against pairing by content alone when speakers are known
    ("content (conditional)", "matched", 12, "content", {}, "§3: 67-75%"),
    ("content (conditional)", "matched", 40, "content", {}, "§3: 67-75%"),
    ("speaker only", "matched", 12, "speaker", {}, "§3: 91-93%"),
    ("speaker only", "matched", 40, "speaker", {}, "§3: 91-93%"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--audits", type=int, default=300)
    ap.add_argument("--bootstrap", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="only the four §9 schemes")
    args = ap.parse_args()
    cases = CASES[:6] if args.quick else CASES
    print(
        f"{args.audits} audits per row, {args.bootstrap} resamples, true gap from "
        "2,000,000 Monte Carlo draws; logit effect 0.3, base -1.7"
    )
    head = (
        f"{'scheme':<22} {'design':<12} {'speakers':>8} {'coverage':>9} "
        f"{'mean CI width':>14} {'target':>11} {'time':>7}"
    )
    print(head)
    print("-" * len(head))
    for i, (label, design, spk, resampling, extra, target) in enumerate(cases):
        t0 = time.perf_counter()
        r = coverage_study(
            design,
            speakers_per_group=spk or 12,
            n_audits=args.audits,
            n_bootstrap=args.bootstrap,
            seed=args.seed + 1000 * i,
            resampling=resampling,
            **extra,
        )
        dt = time.perf_counter() - t0
        print(
            f"{label:<22} {design:<12} {spk if spk else '-':>8} {r['coverage']:>9.1%} "
            f"{r['mean_width']:>14.4f} {target:>11} {dt:>6.1f}s",
            flush=True,
        )
    t0 = time.perf_counter()
    f = familywise_study(n_groups=10, n_audits=args.audits, n_bootstrap=max(1000, args.bootstrap))
    print(
        f"\nall-null audits, 10 groups × 3 metrics ({f['comparisons']} comparisons, "
        f"{max(1000, args.bootstrap)} resamples, two-way): any disparity_detected in "
        f"{f['any_disparity']:.1%} of {f['n_audits']} audits (target ≤ 5%), any p_adjusted "
        f"< alpha in {f['any_significant']:.1%}; {time.perf_counter() - t0:.0f}s"
    )


if __name__ == "__main__":
    main()
