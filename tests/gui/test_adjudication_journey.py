"""Issue 47, clicked on the real main window from start to end: two annotators type their
versions of an item in the Items tab (each named in its Annotator field), the Datasets tab's
agreement view shows their disagreement, an adjudicator adopts one version in the Items view's
adjudication control, and an audit with References = adjudicated (the Audit tab) scores that
version and is named so in the Results header and run picker."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from tests.annotators.fixture import item_id, project
from tests.gui.test_journeys import (
    _choose,
    _open,
    _predictions_form,
    _run,
    _settings,
    _tab,
    size,  # noqa: F401 - the journeys' fixture (both laptop sizes)
    watch,  # noqa: F401 - the journeys' fixture
)

GRAVE, ACUTE = "\u0300", "\u0301"


def _click_row(qtbot, items, key: str) -> None:
    """Click the Items list's row of item ``key`` and wait for its detail."""
    model, table = items.model, items.table
    col = model.columns.index("id")
    rows = [r for r in range(model.rowCount()) if model.data(model.index(r, col)) == key]
    assert rows, (key, [model.data(model.index(r, col)) for r in range(model.rowCount())])
    rect = table.visualRect(model.index(rows[0], col))
    with qtbot.waitSignal(items.item_shown, timeout=10000) as shown:
        qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    assert shown.args[0] == key


def _name_annotator(qtbot, field, name: str) -> None:
    """Type ``name`` in an Annotator field over what it holds (as a user retypes it)."""
    field.setFocus()
    qtbot.keyClick(field, Qt.Key_A, Qt.ControlModifier)
    qtbot.keyClicks(field, name)


def _mark_first_letter(qtbot, ann, mark: str) -> None:
    """Put ``mark`` on the item's first letter with the palette (Home, →, the mark's button);
    waits for the save that follows."""
    ed = ann.editor
    assert ed.isEnabled()
    ed.edit.setFocus()
    qtbot.keyClick(ed.edit, Qt.Key_Home)
    qtbot.keyClick(ed.edit, Qt.Key_Right)
    with qtbot.waitSignal(ann.saved, timeout=5000):
        qtbot.mouseClick(ed.buttons[mark], Qt.LeftButton)


