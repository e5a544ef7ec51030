"""``fairdesk show``: the failing utterances of a run, ranked, with what went wrong.

For each item: reference and hypothesis aligned word by word (jiwer's alignment, after the
same normalisation as WER), the S/D/I counts, and for labelled requests the intent and each
slot (ok / missed / wrong / extra). The headless twin of the player's difference view.
Its first line names the run as the GUI's Results header does; ``fairdesk runs`` lists the
runs named as the GUI's run lists do (:func:`fairdesk.presentation.run_name`).
"""

from __future__ import annotations

from ..presentation import (
    RunSpec,
    count,
    fmt_number,
    fmt_sig,
    fmt_value,
    run_conditions,
    run_name,
)
from ..presentation.plans import plan_sentence
from ..review import item_report, rank_failures, run_language, run_normaliser
from .common import EXIT_OK, UsageError, dump_json, human_out, positive_int, term


def add_command(sub):
    s = sub.add_parser(
        "show", help="failing utterances of a run, ranked, with alignment and slot differences"
    )
    s.add_argument("--project", required=True)
    s.add_argument("--run", type=int, required=True)
    s.add_argument("--item", help="one item id")
    s.add_argument("--group", help="only this group")
    s.add_argument("--worst", type=positive_int, default=10, help="how many items (default 10)")
    s.add_argument("--json", metavar="OUT")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser(
        "runs",
        help="list the project's audit runs, each named by its grouping, filters and "
        "non-default settings",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--all", action="store_true", help="also the running, failed and cancelled runs")
    s.add_argument("--json", metavar="OUT", help="write the list as JSON ('-' = stdout)")
    s.set_defaults(func=cmd_runs)


def cmd_runs(a):
    """``fairdesk runs``: one line per run, newest first, named as the GUI names it."""
    import time

    from ..core.runs import INCREMENTAL, list_runs, run_kind
    from .common import _project

    p = _project(a.project)
    rows = []
    for r in list_runs(p, done_only=not a.all):
        if run_kind(r["settings"]) == INCREMENTAL:
            continue  # `fairdesk incremental` lists those
        spec = RunSpec.from_stored(r["settings"], r["model_id"], r["dataset"])
        rows.append(
            {
                "run_id": r["id"],
                "status": r["status"],
                "created_at": r["created_at"],
                "model": r["model_id"],
                "dataset": r["dataset"],
                "by": list(spec.by),
                "filters": {c: list(v) for c, v in spec.filters},
                "sample": spec.sample,
                "conditions": list(run_conditions(spec)),
                "name": run_name(spec),
                "short_name": run_name(spec, short=True),
            }
        )
    if a.json:
        dump_json(rows, a.json)
    out = human_out(a.json)
    if not rows:
        print("no finished runs" if not a.all else "no runs", file=out)
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created_at"]))
        print(term(f"run {r['run_id']:<4} {r['status']:<9} {when}  {r['short_name']}"), file=out)
    return EXIT_OK


def print_diacritics(d: dict | None, out) -> None:
    """The Igbo tone-mark study's per-item detail: E, P, D, H and each mark dropped, added or changed."""
    if not d:
        return
    head = (
        f"diacritics ({d['count']}): expected {d['expected']}, produced {d['produced']}, "
        f"dropped {d['dropped']}, added {d['added']}"
    )
    if d["der"] is not None:
        head += f"; DER {fmt_value('der', d['der'])}"
    else:
        rate = d["added_per_100_letters"]
        head += f"; no diacritics in the reference (DER undefined): {d['produced']} added" + (
            f", {fmt_number(rate, 2)} per 100 reference letters" if rate is not None else ""
        )
    m = d["marks"]
    head += f"  [marks: {m['dropped']} dropped, {m['added']} added, {m['changed']} changed]"
    print(term(head), file=out)
    for e in d["edits"]:
        words = f"{e['ref_word'] or '—'} → {e['hyp_word'] or '—'}"
        what = f"changed {e['text']}" if e["kind"] == "changed" else e["text"]
        print(term(f"  {what}  ({words})"), file=out)


def cmd_show(a):
    from ..core.runs import run_items_frame, run_payload
    from .common import _project

    p = _project(a.project)
    df = run_items_frame(p, a.run)
    from ..jobs.plan_run import with_stored_plan
    from ..jobs.result import AuditRun

    run = with_stored_plan(p, a.run, AuditRun.from_json(run_payload(p, a.run)))
    lang = run_language(run)
    norm = run_normaliser(run)  # align as the run's WER was counted
    if a.item:
        df = df[df["id"].astype(str) == a.item]
        if df.empty:
            raise UsageError(f"run {a.run} has no item {a.item!r}")
    elif a.group:
        if a.group not in set(df["group"].astype(str)):
            raise UsageError(
                f"run {a.run} has no group {a.group!r} (groups: "
                f"{', '.join(sorted(set(df['group'].astype(str))))})"
            )
        df = df[df["group"].astype(str) == a.group]
    df = rank_failures(df).head(1 if a.item else a.worst)
    reports = [item_report(r, lang, norm) for r in df.to_dict(orient="records")]
    if a.json:
        dump_json(reports, a.json)
    out = human_out(a.json)
    print(term(f"run {a.run}: {run_name(RunSpec.from_run(run))}"), file=out)
    for cp in run.plan.comparisons if run.plan is not None else ():
        # the underpowered comparisons' recording plan (docs/METHODS.md, "Recording plan")
        line = f"underpowered: {cp.metric} {cp.group} vs {cp.reference}: "
        print(term(line + plan_sentence(cp, run.plan)), file=out)
    from ..jobs.system_run import stored_comparisons
    from .systems import print_disagreements

    cmps = stored_comparisons(p, a.run)
    if cmps and not a.item:  # the latest comparison of systems with this baseline
        print_disagreements(p, cmps[-1], a.worst, out)
    print(file=out)
    for r in reports:
        print(
            term(
                f"== {r['id']}  [{r['group']}]  speaker {r['speaker_id']}  {r['errors']} "
                f"errors / {count(r['n_words'], 'word')} (S {r['substitutions']}, D "
                f"{r['deletions']}, I {r['insertions']})"
            ),
            file=out,
        )
        print(
            "\n".join(
                term(x)
                for x in (r["alignment"] or f"REF: {r['reference']}\nHYP: {r['hypothesis']}").split(
                    "\n"
                )
            ),
            file=out,
        )
        for w in r["audio_warnings"]:  # stored with the item at import
            print(term(f"audio: {w}"), file=out)
        for line in r["hallucination_lines"]:
            print(term(f"HALLUCINATION {line}"), file=out)
        if r["acoustics"]:
            print(
                "acoustics: " + ", ".join(f"{k} {fmt_sig(v)}" for k, v in r["acoustics"].items()),
                file=out,
            )
        print_diacritics(r.get("diacritics"), out)
        if "intent" in r:
            i = r["intent"]
            mark = "ok" if str(i["reference"]) == str(i["hypothesis"]) else "WRONG"
            print(
                term(f"intent: {i['reference']} -> {i['hypothesis']} ({mark}); EM {r['em']}"),
                file=out,
            )
            for d in r["slots"]:
                print(
                    term(
                        f"  slot {d['slot']:<10} {d['status']:<7} ref={d['reference']!r} "
                        f"hyp={d['hypothesis']!r}"
                    ),
                    file=out,
                )
        print(file=out)
    return EXIT_OK
