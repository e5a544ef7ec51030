"""The recording plan's JSON codec (issue 43, point 2): a plan reads back equal from its
stored form, and a plan as the version before the coded notes stored it (captured from that
version: ``fixtures/plans_stored_main.json``, and the golden ``fairdesk plan --json``) opens,
its ``note`` sentence read back as codes, and writes the same ``--json`` again."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fairdesk.jobs.result_codec import decode, encode
from fairdesk.presentation.notices import notice_texts
from fairdesk.presentation.plans import plan_json, plan_note
from fairdesk.stats.compare import compare_groups
from fairdesk.stats.notices import notice
from fairdesk.stats.planning_types import (
    NOTE_TWO_WAY,
    NOTE_UTTERANCES,
    Plan,
    notes_of_sentence,
)
from fairdesk.stats.plans import closed_form_plan, group_sizes, resampling_plan
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.simulation import _study_specs, simulate_audit

HERE = Path(__file__).parent
STORED = json.loads((HERE / "fixtures" / "plans_stored_main.json").read_text(encoding="utf-8"))
GOLDEN = HERE.parent / "golden" / "plan-1.json"
WER = {s.id: s for s in _study_specs() if s.id == "wer"}
SETTINGS = AuditSettings(n_bootstrap=1000, seed=0, min_items=1, min_speakers=1)


def _stored_plans():
    return [
        (f"{design}-{method}", payload)
        for design, plans in sorted(STORED.items())
        for method, payload in sorted(plans.items())
        if payload is not None
    ]


def _json(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("design", ["unmatched", "matched"])
def test_a_plan_reads_back_equal_from_its_stored_form(design):
    rng = np.random.default_rng(1)
    frame = simulate_audit(rng, {"ref": 0.0, "grp": 0.3}, design=design, speakers_per_group=12)
    res = compare_groups(frame, list(WER.values()), SETTINGS, reference="ref")
    which = [(c.metric, c.group) for c in res.comparisons]
    plans = [resampling_plan(frame, res, WER, utterances=40.0, n_rep=200, which=which)]
    cf = closed_form_plan(res, WER, group_sizes(frame), utterances=40.0)
    plans += [cf] if cf is not None else []
    for plan in plans:
        stored = _json(plan.to_json())
        back = Plan.from_json(stored)
        assert back == Plan.from_json(_json(back.to_json()))
        assert _json(back.to_json()) == stored
        assert encode(plan) == plan.to_json() and decode(stored, Plan) == back  # the run's codec
        assert all(isinstance(n.code, str) for cp in back.comparisons for n in cp.notes)
        assert "label" not in stored and all("note" not in c for c in stored["comparisons"])


@pytest.mark.parametrize(("name", "payload"), _stored_plans())
def test_a_plan_stored_before_the_coded_notes_opens_and_writes_the_same_json(name, payload):
    plan = Plan.from_json(payload)
    assert _json(plan_json(plan)) == payload  # exactly the --json of before, words included
    for cp, entry in zip(plan.comparisons, payload["comparisons"], strict=True):
        assert plan_note(cp) == entry["note"]
        assert all(n.area == "plans" for n in cp.notes)  # re-derived, not kept as a sentence
    assert decode(payload, Plan) == plan  # as an AuditRun's plan block opens


def test_the_golden_plan_json_opens_and_writes_the_same_values():
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    plan = Plan.from_json(golden)
    assert plan.label == golden["label"] and plan.comparisons[0].notes == (notice(NOTE_TWO_WAY),)
    assert _json(plan_json(plan)) == golden


def test_a_stored_note_sentence_reads_back_as_codes_with_their_numbers():
    two = notes_of_sentence(
        "two-way scheme: part of the uncertainty comes from the shared sentences and does "
        "not shrink with more speakers; the MDEs assume each new speaker records about as "
        "much as the pilot's (30 utterances); 12.5 per speaker makes them approximate"
    )
    assert two == (
        notice(NOTE_TWO_WAY),
        notice(NOTE_UTTERANCES, pilot=30.0, utterances=12.5),
    )
    assert notice_texts(two)[1].endswith("(30 utterances); 12.5 per speaker makes them approximate")
    odd = notes_of_sentence("a sentence of another version")
    assert [n.code for n in odd] == ["stored.sentence"]
    assert notice_texts(odd) == ["a sentence of another version"]
    assert notes_of_sentence(None) == () and notes_of_sentence("") == ()


def test_a_stored_plan_reads_with_todays_words(monkeypatch):
    """The note is worded when shown: a new wording reaches a plan stored before it."""
    from fairdesk.presentation import plans as words
    from fairdesk.presentation.plans import plan_lines

    plan = Plan.from_json(json.loads(GOLDEN.read_text(encoding="utf-8")))
    monkeypatch.setitem(words.TEXTS, NOTE_TWO_WAY, lambda: "new words for the two-way note")
    assert "  note: new words for the two-way note" in plan_lines(plan)
    assert plan_json(plan)["comparisons"][0]["note"] == "new words for the two-way note"
