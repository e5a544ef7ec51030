"""Regression tests of demographic bias (docs/METHODS.md, "Regression"; Sekkat et al. 2024).

Logistic regression of a per-utterance binary outcome (exact match, or "recognised without
error") -- or a binomial GLM of word errors out of reference words -- on categorical
demographic variables, following the Sonos Voice Control Bias Assessment methodology:

* **univariate** models ``outcome ~ C(var, Treatment(reference=ref))``: odds ratios with Wald
  confidence intervals, Wald p per level, likelihood-ratio (LR) p against the null model and
  McFadden's pseudo-R²;
* **adjustment** of every variable A on every other variable B: LR test of ``C(A) + C(B)``
  against ``C(A)`` (df = levels(B) - 1); B is a *confounder* of A when that test is
  significant and at least one level of A changes its Wald conclusion at ``alpha``; the % change
  of each odds ratio of A is reported, and optionally the interaction model ``C(A) * C(B)``
  is tested against ``C(A) + C(B)``;
* **speaker-clustered** versions of the same models (beyond the paper, which assumes
  independent utterances): cluster-robust covariance on the same maximum-likelihood fit
  (``cluster_method="robust"``, the default) or a GEE with exchangeable working correlation
  (``cluster_method="gee"``). Under clustering there is no likelihood, so every LR test is
  replaced by a **Wald test of the same terms with the clustered covariance** (same df); the
  ``llr_p_value`` / ``lr_stat`` fields of the clustered section hold that Wald test;
* **independence** of each pair of demographic variables: Pearson χ² on the utterance cross
  table (``scipy.stats.chi2_contingency`` with its defaults, i.e. Yates' correction on 2×2
  tables), flagged "not valid" when any expected count is below 1 or more than 20% of cells
  expect fewer than 5.

With the plain option the numbers are those of ``statsmodels.formula.api.logit`` (or
``statsmodels.api.GLM`` with a binomial family on ``(errors, words - errors)``) on the same
rows. The entry point is :func:`run_regression`; results are frozen dataclasses whose
``to_dict()`` is JSON-ready (NaN -> None).

One module per family: :mod:`.univariate`, :mod:`.adjusted` (confounding and interactions),
:mod:`.independence`, :mod:`.conclusions` (the level a conclusion names; the sentences are
written by fairdesk.presentation.regression_words), :mod:`.descriptive` (Sekkat et al.'s χ², ANOVA,
cross-tables and per-speaker spread), :mod:`.linear` (OLS of WER on covariates, docs/METHODS.md, "Regression of WER on covariates (OLS)") and
:mod:`.poisson_mixed` / :mod:`.poisson_mixed_report` (the mixed-effects Poisson model of word
errors, Liu, Veliche and Peng 2022); :mod:`.fits` holds the plain and speaker-clustered
fits they share, :mod:`.data` the preparation of the frame, :mod:`.results` the result objects.
"""

from .fits import CLUSTER_METHODS
from .poisson_mixed_report import (
    BootstrapAgreement,
    MixedPoissonResult,
    agreement_with_bootstrap,
    run_poisson_mixed,
)
from .results import (
    AdjustmentResult,
    ClusteredResult,
    IndependenceResult,
    LevelEffect,
    RegressionResult,
    UnivariateResult,
)
from .run import run_regression

__all__ = [
    "CLUSTER_METHODS",
    "AdjustmentResult",
    "BootstrapAgreement",
    "ClusteredResult",
    "IndependenceResult",
    "LevelEffect",
    "MixedPoissonResult",
    "RegressionResult",
    "UnivariateResult",
    "agreement_with_bootstrap",
    "run_poisson_mixed",
    "run_regression",
]
