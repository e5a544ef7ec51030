"""Ranking a run's items worst first (``fairdesk show`` and the GUI's Items view)."""

from __future__ import annotations


def rank_failures(df):
    """Items ranked worst first: most word errors per reference word, then EM failures."""
    import pandas as pd

    errs = sum(df[c].fillna(0) for c in ("n_sub", "n_del", "n_ins") if c in df.columns)
    words = df["n_words"].clip(lower=1) if "n_words" in df.columns else 1
    rate = errs / words if isinstance(errs, pd.Series) else pd.Series(0.0, index=df.index)
    em_fail = (1 - df["em"].fillna(1)) if "em" in df.columns else 0
    key = pd.DataFrame(
        {"rate": rate, "em": em_fail, "errs": errs if isinstance(errs, pd.Series) else 0},
        index=df.index,
    )
    order = key.sort_values(["rate", "em", "errs"], ascending=False, kind="stable").index
    return df.loc[order]
