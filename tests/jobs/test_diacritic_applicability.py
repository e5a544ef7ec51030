"""docs/METHODS.md, "When the diacritic metrics apply": DER, RDD, net loss and TER only for
diacritic-bearing text or when asked for; every value with its basis E; E < 10 descriptive."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.multitest import multipletests

import fairdesk
from fairdesk.cli.console import format_groups
from fairdesk.presentation.estimability_words import reason_text
from fairdesk.presentation.notices import notice_texts
from fairdesk.presentation.readings import reading
from fairdesk.stats.notices import Notice
from tests.conftest import coded_words as _words
from tests.conftest import english_accents_run


def _audit(**kw):
    return english_accents_run(**kw)


def test_english_text_with_a_few_accents_has_no_diacritic_metric_by_default():
    run = _audit()
    assert run.normaliser.name == "whisper-english"
    dia = {"der", "rdd", "diacritic_net_loss", "ter", "ter_dropped", "ter_wrong"}
    assert not dia & set(run.tested_metrics + run.descriptive_metrics)
    assert not any(c.metric in dia for c in run.comparisons)
    assert all(not dia & set(g.values) and g.basis is None for g in run.groups)
    assert not dia & set(run.summary) and run.no_diacritic_items is None
    assert Notice("run.diacritics_off") in run.warnings
    assert any(
        "diacritic metrics (DER, RDD, net loss, TER) are not computed" in w
        for w in notice_texts(run.warnings)
    )
    assert "DER % [95% CI]" not in format_groups(run)


def test_asked_for_der_shows_e_and_groups_under_10_marks_are_not_tested():
    run = _audit(metrics=["der"])
    assert run.tested_metrics == ("der",)
    assert {"rdd", "diacritic_net_loss"} <= set(run.descriptive_metrics)
    basis = {g.group: g.basis["der"] for g in run.groups}
    assert basis == {"a": 12, "b": 12, "c": 3}
    b, c = run.comparison("der", "b"), run.comparison("der", "c")
    # b: 12 + 12 expected diacritics, tested
    assert (b.basis.group, b.basis.reference, b.basis.descriptive) == (12, 12, False)
    assert b.basis.unit == "expected diacritics" and b.verdict != "descriptive"
    assert b.p_value is not None and b.ci_low is not None
    assert "E = 12 + 12 expected diacritics" in reading(b, run)
    # c: E = 3: the value shown, no interval, no test, no verdict
    assert (c.basis.group, c.basis.reference, c.basis.descriptive) == (3, 12, True)
    assert c.verdict == "descriptive" and c.estimator == "none"
    assert c.p_value is None and c.p_adjusted is None and c.ci_low is None and c.ci_high is None
    assert c.value == pytest.approx(1 / 3)  # 3 expected, 1 dropped (speaker c1)
    assert "E = 3 + 12 expected diacritics" in reading(c, run) and "no test" in reading(c, run)
    assert c.reason is not None and c.reason.code == "estimability.descriptive_basis"
    assert (reason_text(c.reason) or "").startswith(
        "c has E = 3 expected diacritics (fewer than 10)"
    )
    # not in Holm's m: B planned for 1 comparison, b's p_adjusted is Holm over b alone
    assert run.bootstrap.comparisons == 1
    tested = [x for x in run.comparisons if x.verdict != "descriptive"]
    want = multipletests([x.p_value for x in tested], method="holm")[1]
    assert [x.p_adjusted for x in tested] == pytest.approx(list(want))
    assert b.p_adjusted == pytest.approx(b.p_value)
    # c's own DER value has no interval; a's and b's do
    cg = next(g for g in run.groups if g.group == "c")
    assert cg.ci["der"] is None and cg.ci_scheme["der"] == "descriptive"
    assert (
        _words(cg.ci_note["der"])
        == "E = 3 expected diacritics (fewer than 10): descriptive, no interval"
    )
    assert all(g.ci["der"] is not None for g in run.groups if g.group != "c")
    assert run.summary["der"].overall["basis"] == 27
    # the console: every DER value with its E; c's comparison descriptive
    text = format_groups(run)
    assert "(E = 3)" in text and "(E = 12)" in text and "(E = 27)" in text
    assert "descriptive: 33.3% vs" in text and "E = 3 + 12 expected diacritics" in text
    # the JSON keeps the basis
    d = run.to_json()
    jc = next(x for x in d["comparisons"] if x["group"] == "c")
    assert jc["basis"] == {
        "unit": "expected diacritics",
        "group": 3,
        "reference": 12,
        "descriptive": True,
    }
    assert next(g for g in d["groups"] if g["group"] == "c")["basis"]["der"] == 3
    assert math.isclose(
        fairdesk.jobs.result.AuditRun.from_json(d).comparison("der", "c").basis.group, 3
    )


def test_a_non_english_language_makes_them_default():
    run = _audit(language="fr")
    assert "der" in run.tested_metrics and run.comparison("der", "c").verdict == "descriptive"
    # a metric of every item has no basis: the key is left out of the JSON
    assert all("basis" not in x for x in run.to_json()["comparisons"] if x["metric"] == "wer")
