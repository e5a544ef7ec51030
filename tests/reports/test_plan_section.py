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
    from dataclasses import replace

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
    # the search stopped at its cap (20 x 6 here): "more than", never "not reachable"
    assert side_rows(unreachable) == [("child", "10", "more than 120", "–", "10", "–", "–")]
    floor = replace(unreachable, limit="content", floor_mde=0.07)
    assert side_rows(floor) == [("child", "10", "not reachable", "–", "10", "–", "–")]


def test_chart_draws_the_dense_curve_on_the_cards_scale_with_the_cards_pilot_mde(pilot):
    """The line is the dense curve (not the table's few points joined), the markers the
    table's points; everything on the cards' scale (alpha 0.05, 80% power), so the pilot's
    point is the card's MDE, and the target is drawn where that scale must reach it."""
    from fairdesk.reports.plan_section import mde_chart
    from fairdesk.stats.formulas import MDE_FACTOR

    _p, out = pilot
    plan = out.result.plan
    cp = plan.comparisons[0]
    card = out.result.comparison(cp.metric, cp.group)
    to_card = 100 * MDE_FACTOR / cp.z_factor
    fig, d = mde_chart(cp, plan)
    ax = fig.axes[0]
    line, points, target, pilot_line = ax.lines[:4]
    assert len(cp.dense) > 3 * len(cp.curve)
    assert list(line.get_xdata()) == [pt.k for pt in cp.dense]
    assert list(line.get_ydata()) == pytest.approx([pt.mde * to_card for pt in cp.dense])
    assert list(points.get_xdata()) == [pt.k for pt in cp.curve]
    assert list(target.get_ydata()) == pytest.approx([cp.target_gap * to_card] * 2)
    assert list(pilot_line.get_xdata()) == [6, 6]  # the pilot's speakers
    pilot_point = ax.collections[0].get_offsets()[0]
    assert list(pilot_point) == pytest.approx([6, card.mde * 100])  # the card's MDE
    assert d.pilot_mde == pytest.approx(card.mde * 100)
    assert "pilot's" in d.caption and "&#" not in d.caption


def test_chart_marks_k_star():
    from fairdesk.reports.plan_section import mde_chart
    from fairdesk.stats.formulas import MDE_FACTOR
    from tests.cli.test_plan import _cp, _plan

    cp = _cp(curve=(MdePoint(10, 0.05, 0.16), MdePoint(120, 0.016, 0.05)))
    fig, d = mde_chart(cp, _plan(cp))
    assert d.k_pilot == 10 and d.k_star == 120
    # on the cards' scale k* sits exactly on the target line
    y = 5.0 * MDE_FACTOR / cp.z_factor
    assert list(fig.axes[0].collections[-1].get_offsets()[0]) == pytest.approx([120, y])
    assert d.target == pytest.approx(y)


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
