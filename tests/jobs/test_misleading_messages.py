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
    assert "practical threshold of 0" not in fairdesk.reading(c, run)
    assert (
        "the reference's value is 0, so by the disparity ratio any gap above 0"
        in fairdesk.reading(c, run)
    )
    plan = reading_plan(run.plan, "wer", "B")
    assert plan is not None and "0-point gap" not in plan and "Not reachable" not in plan
    assert plan.startswith("No plan: the reference's WER is 0")


def _partly_matched() -> pd.DataFrame:
    """Both groups read sentences 0-5; each speaker also reads two sentences of their own:
    the two-way scheme compares the shared sentences only."""
    import numpy as np

    rng = np.random.default_rng(2)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    rows = []
    for g, p in (("A", 0.12), ("B", 0.2)):
        for s in range(10):
            for c in range(8):
                if c < 6:
                    ref = [f"sentence{c}", *(words[(c + k) % 12] for k in range(6))]
                else:
                    ref = [f"own{g}{s}x{c}", *words[:6]]
                hyp = [w if rng.random() > p else "x" for w in ref]
                rows.append(
                    {
                        "reference": " ".join(ref),
                        "hypothesis": " ".join(hyp),
                        "speaker": f"{g}{s}",
                        "grp": g,
                    }
                )
    return pd.DataFrame(rows)


def test_a_partly_matched_table_says_the_comparison_is_on_the_shared_sentences():
    from fairdesk.presentation import fmt_value

    run = fairdesk.audit_table(
        _partly_matched(), by="grp", reference="A", metrics=["wer"], n_bootstrap=300
    )
    (c,) = run.comparisons
    assert c.estimator == "two_way" and "shared_content_subset" in c.flags
    table_value = run.group("A").values["wer"]
    # the comparison's reference value (shared sentences) is not the group table's
    assert fmt_value("wer", c.reference_value) != fmt_value("wer", table_value)
    assert fairdesk.reading(c, run).startswith(
        "Word error rate (WER) on the 6 sentences both groups said is"
    )
    assert "can differ from the group table's, which count every item" in fairdesk.reading(c, run)
