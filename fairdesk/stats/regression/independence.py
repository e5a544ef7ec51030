"""χ² independence of each pair of demographic variables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from ..notices import notice
from .codes import EXPECTED_BELOW_1, EXPECTED_BELOW_5, INDEPENDENCE_SINGLE_LEVEL
from .data import _Data
from .fits import _present_levels
from .logp import chi2_log10
from .results import IndependenceResult


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
            notice(INDEPENDENCE_SINGLE_LEVEL, variable=one),
            as_dict,
            n=n,
        )
    chi2, p, dof, expected = stats.chi2_contingency(table.to_numpy())
    share = float(np.mean(expected < 5))
    low = float(expected.min())
    reason = None
    if low < 1:
        reason = notice(EXPECTED_BELOW_1, smallest=low)
    elif share > 0.2:
        reason = notice(EXPECTED_BELOW_5, share=share)
    valid = reason is None
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
        p_log10=chi2_log10(chi2, dof),
    )
