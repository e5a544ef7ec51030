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


def test_audit_stores_the_resampling_plan_that_fairdesk_plan_prints(run, tmp_path, capsys):
    """One plan, one number: the audit stores the resampling plan (its time in the run's
    timings), the console reading ends with its sentence, and ``fairdesk plan --run 1``
    with its defaults gives the same plan."""
    from fairdesk.cli.console import format_groups
    from fairdesk.jobs.result_codec import decode
    from fairdesk.presentation.plans import plan_sentence
    from fairdesk.stats.plans import resampling_plan

    folder, out = run
    res = out.result
    under = [c for c in res.comparisons if c.verdict == "inconclusive_underpowered"]
    assert under and res.plan is not None and res.plan.method == "resampling"
    assert res.plan.n_bootstrap == 1000 and res.plan.seed == 0
    assert out.timings["plan_s"] >= 0 and res.timings["plan_s"] == out.timings["plan_s"]
    assert {(c.metric, c.group) for c in res.plan.comparisons} == {
        (c.metric, c.group) for c in under
    }
    text = format_groups(res)
    for cp in res.plan.comparisons:
        assert plan_sentence(cp, res.plan) in text
        assert cp.dense and cp.search_limit == 20 * 6
    target = tmp_path / "plan.json"
    assert main(["plan", "--project", folder, "--run", "1", "--json", str(target)]) == 0
    capsys.readouterr()
    assert decode(json.loads(target.read_text()), Plan) == res.plan
    # and it is the resampling plan of the stored rows, not a copy of something else
    from fairdesk.core.runs import run_items_frame
    from fairdesk.core.store import Project
    from fairdesk.metrics import metric_specs

    p = Project(folder)
    try:
        items = run_items_frame(p, 1)
    finally:
        p.close()
    specs = {s.id: s for s in metric_specs(items, wanted=[c.metric for c in under])}
    again = resampling_plan(items, out.result.result, specs)
    assert [c.speakers_needed for c in again.comparisons] == [
        c.speakers_needed for c in res.plan.comparisons
    ]


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
    # fewer than 200 replicates: refused, not a plan of noise
    for n in ("1", "199"):
        assert main(["plan", "--project", folder, "--run", "1", "--replicates", n]) == 2
        err = capsys.readouterr().err
        assert f"--replicates {n}: a recording plan needs at least 200 replicates" in err
    assert main(["plan", "--project", folder, "--run", "1", "--replicates", "200"]) == 0


def _plan(cp):
    return Plan("closed_form", 0.8, 0.05, 2, 0.025, None, (cp,), ())


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

    from fairdesk.presentation.plans import crosscheck, plan_lines, plan_sentence

    cp = _cp()
    # the closed form is labelled an estimate, to be replaced by the resampling plan
    assert plan_sentence(cp, _plan(cp)) == (
        "120 speakers per side would detect a gap of 5 pp with 80% power at alpha 0.05/2 "
        "(closed-form estimate, until the resampling plan replaces it): about 110 more child "
        "speakers and 108 more adult speakers, 10 utterances each (≈ 2.2 hours of recording)."
    )
    assert crosscheck(cp) is None
    cp = _cp(speakers_needed=None, reachable=False, limit="content", floor_mde=0.07)
    assert plan_sentence(cp, _plan(cp)).startswith(
        "Not reachable by adding speakers: the shared sentences alone leave an MDE of 7.0 pp "
        "for a gap of 5 pp"
    )
    assert plan_sentence(cp, _plan(cp)).endswith("; add sentences.")
    # a resampling plan with shared sentences resamples both; the closed form beside it
    cp = _cp(method="resampling", scheme="two_way", design="matched", closed_form_k=90)
    assert "at alpha 0.05/2 (resampling the pilot's speakers and sentences): about" in (
        plan_sentence(cp, _plan(cp))
    )
    assert crosscheck(cp) == "closed-form check, SE_pilot × √(k_p/k): k* ≈ 90 speakers per side"
    assert "  " + crosscheck(cp) in plan_lines(_plan(cp))


