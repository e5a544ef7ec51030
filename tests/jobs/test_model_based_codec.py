"""The typed model-based block's codec (fairdesk.jobs.model_based_parts): today's layout is
written exactly as the producer wrote it, and every older layout (the fit in words with its
conclusions and sentences; coded notes with the sentence ``agreement_note``; a block without
numbers) opens typed, round trips and is written back as stored."""

from __future__ import annotations

import copy
import json
import math

import pytest

from fairdesk.jobs.model_based_parts import Agreement, ModelBasedFit
from fairdesk.jobs.result import AuditRun
from fairdesk.jobs.result_codec import canonical
from fairdesk.presentation.regression_poisson_words import (
    agreement_note_text,
    agreement_text,
    model_based_conclusions,
    model_based_json,
    model_based_notes,
    poisson_conclusions,
    poisson_json,
)
from fairdesk.stats.notices import Notice
from fairdesk.stats.regression import agreement_with_bootstrap
from fairdesk.stats.regression.poisson_mixed_result import MixedPoissonResult
from tests.stats.regression.test_poisson_mixed_result_codec import MAIN

CASE = MAIN["content_not_shared"]
CAVEAT = Notice("poisson.groups_excluded", {"groups": ["zz"]})
CAVEAT_WORDS = "groups excluded by the audit's minimums were left out: ['zz']"
COMBINED = "the audit compared combinations of a × b; the model compares the levels of each column"


def _stored(x):
    return json.loads(json.dumps(x))


#: The keys the block's codec writes first (the typed fields), before the fit's.
FIRST = ("error", "conclusions", "agreement", "agreement_note", "notes")


def _written_order(block: dict) -> list[str]:
    """The keys of a stored block in the order the run's codec writes them (the typed
    fields, then the fit's keys in their stored order): the order of ``--json``."""
    return [k for k in FIRST if k in block] + [k for k in block if k not in FIRST]


def _fit() -> MixedPoissonResult:
    return MixedPoissonResult.from_json(CASE["result"])


def _coded_block(note_coded: bool = True) -> dict:
    """The block as ``model_based_block`` wrote it since the typed result (built the way
    it built it), with ``agreement_note`` coded or (the release between) a sentence."""
    fit = _fit()
    m = fit.to_json()
    del m["conclusions"]
    m["agreement"] = [
        {
            "level": a.level,
            "agree": a.agree,
            "model_significant": a.model_significant,
            "bootstrap_significant": a.bootstrap_significant,
            "note": a.note.to_json(),
        }
        for a in agreement_with_bootstrap(fit, CASE["comparisons"])
    ]
    m["agreement_note"] = (
        Notice("poisson.combined_groups", {"columns": ["a", "b"]}).to_json()
        if note_coded
        else COMBINED
    )
    m["notes"].append(CAVEAT.to_json())
    return _stored(m)


def _worded_block() -> dict:
    """The block as the first ``--model-based`` release stored it: the fit in words with
    its conclusions, the notes, the agreement and its note as sentences."""
    # in the order the store kept it (the layout's; the fixture's keys are sorted)
    result = {k: CASE["result"][k] for k in poisson_json(_fit())}
    return _stored(
        {
            **result,
            "notes": CASE["result"]["notes"] + [CAVEAT_WORDS],
            "agreement": CASE["agreement"],
            "agreement_note": COMBINED,
        }
    )


def _typed_new() -> ModelBasedFit:
    fit = _fit()
    rows = agreement_with_bootstrap(fit, CASE["comparisons"])
    return ModelBasedFit(
        fit=fit,
        agreement=tuple(
            Agreement(a.level, a.agree, a.model_significant, a.bootstrap_significant, a.note)
            for a in rows
        ),
        agreement_note=Notice("poisson.combined_groups", {"columns": ["a", "b"]}),
        notes=(*fit.notes, CAVEAT),
    )


def _round_trips(m: ModelBasedFit) -> None:
    again = ModelBasedFit.from_json(_stored(m.to_json()))
    assert again == m
    assert _stored(again.to_json()) == _stored(m.to_json())


def test_todays_block_is_written_as_the_producer_wrote_it():
    m = _typed_new()
    out = _stored(m.to_json())
    want = _coded_block()
    assert out == want and list(out) == _written_order(want)
    assert "conclusions" not in out and m.conclusions is None
    typed = ModelBasedFit.from_json(want)
    assert canonical(m, ModelBasedFit) == typed
    assert typed.notes is not None and typed.notes[-1] == CAVEAT
    assert typed.fit is not None and CAVEAT not in typed.fit.notes  # the audit's, not the fit's
    assert all(a.note is not None and a.note.code == "poisson.agreement" for a in typed.agreement)
    _round_trips(typed)


