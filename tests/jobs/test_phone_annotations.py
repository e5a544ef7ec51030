"""Phone-level annotations in an audit: phone-error grounding, annotated confusion,
accentedness regression."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.explain.grounding import frames_in_regions, phone_error_grounding
from fairdesk.jobs import AuditRequest, run_audit
from fairdesk.jobs.explain_stage import phone_grounding_summary
from fairdesk.stats import AuditSettings
from tests.conftest import tone_project
from tests.explain.test_audit_explain import FakeAligner, RegionScoreBackend


@pytest.fixture
def project(tmp_path):
    return tone_project(tmp_path, {"a": 0.5, "b": 0.7}, 10, 3, "play the song")[0]


def _annotate(project):
    items = project.items(project.dataset("d"))
    for db_id, accent in zip(items["db_id"], items["accent"], strict=True):
        db = int(db_id)
        if accent == "b":  # the backend's focus in group b is exactly [0.4, 0.7)
            project.add_annotation(
                db,
                "phone_error",
                {"canonical": "TH", "perceived": "S", "type": "substitution"},
                start=0.4,
                end=0.55,
            )
            project.add_annotation(
                db,
                "phone_error",
                {"canonical": "DH", "perceived": "D", "type": "substitution"},
                start=0.55,
                end=0.7,
            )
            project.add_annotation(
                db,
                "phone_counts",
                {"n_phones": 10, "n_errors": 2, "phones": {"TH": 1, "DH": 1, "AA": 8}},
            )
        else:
            project.add_annotation(
                db, "phone_counts", {"n_phones": 10, "n_errors": 0, "phones": {"AA": 10}}
            )


def test_audit_with_phone_annotations(project):
    _annotate(project)
    req = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        nlu="none",
        explain=True,
        explain_per_group=3,
        metrics=("wer",),
        settings=AuditSettings(n_bootstrap=300, min_items=20, min_speakers=5),
    )
    res = run_audit(
        project, req, backend=RegionScoreBackend(), aligner=FakeAligner()
    ).result.to_json()  # bridge: typed consumer pending
    peg = res["explain"]["phone_error_grounding"]
    assert set(peg) == {"b"}  # group a has no error windows
    assert peg["b"]["auroc"] == pytest.approx(1.0) and peg["b"]["ap"] == pytest.approx(1.0)
    assert peg["b"]["n_auroc"] == 3
    items = [r for r in res["explain"]["items"] if r["group"] == "b"]
    frame_s = res["explain"]["frame_s"]
    assert all(r["phone_error_grounding"]["n_flagged"] == round(0.3 / frame_s) for r in items)
    pa = res["phone_annotations"]
    assert pa["groups"]["b"] == {
        "n_items": 30,
        "n_phones": 300,
        "n_errors": 60,
        "accentedness": 0.2,
    }
    assert pa["groups"]["a"]["accentedness"] == 0.0
    top = pa["confusion"]["b"]["top"]
    assert {(t["ref"], t["hyp"], t["count"], t["rate"]) for t in top} == {
        ("TH", "S", 30, 1.0),
        ("DH", "D", 30, 1.0),
    }
    reg = res["accentedness_regression"]
    # accentedness is constant within each group here: said, not fitted
    assert reg["n"] == 60 and reg["estimable"] is False
    from fairdesk.presentation.interval_words import note_json_text

    assert "cannot be separated" in note_json_text(reg["reason"])


def test_phone_error_grounding_random_saliency_is_chance():
    rng = np.random.default_rng(1)
    items = []
    for _ in range(200):
        flags = frames_in_regions(100, 0.02, [(0.5, 0.8)])
        curve = rng.normal(size=100)
        items.append(
            {
                "group": "g",
                "phone_error_grounding": phone_error_grounding(curve, flags, np.ones(100, bool)),
            }
        )
        exact = flags.astype(float) + 0.01 * rng.random(100)
        items.append(
            {
                "group": "exact",
                "phone_error_grounding": phone_error_grounding(exact, flags, np.ones(100, bool)),
            }
        )
    s = phone_grounding_summary(items)
    assert s["g"]["auroc"] == pytest.approx(0.5, abs=0.02)
    # about the share of flagged frames (0.15; AP of a random ranking sits a little above it
    # with 15 positives)
    assert 0.15 <= s["g"]["ap"] < 0.22
    assert s["exact"]["auroc"] == 1.0 and s["exact"]["auroc_speech"] == 1.0
    assert s["g"]["n_auroc"] == 200
