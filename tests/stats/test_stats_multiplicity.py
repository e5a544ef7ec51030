"""Verdicts and CIs agree: where a CI excludes 0 but Holm says no, the result says why."""

import numpy as np
import pandas as pd

from fairdesk.metrics.registry import ratio_metric
from fairdesk.presentation.readings import reading
from fairdesk.stats import AuditSettings, compare_groups

WER = ratio_metric("wer", "WER", ["n_err"], ["n_words"])


def test_ci_and_adjusted_verdict_are_reconciled():
    rng = np.random.default_rng(7)
    rows = []
    for g in range(12):
        p = 0.10 + (0.015 if g in (1, 2, 3) else 0.0)
        for s in range(12):
            ps = p * np.exp(rng.normal(0, 0.1))
            for i in range(25):
                rows.append(
                    {
                        "group": f"g{g:02d}",
                        "speaker_id": f"g{g}s{s}",
                        "content_id": f"u{g}_{s}_{i}",
                        "n_words": 8,
                        "n_err": rng.binomial(8, min(ps, 1)),
                    }
                )
    df = pd.DataFrame(rows)
    res = compare_groups(df, [WER], AuditSettings(n_bootstrap=1000), reference="g00")
    flagged = 0
    for c in res.comparisons:
        excludes0 = c.ci_low > 0 or c.ci_high < 0
        sig = c.p_adjusted < 0.05
        has = "significant_before_multiplicity_adjustment" in c.flags
        assert has == (excludes0 and not sig)
        if sig:  # a significant verdict always has a CI that excludes 0
            assert excludes0
        if has:
            flagged += 1
            text = reading(c, res, specs=[WER])
            assert "Holm" in text and "11 comparisons" in text
    assert flagged >= 1
