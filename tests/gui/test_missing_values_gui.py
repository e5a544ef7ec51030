"""Missing grouping values in the GUI (docs/METHODS.md, "Missing values"): the Audit panel's
"Include missing values as a group" option (off by default, carried by the request) and the
Results pane's descriptive row (marked, no verdict card)."""

from __future__ import annotations

from tests.conftest import missing_values_run


def test_audit_panel_option_off_by_default_and_carried_by_the_request(qtbot, ctx):
    from fairdesk.gui.audit.audit_panel import AuditPanel

    w = AuditPanel(ctx)
    qtbot.addWidget(w)
    box = w.include_missing
    assert box.text() == "Include missing values as a group" and not box.isChecked()
    assert w.request().settings.include_missing is False
    box.setChecked(True)
    assert w.request().settings.include_missing is True
    state = w.save_state()
    assert state["include_missing"] is True
    other = AuditPanel(ctx)
    qtbot.addWidget(other)
    other.restore_state(state)
    assert other.include_missing.isChecked()


def test_results_table_shows_the_descriptive_row_marked_and_no_card(qtbot, ctx):
    from fairdesk.gui.results.results_panel import ResultsPanel
    from fairdesk.presentation import MISSING_STATUS

    run = missing_values_run()
    assert run.groups[-1].missing
    w = ResultsPanel(ctx)
    qtbot.addWidget(w)
    w.resize(1300, 900)
    w.show()
    w.show_result(run)
    t = w.groups
    assert t.rowCount() == 3
    names = [t.item(i, 0).text() for i in range(3)]
    assert names == ["north", "south", "no value for accent *"]
    last = t.columnCount() - 1
    assert t.item(2, last).text().startswith(MISSING_STATUS)
    assert t.item(2, 1).text() == "30"
    assert "not compared" in t.item(2, 0).toolTip()
    assert "Include missing values as a group" in t.item(2, 0).toolTip()
    # no verdict card, no radar ring for it
    assert {c.comparison.group for c in w.cards.cards} == {"south"}
    assert w.radar.scale is None or "no value for accent" not in w.radar.scale.groups
    assert "30 items with no grouping value" in w.header.text()

    w.show_result(missing_values_run(include_missing=True))
    names = [t.item(i, 0).text() for i in range(t.rowCount())]
    assert "(missing)" in names and not any(n.endswith("*") for n in names)
    assert "(missing)" in {c.comparison.group for c in w.cards.cards}


def test_results_show_the_basis_e_and_a_descriptive_card(qtbot, ctx):
    """docs/METHODS.md, "When the diacritic metrics apply": the group table's DER cells carry E,
    the card of a group under 10 expected marks is descriptive (no gap, no p)."""
    from fairdesk.gui.results.results_panel import ResultsPanel
    from tests.conftest import english_accents_run

    w = ResultsPanel(ctx)
    qtbot.addWidget(w)
    w.resize(1300, 900)
    w.show()
    w.show_result(english_accents_run(metrics=["der"]))
    t = w.groups
    heads = [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())]
    j = heads.index("DER")
    cells = {t.item(i, 0).text(): t.item(i, j).text() for i in range(t.rowCount())}
    assert cells["c"] == "33.3% (E = 3)" and cells["a"].endswith("(E = 12)")
    card = next(c for c in w.cards.cards if c.comparison.group == "c")
    texts = " ".join(lab.text() for lab in card.labels)
    assert "Descriptive" in texts and "E = 3 + 12 expected diacritics" in texts
    assert card.p_adj_label is None and "p<sub>adj</sub>" not in texts
    other = next(c for c in w.cards.cards if c.comparison.group == "b")
    assert "E = 12 + 12 expected diacritics" in " ".join(lab.text() for lab in other.labels)
