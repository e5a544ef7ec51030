"""The report's model-based, stored-regression, hallucination and normaliser sections."""

from __future__ import annotations

import copy

import pytest

from fairdesk.presentation.notices import notice_text
from fairdesk.reports.data import load_run
from fairdesk.reports.html import render, report_context
from fairdesk.stats.notices import Notice
from tests.reports.test_html import external_references, parse


@pytest.fixture(scope="module")
def html(speech_runs):
    from fairdesk.core.runs import run_items_frame
    from fairdesk.jobs.model_based import model_based_block
    from fairdesk.jobs.regression_run import regress_run, store_regression
    from fairdesk.jobs.result import AuditRun
    from fairdesk.presentation.regression_poisson_words import poisson_json
    from fairdesk.stats.regression import run_poisson_mixed
    from fairdesk.stats.sensitivity import normaliser_sensitivity
    from fairdesk.stats.settings import AuditSettings

    p, run = speech_runs.project, speech_runs.run
    regress_run(p.folder, run, "correct", ["gender"], cluster="speaker_id")
    items = run_items_frame(p, run)
    # the us speakers make no error at all (no finite rate ratio against them): give each
    # of them one substitution in one sentence, so the model has numbers to render
    items.loc[(items["accent"] == "us") & (items["content_id"] == "c0"), "n_sub"] = 1
    # stored as a run before the typed result stored it: in words
    pm = poisson_json(run_poisson_mixed(items, ["accent"], reference={"accent": "us"}))
    store_regression(
        p,
        run,
        {
            "run_id": run,
            "request": {
                "family": "poisson-mixed",
                "outcome": "word errors",
                "variables": ["accent"],
            },
            "result": pm,
            "created_at": 0.0,
        },
    )
    d = load_run(p, run)
    d.payload = copy.deepcopy(d.payload)
    block = model_based_block(items, AuditRun.from_json(d.payload), ["accent"])
    d.payload["model_based"] = {v: m.to_json() for v, m in block.items()}
    d.payload["normaliser_sensitivity"] = normaliser_sensitivity(
        items, AuditSettings(n_bootstrap=200, min_items=10, min_speakers=3), "us", ["wer"]
    ).to_json()
    text = render(report_context(d))
    return d, pm, text


def test_sections_render_and_parse(html):
    d, pm, text = html
    tree = parse(text)
    assert external_references(text, tree) == []
    plain = "".join(tree.itertext())
    for heading in (
        "Model-based comparison (mixed-effects Poisson)",
        "Regressions stored with this run",
        "Hallucinations and other pitfalls",
        "Normaliser sensitivity",
    ):
        assert heading in plain


def test_model_based_section_shows_rate_ratios_beside_bootstrap(html):
    d, pm, text = html
    plain = "".join(parse(text).itertext())
    mb = d.payload["model_based"]["accent"]
    lev = mb["group_variables"][0]["levels"][0]
    assert f"{lev['rate_ratio']:.2f}×" in plain
    assert f"[{lev['ci_low']:.2f}, {lev['ci_high']:.2f}]" in plain
    for a in mb["agreement"]:  # stored coded, worded in the report
        assert notice_text(Notice.from_json(a["note"])) in plain
    wer = [c for c in d.payload["comparisons"] if c["metric"] == "wer"][0]
    assert f"{100 * wer['gap']:+.1f} pp" in plain


def test_stored_regressions_show_odds_ratios_clustered_and_conclusions(html):
    d, pm, text = html
    from fairdesk.jobs.regression_run import stored_regressions
    from fairdesk.presentation.notices import notice_texts

    plain = "".join(parse(text).itertext())
    logit = [s for s in stored_regressions(d.project, d.run_id) if s.family == "logit"][0].result
    lev = logit.univariate[0].levels[0]
    cl = logit.clustered.univariate[0].levels[0]
    assert f"{lev.odds_ratio:.2f}×" in plain and f"{cl.odds_ratio:.2f}×" in plain
    for c in notice_texts(logit.conclusions) + pm["conclusions"]:
        assert c in plain
    assert "Per-speaker" in plain and text.count("<svg") >= 4  # the spread chart


def test_pitfalls_and_sensitivity(html):
    d, pm, text = html
    plain = "".join(parse(text).itertext())
    block = d.payload["pitfalls"]
    assert f"{block['n_flagged']} items flagged as hallucinated" in plain
    assert "hallucination rate" in plain and "WER without flagged" in plain
    sens = d.payload["normaliser_sensitivity"]
    assert f"{sens['n_flipped']} of {sens['n_comparisons']} verdicts change" in plain
