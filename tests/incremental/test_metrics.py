"""Pooled metrics against a hand computation; group comparison with the shared bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fairdesk.incremental import (
    INCREMENTAL_METRICS,
    STAT_COLUMNS,
    compare_by_group,
    evaluate,
    pooled,
    summarise,
)
from fairdesk.stats import AuditSettings

from .fakes import FakeClock, ScriptBackend, contiguous_script, indexed_audio


def _row(**kw):
    row = {c: 0 for c in STAT_COLUMNS}
    row.update(kw)
    return row


def test_pooled_matches_a_hand_computation():
    a = _row(
        n_updates=4,
        n_adds=10,
        n_revokes=2,
        n_updates_with_revoke=1,
        n_adds_edit=9,
        n_revokes_edit=1,
        n_updates_with_revoke_edit=1,
        n_final_words=8,
        decode_s=2.0,
        audio_s=3.0,
        n_words=8,
        n_sub=1,
        n_del=0,
        n_ins=1,
        fwl_s=1.5,
        n_fwl=1,
        stab_s=8.0,
        n_stab=8,
    )
    b = _row(
        n_updates=6,
        n_adds=12,
        n_revokes=0,
        n_final_words=12,
        decode_s=4.0,
        audio_s=5.0,
        n_words=10,
        n_sub=0,
        n_del=2,
        n_ins=0,
        fwl_s=0.5,
        n_fwl=1,
        stab_s=6.0,
        n_stab=12,
        n_adds_edit=12,
    )
    a["n_adds"], a["n_final_words"] = 6, 4  # A - R = final count
    p = pooled(pd.DataFrame([a, b]))
    assert p["wer"] == pytest.approx((1 + 1 + 2) / 18)
    assert p["lat_pooled"] == pytest.approx(6.0 / 16)
    assert p["eo"] == pytest.approx(2 / (18 + 2))
    assert p["eo_edit"] == pytest.approx(1 / (21 + 1))
    assert p["rps"] == pytest.approx(2 / 6.0)
    assert p["spr"] == pytest.approx(6.0 / 2)
    assert p["revokes_per_audio_second"] == pytest.approx(2 / 8.0)
    assert p["rtf"] == pytest.approx(6.0 / 8.0)
    assert p["revoke_update_share"] == pytest.approx(1 / 10)
    assert p["final_word_latency"] == pytest.approx(1.0)
    assert p["stabilisation_latency"] == pytest.approx(14.0 / 20)
    # pooled, not the mean of per-item ratios
    assert p["eo"] != pytest.approx((2 / 8 + 0) / 2)
    # no revokes at all: SPR is infinite
    q = pooled(pd.DataFrame([b]))
    assert q["rps"] == 0 and math.isinf(q["spr"])


def test_specs_are_ratios_of_the_item_columns():
    for spec in INCREMENTAL_METRICS.values():
        assert set(spec.stats) <= set(STAT_COLUMNS)
    eo = INCREMENTAL_METRICS["eo"]
    assert float(eo.compute(np.array([3.0, 9.0]))) == pytest.approx(3 / 12)  # (R, A)


def _corpus(n_per_group=30):
    """Two groups: 'b' has an unstable recogniser (a partial word at each chunk end)."""
    words = "play the song by the band now".split()
    script = contiguous_script(words, start=0.1, dur=0.37)
    items = []
    for g in ("a", "b"):
        for i in range(n_per_group):
            items.append(
                {
                    "id": f"{g}{i}",
                    "group_col": g,
                    "speaker_id": f"{g}s{i % 6}",
                    "content_id": f"c{i % 10}",
                    "text": " ".join(words),
                    "seconds": 2.9 + 0.01 * (i % 5),
                }
            )
    return script, items


class GroupBackend:
    """Stable for group a (no partial words), unstable for group b."""

    id = "fake-groups"
    settings: dict = {}

    def __init__(self, script):
        self.clock = FakeClock()
        self.stable = ScriptBackend(script, self.clock, cost=0.1, partial=False)
        self.unstable = ScriptBackend(script, self.clock, cost=0.1, partial=True)
        self.current = self.stable

    def transcribe(self, audios):
        return self.current.transcribe(audios)


def test_group_comparison_reuses_compare_groups():
    script, items = _corpus()
    be = GroupBackend(script)

    def load(item):
        be.current = be.unstable if item["group_col"] == "b" else be.stable
        return indexed_audio(item["seconds"])

    frame, failures, _ = evaluate(be, items, load, ["concatenation"], 1.0)
    assert not failures and len(frame) == 60
    summary = summarise(frame)
    assert summary[0].policy == "concatenation" and summary[0].wer == 0
    res = compare_by_group(
        frame,
        "group_col",
        AuditSettings(n_bootstrap=200, min_items=20),
        ["eo", "revokes_per_audio_second", "wer"],
    )
    assert len(res) == 1
    block = res[0]
    values = {g.group: g.values for g in block.stats.groups}
    assert values["a"]["eo"] == 0 and values["b"]["eo"] > 0
    # group b's pooled EO equals the hand pooled value of its rows
    b = frame[frame.group_col == "b"]
    assert values["b"]["eo"] == pytest.approx(
        b.n_revokes.sum() / (b.n_adds.sum() + b.n_revokes.sum())
    )
    comps = {c.metric: c for c in block.stats.comparisons}
    assert set(comps) == {"eo", "revokes_per_audio_second", "wer"}
    assert comps["eo"].gap > 0 and comps["eo"].ci_low >= 0


def test_failures_are_per_item():
    script, items = _corpus(2)

    def load(item):
        if item["id"] == "a0":
            raise OSError("unreadable file")
        return indexed_audio(item["seconds"])

    frame, failures, _ = evaluate(
        ScriptBackend(script, FakeClock()), items, load, ["concatenation", "local-agreement"], 1.0
    )
    assert failures == [{"item": "a0", "reason": "unreadable file"}]
    # 3 items x (1 concatenation stream + 2 local-agreement streams)
    assert len(frame) == 9
    assert set(frame.stream) == {"displayed", "committed"}
    with pytest.raises(ValueError, match="unknown policy"):
        evaluate(ScriptBackend(script), items, load, ["nope"])
