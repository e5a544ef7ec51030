"""``fairdesk plan``: how many speakers (or sentences) would settle a run's underpowered
comparisons, by resampling the pilot's speakers (docs/METHODS.md, "Recording plan"). Logic: ``fairdesk.jobs.plan_run`` and ``fairdesk.stats.plans``;
wording: ``fairdesk.presentation.plans``."""

from __future__ import annotations

import argparse

from .common import EXIT_OK, dump_json, human_out, positive_int, term


def _fraction(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def add_command(sub):
    s = sub.add_parser(
        "plan",
        help="how many more speakers per group would settle a run's underpowered "
        "comparisons (resampling the pilot's speakers)",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--run", type=int, required=True, help="a finished audit run")
    s.add_argument("--power", type=_fraction, default=0.8, help="target power (default 0.8)")
    s.add_argument(
        "--gap",
        type=_fraction,
        help="the gap to detect, as a fraction (0.05 = 5 points; default: each "
        "comparison's smallest practical gap)",
    )
    s.add_argument(
        "--utterances-per-speaker",
        type=_fraction,
        help="utterances each new speaker records (default: the pilot's mean per group)",
    )
    s.add_argument(
        "--future-m",
        type=positive_int,
        help="tested comparisons in the future run, for alpha/m (default: the pilot's)",
    )
    s.add_argument(
        "--replicates",
        type=positive_int,
        help="resampling replicates (default 1,000; at least 200)",
    )
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", metavar="OUT", help="write the plan as JSON ('-' = stdout)")
    s.set_defaults(func=cmd_plan)


def cmd_plan(a):
    from ..jobs.plan_run import plan_stored_run
    from ..presentation.plans import plan_json, plan_lines
    from .common import _project

    p = _project(a.project)
    plan, _run = plan_stored_run(
        p,
        a.run,
        power=a.power,
        gap=a.gap,
        utterances=a.utterances_per_speaker,
        future_m=a.future_m,
        n_rep=a.replicates,
        seed=a.seed,
    )
    if a.json:
        dump_json(plan_json(plan), a.json)  # the notes in today's words
    out = human_out(a.json)
    if not plan.comparisons:
        print(
            term(
                f"run {a.run}: no comparison is inconclusive_underpowered, so there is "
                "nothing to plan."
            ),
            file=out,
        )
        return EXIT_OK
    print(term(f"run {a.run}"), file=out)
    for line in plan_lines(plan):
        print(term(line), file=out)
    return EXIT_OK
