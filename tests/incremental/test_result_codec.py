"""The typed incremental result's JSON codec: the stored fixture of the golden files opens
typed (summary rows, table columns, group comparisons, decoders, failures, timelines) and
writes back exactly what was stored; a result opens equal to itself after a round trip."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fairdesk.incremental.result import IncrementalResult
from fairdesk.incremental.result_parts import (
    FailedItem,
    GroupComparisons,
    PolicySummary,
    StreamTotals,
    SystemsBlock,
    Timeline,
)
from fairdesk.presentation.notices import notice_text
from fairdesk.stats.notices import Notice
from fairdesk.stats.results import AuditResult

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FIXTURE = GOLDEN / "fixtures" / "incremental_run.json"


def _plain(x):
    return json.loads(json.dumps(x))


@pytest.fixture(scope="module")
def stored() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_the_stored_fixture_opens_typed(stored):
    res = IncrementalResult.from_json(stored)
    assert all(isinstance(r, PolicySummary) for r in res.summary)
    assert all(isinstance(r.totals, StreamTotals) for r in res.summary)
    assert [c.key for c in res.table.columns] == [r.key for r in res.summary]
    assert res.groups and all(isinstance(b, GroupComparisons) for b in res.groups)
    assert all(isinstance(b.stats, AuditResult) for b in res.groups)
    assert all(isinstance(t, Timeline) for t in res.timelines) and res.timelines
    assert res.decoders[0].model == "fake-stream" and res.decoders[0].cpu_threads == 2
    conc = res.summary[0]
    assert conc.policy == "concatenation" and conc.value("wer") == conc.wer
    assert conc.totals.n_revokes == stored["summary"][0]["totals"]["n_revokes"]
    # a reading an older fairdesk stored stays as a coded note of the stored sentence
    first = res.groups[0]
    text = stored["groups"][0]["comparisons"][0]["reading"]
    assert first.stored_readings[0] == Notice("stored.sentence", {"text": text})


def test_the_stored_fixture_writes_back_what_was_stored(stored):
    res = IncrementalResult.from_json(stored)
    assert _plain(res.to_json()) == stored
    again = IncrementalResult.from_json(_plain(res.to_json()))
    assert again == res


def test_the_golden_json_is_the_stored_run_without_its_timelines(stored):
    golden = json.loads((GOLDEN / "incremental-5.json").read_text(encoding="utf-8"))
    out = _plain(IncrementalResult.from_json(stored).with_run_id(5).to_json(timelines=False))
    assert {k: v for k, v in out.items() if k != "hardware"} == {
        k: v for k, v in golden.items() if k != "hardware"
    }


def test_a_summary_row_keeps_its_keys_and_its_undefined_and_infinite_values():
    row = {
        "model": "m",
        "policy": "local-agreement",
        "stream": "committed",
        "wer": math.nan,
        "spr": math.inf,
        "n_items": 3,
        "totals": {"n_revokes": 0, "decode_s": 1.5},
    }
    typed = PolicySummary.from_json(row)
    assert math.isnan(typed.wer or 0.0) and typed.spr == math.inf and typed.eo is None
    out = typed.to_json()
    assert out == {
        "model": "m",
        "policy": "local-agreement",
        "stream": "committed",
        "wer": None,
        "spr": None,
        "n_items": 3,
        "totals": {"n_revokes": 0, "decode_s": 1.5},
    }
    back = PolicySummary.from_json(_plain(out))
    assert back.spr == math.inf  # no revokes: null SPR is infinite
    assert back.wer is not None and math.isnan(back.wer)  # undefined
    assert back.value("eo") is None and back.value("nope") is None


def test_the_small_parts_round_trip():
    f = {"item": "3", "reason": "unreadable", "model": "m"}
    assert FailedItem.from_json(f).to_json() == f
    assert FailedItem.from_json({"item": 1, "reason": "x"}).to_json() == {"item": 1, "reason": "x"}
    s = {"policy": "concatenation", "stream": "displayed", "error": "too few items"}
    block = SystemsBlock.from_json(s)
    assert block.to_json() == s and block.error is not None
    assert notice_text(block.error) == "too few items"
    tl = {"item": "1", "model": "m", "policy": "concatenation", "events": []}
    assert Timeline.from_json(tl).to_json() == tl
