"""OLS of WER on numeric covariates (docs/METHODS.md, "Regression of WER on covariates (OLS)"), with Spearman correlations.

``WER ~ covariate + ... (+ C(group variable) ...)`` fitted by ordinary least squares
(:func:`statsmodels.formula.api.ols`), per speaker when the rows name speakers (each
speaker's pooled WER = errors / reference words over their utterances; the Speech Accent Archive analysis regresses
per speaker, e.g. WER on age of English onset and age) or per utterance otherwise. Beside
it, the Spearman rank correlation of WER with each covariate (descriptive, with n).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping, Sequence

import pandas as pd
from scipy import stats

from ..notices import Notice, notice
from .codes import (
    AGGREGATION_SPEAKER_MEAN,
    AGGREGATION_SPEAKER_WER,
    AGGREGATION_UTTERANCE,
    COVARIATE_VARIES,
    OLS_DROPPED,
)
from .linear_results import Coefficient, LinearResult, SpearmanResult
from .logp import f_log10, t_log10

__all__ = ["run_linear", "speaker_frame"]

LEVELS = ("auto", "speaker", "utterance")


def _q(name: str) -> str:
    """A column name as a patsy term (any characters)."""
    return "Q(" + repr(str(name)) + ")"


def speaker_frame(
    frame: pd.DataFrame,
    speaker_col: str,
    outcome: str,
    covariates: Sequence[str],
    variables: Sequence[str],
    errors_col: str | None,
    words_col: str | None,
) -> tuple[pd.DataFrame, list[Notice]]:
    """One row per speaker: pooled WER (or the outcome's mean), covariate means, group labels.

    Covariates that vary within a speaker (per-item acoustic measures) enter as the speaker's
    mean (a note says so); a group variable must be constant within each speaker.
    """
    notes: list[Notice] = []
    g = frame.groupby(frame[speaker_col].astype(str), sort=True)
    out = pd.DataFrame(index=pd.Index(sorted(g.groups), name=speaker_col))
    if errors_col is not None:
        out[outcome] = g[errors_col].sum() / g[words_col].sum()
    else:
        out[outcome] = g[outcome].mean()
    out["n_utterances"] = g.size()
    for c in covariates:
        out[c] = g[c].mean()
        if (g[c].nunique(dropna=True) > 1).any():
            notes.append(notice(COVARIATE_VARIES, covariate=c))
    for v in variables:
        n_levels = g[v].nunique(dropna=True)
        if (n_levels > 1).any():
            bad = list(n_levels[n_levels > 1].index[:3])
            raise ValueError(
                f"{v!r} is not constant within speakers (e.g. {bad}); fit per "
                "utterance instead (--level utterance)"
            )
        out[v] = g[v].first()
    return out.reset_index(), notes


def run_linear(
    frame: pd.DataFrame,
    covariates: Sequence[str],
    variables: Sequence[str] = (),
    references: Mapping[str, str] | None = None,
    outcome: str = "wer",
    speaker_col: str | None = "speaker_id",
    level: str = "auto",
    alpha: float = 0.05,
    *,
    errors_cols: Sequence[str] = ("n_sub", "n_del", "n_ins"),
    words_col: str = "n_words",
) -> LinearResult:
    """OLS of WER (or another numeric outcome) on covariates, per speaker or per utterance.

    Parameters
    ----------
    frame : one row per utterance.
    covariates : numeric columns (metadata such as ``age_onset``, or per-item acoustic
        covariates such as ``duration_s``).
    variables : categorical group columns added as ``C(var)`` (treatment coding).
    references : variable -> reference level (default: the level with the most rows).
    outcome : ``"wer"`` (errors / reference words from ``errors_cols`` and ``words_col``;
        pooled per speaker) or a numeric column (its mean per speaker).
    speaker_col : speaker column; ``level="auto"`` fits per speaker when it is present.
    level : ``"auto"``, ``"speaker"`` or ``"utterance"``.
    alpha : intervals at ``1 - alpha``.

    Returns
    -------
    LinearResult
        ``level, formula, n, n_utterances, n_dropped, coefficients`` (``term, estimate, se,
        ci_low, ci_high, p_value``), ``r2, adj_r2, f_p_value, spearman`` (per covariate
        ``rho, p_value, n``), ``notes``; ``to_json()`` is the dict a project stores; its
        conclusions in words are fairdesk.presentation.regression_words.linear_sentences.

    Raises
    ------
    ValueError
        Missing or non-numeric columns, too few rows for the terms, a variable that is not
        constant within speakers (per-speaker fit).
    """
    import statsmodels.formula.api as smf

    covariates, variables = list(dict.fromkeys(covariates)), list(dict.fromkeys(variables))
    if not covariates:
        raise ValueError("the linear model needs at least one covariate (--covariates COL)")
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    df = frame.copy()
    missing = [c for c in covariates + variables if c not in df.columns]
    if missing:
        raise ValueError(
            f"unknown column(s) {missing} (columns: {', '.join(map(str, df.columns))})"
        )
    errors_col = words_col_used = None
    if outcome == "wer":
        need = [c for c in (*errors_cols, words_col) if c not in df.columns]
        if need:
            raise ValueError(f"outcome 'wer' needs the word-error counts {need}")
        df["_errors"] = df[list(errors_cols)].sum(axis=1)
        errors_col, words_col_used = "_errors", words_col
        df = df[df[words_col] > 0]
        df["wer"] = df["_errors"] / df[words_col]
    elif outcome not in df.columns:
        raise ValueError(f"no outcome column {outcome!r}")
    for c in covariates + ([outcome] if outcome != "wer" else []):
        conv = pd.to_numeric(df[c], errors="coerce")
        bad = conv.isna() & df[c].notna()
        if bad.any():
            raise ValueError(
                f"column {c!r} must be numeric; row {df.index[bad][0]} holds {df[c][bad].iloc[0]!r}"
            )
        df[c] = conv
    n_utt = len(df)
    keep = df[covariates + variables + [outcome]].notna().all(axis=1)
    n_dropped = int((~keep).sum())
    df = df[keep]
    per_speaker = level == "speaker" or (
        level == "auto"
        and speaker_col is not None
        and speaker_col in df.columns
        and df[speaker_col].notna().all()
    )
    notes: list[Notice] = []
    if n_dropped:
        notes.append(notice(OLS_DROPPED, n=n_dropped))
    if per_speaker:
        if speaker_col is None or speaker_col not in df.columns:
            raise ValueError("a per-speaker fit needs a speaker column")
        data, more = speaker_frame(
            df, speaker_col, outcome, covariates, variables, errors_col, words_col_used
        )
        notes += more
        unit = "speaker"
    else:
        data, unit = df.reset_index(drop=True), "utterance"
    refs = dict(references or {})
    terms = [_q(c) for c in covariates]
    for v in variables:
        counts = data[v].astype(str).value_counts()
        ref = str(refs.get(v, counts.index[0]))
        if ref not in counts.index:
            raise ValueError(
                f"reference level {ref!r} is not among {v!r}'s levels {sorted(counts.index)}"
            )
        data[v] = data[v].astype(str)
        refs[v] = ref
        terms.append("C(" + _q(v) + ", Treatment(" + repr(ref) + "))")
    formula = _q(outcome) + " ~ " + " + ".join(terms)
    n_params = 1 + len(covariates) + sum(data[v].nunique() - 1 for v in variables)
    if len(data) <= n_params:
        raise ValueError(
            f"{len(data)} {unit}s for {n_params} coefficients: the model needs "
            "more rows than coefficients"
        )
    fit = smf.ols(formula, data).fit()
    what = "WER" if outcome == "wer" else outcome
    ci = fit.conf_int(alpha)
    coefs = tuple(
        Coefficient(
            term=_pretty(name),
            estimate=float(fit.params[name]),
            se=float(fit.bse[name]),
            ci_low=float(ci.loc[name, 0]),
            ci_high=float(ci.loc[name, 1]),
            p_value=float(fit.pvalues[name]),
            p_log10=float(t_log10(fit.tvalues[name], fit.df_resid)),
        )
        for name in fit.params.index
    )
    spearman = []
    for c in covariates:
        rho, p = stats.spearmanr(data[outcome], data[c])
        spearman.append(
            SpearmanResult(
                covariate=c,
                rho=float(rho),
                p_value=float(p),
                p_log10=float(_spearman_log10(rho, len(data))),
                n=int(len(data)),
            )
        )
    if per_speaker:
        aggregation = AGGREGATION_SPEAKER_WER if outcome == "wer" else AGGREGATION_SPEAKER_MEAN
    else:
        aggregation = AGGREGATION_UTTERANCE
    return LinearResult(
        outcome=outcome,
        level=unit,
        formula=what + " ~ " + " + ".join(covariates + ["C(" + v + ")" for v in variables]),
        n=int(len(data)),
        n_utterances=int(n_utt - n_dropped),
        n_dropped=n_dropped,
        alpha=float(alpha),
        references=refs,
        coefficients=coefs,
        r2=float(fit.rsquared),
        adj_r2=float(fit.rsquared_adj),
        f_p_value=float(fit.f_pvalue),
        f_p_log10=float(f_log10(fit.fvalue, fit.df_model, fit.df_resid)),
        spearman=tuple(spearman),
        aggregation=notice(aggregation),
        notes=tuple(notes),
    )


def _spearman_log10(rho, n: int) -> float:
    """log10 of scipy's Spearman p: the two-sided t test of ρ on n − 2 df."""
    rho = float(rho)
    if not math.isfinite(rho) or abs(rho) >= 1 or n < 3:
        return math.nan
    return t_log10(rho * math.sqrt((n - 2) / ((1 + rho) * (1 - rho))), n - 2)


def _literal(s: str, start: int, sep: str) -> tuple[str, int]:
    """The string literal at ``s[start:]`` that ``sep`` follows, and where that ``sep`` starts.

    The literal may itself hold ``sep``: the right one is the first that ends it (a slice
    that stops inside the literal, or after more than it, does not parse).
    """
    at = s.find(sep, start)
    while at >= 0:
        try:
            return ast.literal_eval(s[start:at]), at
        except SyntaxError:
            at = s.find(sep, at + len(sep))
    raise ValueError(f"cannot read the term name {s!r}")


def _pretty(name: str) -> str:
    """``Q('age')`` -> ``age``; ``C(Q('g'), Treatment('a'))[T.b]`` -> ``g[T.b]``."""
    s = str(name)
    # the names are Python reprs (_q): read them back, escapes and quotes included
    if s.startswith("C(Q("):
        var, end = _literal(s, 4, "), Treatment(")
        _, end = _literal(s, end + len("), Treatment("), "))[")
        return str(var) + s[end + 2 :]
    if s.startswith("Q("):
        return ast.literal_eval(s[2:-1])
    return s
