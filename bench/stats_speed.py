"""Speed of the fairness statistics: fairdesk's vectorised bootstrap vs a straightforward loop.

20,000 items, two grouping keys (8 accents × 2 genders = 16 groups), 4 metrics (WER,
substitution rate, deletion rate, exact match), 2,000 resamples, in a matched design
(two-way bootstrap) and an unmatched one (speaker bootstrap).

The baseline is what one would write first: for every replicate, draw the blocks with
replacement, build the resampled frame row by row (``df.loc[np.repeat(...)]``), recompute
every group's metrics with a pandas ``groupby().sum()`` and the gaps to the reference. It is
run for fewer replicates and scaled linearly to 2,000 (stated in the output).

Run: ``.venv/bin/python bench/stats_speed.py [--loop-reps 40]``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats import AuditSettings, compare_groups, slice_frame
from fairdesk.stats.simulation import simulate_audit

B = 2000
STATS = ["n_sub", "n_del", "n_ins", "n_words", "em", "n_items"]
SPECS = [
    ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"]),
    ratio_metric("sub_rate", "Substitution rate", ["n_sub"], ["n_words"]),
    ratio_metric("del_rate", "Deletion rate", ["n_del"], ["n_words"]),
    ratio_metric(
        "em", "Exact match", ["em"], ["n_items"], higher_is_better=True, kind="proportion"
    ),
]


def make_frame(design: str, seed: int = 0) -> pd.DataFrame:
    """16 groups × 25 speakers × 50 utterances = 20,000 items."""
    rng = np.random.default_rng(seed)
    accents = [f"acc{i}" for i in range(8)]
    effects = {f"{a}|{g}": 0.1 * i for i, a in enumerate(accents) for g in ("f", "m")}
    df = simulate_audit(
        rng,
        effects,
        design=design,
        speakers_per_group=25,
        n_sentences=50,
        utterances_per_speaker=50,
    )
    df[["accent", "gender"]] = df["group"].str.split("|", expand=True)
    return slice_frame(df.drop(columns="group"), ["accent", "gender"])


def _metrics(sums: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "wer": (sums.n_sub + sums.n_del + sums.n_ins) / sums.n_words,
            "sub_rate": sums.n_sub / sums.n_words,
            "del_rate": sums.n_del / sums.n_words,
            "em": sums.em / sums.n_items,
        }
    )


def loop_bootstrap(
    df: pd.DataFrame, design: str, n_rep: int, reference: str, seed: int = 0
) -> np.ndarray:
    """The straightforward baseline: one pandas resample + groupby per replicate."""
    rng = np.random.default_rng(seed)
    groups = sorted(df["group"].unique())
    spk_by_group = {g: df.loc[df.group == g, "speaker_id"].unique() for g in groups}
    contents = df["content_id"].unique()
    gaps = []
    for _ in range(n_rep):
        # speakers with replacement within every group
        spk_count = pd.Series(0.0, index=df["speaker_id"].unique())
        for g in groups:
            drawn = rng.choice(spk_by_group[g], size=len(spk_by_group[g]), replace=True)
            spk_count = spk_count.add(pd.Series(drawn).value_counts(), fill_value=0)
        weight = df["speaker_id"].map(spk_count).to_numpy()
        if design == "matched":  # two-way: the same content draw for every group
            drawn = rng.choice(contents, size=len(contents), replace=True)
            c_count = pd.Series(drawn).value_counts()
            weight = weight * df["content_id"].map(c_count).fillna(0).to_numpy()
        resampled = df.loc[np.repeat(df.index.to_numpy(), weight.astype(int))]
        values = _metrics(resampled.groupby("group")[STATS].sum())
        gaps.append((values.drop(index=reference) - values.loc[reference]).to_numpy())
    return np.array(gaps)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--loop-reps",
        type=int,
        default=40,
        help="replicates the baseline actually runs (scaled to 2,000)",
    )
    args = ap.parse_args()
    print(f"cpu cores visible: {os.cpu_count()}; B = {B}; 4 metrics; 16 groups; 20,000 items")
    settings = AuditSettings(n_bootstrap=B)
    for design in ("matched", "unmatched"):
        df = make_frame(design)
        assert len(df) == 20_000 and df["group"].nunique() == 16
        compare_groups(df.iloc[:2000], SPECS, AuditSettings(n_bootstrap=200))  # warm-up
        t0 = time.perf_counter()
        res = compare_groups(df, SPECS, settings)
        t_fd = time.perf_counter() - t0
        est = {c.estimator for c in res.comparisons}
        t0 = time.perf_counter()
        loop_bootstrap(df, design, args.loop_reps, res.reference)
        t_loop = (time.perf_counter() - t0) * B / args.loop_reps
        verdicts = pd.Series([c.verdict for c in res.comparisons]).value_counts().to_dict()
        print(
            f"\n{design} design ({'/'.join(sorted(est))} bootstrap), "
            f"{len(res.comparisons)} comparisons"
        )
        print(
            f"  fairdesk compare_groups (full audit: CIs, p, Holm, MDE, jackknife, "
            f"verdicts): {t_fd:7.2f} s"
        )
        print(
            f"  pandas loop, {args.loop_reps} replicates scaled ×{B / args.loop_reps:.0f} "
            f"to {B} (resampling + gaps only): {t_loop:7.1f} s"
        )
        print(f"  speed-up: {t_loop / t_fd:6.0f}×   verdicts: {verdicts}")


if __name__ == "__main__":
    main()
