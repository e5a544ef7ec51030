"""The entry point, :func:`run_regression`: every family of test on one frame."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations, permutations
from typing import Any

import numpy as np
import pandas as pd

from ..notices import Notice, notice
from .adjusted import _adjustment
from .codes import BINOMIAL_UNCLUSTERED, SINGLE_SPEAKER_LEVEL
from .data import _prepare
from .descriptive import descriptive_block
from .fits import CLUSTER_METHODS
from .independence import _independence
from .results import AdjustmentResult, ClusteredResult, RegressionResult, UnivariateResult
from .univariate import _univariate


def run_regression(
    frame: pd.DataFrame,
    outcome: str,
    variables: Sequence[str] | str,
    references: Mapping[str, Any] | None = None,
    cluster: str | None = None,
    alpha: float = 0.05,
    interactions: bool = False,
    binomial: tuple[str, str] | None = None,
    *,
    cluster_method: str = "robust",
    outcome_label: str | None = None,
    clip_errors: bool = True,
    speaker_col: str | None = None,
) -> RegressionResult:
    """Regression tests of demographic bias (docs/METHODS.md, "Regression").

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per utterance with the outcome, the demographic columns and (optionally) a
        speaker column.
    outcome : str
        A 0/1 column (e.g. ``"em"``, or a caller-derived "no word error" column). With
        ``binomial`` it is only the outcome's name in sentences (e.g. ``"wer"``).
    variables : sequence of str
        Categorical demographic columns. Missing values are left out of each model that uses
        the variable (counts in ``dropped`` and ``conclusions``).
    references : mapping, optional
        Variable -> reference level. Default: the level with the most utterances.
    cluster : str, optional
        Speaker column; when given, every model is also fitted with speaker-clustered
        inference (``clustered``). Utterances with no speaker are their own clusters.
    alpha : float
        Significance level of every test and conclusion; CIs are at ``1 - alpha``.
    interactions : bool
        Also test ``C(A) * C(B)`` against ``C(A) + C(B)`` for each pair.
    binomial : (str, str), optional
        ``(errors_column, words_column)``: fit a binomial GLM of word errors out of reference
        words per utterance instead of a logistic regression (odds ratios then compare the
        odds of a word error).
    cluster_method : {"robust", "gee"}
        ``"robust"``: cluster-robust covariance on the maximum-likelihood fit (odds ratios
        identical to the plain ones). ``"gee"``: GEE, binomial family, exchangeable working
        correlation (population-averaged odds ratios; for ``binomial`` each word is a row).
        Clustered LR tests are Wald tests of the same terms with the clustered covariance.
    outcome_label : str, optional
        How sentences name the outcome (default: "exact match" for ``em``, "word errors" for
        ``binomial``, else the column name).
    clip_errors : bool
        With ``binomial``, cap errors above the word count (insertions) at the word count
        (reported); ``False`` raises instead.

    Returns
    -------
    RegressionResult

    Raises
    ------
    ValueError
        Unknown column, a variable with fewer than two levels, an outcome that isn't 0/1 or is
        constant, an unknown reference level or an invalid option. Perfect separation and
        non-convergence are reported per model (``problem`` and ``conclusions``), not raised.
    """
    if isinstance(variables, str):
        variables = [variables]
    variables = list(variables)
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if cluster_method not in CLUSTER_METHODS:
        raise ValueError(f"cluster_method must be one of {CLUSTER_METHODS}, got {cluster_method!r}")
    data, dropped, notes = _prepare(
        frame, outcome, variables, references, cluster, binomial, clip_errors
    )
    alpha = float(alpha)

    def analyse(method: str) -> tuple[tuple[UnivariateResult, ...], tuple[AdjustmentResult, ...]]:
        cache: dict[tuple, Any] = {}
        uni = tuple(_univariate(data, var, method, alpha) for var in variables)
        adj = tuple(
            _adjustment(data, a, b, method, alpha, interactions, cache)
            for a, b in permutations(variables, 2)
        )
        return uni, adj

    univariate, adjustments = analyse("plain")
    clustered = None
    if cluster is not None:
        assert data.groups is not None  # read from the cluster column
        c_uni, c_adj = analyse(cluster_method)
        clustered = ClusteredResult(
            method=cluster_method,
            cluster=cluster,
            n_clusters=int(np.unique(data.groups).size),
            univariate=c_uni,
            adjustments=c_adj,
        )
    independence = tuple(_independence(data, a, b) for a, b in combinations(variables, 2))
    if outcome_label is None:
        outcome_label = (
            "word errors"
            if binomial is not None
            else ("exact match" if outcome == "em" else outcome.replace("_", " "))
        )
    spk_col = speaker_col or cluster
    speakers = None
    if spk_col is not None and spk_col in frame.columns:
        speakers = frame.loc[data.index, spk_col].astype(str).to_numpy(dtype=object)
    descriptive = descriptive_block(data, variables, speakers, outcome_label)
    cautions = _cautions(
        frame.loc[data.index], variables, spk_col, binomial is not None, cluster is not None
    )
    return RegressionResult(
        outcome=outcome,
        model="binomial" if binomial is not None else "logit",
        alpha=alpha,
        univariate=univariate,
        adjustments=adjustments,
        clustered=clustered,
        independence=independence,
        notes=tuple(notes),
        dropped=dropped,
        descriptive=descriptive,
        cautions=tuple(cautions),
        outcome_label=outcome_label,
    )


def _cautions(
    frame: pd.DataFrame, variables, speaker_col, binomial: bool, clustered: bool
) -> list[Notice]:
    """What the regression cannot separate (docs/METHODS.md, "Verdicts" and "Regression"):
    a level with one speaker confounds speaker and level, even in the clustered test; the
    unclustered binomial model counts every word as independent."""
    out: list[Notice] = []
    if speaker_col is not None and speaker_col in frame.columns:
        for var in variables:
            n_spk = frame.groupby(frame[var].astype(str))[speaker_col].nunique()
            for level, n in n_spk.items():
                if n == 1:
                    out.append(notice(SINGLE_SPEAKER_LEVEL, variable=var, level=str(level)))
    if binomial and not clustered:
        out.append(notice(BINOMIAL_UNCLUSTERED))
    return out
