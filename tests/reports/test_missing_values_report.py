"""The HTML report marks the descriptive row of the items with no grouping value
(docs/METHODS.md, "Missing values") and says the corpus value includes them."""

from __future__ import annotations

import pandas as pd

from tests.conftest import missing_values_run


def _report(include_missing=False):
    from fairdesk.reports.data import RunData
    from fairdesk.reports.html import render, report_context

    run = missing_values_run(include_missing)
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
