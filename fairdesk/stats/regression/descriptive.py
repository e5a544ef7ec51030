"""Sekkat et al.'s complementary univariate tests and descriptive tables (its appendices B and C).

On the rows the logistic models use (:class:`~.data._Data`):

* **χ² of outcome × variable** (appendix C.1.2): Pearson χ² on the table of outcome (0/1)
  by level (``scipy.stats.chi2_contingency`` defaults, Yates' correction on 2×2); for word
  errors, the table of erroneous and correct reference words by level;
* **one-way ANOVA** (appendix C.1.3) of the outcome by level (``scipy.stats.f_oneway``): the
  0/1 outcome per utterance, or each utterance's error rate (errors / words) for word errors;
* **cross-tables** of the demographic variables (appendix B): utterances and speakers per
  level, and per pair of variables the utterance and speaker counts of each cell;
* **per-speaker spread** (appendix C.4): each speaker's outcome rate within each level.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..notices import notice
from .codes import CHI2_NOT_TESTED
from .data import _Data
from .descriptive_results import (
    Anova,
    CellCounts,
    CrossTables,
    Descriptive,
    OutcomeChi2,
    PairTable,
    SpeakerSpread,
    SpeakerValue,
    SpreadLevel,
)
from .logp import chi2_log10, f_log10


def _labels(data: _Data, var: str) -> tuple[np.ndarray, np.ndarray]:
    vals = data.values[var]
    mask = np.array([v is not None for v in vals])
    return vals, mask


def outcome_chi2(data: _Data, var: str) -> OutcomeChi2:
    """χ² test of independence of the outcome and ``var``."""
    vals, mask = _labels(data, var)
    levels = [lev for lev in data.levels[var] if (vals[mask] == lev).any()]
    rows = []
    for lev in levels:
        m = mask & (vals == lev)
        if data.trials is not None:  # binomial
            err = float(data.y[m].sum())
            rows.append([err, float(data.trials[m].sum()) - err])
        else:
            ones = float(data.y[m].sum())
            rows.append([ones, float(m.sum()) - ones])
    table = np.array(rows)
    cols = ["word errors", "correct words"] if data.binomial else ["1", "0"]
    unit = "reference words" if data.binomial else "utterances"
    counts = {lev: dict(zip(cols, map(int, r))) for lev, r in zip(levels, rows)}
    if len(levels) < 2 or (table.sum(axis=0) == 0).any():
        return OutcomeChi2(var, unit, counts, reason=notice(CHI2_NOT_TESTED))
    chi2, p, dof, expected = stats.chi2_contingency(table)
    return OutcomeChi2(
        var,
        unit,
        counts,
        chi2=float(chi2),
        df=int(dof),
        p_value=float(p),
        p_log10=float(chi2_log10(chi2, dof)),
        min_expected=float(expected.min()),
        valid=bool(expected.min() >= 1 and np.mean(expected < 5) <= 0.2),
    )


def anova(data: _Data, var: str) -> Anova:
    """One-way ANOVA of the outcome (per utterance) across the levels of ``var``."""
    vals, mask = _labels(data, var)
    y = data.y / data.trials if data.binomial else data.y
    groups = [y[mask & (vals == lev)] for lev in data.levels[var]]
    groups = [g for g in groups if g.size]
    n = int(sum(g.size for g in groups))
    per = "utterance error rate (errors / words)" if data.binomial else "utterance outcome (0/1)"
    if len(groups) < 2 or all(g.size < 2 for g in groups):
        return Anova(var, per, n, len(groups))
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f, p = stats.f_oneway(*groups)
    return Anova(
        var,
        per,
        n,
        len(groups),
        tested=True,
        f=float(f),
        df_between=len(groups) - 1,
        df_within=n - len(groups),
        p_value=float(p),
        p_log10=float(f_log10(f, len(groups) - 1, n - len(groups))),
    )


def cross_tables(data: _Data, variables: Sequence[str], speakers: np.ndarray | None) -> CrossTables:
    """Counts per level of each variable, and per cell of each pair (utterances, speakers)."""
    frame = pd.DataFrame({v: data.values[v] for v in variables})
    if speakers is not None:
        frame["_speaker"] = speakers
    per_var = {}
    for v in variables:
        sub = frame[frame[v].notna()]
        per_var[v] = {
            lev: CellCounts(
                int((sub[v] == lev).sum()),
                int(sub.loc[sub[v] == lev, "_speaker"].nunique()) if speakers is not None else None,
            )
            for lev in data.levels[v]
        }
    pairs = []
    for i, a in enumerate(variables):
        for b in variables[i + 1 :]:
            sub = frame[frame[a].notna() & frame[b].notna()]
            utt = pd.crosstab(sub[a], sub[b])
            spk: dict[tuple[str, str], int] = {}
            if speakers is not None:
                for (r, c), k in sub.groupby([a, b])["_speaker"].nunique().items():
                    spk[(str(r), str(c))] = int(k)
            cells = {
                str(r): {
                    str(c): CellCounts(int(utt.loc[r, c]), spk.get((str(r), str(c))))
                    for c in utt.columns
                }
                for r in utt.index
            }
            pairs.append(PairTable(a, b, cells))
    return CrossTables(per_var, tuple(pairs))


def speaker_spread(
    data: _Data, variables: Sequence[str], speakers: np.ndarray, what: str
) -> tuple[SpeakerSpread, ...]:
    """Each speaker's outcome rate within each level (EM rate, or pooled WER)."""
    out = []
    for v in variables:
        vals, mask = _labels(data, v)
        levels = []
        for lev in data.levels[v]:
            m = mask & (vals == lev)
            if not m.any():
                continue
            df = pd.DataFrame(
                {
                    "s": speakers[m],
                    "y": data.y[m],
                    "n": data.trials[m] if data.trials is not None else np.ones(int(m.sum())),
                }
            )
            g = df.groupby("s", sort=True).agg(y=("y", "sum"), n=("n", "sum"), k=("y", "size"))
            if g.empty:  # no speaker ids in this level (a --table without a speaker column)
                continue
            rate = (g["y"] / g["n"]).to_numpy(float)
            rows = tuple(
                SpeakerValue(str(s), int(k), float(r)) for s, k, r in zip(g.index, g["k"], rate)
            )
            levels.append(
                SpreadLevel(
                    lev,
                    len(rows),
                    float(rate.min()),
                    float(np.median(rate)),
                    float(rate.max()),
                    float(rate.std(ddof=1)) if rate.size > 1 else None,
                    rows,
                )
            )
        if levels:
            out.append(SpeakerSpread(v, what, tuple(levels)))
    return tuple(out)


def descriptive_block(
    data: _Data, variables: Sequence[str], speakers: np.ndarray | None, outcome_label: str
) -> Descriptive:
    """Everything of this module for a regression result."""
    what = "WER (errors / reference words)" if data.binomial else outcome_label + " rate"
    return Descriptive(
        outcome_chi2=tuple(outcome_chi2(data, v) for v in variables),
        anova=tuple(anova(data, v) for v in variables),
        cross_tables=cross_tables(data, variables, speakers),
        speaker_spread=(
            speaker_spread(data, variables, speakers, what) if speakers is not None else ()
        ),
    )