def test_two_annotators_disagree_an_adjudicator_picks_and_an_adjudicated_audit_uses_it(
    qtbot,
    tmp_path,
    size,  # noqa: F811 - the fixture imported above
    watch,  # noqa: F811 - the fixture imported above
    monkeypatch,
):
    import unicodedata

    from sklearn.metrics import cohen_kappa_score

    from fairdesk.core.runs import run_items_frame
    from fairdesk.core.store import Project

    p, preds = project(tmp_path)  # six Igbo items, the model reads the imported text
    folder = p.folder
    p.close()
    n1, s1 = item_id("n1"), item_id("s1")  # both imported as "akwa ego"
    ada = unicodedata.normalize("NFC", "a" + GRAVE + "kwa ego")  # àkwa ego
    obi = unicodedata.normalize("NFC", "a" + ACUTE + "kwa ego")  # ákwa ego

    win = _open(qtbot, folder, _settings(tmp_path), size, watch)
    # a first audit with the default references, so that the Items tab lists its items
    audit = _predictions_form(qtbot, monkeypatch, win, preds, min_items=2)
    assert audit.reference_text.currentData() == "latest"
    first = _run(qtbot, win, audit)

    items = _tab(qtbot, win, 4, "items")
    qtbot.waitUntil(lambda: items.run_id == first, timeout=10000)
    if items.only_failing.isChecked():  # the model makes no error: list every item
        qtbot.mouseClick(items.only_failing, Qt.LeftButton)
    assert not items.only_failing.isChecked()
    ann = items.annotation
    # annotator A (Ada) marks n1 grave and s1 grave; annotator B (Obi) n1 acute, s1 grave
    for name, marks in (("Ada", {n1: GRAVE, s1: GRAVE}), ("Obi", {n1: ACUTE, s1: GRAVE})):
        for key, mark in marks.items():
            _click_row(qtbot, items, key)
            _name_annotator(qtbot, ann.annotator, name)
            # independent annotation: each opens on the imported text
            assert ann.editor.text() == "akwa ego"
            _mark_first_letter(qtbot, ann, mark)
    p = Project(folder)
    frame = p.items(p.dataset("d")).set_index("path")
    db = {k: int(frame.loc[k, "db_id"]) for k in (n1, s1)}
    versions = p.transcript_versions(list(db.values()))
    p.close()
    assert {v.annotator: v.text for v in versions[db[n1]].versions} == {"Ada": ada, "Obi": obi}
    assert {v.annotator: v.text for v in versions[db[s1]].versions} == {"Ada": ada, "Obi": ada}

    # the Datasets tab's agreement view: 2 shared items, 2 marked letters, one agreeing
    # (s1's grave) and one not (n1's grave against acute): raw agreement 1 of 2 = 50.0%
    datasets = _tab(qtbot, win, 1, "datasets")
    qtbot.mouseClick(datasets.agreement_btn, Qt.LeftButton)
    view = datasets.agreement_view
    qtbot.waitUntil(lambda: "mark agreement" in view.toPlainText(), timeout=30000)
    text = view.toPlainText()
    assert "agreement of Ada, Obi on d" in text
    assert "overall: 2 shared items, 2 marks" in text
    assert re.search(r"mark agreement\s+50\.0% \[", text), text
    # the ranked disagreements: n1 alone, its one mark
    ranked = [line for line in text.splitlines() if re.match(r"\s*\d+\. ", line)]
    assert len(ranked) == 1 and f"{n1}: 1 of 1 mark differ" in ranked[0], text
    # Cohen's κ of those two units, as sklearn computes it (0: Ada's grave twice)
    kappa = cohen_kappa_score(["grave", "grave"], ["acute", "grave"])
    assert re.search(rf"Cohen's κ\s+{kappa:.3f} ", text), text

    # the adjudicator adopts Obi's version of n1 in the Items view
    items = _tab(qtbot, win, 4, "items")
    _click_row(qtbot, items, n1)
    ann = items.annotation
    qtbot.mouseClick(ann.versions_btn, Qt.LeftButton)
    assert ann.adjudication.isVisible()
    tree = ann.versions
    shown = {tree.topLevelItem(k).text(0): tree.topLevelItem(k) for k in range(2)}
    assert {a: it.text(1) for a, it in shown.items()} == {"Ada": ada, "Obi": obi}
    assert "the versions disagree" in ann.adjudication_note.text()
    qtbot.waitUntil(lambda: not tree.visualItemRect(shown["Obi"]).isEmpty(), timeout=5000)
    rect = tree.visualItemRect(shown["Obi"])
    assert tree.viewport().rect().contains(rect.center())  # not squeezed to its header
    qtbot.mouseClick(tree.viewport(), Qt.LeftButton, pos=rect.center())
    assert tree.currentItem() is shown["Obi"]
    ann.adjudicator.setFocus()
    qtbot.keyClicks(ann.adjudicator, "Chi")
    with qtbot.waitSignal(ann.saved, timeout=5000):
        qtbot.mouseClick(ann.pick_btn, Qt.LeftButton)
    assert ann.adjudication_note.text().startswith("adjudicated by Chi")

    # audited again with References = adjudicated (the form keeps the rest)
    audit = _tab(qtbot, win, 2, "audit")
    _choose(audit.reference_text, "adjudicated")
    again = _run(qtbot, win, audit)
    assert again != first
    res = win.results
    assert "references: adjudicated" in res.header.text()
    assert "references: adjudicated" in res.runs.currentText()
    labels = {res.runs.itemData(i): res.runs.itemText(i) for i in range(res.runs.count())}
    assert "references: adjudicated" not in labels[first]
    # the run scored the adjudicated version of n1 and the agreed one of s1; the others
    # (no version) their imported text
    p = Project(folder)
    stored = run_items_frame(p, again).set_index("item_id")["reference"]
    p.close()
    assert stored[n1] == obi and stored[s1] == ada
    assert stored[item_id("n0")] == "akwa ji"
    # and the Items tab shows it as the new run's reference
    items = _tab(qtbot, win, 4, "items")
    qtbot.waitUntil(lambda: items.run_id == again, timeout=10000)
    _click_row(qtbot, items, n1)
    assert items._row["reference"] == obi
    win.close()
    watch.check()