@pytest.mark.parametrize("layout", ["coded", "sentence_agreement_note", "worded"])
def test_every_layout_opens_typed_and_reads_in_the_same_words(layout):
    stored = {
        "coded": _coded_block(),
        "sentence_agreement_note": _coded_block(note_coded=False),
        "worded": _worded_block(),
    }[layout]
    m = ModelBasedFit.from_json(stored)
    assert m.error is None and m.fit is not None
    assert m.fit.group_variables == _fit().group_variables
    # the words every view shows: the conclusions from the numbers, the notes, agreement
    assert model_based_conclusions(m) == poisson_conclusions(m.fit) == CASE["result"]["conclusions"]
    assert model_based_notes(m) == CASE["result"]["notes"] + [CAVEAT_WORDS]
    assert [agreement_text(a) for a in m.agreement or ()] == [
        a["sentence"] for a in CASE["agreement"]
    ]
    assert agreement_note_text(m) == COMBINED
    _round_trips(m)
    # a layout with sentences is written back with them, where it stored them
    out = _stored(m.to_json())
    for key in ("agreement_note", "notes", "agreement"):
        if layout != "coded" and isinstance(stored[key], str):
            assert out[key] == stored[key], key
    if layout == "sentence_agreement_note":
        assert out == stored and list(out) == _written_order(stored)


def test_an_old_block_in_words_keeps_its_sentences_where_it_stored_them():
    stored = _worded_block()
    m = ModelBasedFit.from_json(stored)
    assert m.conclusions == tuple(
        Notice("stored.sentence", {"text": s}) for s in stored["conclusions"]
    )
    assert m.agreement is not None
    assert m.agreement[0].note == Notice(
        "stored.sentence", {"text": stored["agreement"][0]["sentence"]}
    )
    assert m.agreement_note == Notice("stored.sentence", {"text": COMBINED})
    out = _stored(m.to_json())
    assert list(out) == _written_order(stored)  # the stored keys
    for key in ("notes", "conclusions", "agreement", "agreement_note"):
        assert out[key] == stored[key], key
    # the fit too, in the words it was stored with (read from its numbers: m.fit)
    assert out == stored
    assert m.stored_words is not None and "notes" not in m.stored_words
    assert m.fit is not None and m.fit.model == _fit().model


def test_a_block_without_numbers_and_an_error_block_are_written_back_as_stored():
    bare = {
        "notes": ["a note"],
        "conclusions": ["x"],
        "agreement": [
            {
                "level": "b",
                "agree": True,
                "model_significant": False,
                "bootstrap_significant": False,
                "sentence": "y",
            }
        ],
    }
    m = ModelBasedFit.from_json(bare)
    assert m.fit is None and m.error is None
    assert model_based_conclusions(m) == ["x"] and model_based_notes(m) == ["a note"]
    assert agreement_text(m.agreement[0]) == "y"
    assert m.to_json() == bare
    _round_trips(m)
    error = {"error": "the model needs speaker ids (speaker_id)"}
    e = ModelBasedFit.from_json(error)
    assert e == ModelBasedFit(error=error["error"]) and e.to_json() == error
    assert model_based_conclusions(e) == []
    # a row with only its sentence (hand-made blocks) reads too
    assert Agreement.from_json({"sentence": "z"}).note == Notice("stored.sentence", {"text": "z"})


def test_the_block_round_trips_through_the_run():
    blocks = {"accent": _typed_new(), "age": ModelBasedFit(error="too few speakers")}
    run = AuditRun(model="m", model_based=canonical(blocks, dict[str, ModelBasedFit]))
    out = _stored(run.to_json())
    assert out["model_based"]["accent"] == _coded_block()
    assert out["model_based"]["age"] == {"error": "too few speakers"}
    assert AuditRun.from_json(out) == run
    # nothing undefined is lost: the NaNs of the fit stay NaN
    fit = AuditRun.from_json(out).model_based["accent"].fit
    assert fit is not None and math.isnan(fit.loglik) == math.isnan(_fit().loglik)


def test_json_output_writes_the_words_where_the_block_was():
    # ``--json``: the stored block with the fit's notes, conclusions and agreement in words,
    # keys in the order the run writes the block (the conclusions last for today's block)
    for stored in (_coded_block(), _worded_block()):
        m = ModelBasedFit.from_json(stored)
        payload = {"model_based": {"accent": copy.deepcopy(stored)}}
        got = model_based_json(payload, {"accent": m})["model_based"]["accent"]
        want_keys = _written_order(stored) + (
            ["conclusions"] if "conclusions" not in stored else []
        )
        assert list(got) == want_keys
        assert got["conclusions"] == CASE["result"]["conclusions"]
        assert got["notes"] == CASE["result"]["notes"] + [CAVEAT_WORDS]
        assert got["agreement"] == CASE["agreement"]
        assert got["agreement_note"] == COMBINED
