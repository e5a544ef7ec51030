"""Coverage of the mixed-effects Poisson model's rate-ratio interval beside the bootstrap's.

Simulated audits with known truth (issue 17). Two groups (``ref``, ``grp``), S speakers per
group, 15 utterances per speaker with 5–11 reference words, each utterance its own sentence:

    errors ~ Poisson(N · exp(-1.7 + β·[grp] + γ·(duration − 4) + u_speaker)),
    u_speaker ~ N(0, sd²),

so the population WER ratio of ``grp`` to ``ref`` is exp(β) (words are independent of
everything else) and both methods estimate the same number: the model's rate ratio, and the
bootstrap's pooled-WER ratio. Rows:

* ``effect``: β = 0.3, γ = 0: coverage of exp(β) by the 95% interval and the mean width of
  the interval of the *log* ratio (``--datasets``); ``null``: β = 0: share of datasets with
  p < 0.05 (``--nulls``, more of them: a rejection rate near 5% needs ~1,000 to be read to
  ±1.4%). ``n`` is effect/null datasets (or both, one of each per dataset, for §9 rows).
* ``nuisance``: β = 0, γ = 0.15 per second, and ``grp`` reads longer utterances (10–25
  words vs 5–11, at 2–3.5 words per second): the gap in pooled WER is real but comes from
  duration. Model without duration vs with duration as a covariate (coverage of the group
  rate ratio 1, rejection of β = 0); the bootstrap (which has no covariates) rejects too.
* ``§9 world``: METHODS.md §9's binomial-logit audits (speaker sd 0.3, sentence sd 0.5, logit
  effect 0.3), a misspecified model for the Poisson fit; truth: the ratio of population
  pooled WERs. ``unmatched`` (speaker scheme) and ``matched`` (30 shared sentences: content
  as a fixed effect in the model, two-way scheme in the bootstrap).

The bootstrap is the audit's own (``fairdesk.stats.bootstrap.bootstrap_pair`` with the
scheme ``choose_scheme`` picks: speaker, or two-way for matched), 1,000 resamples: its
interval here is the percentile interval of the log pooled-WER ratio from the same
replicates as the audit's gap, and its test the audit's gap test (``bootstrap_p``; gap = 0
⇔ ratio = 1). ``vb``: statsmodels' ``PoissonBayesMixedGLM`` (variational Bayes; log words
as a covariate, since it takes no offset), posterior mean ± 1.96 posterior SD, on fewer
datasets and 12 speakers per group only (``--vb``; it takes seconds per fit with 40).

Run: ``nice -n 15 .venv/bin/python bench/poisson_mixed_coverage.py [--datasets 400]``.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from fairdesk.stats.bootstrap import Side, bootstrap_pair, choose_scheme, content_design
from fairdesk.stats.formulas import bootstrap_p
from fairdesk.stats.regression.poisson_mixed_report import run_poisson_mixed
from fairdesk.stats.simulation import simulate_audit, true_values

BASE = -1.7
EFFECT = 0.3


def simulate(rng, speakers, sd, effect, *, nuisance=False, per_speaker=15, gamma=0.15):
    """One two-group audit frame from the Poisson model (see the module docstring)."""
    rows = []
    for g, eff in (("ref", 0.0), ("grp", effect)):
        lo, hi = (10, 26) if (nuisance and g == "grp") else (5, 12)
        n = speakers * per_speaker
        si = np.repeat(np.arange(speakers), per_speaker)
        words = rng.integers(lo, hi, n)
        duration = words / rng.uniform(2.0, 3.5, n)
        u = rng.normal(0.0, sd, speakers)[si]
        slope = gamma if nuisance else 0.0
        err = rng.poisson(words * np.exp(BASE + eff + slope * (duration - 4.0) + u))
        split = rng.multinomial(err, (0.6, 0.25, 0.15))
        rows.append(
            pd.DataFrame(
                {
                    "group": g,
                    "speaker_id": [f"{g}/s{i}" for i in si],
                    "content_id": [f"{g}/u{i}" for i in range(n)],
                    "n_words": words,
                    "n_sub": split[:, 0],
                    "n_del": split[:, 1],
                    "n_ins": split[:, 2],
                    "duration": duration,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def boot(frame, seed, n_rep=1000):
    """The audit's bootstrap: (log-ratio percentile CI, gap p-value, scheme)."""
    stats = np.column_stack([frame[["n_sub", "n_del", "n_ins"]].sum(axis=1), frame["n_words"]])
    spk = pd.factorize(frame["speaker_id"])[0]
    cont = pd.factorize(frame["content_id"])[0]
    sides = {}
    for g in ("grp", "ref"):
        m = (frame["group"] == g).to_numpy()
        sides[g] = Side(stats=stats[m].astype(float), speakers=spk[m], contents=cont[m])
    _, n_shared, _ = content_design(sides["grp"], sides["ref"])
    scheme = choose_scheme(True, n_shared)
    pb = bootstrap_pair(sides["grp"], sides["ref"], scheme, n_rep, np.random.default_rng(seed))
    v, rv = pb.group_point[0] / pb.group_point[1], pb.reference_point[0] / pb.reference_point[1]
    gv = pb.group_reps[:, 0] / pb.group_reps[:, 1]
    rvs = pb.reference_reps[:, 0] / pb.reference_reps[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.log(gv / rvs)
    lr = lr[np.isfinite(lr)]
    lo, hi = np.percentile(lr, [2.5, 97.5])
    return lo, hi, bootstrap_p(v - rv, gv - rvs), scheme


def vb_fit(frame):
    """PoissonBayesMixedGLM: (log rate ratio, posterior SD)."""
    from statsmodels.genmod.bayes_mixed_glm import PoissonBayesMixedGLM

    d = frame.assign(
        y=frame[["n_sub", "n_del", "n_ins"]].sum(axis=1),
        logn=np.log(frame["n_words"]),
        grp=(frame["group"] == "grp") * 1.0,
    )
    model = PoissonBayesMixedGLM.from_formula("y ~ grp + logn", {"speaker": "0 + C(speaker_id)"}, d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = model.fit_vb()
    j = list(model.exog_names).index("grp")
    return float(r.fe_mean[j]), float(r.fe_sd[j])


class Tally:
    def __init__(self):
        self.hit, self.width, self.rej, self.n, self.n0 = 0, [], 0, 0, 0

    def cover(self, lo, hi, truth):
        self.n += 1
        self.hit += lo <= truth <= hi
        self.width.append(hi - lo)

    def reject(self, p):
        self.n0 += 1
        self.rej += p < 0.05

    def cells(self):
        cov = f"{self.hit / self.n:.1%}" if self.n else "-"
        wid = f"{np.mean(self.width):.3f}" if self.n else "-"
        rej = f"{self.rej / self.n0:.1%}" if self.n0 else "-"
        return cov, wid, rej


def level(res, var="group", lev="grp"):
    g = next(g for g in res["group_variables"] if g["variable"] == var)
    return next(r for r in g["levels"] if r["level"] == lev)


def run_poisson_rows(args, rows):
    for cfg_i, (spk, sd) in enumerate([(12, 0.3), (40, 0.3), (12, 1.0), (40, 1.0)]):
        t0 = time.perf_counter()
        rng = np.random.default_rng(args.seed + cfg_i)
        model, bs, vb = Tally(), Tally(), Tally()
        sds, over = [], []
        for i in range(max(args.datasets, args.nulls)):
            effects = ((EFFECT,) if i < args.datasets else ()) + ((0.0,) if i < args.nulls else ())
            for eff in effects:
                f = simulate(rng, spk, sd, eff)
                r = run_poisson_mixed(f, "group", reference="ref", content_col=None).to_json()
                lv = level(r)
                lo, hi, p, _ = boot(f, seed=i)
                if eff:
                    model.cover(math.log(lv["ci_low"]), math.log(lv["ci_high"]), eff)
                    bs.cover(lo, hi, eff)
                    sds.append(r["speaker_sd"])
                    over.append(r["overdispersion"]["ratio"])
                else:
                    model.reject(lv["p_value"])
                    bs.reject(p)
                if i < args.vb and spk <= 12:  # VB is slow with 40 speakers
                    b, s = vb_fit(f)
                    if eff:
                        vb.cover(b - 1.96 * s, b + 1.96 * s, eff)
                    else:
                        vb.reject(2 * (1 - _phi(abs(b / s))))
        dt = time.perf_counter() - t0
        note = f"σ̂ {np.mean(sds):.2f}, χ²/df {np.mean(over):.2f}"
        rows.append(
            (
                "Poisson, effect/null",
                spk,
                sd,
                f"{args.datasets}/{args.nulls}",
                model.cells(),
                bs.cells(),
                vb.cells() if vb.n else None,
                args.vb,
                note,
                dt,
            )
        )
        print_row(rows[-1])


def _phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def run_nuisance_rows(args, rows):
    for cfg_i, (spk, sd) in enumerate([(12, 0.3), (40, 1.0)]):
        t0 = time.perf_counter()
        rng = np.random.default_rng(args.seed + 100 + cfg_i)
        plain, adj, bs = Tally(), Tally(), Tally()
        for i in range(args.nuisance):
            f = simulate(rng, spk, sd, 0.0, nuisance=True)
            r = run_poisson_mixed(
                f, "group", ["duration"], reference="ref", content_col=None
            ).to_json()
            lv = level(r)
            adj.cover(math.log(lv["ci_low"]), math.log(lv["ci_high"]), 0.0)
            adj.reject(lv["p_value"])
            plain.reject(r["tracing"][0]["levels"][0]["p_before"])
            _, _, p, _ = boot(f, seed=i)
            bs.reject(p)
        dt = time.perf_counter() - t0
        rows.append(
            (
                "nuisance: no duration",
                spk,
                sd,
                args.nuisance,
                plain.cells(),
                bs.cells(),
                None,
                0,
                "bootstrap: gap is real, from duration",
                dt / 2,
            )
        )
        print_row(rows[-1])
        rows.append(
            (
                "nuisance: + duration",
                spk,
                sd,
                args.nuisance,
                adj.cells(),
                bs.cells(),
                None,
                0,
                "true group rate ratio 1",
                dt / 2,
            )
        )
        print_row(rows[-1])


def run_s9_rows(args, rows):
    truth = math.log(true_values(EFFECT)["wer"] / true_values(0.0)["wer"])
    for cfg_i, (design, spk) in enumerate(
        [("unmatched", 12), ("unmatched", 40), ("matched", 12), ("matched", 40)]
    ):
        t0 = time.perf_counter()
        rng = np.random.default_rng(args.seed + 200 + cfg_i)
        model, bs = Tally(), Tally()
        over = []
        for i in range(args.s9):
            for eff in (EFFECT, 0.0):
                f = simulate_audit(
                    rng,
                    {"ref": 0.0, "grp": eff},
                    design=design,
                    speakers_per_group=spk,
                    utterances_per_speaker=15,
                )
                r = run_poisson_mixed(f, "group", reference="ref").to_json()
                lv = level(r)
                lo, hi, p, scheme = boot(f, seed=i)
                if eff:
                    model.cover(math.log(lv["ci_low"]), math.log(lv["ci_high"]), truth)
                    bs.cover(lo, hi, truth)
                    over.append(r["overdispersion"]["ratio"])
                else:
                    model.reject(lv["p_value"])
                    bs.reject(p)
        dt = time.perf_counter() - t0
        rows.append(
            (
                f"validation world, {design}",
                spk,
                0.3,
                args.s9,
                model.cells(),
                bs.cells(),
                None,
                0,
                f"content {r['content']['handling']}, {scheme}; χ²/df {np.mean(over):.2f}",
                dt,
            )
        )
        print_row(rows[-1])


HEAD = (
    f"{'scenario':<24} {'spk':>3} {'sd':>4} {'n':>8} | {'model cov':>9} {'width':>6} "
    f"{'rej':>6} | {'boot cov':>8} {'width':>6} {'rej':>6} | {'vb cov':>7} {'width':>6} "
    f"{'rej':>6} | notes"
)


def print_row(row):
    name, spk, sd, n, m, b, v, nvb, note, dt = row
    vbc = f"{v[0]:>7} {v[1]:>6} {v[2]:>6}" if v else f"{'':>7} {'':>6} {'':>6}"
    if v:
        note = f"vb on {nvb}; {note}"
    print(
        f"{name:<24} {spk:>3} {sd:>4} {n!s:>8} | {m[0]:>9} {m[1]:>6} {m[2]:>6} | {b[0]:>8} "
        f"{b[1]:>6} {b[2]:>6} | {vbc} | {note} ({dt:.0f}s)",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", type=int, default=300, help="effect datasets per Poisson config")
    ap.add_argument("--nulls", type=int, default=1000, help="null datasets per Poisson config")
    ap.add_argument("--nuisance", type=int, default=200)
    ap.add_argument("--s9", type=int, default=150)
    ap.add_argument(
        "--vb", type=int, default=50, help="datasets per 12-speaker config for the VB column"
    )
    ap.add_argument("--seed", type=int, default=17)
    args = ap.parse_args()
    print(
        "mixed Poisson (AGHQ 15 nodes, Wald-t) vs speaker/two-way bootstrap (1,000 "
        "resamples) vs PoissonBayesMixedGLM (VB); 15 utterances per speaker; widths are of "
        "the 95% interval of the log rate ratio; rej = share with p < 0.05 under β = 0"
    )
    print(HEAD)
    print("-" * len(HEAD))
    rows: list = []
    t0 = time.perf_counter()
    with threadpool_limits(limits=1):  # one BLAS thread: small matrices, shared machine
        run_poisson_rows(args, rows)
        run_nuisance_rows(args, rows)
        run_s9_rows(args, rows)
    print(f"total {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
