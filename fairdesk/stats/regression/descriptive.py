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

from .data import _Data
from .logp import chi2_log10, f_log10
from .results import _num


def _labels(data: _Data, var: str) -> tuple[np.ndarray, np.ndarray]:
    vals = data.values[var]
    mask = np.array([v is not None for v in vals])
    return vals, mask


def outcome_chi2(data: _Data, var: str) -> dict:
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
    out = {
        "variable": var,
        "unit": "reference words" if data.binomial else "utterances",
        "table": {lev: dict(zip(cols, map(int, r))) for lev, r in zip(levels, rows)},
    }
    if len(levels) < 2 or (table.sum(axis=0) == 0).any():
        return {
            **out,
            "chi2": None,
            "df": 0,
            "p_value": None,
            "reason": "fewer than two levels, or a constant outcome on these rows",
        }
    chi2, p, dof, expected = stats.chi2_contingency(table)
    return {
        **out,
        "chi2": _num(chi2),
        "df": int(dof),
        "p_value": _num(p),
        "p_log10": _num(chi2_log10(chi2, dof)),
        "min_expected": _num(expected.min()),
        "valid": bool(expected.min() >= 1 and np.mean(expected < 5) <= 0.2),
    }


def anova(data: _Data, var: str) -> dict:
    """One-way ANOVA of the outcome (per utterance) across the levels of ``var``."""
    vals, mask = _labels(data, var)
    y = data.y / data.trials if data.binomial else data.y
    groups = [y[mask & (vals == lev)] for lev in data.levels[var]]
    groups = [g for g in groups if g.size]
    n = int(sum(g.size for g in groups))
    out: dict[str, object] = {
        "variable": var,
        "per": "utterance error rate (errors / words)"
        if data.binomial
        else "utterance outcome (0/1)",
        "n": n,
        "k": len(groups),
    }
    if len(groups) < 2 or all(g.size < 2 for g in groups):
        return {**out, "f": None, "df_between": 0, "df_within": 0, "p_value": None}
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f, p = stats.f_oneway(*groups)
    return {
        **out,
        "f": _num(f),
        "df_between": len(groups) - 1,
        "df_within": n - len(groups),
        "p_value": _num(p),
        "p_log10": _num(f_log10(f, len(groups) - 1, n - len(groups))),
    }


def cross_tables(data: _Data, variables: Sequence[str], speakers: np.ndarray | None) -> dict:
    """Counts per level of each variable, and per cell of each pair (utterances, speakers)."""
    frame = pd.DataFrame({v: data.values[v] for v in variables})
    if speakers is not None:
        frame["_speaker"] = speakers
    per_var = {}
    for v in variables:
        sub = frame[frame[v].notna()]
        per_var[v] = {
            lev: {
                "utterances": int((sub[v] == lev).sum()),
                **(
                    {"speakers": int(sub.loc[sub[v] == lev, "_speaker"].nunique())}
                    if speakers is not None
                    else {}
                ),
            }
            for lev in data.levels[v]
        }
    pairs = []
    for i, a in enumerate(variables):
        for b in variables[i + 1 :]:
            sub = frame[frame[a].notna() & frame[b].notna()]
            utt = pd.crosstab(sub[a], sub[b])
            cells = {
                str(r): {str(c): {"utterances": int(utt.loc[r, c])} for c in utt.columns}
                for r in utt.index
            }
            if speakers is not None:
                spk = sub.groupby([a, b])["_speaker"].nunique()
                for (r, c), k in spk.items():
                    cells[str(r)][str(c)]["speakers"] = int(k)
            pairs.append({"variable_a": a, "variable_b": b, "cells": cells})
    return {"levels": per_var, "pairs": pairs}


def speaker_spread(
    data: _Data, variables: Sequence[str], speakers: np.ndarray, what: str
) -> list[dict]:
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
            rows = [
                {"speaker": str(s), "n_utterances": int(k), "value": _num(r)}
                for s, k, r in zip(g.index, g["k"], rate)
            ]
            levels.append(
                {
                    "level": lev,
                    "n_speakers": len(rows),
                    "min": _num(rate.min()),
                    "median": _num(np.median(rate)),
                    "max": _num(rate.max()),
                    "sd": _num(rate.std(ddof=1)) if rate.size > 1 else None,
                    "speakers": rows,
                }
            )
        if levels:
            out.append({"variable": v, "measure": what, "levels": levels})
    return out


def descriptive_block(
    data: _Data, variables: Sequence[str], speakers: np.ndarray | None, outcome_label: str
) -> dict:
    """Everything of this module for a regression result (JSON-ready)."""
    what = "WER (errors / reference words)" if data.binomial else f"{outcome_label} rate"
    block = {
        "outcome_chi2": [outcome_chi2(data, v) for v in variables],
        "anova": [anova(data, v) for v in variables],
        "cross_tables": cross_tables(data, variables, speakers),
        "speaker_spread": (
            speaker_spread(data, variables, speakers, what) if speakers is not None else []
        ),
    }
    return block
