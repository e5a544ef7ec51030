"""A run without speaker ids says so in the card's reading (issue 44, point 1): clicking a
card shows the typed warning in presentation's words; a run with speakers does not."""

from __future__ import annotations

from PySide6.QtCore import Qt

import fairdesk
from fairdesk.gui.results.run_header import run_header
from fairdesk.presentation.warnings import warning_text
from tests.cli.test_speaker_columns import speaker_table


def _clicked_reading(qtbot, run) -> str:
    from fairdesk.gui.results.verdict_cards import VerdictCards

    w = VerdictCards()
    qtbot.addWidget(w)
    w.set_result(run)
    (card,) = w.cards
    w.reading.setText("")
    qtbot.mouseClick(card, Qt.LeftButton)
    return w.reading.text()


def test_a_card_reading_warns_without_speaker_ids(qtbot):
    df = speaker_table()
    bare = fairdesk.audit_table(
        df.drop(columns=["speaker"]), by="grp", reference="A", metrics=["wer"], n_bootstrap=200
    )
    text = _clicked_reading(qtbot, bare)
    assert warning_text("no_speaker_ids") in text.replace("&#x27;", "'")
    with_spk = fairdesk.audit_table(df, by="grp", reference="A", metrics=["wer"], n_bootstrap=200)
    assert "no speaker ids" not in _clicked_reading(qtbot, with_spk)


def test_the_run_header_names_the_speaker_column():
    import html

    df = speaker_table()
    run = fairdesk.audit_table(df, by="grp", reference="A", metrics=["wer"], n_bootstrap=200)
    assert "speakers: 24 speakers from column 'speaker'" in html.unescape(run_header(run))
    bare = fairdesk.audit_table(
        df.drop(columns=["speaker"]), by="grp", reference="A", metrics=["wer"], n_bootstrap=200
    )
    head = html.unescape(run_header(bare))
    assert "speakers: none (no speaker column)" in head
    assert head.count("no speaker ids: each utterance counts as independent") == 1
