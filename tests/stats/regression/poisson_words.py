"""Test helpers: the mixed Poisson result as ``--json`` writes it (today's layout, in words),
for tests that read the whole output."""

from __future__ import annotations

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_poisson_words import poisson_json
from fairdesk.stats.regression import agreement_with_bootstrap
from fairdesk.stats.regression import run_poisson_mixed as _run
from fairdesk.stats.regression.poisson_mixed_report import shrink_pct
from fairdesk.stats.regression.poisson_mixed_result import MixedPoissonResult, TraceLevel


def run_poisson_mixed(*args, **kwargs) -> dict:
    """``run_poisson_mixed`` worded: ``poisson_json`` of the typed result."""
    return poisson_json(_run(*args, **kwargs))


def agreement_words(result: dict, comparisons, variable=None, metric="wer") -> list[dict]:
    """The agreement rows in words of a result given in its JSON layout."""
    rows = agreement_with_bootstrap(
        MixedPoissonResult.from_json(result), comparisons, variable, metric
    )
    return [a.to_json(notice_text) for a in rows]


def shrink_sentence(var, level, ref, before: dict, after: dict, added: list[str]):
    """(% shrinkage or None, its sentence) for a gap before and after ``added``."""
    s = shrink_pct(before["log_rr"], after["log_rr"])
    t = TraceLevel(
        var, level, before["rate_ratio"], after["rate_ratio"], 0.1, 0.1, -1.0, -1.0, s, False
    )
    return (None if s != s else s), notice_text(t.shrink(ref, added))
