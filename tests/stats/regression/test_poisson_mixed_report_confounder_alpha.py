"""The tracing's confounder rule at its edge: the covariate's LR p-value must be below alpha."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairdesk.presentation.pvalues import p_text as _fmt_p
from tests.stats.regression.poisson_words import run_poisson_mixed


def _suppressed_gap_frame() -> pd.DataFrame:
    """grp has a true +0.5 log rate but speaks at a lower pace; errors rise with pace, so
    adjusting on pace reveals the gap (p 0.027 -> 0.012, pace's LR p 0.016)."""
    rng = np.random.default_rng(7)
    rows = []
    for g, (eff, shift) in {"ref": (0.0, 0.0), "grp": (0.5, -1.0)}.items():
        si = np.repeat(np.arange(8), 8)
        words = rng.integers(5, 12, si.size)
        pace = rng.normal(shift, 1, si.size)
        eta = -1.7 + eff + 0.15 * pace + rng.normal(0, 0.3, 8)[si]
        rows.append(
            pd.DataFrame(
                {
                    "accent": g,
                    "speaker_id": [f"{g}{i}" for i in si],
                    "n_words": words,
                    "n_sub": rng.poisson(words * np.exp(eta)),
                    "n_del": 0,
                    "n_ins": 0,
                    "pace": pace,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _run(df, alpha):
    return run_poisson_mixed(df, "accent", ["pace"], reference="ref", content_col=None, alpha=alpha)


def test_lr_p_value_equal_to_alpha_is_not_a_confounder():
    df = _suppressed_gap_frame()
    step = _run(df, 0.05)["tracing"][0]
    lr_p = step["lr_p_value"]
    lev = step["levels"][0]
    assert lev["level"] == "grp"
    # the gap is not significant before adjustment and is after, at alpha = pace's LR p
    assert lev["p_after"] < lr_p < lev["p_before"] < 0.05

    at = _run(df, lr_p)
    s = at["tracing"][0]
    assert s["lr_p_value"] == lr_p
    assert s["levels"][0]["conclusion_changed"] is True
    assert s["confounder"] is False
    assert not any("confounds the group effect" in c for c in at["conclusions"])

    above = _run(df, float(np.nextafter(lr_p, 1.0)))
    s = above["tracing"][0]
    assert s["levels"][0]["conclusion_changed"] is True
    assert s["confounder"] is True
    sentence = (
        f"pace confounds the group effect (LR p = {_fmt_p(lr_p)}): adjusted on it, "
        f"grp becomes significant (p = {_fmt_p(s['levels'][0]['p_after'])})."
    )
    assert sentence in above["conclusions"]
