"""The pitfalls' coded reasons and their JSON (issue 43, points 1 and 2): a comparison
recomputed without the flagged items (``WithoutFlagged``) reads back equal, and the blocks
as the version before the coded reasons stored them (captured from that version:
``fixtures/pitfalls_stored_main.json``) open, their sentences read back as codes, and
``--json`` writes the same values again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairdesk.jobs.result_codec import decode, encode
from fairdesk.jobs.result_parts import Pitfalls
from fairdesk.presentation.pitfalls import note_text, without_flagged_json
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.pitfall_types import (
    NOT_RECOMPUTED_ALL,
    NOT_RECOMPUTED_REFERENCE,
    REASON_ALL_FLAGGED,
    REASON_REFERENCE_FLAGGED,
    WithoutFlagged,
    stored_note,
)

STORED = json.loads(
    (Path(__file__).parent / "fixtures" / "pitfalls_stored_main.json").read_text(encoding="utf-8")
)


def _json(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("name", sorted(STORED))
def test_stored_without_flagged_opens_and_writes_the_same_json(name):
    for entry in STORED[name]["comparisons"]:
        wf = entry.get("without_flagged")
        if wf is None:
            continue
        typed = WithoutFlagged.from_json(wf)
        assert _json(without_flagged_json(typed)) == wf  # the --json and export form
        assert WithoutFlagged.from_json(_json(typed.to_json())) == typed  # the stored form
        if typed.reason is not None:
            assert typed.reason.area == "pitfalls"  # re-derived, not kept as a sentence


@pytest.mark.parametrize("name", sorted(STORED))
def test_a_stored_pitfalls_block_reads_its_sentences_back_as_codes(name):
    block = STORED[name]["pitfalls"]
    typed = decode(block, Pitfalls)
    for row, c in zip(block["verdicts_without_flagged"], typed.verdicts_without_flagged):
        assert note_text(c.reason) == row["reason"]
        if c.reason is not None and c.metric is None:
            assert c.reason.code in (NOT_RECOMPUTED_ALL, NOT_RECOMPUTED_REFERENCE)
    assert note_text(typed.not_checked) == block.get("not_checked")
    assert decode(_json(encode(typed)), Pitfalls) == typed


def test_the_reasons_carry_their_numbers():
    assert stored_note("every item is flagged") == notice(REASON_ALL_FLAGGED)
    ref = stored_note('every item of the reference group "o\'k" is flagged')
    assert ref == notice(REASON_REFERENCE_FLAGGED, reference="o'k")
    assert note_text(ref) == 'every item of the reference group "o\'k" is flagged'
    long = STORED["all_flagged"]["pitfalls"]["verdicts_without_flagged"][0]["reason"]
    assert stored_note(long) == notice(NOT_RECOMPUTED_ALL, n_items=120)
    assert stored_note("something else") == Notice("stored.sentence", {"text": "something else"})
    assert stored_note(None) is None
