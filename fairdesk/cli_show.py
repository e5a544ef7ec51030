"""``fairdesk show``: the failing utterances of a run, ranked, with what went wrong.

For each item: reference and hypothesis aligned word by word (jiwer's alignment, after the
same normalisation as WER), the S/D/I counts, and for labelled requests the intent and each
slot (ok / missed / wrong / extra). The headless twin of the player's difference view.
"""

from __future__ import annotations

import math

from .cli import EXIT_OK, UsageError, dump_json


def _num(v) -> float:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(v) else v


def item_report(row: dict, language: str = "en") -> dict:
    """Everything the difference view shows for one item (JSON-ready)."""
    import jiwer

    from .metrics import normalizer_for, slot_diff

    norm = normalizer_for(language)
    ref, hyp = norm(row.get("reference") or ""), norm(row.get("hypothesis") or "")
    if ref.strip() or hyp.strip():
        out = jiwer.process_words(ref or "", hyp or "") if ref.strip() else None
    else:
        out = None
    # skip_correct=False: jiwer otherwise returns "" for an item without errors (the
    # IndexError of a correctly recognised item); the header line is dropped, not indexed.
    text = (jiwer.visualize_alignment(out, show_measures=False, skip_correct=False)
            if out is not None else "")
    alignment = "\n".join(ln for ln in text.split("\n")
                           if not ln.startswith("=== SENTENCE")).strip("\n").rstrip()
    rep = {
        "id": row.get("id") or row.get("item_id"), "group": row.get("group"),
        "speaker_id": row.get("speaker_id"), "path": row.get("path"),
        "reference": row.get("reference"), "hypothesis": row.get("hypothesis"),
        "errors": int(_num(row.get("n_sub")) + _num(row.get("n_del")) + _num(row.get("n_ins"))),
        "n_words": int(_num(row.get("n_words"))),
        "substitutions": int(_num(row.get("n_sub"))), "deletions": int(_num(row.get("n_del"))),
        "insertions": int(_num(row.get("n_ins"))), "alignment": alignment,
    }
    if row.get("ref_intent") is not None:
        rep["intent"] = {"reference": row.get("ref_intent"), "hypothesis": row.get("hyp_intent")}
        rep["em"] = row.get("em")
        rep["slots"] = [d.to_dict() for d in slot_diff(row.get("ref_slots"),
                                                       row.get("hyp_slots"), language)]
    return rep


def add_command(sub):
    s = sub.add_parser("show", help="failing utterances of a run, ranked, with alignment and "
                       "slot differences")
    s.add_argument("--project", required=True)
    s.add_argument("--run", type=int, required=True)
    s.add_argument("--item", help="one item id")
    s.add_argument("--group", help="only this group")
    s.add_argument("--worst", type=int, default=10, help="how many items (default 10)")
    s.add_argument("--json", metavar="OUT")
    s.set_defaults(func=cmd_show)


def rank_failures(df):
    """Items ranked worst first: most word errors per reference word, then EM failures."""
    import pandas as pd

    errs = sum(df[c].fillna(0) for c in ("n_sub", "n_del", "n_ins") if c in df.columns)
    words = df["n_words"].clip(lower=1) if "n_words" in df.columns else 1
    rate = errs / words if isinstance(errs, pd.Series) else pd.Series(0.0, index=df.index)
    em_fail = (1 - df["em"].fillna(1)) if "em" in df.columns else 0
    key = pd.DataFrame({"rate": rate, "em": em_fail, "errs": errs if isinstance(
        errs, pd.Series) else 0}, index=df.index)
    order = key.sort_values(["rate", "em", "errs"], ascending=False, kind="stable").index
    return df.loc[order]


def cmd_show(a):
    from .cli import _project
    from .jobs.cache import run_items_frame, run_payload

    p = _project(a.project)
    df = run_items_frame(p, a.run)
    lang = (run_payload(p, a.run).get("settings") or {}).get("language", "en")
    if a.item:
        df = df[df["id"].astype(str) == a.item]
        if df.empty:
            raise UsageError(f"run {a.run} has no item {a.item!r}")
    elif a.group:
        if a.group not in set(df["group"].astype(str)):
            raise UsageError(f"run {a.run} has no group {a.group!r} (groups: "
                             f"{', '.join(sorted(set(df['group'].astype(str))))})")
        df = df[df["group"].astype(str) == a.group]
    df = rank_failures(df).head(1 if a.item else a.worst)
    reports = [item_report(r, lang) for r in df.to_dict(orient="records")]
    if a.json:
        dump_json(reports, a.json)
    for r in reports:
        print(f"== {r['id']}  [{r['group']}]  speaker {r['speaker_id']}  {r['errors']} errors "
              f"/ {r['n_words']} words (S {r['substitutions']}, D {r['deletions']}, "
              f"I {r['insertions']})")
        print(r["alignment"] or f"REF: {r['reference']}\nHYP: {r['hypothesis']}")
        if "intent" in r:
            i = r["intent"]
            mark = "ok" if str(i["reference"]) == str(i["hypothesis"]) else "WRONG"
            print(f"intent: {i['reference']} -> {i['hypothesis']} ({mark}); EM {r['em']}")
            for d in r["slots"]:
                print(f"  slot {d['slot']:<10} {d['status']:<7} ref={d['reference']!r} "
                      f"hyp={d['hypothesis']!r}")
        print()
    return EXIT_OK
