"""``audit --model-based``: the mixed-effects Poisson model stored beside the bootstrap."""

from __future__ import annotations

import csv

import pytest

from tests.conftest import tone_project


def _preds(tmp_path):
    preds = tmp_path / "preds.csv"
    with preds.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["path", "text"])
        for accent in ("a", "b"):
            for s in range(6):
                for c in range(5):
                    lost = c < (3 if accent == "b" else 1)  # b: 3 of 20 words lost, a: 1
                    w.writerow(
                        [f"{accent}/{s}_{c}.wav", "play the song" if lost else "play the song now"]
                    )
    return preds


@pytest.fixture
def project(tmp_path):
    p, _root = tone_project(tmp_path, {"a": 0.4, "b": 0.4}, 6, 5, "play the song now")
    yield p, _preds(tmp_path)
    p.close()


def _request(preds, **kw):
    from fairdesk.jobs.audit import AuditRequest
    from fairdesk.stats.settings import AuditSettings

    return AuditRequest(
        dataset="d",
        model=f"predictions:{preds}",
        by=("accent",),
        reference="a",
        nlu="none",
        settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2),
        **kw,
    )


def test_model_based_result_is_stored_with_the_run(project):
    from fairdesk.core.runs import run_items_frame, run_payload
    from fairdesk.jobs.audit import run_audit
    from fairdesk.presentation.regression_poisson_words import (
        agreement_text,
        model_based_conclusions,
    )
    from fairdesk.stats.regression import agreement_with_bootstrap, run_poisson_mixed

    p, preds = project
    plain = run_audit(p, _request(preds))
    assert "model_based" not in plain.result.to_json()  # bridge: typed consumer pending
    out = run_audit(p, _request(preds, model_based=True))
    assert not out.from_cache and out.run_id != plain.run_id  # the flag is in the cache key
    stored = run_payload(p, out.run_id)["model_based"]["accent"]
    lev = stored["group_variables"][0]["levels"][0]
    assert lev["level"] == "b" and lev["rate_ratio"] == pytest.approx(3.0, rel=1e-4)
    # the same numbers as the model called directly on the stored items
    direct = run_poisson_mixed(
        run_items_frame(p, out.run_id), ["accent"], reference={"accent": "a"}
    )
    assert lev["ci_low"] == pytest.approx(direct.group_variables[0].levels[0].ci_low)
    want = agreement_with_bootstrap(
        # bridge: typed consumer pending
        direct,
        out.result.to_json()["comparisons"],
        "accent",
    )
    assert [a["level"] for a in stored["agreement"]] == [a.level for a in want]
    assert [a["agree"] for a in stored["agreement"]] == [a.agree for a in want]
    assert [a["note"]["code"] for a in stored["agreement"]] == [a.note.code for a in want]
    assert stored["agreement"][0]["agree"]  # neither finds a gap with 6 speakers a side
    assert "conclusions" not in stored  # derived from the numbers when shown
    typed = out.result.model_based["accent"]
    assert "bootstrap" in (agreement_text(typed.agreement[0]) or "")
    assert model_based_conclusions(typed)[0].startswith("No evidence that b differs from a")
    again = run_audit(p, _request(preds, model_based=True))
    # bridge: typed consumer pending
    assert again.from_cache and again.result.to_json()["model_based"]["accent"]["agreement"]


def test_unknown_covariate_is_refused_before_inference(project):
    from fairdesk.core.errors import FairdeskError
    from fairdesk.jobs.audit import run_audit

    p, preds = project
    with pytest.raises(FairdeskError, match="unknown covariate"):
        run_audit(p, _request(preds, model_based=True, covariates=("loudness",)))
    with pytest.raises(FairdeskError, match="model-based"):
        run_audit(p, _request(preds, covariates=("duration_s",)))


def test_a_model_that_cannot_be_fitted_leaves_the_audit_standing(project):
    from fairdesk.jobs.audit import run_audit

    p, preds = project
    # duration is the same for every item: no variation to estimate an effect from
    out = run_audit(p, _request(preds, model_based=True, covariates=("n_words",)))
    block = out.result.to_json()["model_based"]["accent"]  # bridge: typed consumer pending
    assert "error" in block or block["covariates"]
    assert out.result.to_json()["comparisons"]  # bridge: typed consumer pending


def test_model_based_lines():
    from fairdesk.jobs.result_codec import canonical
    from fairdesk.jobs.result_parts import ModelBasedFit
    from fairdesk.presentation.regression_poisson_words import model_based_lines

    block = {
        "g": {"error": "too few speakers"},
        "h": {"conclusions": ["x"], "agreement": [{"sentence": "y"}]},
    }
    lines = model_based_lines(canonical(block, dict[str, ModelBasedFit]))
    assert lines == [
        "Model-based (mixed-effects Poisson) by g:",
        "  not fitted: too few speakers",
        "Model-based (mixed-effects Poisson) by h:",
        "  x",
        "  y",
    ]
