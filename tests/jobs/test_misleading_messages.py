"""Messages that misled (issue 44, point 8), each on an input built like the issue's."""

from __future__ import annotations

import pandas as pd

import fairdesk
from fairdesk.presentation.plans import reading_plan


def _zero_reference() -> pd.DataFrame:
    """Reference group A transcribed perfectly (WER 0); B with two errors in 40 items."""
    rows = []
    for g in ("A", "B"):
        for s in range(8):
            for u in range(5):
                ref = f"turn the light on in room {s} number {u} {g}"
                hyp = ref.replace("light", "lite") if g == "B" and s < 2 and u == 0 else ref
                rows.append({"reference": ref, "hypothesis": hyp, "speaker": f"{g}{s}", "grp": g})
    return pd.DataFrame(rows)


def test_a_reference_at_zero_is_worded_truthfully():
    run = fairdesk.audit_table(
        _zero_reference(),
        by="grp",
        reference="A",
        metrics=["wer"],
        n_bootstrap=400,
        min_items=10,
        min_speakers=5,
    )
    (c,) = run.comparisons
    assert c.reference_value == 0 and c.verdict == "inconclusive_underpowered"
    assert "practical threshold of 0" not in c.reading
    assert "the reference's value is 0, so by the disparity ratio any gap above 0" in c.reading
    plan = reading_plan(run.plan, "wer", "B")
    assert plan is not None and "0-point gap" not in plan and "Not reachable" not in plan
    assert plan.startswith("No plan: the reference's WER is 0")
