"""The HTML report marks the descriptive row of the items with no grouping value
(docs/METHODS.md, "Missing values") and says the corpus value includes them."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _table_run(include_missing=False):
    import fairdesk

    rng = np.random.default_rng(2)
    rows = []
    for acc, p, n_spk in (("north", 0.03, 7), ("south", 0.2, 6), (None, 0.3, 5)):
        for s in range(n_spk):
            for c in range(6):
                ref = f"play track number {c} from the album"
                hyp = " ".join(w if rng.random() > p else "zzz" for w in ref.split())
                value = acc if acc else [None, " ", ["x"]][s % 3]
                rows.append(
                    {
                        "reference": ref,
                        "hypothesis": hyp,
                        "speaker_id": f"{acc}{s}",
                        "accent": value,
                    }
                )
    df = pd.DataFrame(rows)
    return fairdesk.audit_table(
        df, by="accent", n_bootstrap=200, min_items=10, include_missing=include_missing
    )


def _report(include_missing=False):
    from fairdesk.reports.data import RunData
    from fairdesk.reports.html import render, report_context

    run = _table_run(include_missing)
    d = RunData(project=None, run_id=1, payload=run, items=pd.DataFrame({"group": []}))
    ctx = report_context(d)
    return ctx, render(ctx)


def test_report_marks_the_descriptive_row():
    ctx, page = _report()
    rows = ctx["groups"]["rows"]
    assert [r["group"] for r in rows] == ["north", "south", "no value for accent"]
    assert [r["missing"] for r in rows] == [False, False, True]
    assert 'no value for accent * <span class="muted">(descriptive, not tested)</span>' in page
    assert "* no value for accent (30 items): described" in page
    assert "pools the analysed groups and the 30 items with no grouping value" in page
    status = [g for g in ctx["corpus"]["groups"] if g["missing"]]
    assert len(status) == 1 and "descriptive, not tested: no value, not a group" in page
    assert {c["group"] for c in ctx["cards"]} == {"south"}  # no verdict card for it


def test_report_with_include_missing_has_a_missing_group():
    ctx, page = _report(include_missing=True)
    assert "(missing)" in [r["group"] for r in ctx["groups"]["rows"]]
    assert "descriptive, not tested" not in page and ctx["groups"]["corpus_note"] == ""
    assert "(missing)" in {c["group"] for c in ctx["cards"]}
