"""Several systems on the same items: ``fairdesk audit --model A --model B`` (or ``--table T
--hyp-col a --hyp-col b``) and ``fairdesk compare --project P --run N --run M``
(docs/METHODS.md, "Comparing systems"). The numbers come from
:mod:`fairdesk.jobs.system_run`, the wording from :mod:`fairdesk.presentation.systems`."""

from __future__ import annotations

import sys
import time

from .common import EXIT_OK, UsageError, dump_json, human_out, term

__all__ = ["add_command", "audit_systems_cmd", "print_comparison"]


def add_command(sub):
    s = sub.add_parser(
        "compare",
        help="compare the systems of stored audit runs on the items they share "
        "(the first --run is the baseline)",
    )
    s.add_argument("--project", required=True)
    s.add_argument(
        "--run",
        action="append",
        required=True,
        type=int,
        metavar="N",
        help="an audit run, once per system (the first is the baseline A)",
    )
    s.add_argument("--json", metavar="OUT", help="write the comparison as JSON ('-' = stdout)")
    s.add_argument("--quiet", action="store_true", help="no console table")
    s.set_defaults(func=cmd_compare)


def print_comparison(result, file=None) -> None:
    """The comparison's console lines (:func:`fairdesk.presentation.systems.comparison_lines`)."""
    from ..presentation.systems import comparison_lines

    file = file or sys.stdout
    for line in comparison_lines(result):
        print(term(line), file=file)


def cmd_compare(a):
    from ..core.errors import FairdeskError
    from ..jobs.system_run import compare_stored_runs
    from .common import _project

    p = _project(a.project)
    try:
        cmp = compare_stored_runs(p, a.run, store=not p.read_only)
    except FairdeskError as exc:
        raise UsageError(str(exc)) from None
    if not a.quiet:
        print_comparison(cmp.result, human_out(a.json))
        if cmp.result_id is not None:
            print(
                f"\nstored with run {cmp.run_ids[0]} (fairdesk show --project {a.project} "
                f"--run {cmp.run_ids[0]})",
                file=human_out(a.json),
            )
    if a.json:
        from ..presentation.readings import systems_readings_json

        dump_json(systems_readings_json(cmp.to_json(), cmp.result), a.json)
    return EXIT_OK


def audit_systems_cmd(a, settings, request=None, models=(), hyp_cols=(), print_run=None):
    """``fairdesk audit`` with several ``--model`` (``request``: the project audit's
    request, its model replaced per system) or several ``--hyp-col`` (``--table``);
    ``print_run(run, file)`` prints each system's own audit (``cli.audit.print_groups``,
    passed in so that this module does not import the one that calls it)."""
    from ..core.errors import FairdeskError
    from ..jobs import system_run

    out = human_out(a.json)
    try:
        if request is not None:
            from .common import _project

            p = _project(a.project, write="an audit")
            last = [0.0]

            def progress(frac, msg):
                now = time.monotonic()
                if not a.quiet and (now - last[0] > 2.0 or frac >= 1.0):
                    last[0] = now
                    print(f"[{100 * frac:5.1f}%] {msg}", file=sys.stderr, flush=True)

            outcome = system_run.audit_systems(
                p,
                request,
                list(models),
                normaliser_sensitivity=bool(a.normaliser_sensitivity),
                progress=progress,
            )
        else:
            from .common import parse_filters
            from .tables import read_any_table

            df, problems = read_any_table(a.table)
            outcome = system_run.audit_table_systems(
                df,
                list(hyp_cols),
                by=a.by,
                reference=a.reference,
                metrics=a.metric,
                language=a.language,
                filters=parse_filters(a.filter),
                sample=a.sample,
                settings=settings,
                problems=problems,
                source=str(a.table),
                ref_col=a.ref_col,
                speaker_col=a.speaker_col,
                content_col=a.content_col,
            )
    except FairdeskError as exc:
        raise UsageError(str(exc)) from None
    cmp = outcome.comparison
    if not a.quiet:
        for name, run, rid in zip(cmp.systems, outcome.runs, cmp.run_ids):
            where = f" (run {rid})" if rid is not None else ""
            print(term(f"\n=== system {name}{where} ==="), file=out)
            if print_run is not None:
                print_run(run, file=out)
        print(term("\n=== comparison of systems ==="), file=out)
        print_comparison(cmp.result, out)
    if a.json:
        from ..presentation.readings import readings_json, systems_readings_json

        dump_json(
            {
                "systems": [
                    {"name": n, "run_id": rid, "audit": readings_json(r.to_json(), r)}
                    for n, rid, r in zip(cmp.systems, cmp.run_ids, outcome.runs)
                ],
                "comparison": systems_readings_json(cmp.to_json(), cmp.result),
            },
            a.json,
        )
    return EXIT_OK


def print_disagreements(project, cmp, per_group: int, file=None) -> None:
    """``fairdesk show`` of a baseline run with a stored comparison: the comparison's
    sentences, then per group the utterances where the systems disagree most."""
    from ..jobs.system_run import comparison_frames
    from ..presentation.systems import disagreement_lines

    file = file or sys.stdout
    from ..review.ranking import disagreements

    runs = ", ".join(f"{n} (run {rid})" for n, rid in zip(cmp.systems, cmp.run_ids))
    print(term(f"comparison of systems: {runs}"), file=file)
    try:
        frames = comparison_frames(project, cmp)
    except ValueError as exc:  # a run's rows are gone
        print(term(f"  its items cannot be listed: {exc}"), file=file)
        return
    for line in disagreement_lines(disagreements(frames, per_group)):
        print(term(line), file=file)
