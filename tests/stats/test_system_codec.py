"""A comparison of systems' JSON codec (issue 43, point 2): its reasons are coded notes
that read back equal, and a comparison as the version before the coded reasons stored it
(captured from that version: ``fixtures/systems_stored_main.json``) opens, its reason
sentences read back as codes, and ``--json`` writes the same values again."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fairdesk.jobs.system_run import decode_comparison, encode_comparison
from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.systems import reason_text, systems_json
from fairdesk.stats.notices import Notice
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.simulation import _study_specs, simulate_audit
from fairdesk.stats.system_results import (
    REASON_FEW_MARKS,
    REASON_GAP_FEW_MARKS,
    REASON_GAP_NO_SPREAD,
    REASON_NO_SPREAD,
    stored_reason,
)
from fairdesk.stats.systems import compare_systems

STORED = json.loads(
    (Path(__file__).parent / "fixtures" / "systems_stored_main.json").read_text(encoding="utf-8")
)
WER = [s for s in _study_specs() if s.id == "wer"]


def _json(value):
    return json.loads(json.dumps(value))


def test_identical_systems_give_coded_reasons_that_read_back_equal():
    rng = np.random.default_rng(0)
    a = simulate_audit(rng, {"adult": 0.0, "child": 0.7}, design="matched",
                       speakers_per_group=12, utterances_per_speaker=6)  # fmt: skip
    a["item_id"] = ["i" + str(i) for i in range(len(a))]
    r = compare_systems({"A": a, "B": a.copy()}, WER, AuditSettings(n_bootstrap=200), audits=False)
    codes = {d.reason.code for d in (*r.differences, *r.gap_differences) if d.reason}
    assert codes == {REASON_NO_SPREAD, REASON_GAP_NO_SPREAD}
    assert r.differences[0].reason == Notice(REASON_NO_SPREAD, {"group": None})
    stored = _json(encode_comparison(r))
    back = decode_comparison(stored)
    # (NaN reads back as None, as for every stored result: compared once decoded)
    assert [d.reason for d in back.differences] == [d.reason for d in r.differences]
    assert [d.reason for d in back.gap_differences] == [d.reason for d in r.gap_differences]
    assert decode_comparison(_json(encode_comparison(back))) == back
    assert _json(encode_comparison(back)) == stored


@pytest.mark.parametrize("name", sorted(STORED))
def test_a_comparison_stored_before_the_coded_reasons_opens_and_writes_the_same_json(name):
    payload = STORED[name]
    res = decode_comparison(payload)
    for d in (*res.differences, *res.gap_differences):
        assert d.reason is None or isinstance(d.reason, Notice)
        if d.reason is not None and "do not vary" in reason_text(d):
            assert d.reason.area == "systems"  # re-derived, not kept as a sentence
    assert _json(systems_json(encode_comparison(res), res)) == payload


def test_the_descriptive_reasons_of_before_read_back_with_their_numbers():
    # the sentences as the version before the coded reasons wrote them
    e, label, g = 3.5, "DER", "child"
    old = (
        f"{g} has E = {e:g} expected marks (fewer than 10), so the "
        f"{label} difference is descriptive: shown, with no interval and no test"
    )
    code = Notice.from_json(stored_reason(old, "der"))
    assert code.code == REASON_FEW_MARKS and code.args["expected"] == 3.5
    assert code.args["group"] == g and code.args["min_basis"] == 10
    gap = (
        f"{g} has E = {e:g} and the reference E = {12.0:g} expected marks (a side "
        f"with fewer than 10), so the {label} gap difference is "
        "descriptive: shown, with no interval and no test"
    )
    code = Notice.from_json(stored_reason(gap, "der"))
    assert code.code == REASON_GAP_FEW_MARKS and code.args["expected_reference"] == 12.0
    corpus = Notice.from_json(stored_reason(old.replace("child", "the corpus"), "der"))
    assert corpus.args["group"] is None
    assert "the corpus has E = 3.5 expected marks (fewer than 10), so the " in notice_text(corpus)
    other = Notice.from_json(stored_reason("a reason of another version", "wer"))
    assert notice_text(other) == "a reason of another version"


@pytest.mark.parametrize("name", sorted(STORED))
def test_an_incremental_runs_systems_json_words_the_reasons_as_before(name):
    """``fairdesk incremental --json`` writes a paired comparison's reasons and assumption
    in words, as the stored comparison of before held them."""
    from fairdesk.incremental.result_parts import SystemsBlock
    from fairdesk.presentation.systems import incremental_systems_json

    block = SystemsBlock("policy", "displayed", decode_comparison(STORED[name]))
    data = {"systems": [block.to_json()]}
    (out,) = _json(incremental_systems_json(data, [block]))["systems"]
    for key in ("differences", "gap_differences", "classical"):
        assert out["comparison"][key] == STORED[name][key]
