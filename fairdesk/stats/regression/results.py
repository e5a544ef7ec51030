"""Result objects of the regression tests: frozen dataclasses, ``to_dict()`` JSON-ready."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ...core.jsonio import json_number as _num  # noqa: F401 - the one rule, used by the fits


@dataclass(frozen=True)
class LevelEffect:
    """Odds ratio of one level against the reference level; ``p_log10``: log10 of the Wald
    p, from the normal log survival function (finite where ``p_value`` underflowed to 0)."""

    level: str
    odds_ratio: float
    ci_low: float
    ci_high: float
    p_value: float
    p_log10: float = math.nan

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "odds_ratio": _num(self.odds_ratio),
            "ci_low": _num(self.ci_low),
            "ci_high": _num(self.ci_high),
            "p_value": _num(self.p_value),
            "p_log10": _num(self.p_log10),
        }


@dataclass(frozen=True)
class UnivariateResult:
    """``outcome ~ C(variable)``.

    ``llr_p_value`` is the LR test against the null model (plain) or the Wald test of all the
    variable's terms with the clustered covariance (clustered; see ``test``). ``problem`` is
    set (and the numbers are NaN) when the model could not be fitted, e.g. perfect separation.
    ``llr_p_log10`` is log10 of ``llr_p_value`` from the χ² log survival function.
    """

    variable: str
    reference: str
    llr_p_value: float
    pseudo_r2: float
    n: int
    levels: tuple[LevelEffect, ...]
    llr_stat: float = math.nan
    df: int = 0
    n_dropped: int = 0
    test: str = "lr"
    problem: str | None = None
    llr_p_log10: float = math.nan

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        out = {
            "variable": self.variable,
            "reference": self.reference,
            "llr_p_value": _num(self.llr_p_value),
            "llr_p_log10": _num(self.llr_p_log10),
            "pseudo_r2": _num(self.pseudo_r2),
            "n": int(self.n),
            "levels": [lev.to_dict() for lev in self.levels],
        }
        if detail:
            out.update(
                llr_stat=_num(self.llr_stat),
                df=int(self.df),
                n_dropped=int(self.n_dropped),
                test=self.test,
                problem=self.problem,
            )
        return out


@dataclass(frozen=True)
class AdjustmentResult:
    """``variable`` (A) adjusted on ``adjusted_on`` (B).

    ``lr_stat``/``p_value``: LR test of ``C(A)+C(B)`` against ``C(A)`` (plain) or Wald test of
    the B terms with the clustered covariance (clustered). ``or_change_pct``: 100 * (adjusted
    OR / unadjusted OR - 1) per level of A. ``levels``: the adjusted odds ratios of A;
    ``changed_levels``: the levels of A whose Wald conclusion at alpha differs between the two
    models. Interaction fields are NaN unless interactions were asked for. ``p_log10`` and
    ``interaction_p_log10``: log10 of the two p-values (χ² log survival function).
    """

    variable: str
    adjusted_on: str
    lr_stat: float
    df: int
    p_value: float
    confounder: bool
    or_change_pct: dict[str, float]
    levels: tuple[LevelEffect, ...] = ()
    unadjusted_levels: tuple[LevelEffect, ...] = ()
    changed_levels: tuple[str, ...] = ()
    n: int = 0
    test: str = "lr"
    problem: str | None = None
    interaction_lr_stat: float = math.nan
    interaction_df: int = 0
    interaction_p_value: float = math.nan
    interaction_problem: str | None = None
    with_interaction: bool = False
    p_log10: float = math.nan
    interaction_p_log10: float = math.nan

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "variable": self.variable,
            "adjusted_on": self.adjusted_on,
            "lr_stat": _num(self.lr_stat),
            "df": int(self.df),
            "p_value": _num(self.p_value),
            "p_log10": _num(self.p_log10),
            "confounder": bool(self.confounder),
            "or_change_pct": {k: _num(v) for k, v in self.or_change_pct.items()},
            "levels": [lev.to_dict() for lev in self.levels],
        }
        if self.with_interaction:
            out.update(
                interaction_lr_stat=_num(self.interaction_lr_stat),
                interaction_df=int(self.interaction_df),
                interaction_p_value=_num(self.interaction_p_value),
                interaction_p_log10=_num(self.interaction_p_log10),
            )
        if detail:
            out.update(
                unadjusted_levels=[lev.to_dict() for lev in self.unadjusted_levels],
                changed_levels=list(self.changed_levels),
                n=int(self.n),
                test=self.test,
                problem=self.problem,
            )
            if self.with_interaction:
                out["interaction_problem"] = self.interaction_problem
        return out


@dataclass(frozen=True)
class IndependenceResult:
    """Pearson χ² test of independence of two demographic variables (utterance counts);
    ``p_log10``: log10 of its p."""

    variable_a: str
    variable_b: str
    chi2: float
    df: int
    p_value: float
    valid: bool
    reason: str
    table: dict[str, dict[str, int]]
    n: int = 0
    min_expected: float = math.nan
    share_expected_below_5: float = math.nan
    p_log10: float = math.nan

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        out = {
            "variable_a": self.variable_a,
            "variable_b": self.variable_b,
            "chi2": _num(self.chi2),
            "df": int(self.df),
            "p_value": _num(self.p_value),
            "p_log10": _num(self.p_log10),
            "valid": bool(self.valid),
            "reason": self.reason,
            "table": {r: {c: int(v) for c, v in row.items()} for r, row in self.table.items()},
        }
        if detail:
            out.update(
                n=int(self.n),
                min_expected=_num(self.min_expected),
                share_expected_below_5=_num(self.share_expected_below_5),
            )
        return out


@dataclass(frozen=True)
class ClusteredResult:
    """The univariate and adjustment models with speaker-clustered inference."""

    method: str
    cluster: str
    n_clusters: int
    univariate: tuple[UnivariateResult, ...]
    adjustments: tuple[AdjustmentResult, ...]

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        out: dict[str, object] = {
            "method": self.method,
            "cluster": self.cluster,
            "univariate": [u.to_dict(detail) for u in self.univariate],
            "adjustments": [a.to_dict(detail) for a in self.adjustments],
        }
        if detail:
            out["n_clusters"] = int(self.n_clusters)
        return out


@dataclass(frozen=True)
class RegressionResult:
    """Everything :func:`run_regression` computed.

    ``to_dict()`` gives the keys ``univariate``, ``adjustments`` (with the adjusted odds ratios
    per level), ``clustered`` (None without a cluster column), ``independence``,
    ``conclusions`` and Sekkat et al.'s ``outcome_chi2``, ``anova``, ``cross_tables`` and
    ``speaker_spread`` (:mod:`.descriptive`); ``to_dict(detail=True)`` adds the
    run's settings, dropped-row counts, problems, the outcome's name in sentences
    (``outcome_label``), the data ``notes`` and per-entry details. ``conclusions`` holds the
    sentences written here (the cautions, then the notes); every other conclusion is
    written from the numbers by fairdesk.presentation.regression_words.
    """

    outcome: str
    model: str  # "logit" or "binomial"
    alpha: float
    univariate: tuple[UnivariateResult, ...]
    adjustments: tuple[AdjustmentResult, ...]
    clustered: ClusteredResult | None
    independence: tuple[IndependenceResult, ...]
    conclusions: tuple[str, ...]
    dropped: dict[str, int] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    descriptive: dict = field(default_factory=dict)
    #: Sentences on what the data cannot support (single-speaker levels, independence).
    cautions: tuple[str, ...] = ()
    #: How the sentences name the outcome (fairdesk.presentation.regression_words writes
    #: the χ² and ANOVA sentences with it).
    outcome_label: str = ""
    #: Sentences on the rows the data preparation left out or changed.
    notes: tuple[str, ...] = ()

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        """JSON-ready dict (NaN -> None); ``detail=True`` adds settings and diagnostics."""
        out: dict[str, Any] = {
            "univariate": [u.to_dict(detail) for u in self.univariate],
            "adjustments": [a.to_dict(detail) for a in self.adjustments],
            "clustered": None if self.clustered is None else self.clustered.to_dict(detail),
            "independence": [i.to_dict(detail) for i in self.independence],
            "conclusions": list(self.conclusions),
            "cautions": list(self.cautions),
            **self.descriptive,
        }
        if detail:
            out.update(
                outcome=self.outcome,
                model=self.model,
                alpha=float(self.alpha),
                dropped={k: int(v) for k, v in self.dropped.items()},
                problems=list(self.problems),
                outcome_label=self.outcome_label,
                notes=list(self.notes),
            )
        return out
