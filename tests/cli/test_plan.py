"""``fairdesk plan`` on a stored run, the plan sentence of the console views, and the
formatter's wording (docs/METHODS.md, "Planning: how many speakers would settle it")."""

from __future__ import annotations

import json

import pytest

from fairdesk.cli import main
from fairdesk.stats.planning_types import ComparisonPlan, MdePoint, Plan, SideNeed
from tests.conftest import underpowered_pilot


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return underpowered_pilot(tmp_path_factory.mktemp("plan"))


def test_audit_stores_the_closed_form_plan_and_its_console_reading_ends_with_it(run):
    from fairdesk.cli.console import format_groups
    from fairdesk.presentation.plans import plan_sentence

    _folder, out = run
    res = out.result
    under = [c for c in res.comparisons if c.verdict == "inconclusive_underpowered"]
    assert under and res.plan is not None and res.plan.method == "closed_form"
    assert {(c.metric, c.group) for c in res.plan.comparisons} == {
        (c.metric, c.group) for c in under
    }
    text = format_groups(res)
    for cp in res.plan.comparisons:
        assert plan_sentence(cp, res.plan) in text


def test_plan_command_prints_the_plan_and_writes_json(run, tmp_path, capsys):
    from fairdesk.jobs.result_codec import decode

    folder, _out = run
    target = tmp_path / "plan.json"
    args = ["plan", "--project", folder, "--run", "1", "--gap", "0.05"]
    assert main([*args, "--json", str(target)]) == 0
    text = capsys.readouterr().out
    assert "Recording plan (resampling" in text and "speakers per side" in text
    assert "would detect a gap of 5 pp with 80% power at alpha 0.05/2" in text
    plan = decode(json.loads(target.read_text()), Plan)
    assert plan.method == "resampling" and plan.future_m == 2 and plan.gap == 0.05
    cp = plan.comparisons[0]
    assert cp.speakers_needed is not None
    assert cp.group_need.new_speakers == cp.speakers_needed - 6
    # the same request gives the same plan
    assert main([*args, "--json", str(target)]) == 0
    assert decode(json.loads(target.read_text()), Plan) == plan


def test_plan_command_errors(run, capsys):
    folder, _out = run
    assert main(["plan", "--project", folder, "--run", "7"]) == 2
    err = capsys.readouterr().err
    assert "fairdesk plan: no run 7 in project" in err and "finished runs: 1" in err
    assert main(["plan", "--project", folder, "--run", "1", "--power", "1.5"]) == 2
    assert "--power 1.5: give a power between 0 and 1" in capsys.readouterr().err
    assert main(["plan", "--project", folder, "--run", "1", "--gap", "-1"]) == 2
    assert "--gap -1.0: give a positive gap" in capsys.readouterr().err


def _plan(cp):
    return Plan("closed_form", "closed form", 0.8, 0.05, 2, 0.025, None, (cp,), ())


def _cp(**kw):
    base = dict(
        metric="wer", group="age=child", reference="age=adult", method="closed_form",
        scheme="speaker", design="unmatched", target_gap=0.05, z_factor=3.08,
        pilot_mde=0.165, speakers_needed=120, reachable=True, limit=None, floor_mde=None,
        closed_form_k=120, curve=(MdePoint(120, 0.016, 0.05),),
        group_need=SideNeed("age=child", 10, 120, 110, 10.0, 1100, 1100 * 3.6 / 3600, 3.6),
        reference_need=SideNeed("age=adult", 12, 120, 108, 10.0, 1080, 1080 * 3.6 / 3600, 3.6),
    )  # fmt: skip
    base.update(kw)
    return ComparisonPlan(**base)


def test_plan_sentence_wording():
    from fairdesk.presentation.plans import plan_sentence

    cp = _cp()
    assert plan_sentence(cp, _plan(cp)) == (
        "About 110 more child speakers and 108 more adult speakers, 10 utterances each "
        "(≈ 2.2 hours of recording), would detect a gap of 5 pp with 80% power at alpha "
        "0.05/2 (closed form)."
    )
    cp = _cp(speakers_needed=None, reachable=False, limit="content", floor_mde=0.07)
    assert plan_sentence(cp, _plan(cp)).startswith(
        "Not reachable by adding speakers: the shared sentences alone leave an MDE of 7.0 pp "
        "for a gap of 5 pp"
    )
    assert plan_sentence(cp, _plan(cp)).endswith("; add sentences.")
    # a resampling plan with shared sentences resamples both
    cp = _cp(method="resampling", scheme="two_way", design="matched")
    assert plan_sentence(cp, _plan(cp)).endswith(
        "at alpha 0.05/2 (resampling the pilot's speakers and sentences)."
    )


def test_the_sentence_gives_utterances_per_side_when_the_sides_differ():
    """Sides with different utterances per new speaker are named, never "1.5 and 10 each"."""
    from types import SimpleNamespace as NS

    from fairdesk.presentation.plans import plan_sentence

    def need(group, new, utt, hours):
        return NS(group=group, new_speakers=new, utterances_per_speaker=utt, hours=hours)

    cp = NS(
        metric="wer",
        target_gap=0.05,
        method="closed_form",
        limit=None,
        reachable=True,
        curve=(),
        group_need=need("teen", 270, 10.0, 2.0),
        reference_need=need("adult", 209, 1.5, 1.2),
        contents=None,
    )
    plan = NS(power=0.8, alpha=0.05, future_m=4)
    s = plan_sentence(cp, plan)
    assert s.startswith(
        "About 270 more teen speakers and 209 more adult speakers, 10 utterances per teen "
        "speaker and 1.5 utterances per adult speaker (≈ 3.2 hours of recording), would detect "
        "a gap of 5 pp with 80% power"
    ), s
