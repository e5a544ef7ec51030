"""The report's planning section: the plan sentence, the sides table and the MDE-versus-
speakers chart of every underpowered comparison (docs/METHODS.md, "Recording plan")."""

from __future__ import annotations

import pytest

from fairdesk.core.store import Project
from fairdesk.presentation.plans import SIDE_COLUMNS, plan_sentence, side_rows
from fairdesk.reports.html import build_report, render, report_context
from fairdesk.stats.planning_types import MdePoint, SideNeed
from tests.conftest import underpowered_pilot
from tests.reports.test_html import external_references, parse


@pytest.fixture(scope="module")
def pilot(tmp_path_factory):
    folder, out = underpowered_pilot(tmp_path_factory.mktemp("plan_report"))
    p = Project(folder)
    yield p, out
    p.close()


def test_report_has_a_planning_section_with_the_plan_sentence_and_sides(pilot):
    p, out = pilot
    plan = out.result.plan
    assert plan is not None and plan.comparisons
    text = build_report(p, 1)
    tree = parse(text)
    assert not external_references(text, tree)
    section = tree.find(".//section[@id='planning']")
    assert section is not None
    paragraphs = ["".join(e.itertext()) for e in section.iter("p")]
    tables = section.findall(".//table")
    assert len(tables) == len(plan.comparisons)
    for cp, table in zip(plan.comparisons, tables):
        # the one wording, no second one
        assert plan_sentence(cp, plan) in paragraphs
        cells = [["".join(c.itertext()) for c in tr] for tr in table.iter("tr")]
        assert tuple(cells[0]) == SIDE_COLUMNS
        assert [tuple(r) for r in cells[1:]] == side_rows(cp)
    svgs = [e for e in section.iter() if str(e.tag).rsplit("}", 1)[-1] == "svg"]
    assert len(svgs) == len(plan.comparisons)


def test_sides_rows_are_the_plan_numbers():
    from tests.cli.test_plan import _cp

    cp = _cp()
    assert side_rows(cp) == [
        ("child", "10", "120", "110", "10", "1,100", "≈ 1.1 hours"),
        ("adult (reference)", "12", "120", "108", "10", "1,080", "≈ 1.1 hours"),
    ]
    unreachable = _cp(
        speakers_needed=None,
        reachable=False,
        limit="search",
        group_need=SideNeed("age=child", 10, None, None, 10.0, None, None, 3.6),
        reference_need=None,
    )
    assert side_rows(unreachable) == [("child", "10", "not reachable", "–", "10", "–", "–")]


def test_chart_draws_the_plan_curve_target_and_pilot(pilot):
    from fairdesk.reports.plan_section import mde_chart

    _p, out = pilot
    cp = out.result.plan.comparisons[0]
    assert cp.speakers_needed is None  # the pilot's target (1.2 points) is out of reach
    fig, _d = mde_chart(cp)
    ax = fig.axes[0]
    curve = ax.lines[0]
    assert list(curve.get_xdata()) == [pt.k for pt in cp.curve]
    assert list(curve.get_ydata()) == pytest.approx([pt.mde * 100 for pt in cp.curve])
    assert list(ax.lines[1].get_ydata()) == pytest.approx([cp.target_gap * 100] * 2)
    assert list(ax.lines[2].get_xdata()) == [6, 6]  # the pilot's speakers
    assert not ax.collections  # no k* to mark


def test_chart_marks_k_star():
    from fairdesk.reports.plan_section import mde_chart
    from tests.cli.test_plan import _cp

    cp = _cp(curve=(MdePoint(10, 0.05, 0.16), MdePoint(120, 0.016, 0.05)))
    fig, d = mde_chart(cp)
    assert d["k_pilot"] == 10 and d["k_star"] == 120
    assert list(fig.axes[0].collections[0].get_offsets()[0]) == pytest.approx([120, 5.0])


def test_no_plan_no_section(pilot):
    from dataclasses import replace

    from fairdesk.reports.data import load_run

    p, _out = pilot
    d = load_run(p, 1)
    d.payload = replace(d.audit, plan=None)
    ctx = report_context(d)
    assert ctx["planning"] is None
    assert 'id="planning"' not in render(ctx)
    assert "<h2>Recording plan</h2>" not in render(ctx)
