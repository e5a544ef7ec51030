"""A run's name (fairdesk.presentation.runs): every filter and non-default setting named, the
same from the stored request and from the typed result."""

from __future__ import annotations

import json
from dataclasses import fields, replace

import pytest

from fairdesk.presentation import RunSpec, run_conditions, run_name
from fairdesk.presentation.runs import short_model
from fairdesk.stats.settings import AuditSettings


def test_a_default_run_of_every_item_has_no_condition():
    spec = RunSpec(by=("gender",), settings=AuditSettings())
    assert run_conditions(spec) == ()
    assert run_name(spec) == "by gender"
    full = replace(spec, model="m", dataset="d", reference="female", n_items=400)
    assert run_name(full) == "m on d · by gender · reference female · 400 items"


def test_filters_sample_and_settings_are_named():
    s = AuditSettings(
        n_bootstrap=400,
        seed=3,
        alpha=0.01,
        absolute_error_gap=0.03,
        disparity_ratio=1.5,
        grounding_gap=0.2,
        min_items=10,
        min_speakers=3,
        resampling="two_way",
        structure_threshold=0.2,
        max_items=500,
        normaliser="tone-preserving",
        small_cluster_scaling=False,
        include_missing=True,
    )
    spec = RunSpec(
        by=("gender",),
        filters=(("age_group", ("adult",)), ("native_language", ("mandarin", "cantonese", "wu"))),
        sample=20,
        settings=s,
    )
    assert run_conditions(spec) == (
        "only age_group = adult",
        "only native_language = mandarin, cantonese or wu",
        "sample of 20 per group",
        "400 resamples",
        "seed 3",
        "α = 0.01",
        "practical gap 3.0 pp",
        "practical ratio 1.50×",
        "practical grounding gap 0.20",
        "min. 10 items per group",
        "min. 3 speakers per group",
        "resampling by two-way",
        "structure threshold 0.20",
        "run cap 500 items",
        "normaliser tone-preserving",
        "small-cluster scaling off",
        "missing values as a group",
    )


@pytest.mark.parametrize("name", [f.name for f in fields(AuditSettings)])
def test_every_setting_that_differs_is_named(name):
    """A setting added to AuditSettings later is named too (by its field name at least)."""
    changed = {
        "n_bootstrap": 300,
        "seed": 1,
        "alpha": 0.1,
        "absolute_error_gap": 0.1,
        "disparity_ratio": 2.0,
        "grounding_gap": 0.3,
        "min_items": 2,
        "min_speakers": 2,
        "resampling": "speaker",
        "structure_threshold": 0.3,
        "max_items": 10,
        "normaliser": "whisper-basic",
        "small_cluster_scaling": False,
        "include_missing": True,
    }
    if name == "max_items_lifted":
        s = AuditSettings().with_run_cap(30000)
        assert run_conditions(RunSpec(settings=s)) == ("run cap 30,000 items",)
        return
    s = replace(AuditSettings(), **{name: changed[name]})
    assert len(run_conditions(RunSpec(settings=s))) == 1


def test_the_defaults_of_both_front_ends_are_not_named():
    # the CLI's normaliser default is "auto", the GUI's the English one
    for norm in ("auto", "whisper-english"):
        assert run_conditions(RunSpec(settings=AuditSettings(normaliser=norm))) == ()


def test_the_stored_request_reads_as_the_typed_one():
    stored = {
        "by": ["accent"],
        "filters": {"gender": ["female"]},
        "sample": 5,
        "settings": AuditSettings(min_items=7).to_dict(),
    }
    spec = RunSpec.from_stored(json.dumps(stored), "whisper-tiny.en", "demo")
    assert spec == RunSpec.from_stored(stored, "whisper-tiny.en", "demo")
    assert run_name(spec) == (
        "whisper-tiny.en on demo · by accent · only gender = female · sample of 5 per group"
        " · min. 7 items per group"
    )


def test_unreadable_stored_settings_name_only_what_is_known():
    assert run_name(RunSpec.from_stored("{not json", "m", None)) == "m on ? · by ?"
    odd = {"by": "accent", "settings": {"from_the_future": 1}, "sample": "x"}
    assert run_name(RunSpec.from_stored(odd)) == "by accent"
    # a run stored before small-cluster scaling existed was made without it
    old = {"by": ["accent"], "settings": {"n_bootstrap": 2000}}
    assert run_conditions(RunSpec.from_stored(old)) == ("small-cluster scaling off",)


def test_a_typed_run_names_its_request():
    from fairdesk.jobs.result import AuditRun
    from fairdesk.jobs.result_parts import RunSettings
    from fairdesk.stats.results import AuditResult, GroupInfo

    groups = tuple(
        GroupInfo(group=g, n_items=n, n_speakers=k, excluded=False, reason=None, values={})
        for g, n, k in (("female", 240, 30), ("male", 160, 20))
    )
    res = AuditResult(
        comparisons=(),
        summary={},
        groups=groups,
        excluded=(),
        reference="female",
        design="unmatched",
        settings=AuditSettings(min_items=10),
    )
    run = AuditRun(
        result=res,
        run_settings=RunSettings(by=("gender",), filters={"age_group": ("adult",)}),
        model="whisper-tiny.en",
        dataset="l2-english",
        by=("gender",),
    )
    assert run_name(RunSpec.from_run(run)) == (
        "whisper-tiny.en on l2-english · by gender · reference female · 400 items · "
        "only age_group = adult · min. 10 items per group"
    )


def test_long_model_paths_are_shortened_for_lists_only():
    model = "predictions:/home/someone/projects/field-2024/exports/whisper/preds.csv"
    short = short_model(model)
    assert short.startswith("predictions:…") and short.endswith("whisper/preds.csv")
    assert len(short) < len(model)
    assert short_model("whisper-tiny.en") == "whisper-tiny.en"
    spec = RunSpec(by=("a",), model=model, dataset="d")
    assert run_name(spec).startswith(model) and run_name(spec, short=True).startswith(short)
