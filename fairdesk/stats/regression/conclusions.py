"""Which level a regression's conclusion names: the one that differs most
(docs/METHODS.md, "Conclusions and p-values"); the sentences are written by
fairdesk.presentation.regression_logit_words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...core.pvalues import p_log10
from .results import LevelEffect


def _log_p(lev: LevelEffect) -> float:
    lg = p_log10(lev.p_value, lev.p_log10)
    return -math.inf if lg is None else lg  # 0.0 without its log: below every other p


def largest_effect(levels: Sequence[LevelEffect], alpha: float) -> LevelEffect | None:
    """The level that differs most from the reference: the largest |log odds ratio| among
    the levels with p < ``alpha`` (all levels when none is), ties broken by the smaller
    p (its logarithm, so p-values that underflowed to 0.0 still compare); None without a
    finite odds ratio."""
    finite = [lev for lev in levels if math.isfinite(lev.odds_ratio) and lev.odds_ratio > 0]
    pool = [lev for lev in finite if lev.p_value < alpha] or finite
    if not pool:
        return None
    return max(pool, key=lambda lev: (abs(math.log(lev.odds_ratio)), -_log_p(lev)))
