"""Issue 47, clicked on the real main window: an audit of a dataset that two annotators
annotated shows their agreement beside every diacritic comparison in Results (a line under
the cards, and in a diacritic card's reading), with ``fairdesk agreement``'s numbers; the
reading of a ``resample`` run (chosen in the Audit tab's References) says the interval
includes their disagreement."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.annotators.fixture import two_annotators
from tests.gui.test_journeys import (
    _choose,
    _open,
    _predictions_form,
    _settings,
    _tab,
    watch,  # noqa: F401 - the journeys' fixture
)

N_BOOT = 200


def _card(res, metric: str, group: str):
    from fairdesk.presentation import metric_short

    return next(
        k
        for k in res.cards.cards
        if metric_short(k.comparison.metric) == metric and k.comparison.group == group
    )


def test_results_show_the_annotators_agreement_beside_the_diacritic_comparisons(
    qtbot,
    tmp_path,
    watch,  # noqa: F811 - the fixture imported above
    monkeypatch,
):
    from fairdesk import constants
    from fairdesk.jobs.agreement import dataset_agreement

    monkeypatch.setattr(constants, "AGREEMENT_BOOTSTRAP", N_BOOT)
    p, preds = two_annotators(tmp_path)
    # the agreement as `fairdesk agreement --by accent` computes it, for the expected words
    want = dataset_agreement(p, "d", by="accent", n_bootstrap=N_BOOT)
    p.close()

    win = _open(qtbot, p.folder, _settings(tmp_path), (1366, 768), watch)
    audit = _predictions_form(qtbot, monkeypatch, win, preds, min_items=2)
    # References: the default, then one entry per annotator of the dataset
    refs = [audit.reference_text.itemData(i) for i in range(audit.reference_text.count())]
    assert refs == ["latest", "imported", "adjudicated", "resample"] + [
        "annotator:Ada",
        "annotator:Obi",
    ]
    assert audit.reference_text.currentData() == "latest"
    with qtbot.waitSignal(audit.run_done, timeout=90000) as done:
        qtbot.mouseClick(audit.run_btn, Qt.LeftButton)
    res = win.results
    qtbot.waitUntil(lambda: res.run_id == done.args[0], timeout=10000)
    qtbot.waitUntil(res.isVisible, timeout=5000)
    line = res.cards.agreement
    qtbot.waitUntil(line.isVisible, timeout=60000)  # computed in a job
    text = line.text()
    assert "Annotators' agreement (Ada, Obi)" in text
    raw = want.overall.raw
    assert f"annotators agree on {raw.value * 100:.1f}% [" in text  # 70.0%: 7 of 10 marks
    assert f"of {want.overall.n_marks} marks" in text and "κ " in text
    for g in want.groups:
        assert f"accent = {g.group}: annotators agree on {g.raw.value * 100:.1f}%" in text

    # a diacritic card's reading carries its group's agreement; WER's does not
    der = _card(res, "DER", "south")
    qtbot.mouseClick(der, Qt.LeftButton)
    south = next(g for g in want.groups if g.group == "south")
    reading = res.cards.reading.text()
    assert f"annotators agree on {south.raw.value * 100:.1f}%" in reading
    assert "accent = south" in reading
    assert "so the interval includes their disagreement" not in reading
    qtbot.mouseClick(_card(res, "WER", "south"), Qt.LeftButton)
    assert "annotators agree" not in res.cards.reading.text()

    # audited again resampling the annotators' versions (References in the Audit tab):
    # the run's name says so and its diacritic reading names the agreement
    audit = _tab(qtbot, win, 2, "audit")
    _choose(audit.reference_text, "resample")
    with qtbot.waitSignal(audit.run_done, timeout=90000) as again:
        qtbot.mouseClick(audit.run_btn, Qt.LeftButton)
    resampled = again.args[0]
    qtbot.waitUntil(lambda: res.run_id == resampled, timeout=10000)
    qtbot.waitUntil(res.isVisible, timeout=5000)
    qtbot.waitUntil(res.cards.agreement.isVisible, timeout=60000)
    assert "annotators resampled" in res.header.text()
    assert "annotators resampled" in res.runs.currentText()
    assert res.result.run_settings.annotators_resampled == 2  # n1 and s1 disagree
    qtbot.mouseClick(_card(res, "DER", "south"), Qt.LeftButton)
    reading = res.cards.reading.text()
    alpha = f"α {south.alpha.value:.3f} [".replace("-", "\u2212")
    assert ", so the interval includes their disagreement" in reading
    assert f"annotators agree on {south.raw.value * 100:.1f}% [" in reading
    assert alpha in reading.replace("-", "\u2212")
    win.close()
    watch.check()
