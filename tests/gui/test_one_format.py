"""One formatting path (issue 43, "one formatting path"): the same comparison's value, gap and
CI, and the same odds ratio with its CI, print identically in the console, the HTML report and
the GUI; the Items list shows WER in percent, as every other view, and sorts it by value.

The expected texts are computed here from the stored numbers (not through
``fairdesk.presentation``): rates in percent with one decimal, gaps in signed percentage
points, odds ratios with two decimals and ``×``, their CIs as ``[lo, hi]``.
"""

from __future__ import annotations

import html
import re

import pytest

from tests.gui.item_view import open_item_view


def _plain(text: str) -> str:
    """A label's rich text as it reads (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def _cells(model) -> list[str]:
    from PySide6.QtCore import Qt

    return [
        str(model.data(model.index(r, c), Qt.DisplayRole))
        for r in range(model.rowCount())
        for c in range(model.columnCount())
    ]


def _table_texts(table) -> list[str]:
    return [
        table.item(r, c).text()
        for r in range(table.rowCount())
        for c in range(table.columnCount())
        if table.item(r, c) is not None
    ]


def test_a_comparison_and_an_odds_ratio_print_the_same_in_console_report_and_gui(
    qtbot, ctx, mini, tmp_path, capsys
):
    from PySide6.QtWidgets import QLabel

    from fairdesk.cli import main
    from fairdesk.cli.console import format_groups
    from fairdesk.core.runs import run_payload
    from fairdesk.gui.results.regression_panel import RegressionPanel
    from fairdesk.gui.results.results_panel import ResultsPanel
    from fairdesk.jobs.regression_run import stored_regressions
    from fairdesk.jobs.result import as_audit_run
    from fairdesk.reports.html import write_report

    folder, run_id = str(mini.folder), mini.run_id
    # the odds ratios: fitted and stored by the console command
    assert main(["regress", "--project", folder, "--run", str(run_id), "--vars", "accent"]) == 0
    regress_console = capsys.readouterr().out
    run = as_audit_run(run_payload(ctx.project, run_id))
    (c,) = [c for c in run.comparisons if c.metric == "wer" and c.group == "south"]
    for x in (c.value, c.gap, c.ci_low, c.ci_high):
        assert abs(100 * x) >= 0.05  # no bound that rounds to zero (it would gain digits)
    value = f"{100 * c.value:.1f}%"
    gap = f"{100 * c.gap:+.1f} pp"
    ci = f"[{100 * c.ci_low:+.1f} pp, {100 * c.ci_high:+.1f} pp]"
    (stored,) = stored_regressions(ctx.project, run_id)
    (u,) = stored.result.univariate
    (lev,) = u.levels
    odds = f"{lev.odds_ratio:.2f}×"
    odds_ci = f"[{lev.ci_low:.2f}, {lev.ci_high:.2f}]"
    assert lev.ci_low >= 0.005

    # console: the audit's view and the regression's
    console = format_groups(run)
    line = next(ln for ln in console.split("\n") if ln.strip().startswith("south ") and "gap" in ln)
    assert f"gap {gap} {ci} p_adj" in " ".join(line.split())
    assert odds_ci in regress_console

    # the HTML report
    path = tmp_path / "report.html"
    write_report(ctx.project, run_id, path)
    page = html.unescape(path.read_text(encoding="utf-8"))
    for text in (value, gap, ci, odds, odds_ci):
        assert text in page, text

    # the GUI: the verdict card and the Comparisons table, the Regression tab's odds table
    results = ResultsPanel(ctx)
    qtbot.addWidget(results)
    results.resize(1300, 900)
    results.show()
    results.show_result(run)
    labels = " ".join(_plain(w.text()) for w in results.cards.findChildren(QLabel))
    assert gap in labels and f"CI {ci}" in labels and value in labels
    shown = _cells(results.comparisons_model)
    assert value in shown and gap in shown
    regression = RegressionPanel(ctx)
    qtbot.addWidget(regression)
    regression.set_run(run_id, run)
    odds_cells = _table_texts(regression.table)
    assert odds in odds_cells and odds_ci in odds_cells


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_the_items_list_shows_wer_in_percent_and_sorts_it_by_value(qtbot, ctx, mini, order):
    from PySide6.QtCore import QPoint, Qt

    w, _ = open_item_view(qtbot, ctx, mini.run_id)
    model = w.model
    col = model.columns.index("WER")
    err, words = model.columns.index("Err."), model.columns.index("Words")
    header = w.table.horizontalHeader()
    x = header.sectionViewportPosition(col) + header.sectionSize(col) // 2
    clicks = 1 if order == "ascending" else 2
    for _ in range(clicks):
        qtbot.mouseClick(header.viewport(), Qt.LeftButton, pos=QPoint(x, header.height() // 2))
    assert header.sortIndicatorSection() == col
    values = []
    for r in range(model.rowCount()):
        n_err = model.data(model.index(r, err), Qt.UserRole)
        n_words = model.data(model.index(r, words), Qt.UserRole)
        wer = n_err / max(n_words, 1)
        assert model.data(model.index(r, col), Qt.UserRole) == pytest.approx(wer)
        assert model.data(model.index(r, col), Qt.DisplayRole) == f"{100 * wer:.1f}%"
        values.append(wer)
    assert len(set(values)) > 2  # the mini project's items differ
    want = sorted(values, reverse=header.sortIndicatorOrder() == Qt.DescendingOrder)
    assert values == want
