"""The HTML report of a regression whose p-values underflowed to 0.0 (issue 28): the stored
regression's conclusions and odds-ratio table read ``p < 1e-300 (log10 p = …)``, never
``0.0e+00``; a regression stored before ``p_log10`` existed is still read (its logarithms
filled in: log10(p), or none where p is 0.0, which reads ``< 1e-300``)."""

from __future__ import annotations

import copy
import math
import shutil

import pytest

from fairdesk.core.store import Project
from fairdesk.presentation.regression_words import regression_conclusions
from fairdesk.reports.data import load_run
from fairdesk.reports.html import render, report_context
from tests.reports.test_html import parse
from tests.stats.regression.conftest import underflow_frame


def _without_log10(obj):
    """A stored result as fairdesk wrote it before p_log10: every ``*log10`` key dropped."""
    if isinstance(obj, list):
        return [_without_log10(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _without_log10(v) for k, v in obj.items() if "log10" not in k}
    return obj


@pytest.fixture(scope="module")
def report(speech_runs, tmp_path_factory):
    from fairdesk.jobs.regression_run import regress_table, store_regression, stored_regressions

    tmp = tmp_path_factory.mktemp("underflow-report")
    shutil.copytree(speech_runs.project.folder, tmp / "proj")  # the shared project stays as is
    p = Project(tmp / "proj", create=False)
    table = tmp / "dialects.csv"
    underflow_frame()[["dialectal_region", "recognised", "speaker_id"]].to_csv(table, index=False)
    out = regress_table(
        table, "recognised", ["dialectal_region"], "speaker_id", 0.05, {"dialectal_region": "Asian"}
    )
    old = copy.deepcopy(out.to_json())
    old["result"] = _without_log10(old["result"])
    del old["schema"]  # today's layout, as stored before the schema version
    store_regression(p, speech_runs.run, old)
    store_regression(p, speech_runs.run, out)
    stored = stored_regressions(p, speech_runs.run)
    text = render(report_context(load_run(p, speech_runs.run)))
    yield out, stored, text
    p.close()


def test_report_shows_the_floor_with_its_logarithm(report):
    out, stored, text = report
    plain = "".join(parse(text).itertext())
    assert "e+00" not in plain
    (u,) = out.result.univariate
    best = next(lev for lev in u.levels if lev.level == "Mid-Atlantic")
    assert best.p_value == 0.0 and math.isfinite(best.p_log10)
    head = regression_conclusions(out)[0]
    assert head.startswith("dialectal_region is associated with recognised (LR p < 1e-300 (")
    assert "largest difference: Mid-Atlantic 3.52" in head
    assert head in plain
    # the odds-ratio table's cell of Mid-Atlantic: the floor and the logarithm
    assert f"< 1e-300 (log10 p = {best.p_log10:.1f})" in plain


def test_a_regression_stored_before_p_log10_is_read_and_shown(report):
    out, stored, text = report
    new, old = stored[:2]  # newest first (the shared project may hold older ones)
    assert new.result.univariate[0].llr_p_log10 == pytest.approx(
        out.result.univariate[0].llr_p_log10
    )
    levels = {lev.level: lev for lev in old.result.univariate[0].levels}
    # filled in on reading: NaN where p underflowed (its size is lost), log10 of p elsewhere
    assert levels["Mid-Atlantic"].p_value == 0.0 and math.isnan(levels["Mid-Atlantic"].p_log10)
    south = levels["Southern"]
    assert south.p_log10 == pytest.approx(math.log10(south.p_value), rel=1e-12)
    assert math.isnan(old.result.univariate[0].llr_p_log10)
    # the report's odds-ratio rows: the floor, without a logarithm for the old one
    from fairdesk.reports.sections import _or_rows

    cells = {r["level"]: r["p"] for r in _or_rows(old.result)}
    assert cells["Mid-Atlantic vs Asian"] == "< 1e-300"
    cells = {r["level"]: r["p"] for r in _or_rows(new.result)}
    assert cells["Mid-Atlantic vs Asian"].startswith("< 1e-300 (log10 p = -")
    assert cells["Southern vs Asian"] == "< 0.001"
    # its sentences are written from its stored numbers, today's words
    said = regression_conclusions(old)
    assert said[0].startswith("dialectal_region is associated with recognised (LR p < 1e-300)")
    assert all(c in "".join(parse(text).itertext()) for c in said)
