"""Regression tests of demographic bias (METHODS.md §4, seed 000).

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
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import stats
from statsmodels.tools.sm_exceptions import PerfectSeparationError

__all__ = [
    "CLUSTER_METHODS",
    "AdjustmentResult",
    "ClusteredResult",
    "IndependenceResult",
    "LevelEffect",
    "RegressionResult",
    "UnivariateResult",
    "run_regression",
]

CLUSTER_METHODS = ("robust", "gee")
_MAX_ABS_COEF = 20.0  # |log-odds| beyond this means the fit ran off to infinity (separation)
_MIN_CLUSTERS_WARN = 20


# --------------------------------------------------------------------------------------------
# Result objects
# --------------------------------------------------------------------------------------------


def _num(x: Any) -> Any:
    """Plain Python number for JSON (NaN/inf -> None)."""
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class LevelEffect:
    """Odds ratio of one level against the reference level."""

    level: str
    odds_ratio: float
    ci_low: float
    ci_high: float
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "odds_ratio": _num(self.odds_ratio),
            "ci_low": _num(self.ci_low),
            "ci_high": _num(self.ci_high),
            "p_value": _num(self.p_value),
        }


@dataclass(frozen=True)
class UnivariateResult:
    """``outcome ~ C(variable)``.

    ``llr_p_value`` is the LR test against the null model (plain) or the Wald test of all the
    variable's terms with the clustered covariance (clustered; see ``test``). ``problem`` is
    set (and the numbers are NaN) when the model could not be fitted, e.g. perfect separation.
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

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        out = {
            "variable": self.variable,
            "reference": self.reference,
            "llr_p_value": _num(self.llr_p_value),
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
    models. Interaction fields are NaN unless interactions were asked for.
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

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "variable": self.variable,
            "adjusted_on": self.adjusted_on,
            "lr_stat": _num(self.lr_stat),
            "df": int(self.df),
            "p_value": _num(self.p_value),
            "confounder": bool(self.confounder),
            "or_change_pct": {k: _num(v) for k, v in self.or_change_pct.items()},
        }
        if self.with_interaction:
            out.update(
                interaction_lr_stat=_num(self.interaction_lr_stat),
                interaction_df=int(self.interaction_df),
                interaction_p_value=_num(self.interaction_p_value),
            )
        if detail:
            out.update(
                levels=[lev.to_dict() for lev in self.levels],
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
    """Pearson χ² test of independence of two demographic variables (utterance counts)."""

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

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        out = {
            "variable_a": self.variable_a,
            "variable_b": self.variable_b,
            "chi2": _num(self.chi2),
            "df": int(self.df),
            "p_value": _num(self.p_value),
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
        out = {
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

    ``to_dict()`` gives the keys ``univariate``, ``adjustments``, ``clustered`` (None without a
    cluster column), ``independence`` and ``conclusions``; ``to_dict(detail=True)`` adds the
    run's settings, dropped-row counts, problems and per-entry details.
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

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        """JSON-ready dict (NaN -> None); ``detail=True`` adds settings and diagnostics."""
        out: dict[str, Any] = {
            "univariate": [u.to_dict(detail) for u in self.univariate],
            "adjustments": [a.to_dict(detail) for a in self.adjustments],
            "clustered": None if self.clustered is None else self.clustered.to_dict(detail),
            "independence": [i.to_dict(detail) for i in self.independence],
            "conclusions": list(self.conclusions),
        }
        if detail:
            out.update(
                outcome=self.outcome,
                model=self.model,
                alpha=float(self.alpha),
                dropped={k: int(v) for k, v in self.dropped.items()},
                problems=list(self.problems),
            )
        return out


# --------------------------------------------------------------------------------------------
# Data preparation
# --------------------------------------------------------------------------------------------


@dataclass
class _Data:
    y: np.ndarray  # 0/1 outcome, or error counts (binomial)
    trials: np.ndarray | None  # words per utterance (binomial) or None
    values: dict[str, np.ndarray]  # variable -> str labels (object array, None when missing)
    levels: dict[str, list[str]]  # variable -> levels, reference first
    groups: np.ndarray | None  # cluster codes (int), unknown speakers as singletons

    @property
    def binomial(self) -> bool:
        return self.trials is not None


def _ordered_levels(col: pd.Series) -> list[Any]:
    """Observed levels in a stable order: categorical order, else sorted, else first seen."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        seen = set(col.dropna().unique())
        return [c for c in col.cat.categories if c in seen]
    uniq = list(pd.unique(col.dropna()))
    try:
        return sorted(uniq)
    except TypeError:
        return sorted(uniq, key=str)


def _check_column(frame: pd.DataFrame, name: str, role: str) -> None:
    if not isinstance(name, str) or name not in frame.columns:
        cols = ", ".join(map(str, frame.columns))
        raise ValueError(
            f"{role} column {name!r} is not in the frame; available columns: {cols}. "
            "Pass the name of an existing column."
        )


def _prepare(
    frame: pd.DataFrame,
    outcome: str,
    variables: list[str],
    references: Mapping[str, Any] | None,
    cluster: str | None,
    binomial: tuple[str, str] | None,
    clip_errors: bool,
) -> tuple[_Data, dict[str, int], list[str]]:
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if not variables:
        raise ValueError("variables is empty: name at least one demographic column to test")
    if len(set(variables)) != len(variables):
        raise ValueError(f"variables lists a column twice: {variables}; list each once")
    for var in variables:
        _check_column(frame, var, "Demographic variable")
    notes: list[str] = []
    dropped: dict[str, int] = {}

    if binomial is None:
        _check_column(frame, outcome, "Outcome")
        raw = frame[outcome]
        if raw.dtype == bool:
            raw = raw.astype(float)
        try:
            y_all = pd.to_numeric(raw, errors="raise").astype(float)
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"outcome column {outcome!r} must hold 0/1 values (e.g. exact match, or 1 when "
                f"an utterance has no word error); it holds non-numeric values: {exc}"
            ) from None
        bad = ~y_all.isna() & ~y_all.isin([0.0, 1.0])
        if bad.any():
            examples = ", ".join(map(repr, y_all[bad].unique()[:5]))
            raise ValueError(
                f"outcome column {outcome!r} must hold only 0/1 values; {int(bad.sum())} rows "
                f"hold other values ({examples}). For word errors pass "
                "binomial=(errors_column, words_column) instead."
            )
        keep = ~y_all.isna().to_numpy()
        if (~keep).any():
            dropped[outcome] = int((~keep).sum())
            notes.append(f"{int((~keep).sum())} rows with a missing {outcome} were left out.")
        y = y_all.to_numpy()[keep]
        trials = None
        if len(y) and np.unique(y).size < 2:
            raise ValueError(
                f"outcome column {outcome!r} is constant ({int(y[0])} on every row): there is "
                "no variation to explain"
            )
        roles = {outcome: "outcome"}
    else:
        if not (isinstance(binomial, (tuple, list)) and len(binomial) == 2):
            raise ValueError(
                "binomial must be a pair (errors_column, words_column), e.g. "
                "binomial=('n_errors', 'n_words')"
            )
        err_col, n_col = binomial
        _check_column(frame, err_col, "Error-count")
        _check_column(frame, n_col, "Word-count")
        try:
            err = pd.to_numeric(frame[err_col], errors="raise").astype(float).to_numpy()
            words = pd.to_numeric(frame[n_col], errors="raise").astype(float).to_numpy()
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"binomial columns {err_col!r} and {n_col!r} must be numeric counts: {exc}"
            ) from None
        keep = ~(np.isnan(err) | np.isnan(words))
        for name, arr in ((err_col, err), (n_col, words)):
            finite = arr[keep]
            if (finite < 0).any() or (finite != np.round(finite)).any():
                raise ValueError(
                    f"column {name!r} must hold non-negative whole counts; found "
                    f"{finite[(finite < 0) | (finite != np.round(finite))][:3].tolist()}"
                )
        if (~keep).any():
            dropped[err_col] = int((~keep).sum())
            notes.append(
                f"{int((~keep).sum())} rows with missing error or word counts were left out."
            )
        zero = keep & (words == 0)
        if zero.any():
            dropped[n_col] = int(zero.sum())
            notes.append(f"{int(zero.sum())} rows with 0 reference words were left out.")
            keep &= words > 0
        over = keep & (err > words)
        if over.any():
            if not clip_errors:
                raise ValueError(
                    f"{int(over.sum())} rows have more errors ({err_col}) than words ({n_col}), "
                    "which a binomial model cannot hold (insertions); pass clip_errors=True or "
                    "count substitutions + deletions only"
                )
            notes.append(
                f"{int(over.sum())} rows had more errors than reference words (insertions); "
                "their error count was capped at the word count for the binomial model."
            )
            err = np.where(over, words, err)
        y, trials = err[keep], words[keep]
        if len(y) and (y.sum() == 0 or y.sum() == trials.sum()):
            raise ValueError(
                f"{err_col!r} is {'0' if y.sum() == 0 else 'equal to ' + repr(n_col)} on every "
                "row: there is no variation to explain"
            )
        roles = {err_col: "error count", n_col: "word count"}

    if cluster is not None:
        _check_column(frame, cluster, "Cluster (speaker)")
        roles[cluster] = "cluster"
    for var in variables:
        if var in roles:
            raise ValueError(
                f"{var!r} is used both as a demographic variable and as the {roles[var]} column"
            )

    sub = frame.loc[keep]
    references = dict(references or {})
    unknown = [k for k in references if k not in variables]
    if unknown:
        raise ValueError(f"references names {unknown}, which are not among variables {variables}")

    values: dict[str, np.ndarray] = {}
    levels: dict[str, list[str]] = {}
    for var in variables:
        col = sub[var]
        ordered = [str(v) for v in _ordered_levels(col)]
        labels = np.array([None if pd.isna(v) else str(v) for v in col], dtype=object)
        n_missing = int(sum(v is None for v in labels))
        if n_missing:
            dropped[var] = n_missing
            notes.append(f"{n_missing} rows with a missing {var} were left out of its models.")
        if len(ordered) < 2:
            raise ValueError(
                f"variable {var!r} has {len(ordered)} level(s) ({ordered}) on the rows with a "
                "known outcome: a test needs at least two; drop it from variables"
            )
        counts = pd.Series(labels).value_counts()
        if var in references:
            ref = str(references[var])
            if ref not in ordered:
                raise ValueError(
                    f"reference level {ref!r} for {var!r} is not among its levels {ordered}"
                )
        else:  # largest level by items; ties go to the first in level order
            ref = max(ordered, key=lambda lev: (counts.get(lev, 0), -ordered.index(lev)))
        levels[var] = [ref] + [lev for lev in ordered if lev != ref]
        values[var] = labels

    groups = None
    if cluster is not None:
        codes, uniques = pd.factorize(sub[cluster])
        missing = codes < 0
        if missing.any():
            codes = codes.copy()
            codes[missing] = len(uniques) + np.arange(int(missing.sum()))
            notes.append(
                f"{int(missing.sum())} utterances have no {cluster}; each was treated as its own "
                "cluster."
            )
        groups = codes.astype(int)
        n_clusters = int(np.unique(groups).size)
        if n_clusters < 2:
            raise ValueError(f"cluster column {cluster!r} has a single cluster: nothing to cluster")
        if n_clusters < _MIN_CLUSTERS_WARN:
            notes.append(
                f"Only {n_clusters} {cluster} clusters: clustered standard errors are unreliable "
                f"with fewer than about {_MIN_CLUSTERS_WARN} clusters."
            )
    return _Data(y=y, trials=trials, values=values, levels=levels, groups=groups), dropped, notes


# --------------------------------------------------------------------------------------------
# Designs and fits
# --------------------------------------------------------------------------------------------


@dataclass
class _Design:
    X: np.ndarray
    names: list[str]
    terms: dict[str, list[int]]  # variable (or "A:B") -> column indices
    term_levels: dict[str, list[str]]  # variable -> its non-reference levels, in column order


@dataclass
class _Fit:
    params: np.ndarray
    bse: np.ndarray
    pvalues: np.ndarray
    ci: np.ndarray  # (k, 2) on the log-odds scale
    cov: np.ndarray
    llf: float
    llnull: float


def _present_levels(data: _Data, var: str, mask: np.ndarray) -> list[str]:
    present = set(data.values[var][mask])
    return [lev for lev in data.levels[var] if lev in present]


def _rank(X: np.ndarray) -> int:
    """Column rank of a tall 0/1 design, from its small Gram matrix (fast for many rows)."""
    return int(np.linalg.matrix_rank(X.T @ X, hermitian=True))


def _design(
    data: _Data, mask: np.ndarray, variables: Sequence[str], interaction: bool = False
) -> _Design:
    n = int(mask.sum())
    cols = [np.ones(n)]
    names = ["Intercept"]
    terms: dict[str, list[int]] = {}
    term_levels: dict[str, list[str]] = {}
    dummies: dict[str, list[np.ndarray]] = {}
    for var in variables:
        vals = data.values[var][mask]
        levs = _present_levels(data, var, mask)[1:]
        term_levels[var] = levs
        terms[var] = []
        dummies[var] = []
        for lev in levs:
            col = (vals == lev).astype(float)
            terms[var].append(len(cols))
            cols.append(col)
            dummies[var].append(col)
            names.append(f"{var}[T.{lev}]")
    X = np.column_stack(cols)
    if interaction:
        a, b = variables
        key = f"{a}:{b}"
        terms[key] = []
        cells = [
            (f"{a}[T.{la}]:{b}[T.{lb}]", ca * cb)
            for la, ca in zip(term_levels[a], dummies[a], strict=True)
            for lb, cb in zip(term_levels[b], dummies[b], strict=True)
        ]
        cells = [(name, col) for name, col in cells if col.any()]  # empty cell: no parameter
        if cells:
            full = np.column_stack([X] + [col for _, col in cells])
            gram = full.T @ full  # one product; rank checks below work on its sub-blocks
            keep = list(range(X.shape[1]))
            for j, (name, _) in enumerate(cells, start=X.shape[1]):
                trial = keep + [j]
                if np.linalg.matrix_rank(gram[np.ix_(trial, trial)], hermitian=True) > len(keep):
                    keep.append(j)  # not aliased with earlier columns
                    terms[key].append(len(keep) - 1)
                    names.append(name)
            X = full[:, keep]
    return _Design(X=X, names=names, terms=terms, term_levels=term_levels)


def _separation(data: _Data, mask: np.ndarray, variables: Sequence[str], cells: bool) -> str | None:
    """Reason when a level (or, with ``cells``, a cross cell) has a degenerate outcome."""
    y = data.y[mask]
    t = data.trials[mask] if data.binomial else np.ones_like(y)
    unit = "cell" if cells else "level"
    if cells:
        table = pd.DataFrame({var: data.values[var][mask] for var in variables})
        labelled = {
            " × ".join(f"{var}={lev}" for var, lev in zip(variables, key, strict=True)): rows
            for key, rows in table.groupby(list(variables), sort=False).indices.items()
        }
    else:
        labelled = {}
        for var in variables:
            vals = data.values[var][mask]
            for lev in _present_levels(data, var, mask):
                labelled[f"{var}={lev}"] = np.flatnonzero(vals == lev)
    for label, rows in labelled.items():
        succ, tot = y[rows].sum(), t[rows].sum()
        if succ == 0 or succ == tot:
            if data.binomial:
                what = "no word error" if succ == 0 else "every word wrong"
                found = f"{label} has {what} ({int(tot)} words)"
            else:
                found = f"{label} has outcome = {int(succ > 0)} on all {len(rows)} rows"
            return (
                f"perfect separation: {found}, so its odds ratio is infinite; merge or drop "
                f"that {unit}"
            )
    return None


def _fit(data: _Data, mask: np.ndarray, X: np.ndarray, method: str, alpha: float) -> _Fit:
    """Fit one model. ``method``: "plain", "robust" (cluster-robust cov) or "gee"."""
    y = data.y[mask]
    groups = data.groups[mask] if data.groups is not None else None
    cov_kw: dict[str, Any] = {}
    if method == "robust":
        cov_kw = {"cov_type": "cluster", "cov_kwds": {"groups": groups}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence is checked below, not warned about
        if method == "gee":
            if data.binomial:  # one Bernoulli row per reference word, same speaker cluster
                trials = data.trials[mask].astype(int)
                rows = np.repeat(np.arange(len(y)), trials)
                pos = np.arange(rows.size) - np.repeat(np.cumsum(trials) - trials, trials)
                y_fit, X_fit, g_fit = (pos < y[rows]).astype(float), X[rows], groups[rows]
            else:
                y_fit, X_fit, g_fit = y, X, groups
            model = sm.GEE(
                y_fit,
                X_fit,
                groups=g_fit,
                family=sm.families.Binomial(),
                cov_struct=sm.cov_struct.Exchangeable(),
            )
            res = model.fit(maxiter=100)
            converged = bool(getattr(res, "converged", True))
            llf = llnull = math.nan
        elif data.binomial:
            endog = np.column_stack([y, data.trials[mask] - y])
            res = sm.GLM(endog, X, family=sm.families.Binomial()).fit(**cov_kw)
            converged = bool(res.converged)
            llf, llnull = float(res.llf), float(res.llnull)
        else:
            res = sm.Logit(y, X).fit(disp=0, maxiter=100, **cov_kw)
            converged = bool(res.mle_retvals.get("converged", True))
            # closed-form intercept-only log-likelihood (statsmodels refits it by Nelder-Mead)
            p0 = float(y.mean())
            llf, llnull = float(res.llf), len(y) * (p0 * math.log(p0) + (1 - p0) * math.log1p(-p0))
        params = np.asarray(res.params, dtype=float)
        bse = np.asarray(res.bse, dtype=float)
        fit = _Fit(
            params=params,
            bse=bse,
            pvalues=np.asarray(res.pvalues, dtype=float),
            ci=np.asarray(res.conf_int(alpha), dtype=float),
            cov=np.asarray(res.cov_params(), dtype=float),
            llf=llf,
            llnull=llnull,
        )
    if not converged or not np.all(np.isfinite(bse)) or np.abs(params).max() > _MAX_ABS_COEF:
        raise _FitProblem(
            "the model did not converge (coefficients ran off to infinity: quasi-complete "
            "separation or too few rows per level); merge sparse levels"
        )
    return fit


class _FitProblem(Exception):
    """A model that cannot be estimated; reported per variable, never raised to the caller."""


def _wald(fit: _Fit, idx: list[int]) -> tuple[float, int, float]:
    """Wald χ² of H0: params[idx] = 0 with the fit's covariance; (stat, df, p)."""
    b = fit.params[idx]
    V = fit.cov[np.ix_(idx, idx)]
    df = int(np.linalg.matrix_rank(V))
    stat = float(b @ np.linalg.pinv(V) @ b)
    return stat, df, float(stats.chi2.sf(stat, df)) if df else math.nan


def _effects(fit: _Fit, design: _Design, var: str) -> tuple[LevelEffect, ...]:
    return tuple(
        LevelEffect(
            level=lev,
            odds_ratio=float(np.exp(fit.params[i])),
            ci_low=float(np.exp(fit.ci[i, 0])),
            ci_high=float(np.exp(fit.ci[i, 1])),
            p_value=float(fit.pvalues[i]),
        )
        for lev, i in zip(design.term_levels[var], design.terms[var], strict=True)
    )


def _safe_fit(
    data: _Data, mask: np.ndarray, design: _Design, method: str, alpha: float
) -> tuple[_Fit | None, str | None]:
    try:
        return _fit(data, mask, design.X, method, alpha), None
    except _FitProblem as exc:
        return None, str(exc)
    except (np.linalg.LinAlgError, PerfectSeparationError, ValueError) as exc:
        return None, f"the model could not be estimated ({type(exc).__name__}: {exc})"


# --------------------------------------------------------------------------------------------
# The analyses
# --------------------------------------------------------------------------------------------


def _univariate(data: _Data, var: str, method: str, alpha: float) -> UnivariateResult:
    mask = np.array([v is not None for v in data.values[var]])
    n, ref = int(mask.sum()), data.levels[var][0]
    base = {"variable": var, "reference": ref, "n": n, "n_dropped": int((~mask).sum())}
    test = "lr" if method == "plain" else "wald"
    failed = {"llr_p_value": math.nan, "pseudo_r2": math.nan, "levels": (), "test": test}
    problem = _separation(data, mask, [var], cells=False)
    if problem:
        return UnivariateResult(**base, **failed, problem=problem)
    design = _design(data, mask, [var])
    fit, problem = _safe_fit(data, mask, design, method, alpha)
    if fit is None:
        return UnivariateResult(**base, **failed, problem=problem)
    if method == "plain":
        stat = 2.0 * (fit.llf - fit.llnull)
        df = len(design.terms[var])
        p = float(stats.chi2.sf(stat, df))
    else:
        stat, df, p = _wald(fit, design.terms[var])
    r2 = 1.0 - fit.llf / fit.llnull if method != "gee" else math.nan
    return UnivariateResult(
        **base,
        llr_p_value=p,
        pseudo_r2=float(r2),
        levels=_effects(fit, design, var),
        llr_stat=float(stat),
        df=int(df),
        test=test,
    )


def _adjustment(
    data: _Data,
    a: str,
    b: str,
    method: str,
    alpha: float,
    interactions: bool,
    cache: dict[tuple, Any],
) -> AdjustmentResult:
    mask = np.array(
        [
            va is not None and vb is not None
            for va, vb in zip(data.values[a], data.values[b], strict=True)
        ]
    )
    test = "lr" if method == "plain" else "wald"
    base: dict[str, Any] = {
        "variable": a,
        "adjusted_on": b,
        "n": int(mask.sum()),
        "test": test,
        "with_interaction": interactions,
    }
    failed = {
        "lr_stat": math.nan,
        "df": 0,
        "p_value": math.nan,
        "confounder": False,
        "or_change_pct": {},
    }
    for var in (a, b):
        present = _present_levels(data, var, mask)
        if len(present) < 2 or present[0] != data.levels[var][0]:
            other = b if var == a else a
            why = (
                f"{var} has a single level where {other} is known"
                if len(present) < 2
                else f"the reference level {data.levels[var][0]!r} of {var} has no row where "
                f"{other} is known"
            )
            return AdjustmentResult(**base, **failed, problem=why)
    problem = _separation(data, mask, [a, b], cells=False)
    if problem:
        return AdjustmentResult(**base, **failed, problem=problem)
    d1 = _design(data, mask, [a])
    key = (frozenset((a, b)), method)
    if key not in cache:
        d2 = _design(data, mask, [a, b])
        if _rank(d2.X) < d2.X.shape[1]:
            cache[key] = (
                d2,
                None,
                f"{a} and {b} are collinear (one determines the other), so one cannot be "
                "adjusted on the other",
            )
        else:
            cache[key] = (d2, *_safe_fit(data, mask, d2, method, alpha))
    d2, fit2, problem = cache[key]
    fit1, problem1 = _safe_fit(data, mask, d1, method, alpha)
    if fit2 is None or fit1 is None:
        return AdjustmentResult(**base, **failed, problem=problem or problem1)

    if method == "plain":
        stat = 2.0 * (fit2.llf - fit1.llf)
        df = len(d2.terms[b])
        p = float(stats.chi2.sf(stat, df))
    else:
        stat, df, p = _wald(fit2, d2.terms[b])
    # d1 and d2 list A's levels in the same order, so indices line up level by level
    i1, i2 = d1.terms[a], d2.terms[a]
    changed = tuple(
        lev
        for lev, j1, j2 in zip(d1.term_levels[a], i1, i2, strict=True)
        if (fit1.pvalues[j1] < alpha) != (fit2.pvalues[j2] < alpha)
    )
    change = {
        lev: float(100.0 * (np.exp(fit2.params[j2] - fit1.params[j1]) - 1.0))
        for lev, j1, j2 in zip(d1.term_levels[a], i1, i2, strict=True)
    }
    result = {
        "lr_stat": float(stat),
        "df": int(df),
        "p_value": p,
        "confounder": bool(p < alpha and changed),
        "or_change_pct": change,
        "levels": _effects(fit2, d2, a),
        "unadjusted_levels": _effects(fit1, d1, a),
        "changed_levels": changed,
    }
    if interactions:
        ikey = (frozenset((a, b)), method, "interaction")
        if ikey not in cache:
            cache[ikey] = _interaction(data, mask, a, b, fit2, method, alpha)
        result.update(cache[ikey])
    return AdjustmentResult(**base, **result)


def _interaction(
    data: _Data, mask: np.ndarray, a: str, b: str, fit2: _Fit, method: str, alpha: float
) -> dict[str, Any]:
    failed: dict[str, Any] = {
        "interaction_lr_stat": math.nan,
        "interaction_df": 0,
        "interaction_p_value": math.nan,
    }
    problem = _separation(data, mask, [a, b], cells=True)
    if problem:
        return {**failed, "interaction_problem": f"interaction model: {problem}"}
    d3 = _design(data, mask, [a, b], interaction=True)
    inter = d3.terms[f"{a}:{b}"]
    if not inter:
        return {
            **failed,
            "interaction_problem": "no interaction term is estimable (too many empty cells)",
        }
    fit3, problem = _safe_fit(data, mask, d3, method, alpha)
    if fit3 is None:
        return {**failed, "interaction_problem": f"interaction model: {problem}"}
    if method == "plain":
        stat = 2.0 * (fit3.llf - fit2.llf)
        df = len(inter)
        p = float(stats.chi2.sf(stat, df))
    else:
        stat, df, p = _wald(fit3, inter)
    return {
        "interaction_lr_stat": float(stat),
        "interaction_df": int(df),
        "interaction_p_value": p,
        "interaction_problem": None,
    }


def _independence(data: _Data, a: str, b: str) -> IndependenceResult:
    va, vb = data.values[a], data.values[b]
    mask = np.array([x is not None and y is not None for x, y in zip(va, vb, strict=True)])
    rows = _present_levels(data, a, mask)
    cols = _present_levels(data, b, mask)
    table = (
        pd.crosstab(pd.Series(va[mask], name=a), pd.Series(vb[mask], name=b))
        .reindex(index=rows, columns=cols, fill_value=0)
        .astype(int)
    )
    as_dict = {str(r): {str(c): int(table.loc[r, c]) for c in cols} for r in rows}
    n = int(mask.sum())
    if len(rows) < 2 or len(cols) < 2:
        one = a if len(rows) < 2 else b
        return IndependenceResult(
            a,
            b,
            math.nan,
            0,
            math.nan,
            False,
            f"{one} has a single level on the shared rows",
            as_dict,
            n=n,
        )
    chi2, p, dof, expected = stats.chi2_contingency(table.to_numpy())
    share = float(np.mean(expected < 5))
    low = float(expected.min())
    if low < 1:
        valid, reason = False, f"an expected count is below 1 (smallest {low:.2f})"
    elif share > 0.2:
        valid, reason = (
            False,
            (f"{share:.0%} of cells have an expected count below 5 (more than 20%)"),
        )
    else:
        valid, reason = True, ""
    return IndependenceResult(
        a,
        b,
        float(chi2),
        int(dof),
        float(p),
        valid,
        reason,
        as_dict,
        n=n,
        min_expected=low,
        share_expected_below_5=share,
    )


# --------------------------------------------------------------------------------------------
# Plain-English conclusions
# --------------------------------------------------------------------------------------------


def _fmt_p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _conclusions(
    univariate: Sequence[UnivariateResult],
    adjustments: Sequence[AdjustmentResult],
    clustered: ClusteredResult | None,
    independence: Sequence[IndependenceResult],
    label: str,
    alpha: float,
    binomial: bool,
    notes: Sequence[str],
) -> list[str]:
    out: list[str] = []
    odds = "odds ratio of a word error" if binomial else "odds ratio"
    for u in univariate:
        if u.problem:
            out.append(f"{_cap(u.variable)} could not be modelled: {u.problem}.")
        elif u.llr_p_value < alpha:
            best = min(u.levels, key=lambda lev: lev.p_value)
            out.append(
                f"{_cap(u.variable)} is associated with {label} (LR p = {_fmt_p(u.llr_p_value)}), "
                f"{odds} for {best.level} vs {u.reference}: {best.odds_ratio:.2f} "
                f"[{best.ci_low:.2f}, {best.ci_high:.2f}]."
            )
        else:
            out.append(
                f"No evidence that {u.variable} is associated with {label} "
                f"(LR p = {_fmt_p(u.llr_p_value)})."
            )
    seen_inter: set[frozenset[str]] = set()
    for adj in adjustments:
        a, b = adj.variable, adj.adjusted_on
        if adj.problem:
            out.append(f"{_cap(a)} could not be adjusted on {b}: {adj.problem}.")
            continue
        if adj.confounder:
            adj_sig = [lev for lev in adj.levels if lev.p_value < alpha]
            was_sig = [lev for lev in adj.unadjusted_levels if lev.p_value < alpha]
            if not adj_sig and was_sig:
                out.append(
                    f"The effect of {a} is explained by {b}: adjusted on {b}, no level of {a} "
                    f"differs significantly (LR p = {_fmt_p(adj.p_value)})."
                )
            else:
                by_level = {lev.level: lev for lev in adj.levels}
                parts = [
                    f"{lev} {'becomes' if by_level[lev].p_value < alpha else 'is no longer'} "
                    f"significant (p = {_fmt_p(by_level[lev].p_value)})"
                    for lev in adj.changed_levels
                ]
                out.append(
                    f"{_cap(b)} confounds the effect of {a} (LR p = {_fmt_p(adj.p_value)}): "
                    f"adjusted on {b}, {'; '.join(parts)}."
                )
        pair = frozenset((a, b))
        if (
            adj.with_interaction
            and pair not in seen_inter
            and math.isfinite(adj.interaction_p_value)
            and adj.interaction_p_value < alpha
        ):
            seen_inter.add(pair)
            out.append(
                f"The effect of {a} depends on {b} (interaction LR p = "
                f"{_fmt_p(adj.interaction_p_value)})."
            )
    if clustered is not None:
        how = (
            "cluster-robust standard errors"
            if clustered.method == "robust"
            else "a GEE with exchangeable correlation"
        )
        for plain, clus in zip(univariate, clustered.univariate, strict=True):
            if plain.problem or clus.problem:
                continue
            if plain.llr_p_value < alpha <= clus.llr_p_value:
                out.append(
                    f"Allowing for {clustered.cluster} clustering ({how}), the association of "
                    f"{plain.variable} with {label} is no longer significant (Wald p = "
                    f"{_fmt_p(clus.llr_p_value)}, against LR p = {_fmt_p(plain.llr_p_value)} "
                    "when utterances are treated as independent)."
                )
        for plain, clus in zip(adjustments, clustered.adjustments, strict=True):
            if plain.confounder and not clus.confounder and not clus.problem:
                out.append(
                    f"Allowing for {clustered.cluster} clustering, the evidence that "
                    f"{plain.adjusted_on} confounds {plain.variable} does not hold (Wald p = "
                    f"{_fmt_p(clus.p_value)})."
                )
    for ind in independence:
        if ind.valid and ind.p_value < alpha:
            out.append(
                f"{_cap(ind.variable_a)} and {ind.variable_b} are not independent in this corpus "
                f"(χ² p = {_fmt_p(ind.p_value)}): read univariate results with the adjusted ones."
            )
    out.extend(notes)
    return out


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


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
) -> RegressionResult:
    """Regression tests of demographic bias (METHODS.md §4).

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
    conclusions = _conclusions(
        univariate,
        adjustments,
        clustered,
        independence,
        outcome_label,
        alpha,
        binomial is not None,
        notes,
    )
    problems = [f"{u.variable}: {u.problem}" for u in univariate if u.problem]
    problems += [
        f"{a.variable} adjusted on {a.adjusted_on}: {a.problem}" for a in adjustments if a.problem
    ]
    problems += [
        f"{a.variable} × {a.adjusted_on}: {a.interaction_problem}"
        for a in adjustments
        if a.with_interaction and a.interaction_problem and not a.problem
    ]
    if clustered is not None:
        problems += [
            f"clustered {u.variable}: {u.problem}" for u in clustered.univariate if u.problem
        ]
    return RegressionResult(
        outcome=outcome,
        model="binomial" if binomial is not None else "logit",
        alpha=alpha,
        univariate=univariate,
        adjustments=adjustments,
        clustered=clustered,
        independence=independence,
        conclusions=tuple(conclusions),
        dropped=dropped,
        problems=tuple(problems),
    )
