"""Mixed-effects Poisson regression of word errors (docs/METHODS.md, "Model-based comparison (mixed-effects Poisson)"; Liu, Veliche & Peng 2022).

Per utterance ``j`` of speaker ``s``::

    errors_sj ~ Poisson(N_sj · exp(x_sj'β + u_s)),   u_s ~ N(0, σ²)

(errors = substitutions + deletions + insertions, ``N`` = reference words, so ``exp(β)`` of a
group level is its rate ratio against the reference level, the model's WER ratio). The speaker
intercept is integrated out by **adaptive Gauss–Hermite quadrature** (AGHQ, as lme4's
``glmer(nAGQ > 1)`` does for one grouping factor): for each speaker the integrand is centred
on its mode (Newton steps) and scaled by its curvature, and ``n_quad`` nodes are used
(``n_quad = 1`` is the Laplace approximation). The speaker intercept is written ``u = σ v``
with ``v ~ N(0, 1)``, which keeps the likelihood smooth at ``σ = 0`` (it is even in σ), so no
boundary handling is needed in the optimiser.

A speaker enters the likelihood only through ``Y_s = Σ_j errors_sj`` and
``A_s = Σ_j N_sj exp(x_sj'β)``, so one evaluation costs one pass over the utterances plus
``speakers × n_quad`` exponentials. The gradient is the quadrature estimate of the exact
score (Fisher's identity) and the Hessian the quadrature estimate of the observed
information by Louis' identity; ``scipy.optimize.minimize(method="trust-exact")`` uses both.

:class:`PreparedData` validates an utterance frame and builds the design of every term; the
report built on the fit is :func:`fairdesk.stats.regression.poisson_mixed_report.run_poisson_mixed`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from numpy.polynomial.hermite import hermgauss
from scipy import optimize, sparse
from scipy.special import gammaln, logsumexp

from ..notices import Notice
from .poisson_mixed_result import MAX_FIXED_CONTENTS, MIN_SHARED_CONTENT, Content

__all__ = [
    "DEFAULT_N_QUAD",
    "MAX_FIXED_CONTENTS",
    "MixedFit",
    "PreparedData",
    "fit_poisson_mixed",
    "speaker_loglik",
]

#: Quadrature nodes per speaker (lme4 allows up to 25; 15 agrees with a brute-force integral
#: to ~1e-9 on audit-sized speakers, see the tests).
DEFAULT_N_QUAD = 15
_LOG_2PI = math.log(2.0 * math.pi)


@dataclass(frozen=True)
class MixedFit:
    """Maximum-likelihood fit of the Poisson model with a speaker random intercept.

    Attributes
    ----------
    beta : fixed effects (columns of ``X``).
    sigma : speaker SD (≥ 0; 0 when fixed at 0).
    cov : covariance of ``(beta, sigma)`` (``(p+1, p+1)``) from the inverse observed
        information; ``(p, p)`` for ``beta`` alone when σ was fixed or the estimate sits on
        the boundary σ = 0 (then the plain Poisson GLM's covariance).
    loglik : maximised marginal log-likelihood (AGHQ).
    converged : the optimiser met its gradient tolerance, or a further Newton step would gain
        less than 1e-8 in log-likelihood.
    modes : conditional modes of the speaker intercepts ``u_s`` (log scale).
    mu : fitted conditional means ``N exp(x'β + u_s)`` per utterance.
    n_quad : quadrature nodes per speaker (1 = Laplace).
    sigma_fixed : σ was given, not estimated.
    boundary : the estimate of σ is 0 (no speaker variation detectable).
    n_iter : optimiser iterations.
    message : optimiser message.
    """

    beta: np.ndarray
    sigma: float
    cov: np.ndarray
    loglik: float
    converged: bool
    modes: np.ndarray
    mu: np.ndarray
    n_quad: int
    sigma_fixed: bool
    boundary: bool
    n_iter: int
    message: str

    @property
    def se_beta(self) -> np.ndarray:
        """Standard errors of ``beta``."""
        p = self.beta.size
        return np.sqrt(np.clip(np.diag(self.cov)[:p], 0.0, None))

    @property
    def approximation(self) -> str:
        """The integral approximation, coded: ``glm`` (no random effect: the plain Poisson
        GLM), ``laplace`` (one node) or ``aghq`` (adaptive Gauss-Hermite quadrature,
        ``n_quad`` nodes per speaker)."""
        if self.sigma_fixed and self.sigma == 0.0:
            return "glm"
        if self.n_quad == 1:
            return "laplace"
        return "aghq"


class _Marginal:
    """Marginal log-likelihood, score and observed information of ``(beta, sigma)``."""

    def __init__(self, y, X, offset, speakers, n_quad):
        self.y = np.asarray(y, dtype=float)
        self.X = np.asarray(X, dtype=float)
        self.offset = np.asarray(offset, dtype=float)
        self.spk = np.asarray(speakers, dtype=np.int64)
        n = self.y.size
        self.S = int(self.spk.max()) + 1 if n else 0
        self.M = sparse.csr_matrix((np.ones(n), (self.spk, np.arange(n))), shape=(self.S, n))
        self.Y = self.M @ self.y
        self.Xty = self.X.T @ self.y
        self.const = -float(gammaln(self.y + 1.0).sum())
        z, w = hermgauss(n_quad)
        self.z = z
        self.logw = np.log(w) + z * z  # weights for ∫ f(x) dx = Σ w e^{z²} f(z)
        self.v = np.zeros(self.S)  # warm start of the modes (v scale)

    def _modes(self, A, sigma):
        """Mode of q(v) = σYv − A e^{σv} − v²/2 per speaker (strictly concave)."""
        Y, v = self.Y, self.v.copy()
        if sigma == 0.0:
            return np.zeros_like(v)

        def q(t):
            return sigma * Y * t - A * np.exp(sigma * t) - 0.5 * t * t

        for _ in range(200):
            w = A * np.exp(sigma * v)
            g = sigma * (Y - w) - v
            if np.all(np.abs(g) < 1e-11 * (1.0 + np.abs(v))):
                break
            step = g / (sigma * sigma * w + 1.0)
            new = v + step
            bad = q(new) < q(v) - 1e-12 * (1.0 + np.abs(q(v)))
            while np.any(bad):  # backtrack the few Newton steps that overshoot
                step = np.where(bad, 0.5 * step, step)
                new = v + step
                bad = bad & (q(new) < q(v)) & (np.abs(step) > 1e-14)
            v = new
        self.v = v
        return v

    def evaluate(self, beta, sigma, order=2):
        """Log-likelihood (and score, and Hessian, by ``order``) at ``(beta, sigma)``."""
        eta = self.offset + self.X @ beta
        e = np.exp(eta)
        A = self.M @ e
        v = self._modes(A, sigma)
        w_mode = A * np.exp(sigma * v)
        tau = 1.0 / np.sqrt(sigma * sigma * w_mode + 1.0)
        nodes = v[:, None] + math.sqrt(2.0) * tau[:, None] * self.z[None, :]  # (S, K)
        wn = np.exp(sigma * nodes)
        q = sigma * self.Y[:, None] * nodes - A[:, None] * wn - 0.5 * nodes**2
        lterm = self.logw[None, :] + q
        lse = logsumexp(lterm, axis=1)
        ll_s = np.log(math.sqrt(2.0) * tau) - 0.5 * _LOG_2PI + lse
        ll = self.const + float(self.y @ eta) + float(ll_s.sum())
        if order == 0:
            return ll, None, None, v
        p = np.exp(lterm - lse[:, None])  # posterior weights of the nodes
        Ew = (p * wn).sum(axis=1)
        score_sig = self.Y[:, None] * nodes - A[:, None] * nodes * wn  # per node
        grad_b = self.Xty - self.X.T @ (e * Ew[self.spk])
        grad_s = float((p * score_sig).sum())
        grad = np.append(grad_b, grad_s)
        if order == 1:
            return ll, grad, None, v
        B = self.M @ (e[:, None] * self.X)  # b_s = Σ_j e_j x_j, (S, p)
        Vw = (p * wn * wn).sum(axis=1) - Ew**2
        Es = (p * score_sig).sum(axis=1)
        Cws = (p * wn * score_sig).sum(axis=1) - Ew * Es
        Vs = (p * score_sig**2).sum(axis=1) - Es**2
        Evw = (p * nodes * wn).sum(axis=1)
        Ev2w = (p * nodes**2 * wn).sum(axis=1)
        Hbb = -(self.X.T @ ((e * Ew[self.spk])[:, None] * self.X)) + B.T @ (Vw[:, None] * B)
        Hbs = -(B.T @ Evw) - B.T @ Cws
        Hss = float(-(A * Ev2w).sum() + Vs.sum())
        H = np.block([[Hbb, Hbs[:, None]], [Hbs[None, :], np.array([[Hss]])]])
        return ll, grad, H, v


def speaker_loglik(y, N, sigma, log_rate=0.0, n_quad=DEFAULT_N_QUAD):
    """AGHQ marginal log-likelihood of one speaker's utterances (for checking).

    ``y``, ``N``: error and word counts of the speaker's utterances; ``log_rate``: the fixed
    part ``x'β`` (scalar or per utterance); ``sigma``: speaker SD.
    """
    y = np.asarray(y, dtype=float)
    m = _Marginal(
        y,
        np.zeros((y.size, 0)),
        np.log(np.asarray(N, float)) + log_rate,
        np.zeros(y.size, dtype=int),
        n_quad,
    )
    return m.evaluate(np.zeros(0), float(sigma), order=0)[0]


def _glm_start(m: _Marginal) -> np.ndarray:
    """Intercept-only start (the rest 0); the first column of X must be the intercept."""
    p = m.X.shape[1]
    beta = np.zeros(p)
    if p:
        rate = max(m.y.sum(), 0.5) / np.exp(m.offset).sum()
        beta[0] = math.log(rate)
    return beta


def _maximise(m: _Marginal, beta0, sigma0, estimate_sigma, gtol):
    p = beta0.size
    cache: dict = {}

    def ev(t):
        key = t.tobytes()
        if key not in cache:
            cache.clear()
            sig = t[p] if estimate_sigma else sigma0
            ll, g, H, _ = m.evaluate(t[:p], sig, order=2)
            if not estimate_sigma:
                g, H = g[:p], H[:p, :p]
            cache[key] = (ll, g, H)
        return cache[key]

    t0 = np.append(beta0, sigma0) if estimate_sigma else beta0.copy()
    res = optimize.minimize(
        lambda t: -ev(t)[0],
        t0,
        jac=lambda t: -ev(t)[1],
        hess=lambda t: -ev(t)[2],
        method="trust-exact",
        options={"gtol": gtol, "maxiter": 500},
    )
    return res


def fit_poisson_mixed(
    y,
    X,
    offset,
    speakers,
    *,
    n_quad: int = DEFAULT_N_QUAD,
    sigma: float | None = None,
    start: np.ndarray | None = None,
    gtol: float = 1e-7,
) -> MixedFit:
    """Maximum-likelihood fit of ``y ~ Poisson(exp(offset + Xβ + u_speaker))``.

    Parameters
    ----------
    y : error counts per utterance (non-negative integers).
    X : ``(n, p)`` fixed-effects design; its first column must be the intercept.
    offset : ``log N`` per utterance (reference words).
    speakers : integer speaker codes ``0 .. S-1`` per utterance.
    n_quad : quadrature nodes per speaker (1 = Laplace).
    sigma : fix the speaker SD (0: no random effect, the plain Poisson GLM); None estimates it.
    start : starting ``beta`` (default: the plain GLM's).
    gtol : gradient tolerance of the optimiser (log-likelihood units).

    Returns
    -------
    MixedFit
    """
    y = np.asarray(y, dtype=float)
    if y.size == 0:
        raise ValueError("No utterance to fit.")
    if np.any(y < 0) or np.any(y != np.round(y)):
        raise ValueError("Error counts must be non-negative integers.")
    if not 1 <= int(n_quad) <= 50:
        raise ValueError(f"n_quad must be between 1 and 50, got {n_quad}.")
    m = _Marginal(y, X, offset, speakers, int(n_quad))
    p = m.X.shape[1]
    # the plain GLM first: the start for the mixed fit, and the model at σ = 0
    beta0 = _glm_start(m) if start is None else np.asarray(start, float)
    glm = _maximise(m, beta0, 0.0, False, gtol)
    if sigma is not None:
        sig = abs(float(sigma))
        res = glm if sig == 0.0 else _maximise(m, glm.x, sig, False, gtol)
        beta, boundary, fixed = res.x, False, True
    else:
        res = _maximise(m, glm.x, 0.5, True, gtol)
        beta, sig, fixed = res.x[:p], abs(float(res.x[p])), False
        boundary = sig < 1e-4 or -res.fun <= -glm.fun + 1e-9
        if boundary:
            res, beta, sig = glm, glm.x, 0.0
    ll, grad, H, v = m.evaluate(beta, sig, order=2)
    use = p if (fixed or boundary) else p + 1
    info = -H[:use, :use]
    try:
        cov = np.linalg.inv(info)
        if np.any(np.diag(cov) < 0):
            raise np.linalg.LinAlgError
        # Newton decrement: the log-likelihood a further Newton step would still gain. The
        # optimiser's own test can stall at the quadrature's numerical floor (~1e-6 in the
        # gradient) although the maximum is reached to far better than that.
        decrement = float(grad[:use] @ cov @ grad[:use])
    except np.linalg.LinAlgError:
        cov = np.full((use, use), np.nan)
        decrement = math.inf
    modes = sig * v
    mu = np.exp(m.offset + m.X @ beta + modes[m.spk])
    return MixedFit(
        beta=beta,
        sigma=sig,
        cov=cov,
        loglik=float(ll),
        converged=bool(res.success) or decrement < 1e-8,
        modes=modes,
        mu=mu,
        n_quad=int(n_quad),
        sigma_fixed=fixed,
        boundary=bool(boundary),
        n_iter=int(res.nit),
        message=str(res.message),
    )


# --------------------------------------------------------------------------------------------
# Data and design
# --------------------------------------------------------------------------------------------


def _levels(col: pd.Series) -> list[str]:
    """Levels ordered by utterance count (most first), ties by name."""
    counts = col.value_counts()
    return sorted(counts.index.tolist(), key=lambda v: (-int(counts[v]), str(v)))


# --------------------------------------------------------------------------------------------
# Data and design
# --------------------------------------------------------------------------------------------


class PreparedData:
    """Validated utterances, speaker codes and the design block of every term.

    See :func:`fairdesk.stats.regression.poisson_mixed_report.run_poisson_mixed` for the parameters.
    """

    def __init__(
        self,
        frame,
        group_vars,
        covariates,
        reference,
        speaker_col,
        content_col,
        errors_cols,
        words_col,
        max_fixed_contents,
    ):
        if not isinstance(frame, pd.DataFrame):
            raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        if isinstance(group_vars, str):
            group_vars = [group_vars]
        if isinstance(covariates, str):
            covariates = [covariates]
        self.group_vars, self.covariates = list(group_vars), list(covariates or [])
        if not self.group_vars:
            raise ValueError("Name at least one group variable (e.g. accent) to test.")
        names = self.group_vars + self.covariates
        if len(set(names)) != len(names):
            raise ValueError(f"A column is listed twice among the variables: {names}.")
        cols = [*names, words_col, *errors_cols]
        if speaker_col is None or speaker_col not in frame.columns:
            raise ValueError(
                f"The frame has no speaker column {speaker_col!r}: the model's random "
                "intercept is per speaker. Name the speaker column (speaker_col=...), or use "
                "the logistic/binomial regression when speakers are unknown."
            )
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise ValueError(
                f"Column(s) {missing} are not in the frame; available: "
                f"{', '.join(map(str, frame.columns))}. Word errors need "
                f"{' + '.join(errors_cols)} and {words_col} (per-item statistics of a run)."
            )
        df = frame.copy()
        self.dropped: dict[str, int] = {}
        self.notes: list[Notice] = []
        numeric = {}
        for c in [words_col, *errors_cols]:
            vals = pd.to_numeric(df[c], errors="coerce")
            bad = vals.isna() & df[c].notna()
            if bad.any():
                raise ValueError(
                    f"Column {c!r} must hold counts; row {df.index[bad.to_numpy()][0]!r} holds "
                    f"{df[c][bad].iloc[0]!r}."
                )
            numeric[c] = vals
        errs = sum(numeric[c] for c in errors_cols)
        words = numeric[words_col]
        bad = errs.notna() & ((errs < 0) | (errs != np.round(errs)))  # missing: left out
        if bad.any():
            raise ValueError(
                f"Word-error counts must be non-negative integers; row "
                f"{df.index[bad.to_numpy()][0]!r} has {errs[bad].iloc[0].item()!r}."
            )
        keep = errs.notna() & words.notna()
        if not keep.all():  # a row without its counts is left out, and said so
            self.dropped["counts (" + ", ".join([words_col, *errors_cols]) + ")"] = int(
                (~keep).sum()
            )
        for c in names:
            miss = df[c].isna()
            if miss.any():
                self.dropped[c] = int((miss & keep).sum())
            keep &= ~miss
        zero = keep & (words <= 0)
        if zero.any():
            self.dropped[words_col + " = 0"] = int(zero.sum())
            keep &= ~zero
        for k, v in self.dropped.items():
            if v:
                self.notes.append(
                    Notice("poisson.left_out_missing", {"n": v, "what": k})
                    if not k.endswith("= 0")
                    else Notice("poisson.left_out_no_words", {"n": v})
                )
        df, errs, words = df[keep], errs[keep], words[keep]
        spk = df[speaker_col].astype(object)
        no_spk = spk.isna()
        if no_spk.any():
            spk = spk.where(
                ~no_spk, pd.Series(["\x00utt" + str(i) for i in range(len(spk))], index=spk.index)
            )
            self.notes.append(Notice("poisson.no_speaker_id", {"n": int(no_spk.sum())}))
        self.content_col = content_col
        self.content = (
            df[content_col].astype(object)
            if content_col and content_col in df.columns and df[content_col].notna().any()
            else None
        )
        self.df = df
        self.y = errs.to_numpy(dtype=float)
        self.offset = np.log(words.to_numpy(dtype=float))
        self.speakers = spk.map(str).to_numpy(dtype=object)
        if len(df) == 0:
            raise ValueError("No utterance is left to model (see the dropped counts).")
        refs = (
            reference
            if isinstance(reference, Mapping)
            else ({self.group_vars[0]: reference} if reference is not None else {})
        )
        unknown = set(refs) - set(self.group_vars)
        if unknown:
            raise ValueError(f"Reference given for {sorted(unknown)}, not a group variable.")
        # a level without any error has rate ratio 0 (its coefficient runs to -inf) and no
        # Wald interval: it is left out with a note rather than reported as a number
        for var in self.group_vars:
            labels = df[var].map(str).to_numpy(dtype=object)
            tot = pd.Series(self.y).groupby(labels).sum()
            none = sorted(tot.index[tot.to_numpy() == 0])
            ref = refs.get(var)
            if ref is not None and str(ref) in none:
                raise ValueError(
                    f"The reference level {ref!r} of {var!r} has no word error at all: every "
                    "rate ratio against it is infinite. Choose another reference level."
                )
            if none:
                keep = ~np.isin(labels, none)
                self.notes.append(
                    Notice(
                        "poisson.level_no_error",
                        {"variable": var, "levels": list(none), "n": int((~keep).sum())},
                    )
                )
                self.dropped[var + ": no error"] = int((~keep).sum())
                df, self.y, self.offset = df[keep], self.y[keep], self.offset[keep]
                self.speakers = self.speakers[keep]
                if self.content is not None:
                    self.content = self.content[keep]
        self.df = df
        self.levels: dict[str, list[str]] = {}
        for var in self.group_vars:
            labels = df[var].map(str)
            levs = _levels(labels)
            if len(levs) < 2:
                raise ValueError(
                    f"Group variable {var!r} has a single level ({levs}): nothing to compare."
                )
            ref = refs.get(var)
            if ref is not None:
                if str(ref) not in levs:
                    raise ValueError(
                        f"Reference level {ref!r} is not a level of {var!r}; levels: {levs}."
                    )
                levs.remove(str(ref))
                levs.insert(0, str(ref))
            self.levels[var] = levs
        self.terms: dict[str, tuple[np.ndarray, list[str], str]] = {}
        for var in self.group_vars:
            self.terms[var] = self._dummies(df[var].map(str), self.levels[var]) + ("group",)
        self.cov_info: dict[str, dict] = {}
        for c in self.covariates:
            self.terms[c] = self._covariate(df[c], c)
        self.content_info = self._content(max_fixed_contents)

    @staticmethod
    def _dummies(labels: pd.Series, levels: list[str]) -> tuple[np.ndarray, list[str]]:
        arr = labels.to_numpy(dtype=object)
        cols = [(arr == lev).astype(float) for lev in levels[1:]]
        return np.column_stack(cols) if cols else np.zeros((len(arr), 0)), levels[1:]

    def _covariate(self, col: pd.Series, name: str):
        num = pd.to_numeric(col, errors="coerce")
        categorical = pd.api.types.is_bool_dtype(col) or isinstance(col.dtype, pd.CategoricalDtype)
        if not categorical and num.notna().all():
            x = num.to_numpy(dtype=float)
            sd = float(np.std(x))
            if not sd > 0:
                raise ValueError(f"Covariate {name!r} is constant: it cannot adjust anything.")
            self.cov_info[name] = {"kind": "numeric", "mean": float(x.mean()), "sd": sd}
            return (((x - x.mean()) / sd)[:, None], [name], "numeric")
        labels = col.map(str)
        levels = _levels(labels)
        if len(levels) < 2:
            raise ValueError(f"Covariate {name!r} has a single level: it cannot adjust anything.")
        self.cov_info[name] = {"kind": "categorical", "reference": levels[0]}
        return self._dummies(labels, levels) + ("categorical",)

    def _content(self, max_fixed: int) -> Content:
        if self.content is None:
            return Content("absent")
        var = self.group_vars[0]
        labels = self.df[var].map(str).to_numpy(dtype=object)
        cont = self.content.map(str).to_numpy(dtype=object)
        per = pd.DataFrame({"c": cont, "g": labels}).drop_duplicates().groupby("c").size()
        n_shared, n_cont = int((per >= 2).sum()), int(per.size)
        info = Content("absent", n_cont, n_shared, var, int(max_fixed))
        if n_shared < MIN_SHARED_CONTENT:
            return replace(info, handling="not_shared")
        if n_cont > max_fixed:
            return replace(info, handling="not_modelled")
        # content with no error at all: its fixed effect runs to -inf and its utterances carry
        # no information about the other effects, so they are left out (exactly the limit)
        tot = pd.Series(self.y).groupby(cont).sum()
        zero = set(tot.index[tot.to_numpy() == 0])
        if zero:
            keep = ~pd.Series(cont).isin(zero).to_numpy()
            info = replace(
                info, dropped_error_free_contents=len(zero), dropped_utterances=int((~keep).sum())
            )
            self._subset(keep)
            cont = cont[keep]
        levels = _levels(pd.Series(cont))
        X, names = self._dummies(pd.Series(cont), levels)
        self.terms["content"] = (X, names, "content")
        return replace(info, handling="fixed_effect")

    def _subset(self, keep: np.ndarray) -> None:
        self.df = self.df[keep]
        self.y, self.offset, self.speakers = self.y[keep], self.offset[keep], self.speakers[keep]
        self.terms = {k: (X[keep], n, kind) for k, (X, n, kind) in self.terms.items()}

    def design(self, terms: Sequence[str]) -> tuple[np.ndarray, list[tuple[str, str]]]:
        """Intercept + the named terms; column labels as (term, level)."""
        blocks, labels = [np.ones((self.y.size, 1))], [("(intercept)", "")]
        for t in terms:
            X, names, _ = self.terms[t]
            blocks.append(X)
            labels += [(t, n) for n in names]
        return np.hstack(blocks), labels
