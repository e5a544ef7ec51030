"""Issue 30 item 6: a refusal by the minimums shows in the Audit panel as a table of the
groups and names the panel's own controls; the numbers come from the job's typed refusal,
whose text stays the command line's."""

from __future__ import annotations

import csv

from tests.gui.conftest import ACCENTS, SENTENCES, SPEAKERS


def _panel(qtbot, ctx, mini):
    from fairdesk.gui.audit.audit_panel import AuditPanel

    audit = AuditPanel(ctx)
    qtbot.addWidget(audit)
    audit.set_model(f"predictions:{mini.predictions}")
    audit.by1.setCurrentText("accent")
    audit.n_boot.setValue(200)
    return audit


def _refused(qtbot, audit):
    job = audit.start()
    with qtbot.waitSignal(job.signals.finished, timeout=60000):
        pass
    return job


def _counts(mini):
    """Items and speakers per accent, counted from the manifest (not by fairdesk)."""
    with (mini.data / "manifest.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    items = {a: sum(r["accent"] == a for r in rows) for a in ACCENTS}
    spk = {a: len({r["speaker_id"] for r in rows if r["accent"] == a}) for a in ACCENTS}
    return items, spk


def test_the_refusal_is_a_table_naming_the_panels_controls(qtbot, ctx, mini):
    from fairdesk.presentation.minimums_words import exclusion_message
    from fairdesk.stats.minimums import MinimumsRefused

    audit = _panel(qtbot, ctx, mini)
    audit.min_items.setValue(30)
    audit.min_speakers.setValue(5)
    job = _refused(qtbot, audit)
    items, spk = _counts(mini)
    assert items == {a: SPEAKERS * len(SENTENCES) for a in ACCENTS}
    # the job's refusal is typed, and its text is the command line's, word for word
    assert isinstance(job.exception, MinimumsRefused)
    assert audit.last_error == exclusion_message(items, spk, 30, 5)
    view = audit.refusal
    assert view.isVisibleTo(audit)
    t = view.table
    assert t.rowCount() == len(ACCENTS)
    header = [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())]
    assert header == ["Group", "Items", "Speakers", "Misses"]
    got = {
        t.item(i, 0).text(): (
            int(t.item(i, 1).text()),
            int(t.item(i, 2).text()),
            t.item(i, 3).text(),
        )
        for i in range(t.rowCount())
    }
    assert got == {
        a: (items[a], spk[a], f"items: {items[a]} < 30; speakers: {spk[a]} < 5") for a in ACCENTS
    }
    text = view.title.text() + view.title.toolTip() + view.advice_html
    assert "Min. items per group" in text and "Min. speakers per group" in text
    assert "--min" not in text and "--min" not in audit.stage.text()
    assert f"lower <b>Min. items per group</b> (Statistics) to {min(items.values())}" in text
    assert f"lower <b>Min. speakers per group</b> (Statistics) to {min(spk.values())}" in text
    # the suggested minimums go into the form, and the audit then runs
    view.apply.click()
    assert (audit.min_items.value(), audit.min_speakers.value()) == (
        min(items.values()),
        min(spk.values()),
    )
    assert not view.isVisibleTo(audit)
    with qtbot.waitSignal(audit.run_done, timeout=60000):
        audit.start()
    assert ctx.jobs.wait(5000)


def test_a_refusal_caused_by_the_sample_or_the_filters_names_those_rows(qtbot, ctx, mini):
    audit = _panel(qtbot, ctx, mini)
    audit.min_items.setValue(5)
    audit.min_speakers.setValue(1)
    audit.sample.setValue(3)
    _refused(qtbot, audit)
    advice = audit.refusal.advice_html
    assert "raise <b>Sample</b> (now 3 per group)" in advice
    assert "Only items with" not in advice
    assert [audit.refusal.table.item(i, 1).text() for i in range(2)] == ["3", "3"]

    audit.sample.setValue(0)
    audit.filters.add_row("gender", "female")
    audit.min_items.setValue(15)
    _refused(qtbot, audit)
    advice = audit.refusal.advice_html
    assert "remove a row of <b>Only items with</b>" in advice and "Sample" not in advice
    half = SPEAKERS // 2 * len(SENTENCES)
    assert [audit.refusal.table.item(i, 1).text() for i in range(2)] == [str(half)] * 2


def test_other_errors_still_read_as_a_failure(qtbot, ctx, mini, tmp_path):
    audit = _panel(qtbot, ctx, mini)
    audit.set_model(f"predictions:{tmp_path / 'missing.csv'}")
    _refused(qtbot, audit)
    assert "Audit failed" in audit.stage.text() and not audit.refusal.isVisibleTo(audit)