def test_a_search_that_stops_at_its_cap_says_more_than_not_unreachable():
    from fairdesk.presentation.plans import plan_sentence, side_rows, unreached_tip

    need_g = SideNeed("age=child", 41, None, None, 10.0, None, None, 3.6)
    need_r = SideNeed("age=adult", 38, None, None, 10.0, None, None, 3.6)
    cp = _cp(
        method="resampling", speakers_needed=None, reachable=False, limit="search",
        closed_form_k=None, search_limit=820, group_need=need_g, reference_need=need_r,
        curve=(MdePoint(41, 0.03, 0.2), MdePoint(820, 0.0075, 0.052)),
    )  # fmt: skip
    s = plan_sentence(cp, _plan(cp))
    assert s.startswith("More than 820 speakers per side would be needed to detect a gap of 5 pp")
    assert "Not reachable" not in s and "not reachable" not in s
    assert [r[2] for r in side_rows(cp)] == ["more than 820", "more than 820"]
    assert unreached_tip(cp).startswith("more than 820 speakers per side would be needed")


def test_a_sampled_pilot_says_audit_every_item_first_in_the_sentence():
    from dataclasses import replace

    from fairdesk.presentation.plans import plan_sentence

    cp = _cp(method="resampling")
    plan = replace(_plan(cp), sample_per_group=200)
    assert plan_sentence(cp, plan).endswith(
        " Audit every item first: the pilot was a sample of 200 items per group (--sample)."
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
        speakers_needed=280,
        curve=(),
        group_need=need("teen", 270, 10.0, 2.0),
        reference_need=need("adult", 209, 1.5, 1.2),
        contents=None,
    )
    plan = NS(power=0.8, alpha=0.05, future_m=4)
    s = plan_sentence(cp, plan)
    assert s.startswith("280 speakers per side would detect a gap of 5 pp with 80% power")
    assert s.endswith(
        ": about 270 more teen speakers and 209 more adult speakers, 10 utterances per teen "
        "speaker and 1.5 utterances per adult speaker (≈ 3.2 hours of recording)."
    ), s


def test_a_sampled_pilot_carries_audit_every_item_first_in_the_stored_plan(tmp_path):
    """An audit on a ``--sample`` stores the plan with the sample and the dataset's sizes,
    so the console, the card, the dialog and the report all say "audit every item first"."""
    from fairdesk.cli.console import format_groups
    from fairdesk.core.store import Project
    from fairdesk.jobs.audit import AuditRequest, run_audit
    from fairdesk.presentation.plans import plan_lines, plan_sentence
    from fairdesk.reports.html import build_report
    from fairdesk.stats.settings import AuditSettings
    from tests.conftest import predictions_csv

    folder, _out = underpowered_pilot(tmp_path)
    preds = predictions_csv(
        tmp_path / "preds2.csv", lambda acc, s, c: (c + s) % 5 < (2 if acc == "b" else 1)
    )
    p = Project(folder)
    try:
        out = run_audit(
            p,
            AuditRequest(
                dataset="d",
                model=f"predictions:{preds}",
                by=("accent",),
                reference="a",
                nlu="none",
                sample=24,
                settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2),
            ),
        )
        plan = out.result.plan
        assert plan is not None and plan.sample_per_group == 24
        assert plan.dataset_sizes == {"a": (30, 6), "b": (30, 6)}
        caveat = "Audit every item first: the pilot was a sample of 24 items per group"
        for cp in plan.comparisons:
            assert caveat in plan_sentence(cp, plan)
        assert caveat in format_groups(out.result)
        assert "audit every item first (the dataset holds a: 30 items of 6 speakers" in (
            "\n".join(plan_lines(plan))
        )
        assert caveat in build_report(p, out.run_id)
    finally:
        p.close()
