"""Speed of the fairness statistics: fairdesk's vectorised bootstrap vs a straightforward loop.

20,000 items, two grouping keys (8 accents × 2 genders = 16 groups), 4 metrics (WER,
substitution rate, deletion rate, exact match), 2,000 resamples, in a matched design
(two-way bootstrap) and an unmatched one (speaker bootstrap).

Two baselines, both drawing one joint replicate for all groups (speakers within each group,
and in the matched design one content draw shared by every group) and computing every group's
metrics and its gaps to the reference:

* *naive loop*: what one would write first: build the resampled frame row by row
  (``df.loc[np.repeat(...)]``) and ``groupby().sum()`` it. Run for fewer replicates and
  scaled linearly to 2,000 (stated in the output).
* *vectorised*: what a careful analyst would write: sum the items into the blocks that are
  redrawn ((speaker, content) cells, or speakers), factorize them once; per replicate, turn the draws into per-item weights (``bincount``) and get every
  group's sums with one weighted ``bincount`` per statistic. Run for all 2,000 replicates; on
  the first replicates it is checked to give the naive loop's gaps (same seed, same draws).

Neither baseline does what fairdesk's ``compare_groups`` also does (per-comparison draws,
per-group CIs, p-values, Holm, MDE, the speaker jackknife, verdicts), so the speed-up is a
lower bound of the work saved, not a like-for-like race.

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


def vectorised_bootstrap(
    df: pd.DataFrame, design: str, n_rep: int, reference: str, seed: int = 0
) -> np.ndarray:
    """The competent baseline: block sums once; per replicate, block weights by ``bincount``
    and per-group sums by weighted ``bincount``; the same draws (and so the same gaps) as :func:`loop_bootstrap`."""
    rng = np.random.default_rng(seed)
    # sum the items once into the blocks a replicate redraws: (speaker, content) cells for the
    # two-way scheme, speakers for the speaker scheme (first-appearance order is kept, so the
    # draws below stay those of the loop)
    keys = ["group", "speaker_id"] + (["content_id"] if design == "matched" else [])
    df = df.groupby(keys, sort=False)[STATS].sum().reset_index()
    if design != "matched":
        df["content_id"] = np.arange(len(df))  # unused: no content draw
    g_codes, groups = pd.factorize(df["group"], sort=True)
    s_codes, speakers = pd.factorize(df["speaker_id"])
    c_codes, contents = pd.factorize(df["content_id"])
    n_g, n_s, n_c = len(groups), len(speakers), len(contents)
    x = df[STATS].to_numpy(dtype=float)
    spk_group = np.empty(n_s, dtype=int)
    spk_group[s_codes] = g_codes
    spk_of = [np.flatnonzero(spk_group == g) for g in range(n_g)]  # first-appearance order
    ref = list(groups).index(reference)
    j = {c: i for i, c in enumerate(STATS)}
    gaps = np.empty((n_rep, n_g - 1, 4))
    for r in range(n_rep):
        spk_w = np.zeros(n_s)
        for members in spk_of:
            spk_w += np.bincount(
                members[rng.integers(0, members.size, members.size)], minlength=n_s
            )
        w = spk_w[s_codes]
        if design == "matched":
            w = w * np.bincount(rng.integers(0, n_c, n_c), minlength=n_c)[c_codes]
        sums = np.stack(
            [np.bincount(g_codes, weights=w * x[:, k], minlength=n_g) for k in range(x.shape[1])],
            axis=1,
        )
        words, items = sums[:, j["n_words"]], sums[:, j["n_items"]]
        vals = np.stack(
            [
                (sums[:, j["n_sub"]] + sums[:, j["n_del"]] + sums[:, j["n_ins"]]) / words,
                sums[:, j["n_sub"]] / words,
                sums[:, j["n_del"]] / words,
                sums[:, j["em"]] / items,
            ],
            axis=1,
        )
        gaps[r] = np.delete(vals - vals[ref], ref, axis=0)
    return gaps


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
        loop_gaps = loop_bootstrap(df, design, args.loop_reps, res.reference)
        t_loop = (time.perf_counter() - t0) * B / args.loop_reps
        t0 = time.perf_counter()
        vec_gaps = vectorised_bootstrap(df, design, B, res.reference)
        t_vec = time.perf_counter() - t0
        same = np.allclose(vec_gaps[: args.loop_reps], loop_gaps, rtol=0, atol=1e-12)
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
            f"  vectorised numpy baseline, {B} replicates (resampling + gaps only): "
            f"{t_vec:7.2f} s   (gaps equal the naive loop's on its {args.loop_reps} "
            f"replicates: {same})"
        )
        print(
            f"  naive pandas loop, {args.loop_reps} replicates scaled ×{B / args.loop_reps:.0f} "
            f"to {B} (resampling + gaps only): {t_loop:7.1f} s"
        )
        print(
            f"  speed-up of fairdesk: {t_vec / t_fd:5.1f}× against the vectorised baseline, "
            f"{t_loop / t_fd:5.0f}× against the naive loop   verdicts: {verdicts}"
        )


if __name__ == "__main__":
    main()
