"""A comparison's reading is written at output time from the typed result
(``fairdesk.presentation.readings.reading``), the same in every view; runs stored before,
whose comparisons carry a ``reading`` string, open and read in today's words.

``jobs/data/stored_runs_with_readings.json``: table audits stored by the release before this
change (``AuditRun.to_json``, each comparison with its ``reading``), covering every kind of
sentence: no_variation, not_estimable, descriptive (diacritics), speaker_confounded,
disparity_detected, inconclusive_underpowered, no_disparity_detected; the caveats of
different content, a single speaker, the shared-sentence subset, the conditional content
scheme and the Holm family. Its first run is whole (groups, summary, plan ...); the others
keep what a reading needs.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import fairdesk
from fairdesk.jobs.result import AuditRun
from fairdesk.presentation.readings import reading, readings_json
from fairdesk.stats.results import Comparison

STORED = Path(__file__).parent / "jobs" / "data" / "stored_runs_with_readings.json"
PAYLOADS = json.loads(STORED.read_text(encoding="utf-8"))


def _runs():
    return [(name, AuditRun.from_json(p), p) for name, p in PAYLOADS.items()]


def test_the_typed_comparison_holds_no_sentence():
    names = {f.name for f in dataclasses.fields(Comparison)}
    assert "reading" not in names
    stored = PAYLOADS["perfect"]["comparisons"][0]
    assert "reading" in stored  # the old layout: decoded without it
    assert not hasattr(AuditRun.from_json(PAYLOADS["perfect"]).comparisons[0], "reading")


def test_the_stored_fixture_covers_every_kind_of_sentence():
    verdicts = {c["verdict"] for p in PAYLOADS.values() for c in p["comparisons"]}
    flags = {f for p in PAYLOADS.values() for c in p["comparisons"] for f in c["flags"]}
    assert {
        "no_variation",
        "not_estimable",
        "descriptive",
        "speaker_confounded",
        "disparity_detected",
        "inconclusive_underpowered",
        "no_disparity_detected",
    } <= verdicts
    assert {
        "content_confounded",
        "single_speaker_recordings",
        "shared_content_subset",
        "conditional_on_speakers",
        "significant_before_multiplicity_adjustment",
    } <= flags


@pytest.mark.parametrize("name, run, payload", _runs(), ids=list(PAYLOADS))
def test_a_stored_run_reads_in_todays_words(name, run, payload):
    # the wording has not changed since these were stored: word for word the same
    for stored, c in zip(payload["comparisons"], run.comparisons, strict=True):
        assert reading(c, run) == stored["reading"]
        assert fairdesk.reading(c, run) == stored["reading"]  # the Python API


@pytest.mark.parametrize("name, run, payload", _runs(), ids=list(PAYLOADS))
def test_json_writes_each_reading_where_it_was(name, run, payload):
    out = readings_json(run.to_json(), run)
    assert "reading" not in run.to_json()["comparisons"][0]  # stored: numbers only
    for got, stored in zip(out["comparisons"], payload["comparisons"], strict=True):
        assert list(got) == list(stored)  # the key order of the stored results
        assert got["reading"] == stored["reading"]


def test_a_stale_stored_sentence_is_not_read_back():
    payload = json.loads(json.dumps(PAYLOADS["perfect"]))
    today = [c["reading"] for c in payload["comparisons"]]
    for c in payload["comparisons"]:
        c["reading"] = "words of an older release"
    run = AuditRun.from_json(payload)
    assert [reading(c, run) for c in run.comparisons] == today
    assert [c["reading"] for c in readings_json(run.to_json(), run)["comparisons"]] == today


def test_every_view_of_a_stored_run_says_the_same(tmp_path):
    from fairdesk.cli.console import format_groups
    from fairdesk.reports.sections import card

    payload = PAYLOADS["perfect"]
    run = AuditRun.from_json(payload)
    console = format_groups(run)
    for stored, c in zip(payload["comparisons"], run.comparisons, strict=True):
        if c.metric == "wer":  # the console's table shows its first metric's comparisons
            assert f"    {stored['reading']}" in console.split("\n")
        assert card(c, run)["reading"] == stored["reading"]


def test_the_readings_of_a_release_before_take_todays_units():
    # runs of the first typed layout (metrics code 4) wrote 0.0333 where today says 3.3%
    old = json.loads((STORED.parent / "audit_payloads_v1.json").read_text(encoding="utf-8"))
    payloads = old.values() if isinstance(old, dict) else old
    seen = 0
    for p in payloads:
        if not isinstance(p, dict) or not p.get("comparisons"):
            continue
        run = AuditRun.from_json(p)
        for stored, c in zip(p["comparisons"], run.comparisons, strict=True):
            text = reading(c, run)
            assert text.startswith("Word error rate (WER)") or text.startswith(
                stored["reading"][:3]
            )
            seen += 1
            if c.verdict == "no_variation":
                assert "0.0333" in stored["reading"] and "3.3%" in text
    assert seen
