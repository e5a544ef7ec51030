"""Speaker-clustered inference: equals statsmodels directly; keeps the size of the test."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

from fairdesk.stats.regression import run_regression

TOL = 1e-6


def test_cluster_robust_equals_statsmodels(small_frame):
    res = run_regression(small_frame, "em", ["age", "accent"], cluster="speaker_id")
    assert res.clustered is not None and res.clustered.method == "robust"
    plain, clus = res.univariate[0], res.clustered.univariate[0]
    ref = plain.reference
    groups = pd.factorize(small_frame["speaker_id"])[0]
    fit = smf.logit(f"em ~ C(age, Treatment(reference='{ref}'))", small_frame).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": groups}
    )
    names = [f"C(age, Treatment(reference='{ref}'))[T.{lev.level}]" for lev in clus.levels]
    for lev, lev_plain, name in zip(clus.levels, plain.levels, names, strict=True):
        assert lev.odds_ratio == pytest.approx(lev_plain.odds_ratio, abs=TOL)  # same MLE
        assert lev.p_value == pytest.approx(fit.pvalues[name], abs=TOL, rel=TOL)
        assert lev.ci_low == pytest.approx(np.exp(fit.conf_int().loc[name, 0]), abs=TOL)
    # the clustered "LR" is a Wald test of all the age terms with the clustered covariance
    b = fit.params[names].to_numpy()
    v = fit.cov_params().loc[names, names].to_numpy()
    stat = float(b @ np.linalg.solve(v, b))
    assert clus.test == "wald" and clus.df == 2
    assert clus.llr_stat == pytest.approx(stat, rel=TOL)
    assert clus.llr_p_value == pytest.approx(stats.chi2.sf(stat, 2), abs=TOL)
    # adjustment: Wald test of the accent terms in C(age) + C(accent)
    adj = res.clustered.adjustments[0]
    assert (adj.variable, adj.adjusted_on, adj.df, adj.test) == ("age", "accent", 3, "wald")
    acc_ref = res.univariate[1].reference
    both = smf.logit(
        f"em ~ C(age, Treatment(reference='{ref}')) + C(accent, Treatment(reference='{acc_ref}'))",
        small_frame,
    ).fit(disp=0, cov_type="cluster", cov_kwds={"groups": groups})
    acc = [n for n in both.params.index if n.startswith("C(accent")]
    w = both.wald_test(
        np.eye(len(both.params))[[both.params.index.get_loc(n) for n in acc]],
        scalar=True,
        use_f=False,
    )
    assert adj.lr_stat == pytest.approx(float(w.statistic), rel=TOL)
    assert adj.p_value == pytest.approx(float(w.pvalue), abs=TOL)


def test_gee_equals_statsmodels(small_frame):
    res = run_regression(small_frame, "em", ["age"], cluster="speaker_id", cluster_method="gee")
    clus = res.clustered.univariate[0]
    ref = clus.reference
    fit = smf.gee(
        f"em ~ C(age, Treatment(reference='{ref}'))",
        groups=pd.factorize(small_frame["speaker_id"])[0],
        data=small_frame,
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Exchangeable(),
    ).fit(maxiter=100)
    for lev in clus.levels:
        name = f"C(age, Treatment(reference='{ref}'))[T.{lev.level}]"
        assert lev.odds_ratio == pytest.approx(np.exp(fit.params[name]), rel=1e-5)
        assert lev.p_value == pytest.approx(fit.pvalues[name], rel=1e-4, abs=1e-6)


def test_gee_binomial_runs_on_word_rows(small_frame):
    res = run_regression(
        small_frame,
        "wer",
        ["accent"],
        cluster="speaker_id",
        cluster_method="gee",
        binomial=("n_errors", "n_words"),
    )
    clus = res.clustered.univariate[0]
    assert clus.problem is None and len(clus.levels) == 3
    assert all(np.isfinite([lev.odds_ratio, lev.p_value]).all() for lev in clus.levels)


@pytest.mark.parametrize(("method", "n_sets"), [("robust", 200), ("gee", 150)])
def test_clustering_keeps_the_size_under_speaker_effects(make_clustered_null, method, n_sets):
    """40 speakers x 30 utterances, speaker sd 1.0 on the logit, a speaker-level variable with no
    effect: the plain logit rejects far more often than alpha, the clustered test stays near it.
    Measured (seed 20240501): robust 200 sets plain 0.435 / clustered 0.055; GEE 150 sets plain
    0.420 / clustered 0.080."""
    rng = np.random.default_rng(20240501)
    start = time.perf_counter()
    plain = clustered = 0
    for _ in range(n_sets):
        res = run_regression(
            make_clustered_null(rng), "em", ["group"], cluster="speaker_id", cluster_method=method
        )
        plain += res.univariate[0].llr_p_value < 0.05
        clustered += res.clustered.univariate[0].llr_p_value < 0.05
    rate_plain, rate_clustered = plain / n_sets, clustered / n_sets
    print(
        f"{method}: plain {rate_plain:.3f}, clustered {rate_clustered:.3f}, "
        f"{time.perf_counter() - start:.1f}s"
    )
    assert rate_plain > 0.25
    assert rate_clustered <= 0.10
