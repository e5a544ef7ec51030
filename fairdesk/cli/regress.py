"""``fairdesk regress``: regression tests of bias on a finished run or a table (§4)."""

from __future__ import annotations

import sys

from .common import EXIT_OK, UsageError, dump_json


def add_command(sub):
    s = sub.add_parser("regress", help="logistic-regression tests of bias (METHODS.md §4)")
    s.add_argument("--project")
    s.add_argument("--run", type=int, help="a finished audit run of the project")
    s.add_argument("--table")
    s.add_argument("--outcome", default="em",
                   help="em, correct (utterance without error), wer (binomial GLM), or a 0/1 "
                   "column")
    s.add_argument("--vars", nargs="+", required=True)
    s.add_argument("--reference", action="append", metavar="VAR=LEVEL")
    s.add_argument("--cluster", help="speaker column for clustered inference (e.g. speaker_id)")
    s.add_argument("--interactions", action="store_true")
    s.add_argument("--alpha", type=float, default=0.05)
    s.add_argument("--ref-col", default="reference")
    s.add_argument("--hyp-col", default="hypothesis")
    s.add_argument("--json", metavar="OUT")
    s.add_argument("--table-out", metavar="F",
                   help="seed 000's odds-ratio table (level, OR, CI, p, adjusted OR, clustered "
                   "p) as CSV, TSV or Parquet by extension")
    s.set_defaults(func=cmd_regress)


def cmd_regress(a):
    return run_regress_command(a)


def _outcome_columns(df, outcome: str):
    """Derive the outcome: returns (frame, outcome column, binomial pair or None, label)."""
    df = df.copy()
    if outcome == "em":
        if "em" not in df.columns:
            raise UsageError("outcome 'em' needs intent and slot labels (the run has no EM); "
                             "use --outcome correct or wer")
        df = df[df["em"].notna()]
        return df, "em", None, "exact match"
    errs = None
    if {"n_sub", "n_del", "n_ins"} <= set(df.columns):
        errs = df["n_sub"] + df["n_del"] + df["n_ins"]
    if outcome == "correct":
        if errs is None:
            raise UsageError("outcome 'correct' needs word-error counts (n_sub, n_del, n_ins)")
        df["correct"] = (errs == 0).astype(int)
        return df, "correct", None, "recognised without error"
    if outcome == "wer":
        if errs is None:
            raise UsageError("outcome 'wer' needs word-error counts (n_sub, n_del, n_ins, "
                             "n_words)")
        df["n_errors"] = errs
        df = df[df["n_words"] > 0]
        return df, "n_errors", ("n_errors", "n_words"), "word errors"
    if outcome not in df.columns:
        raise UsageError(f"no outcome column {outcome!r} (columns: {', '.join(df.columns)})")
    return df, outcome, None, outcome


def run_regress_command(a) -> int:
    from ..stats.regression import run_regression

    if bool(a.table) == bool(a.run):
        raise UsageError("give either --project P --run RUN or --table FILE")
    references = {}
    for r in a.reference or []:
        if "=" not in r:
            raise UsageError(f"--reference {r!r}: expected VAR=LEVEL")
        k, v = r.split("=", 1)
        references[k] = v
    if a.run:
        from ..jobs.cache import run_items_frame, run_payload
        from .common import _project

        if not a.project:
            raise UsageError("--run needs --project")
        p = _project(a.project)
        df = run_items_frame(p, a.run)
        payload = run_payload(p, a.run)
        by = payload.get("by") or []
        if len(by) == 1 and by[0] in a.vars and payload.get("reference"):
            references.setdefault(by[0], str(payload["reference"]))
    else:
        from ..metrics import compute_item_stats
        from .tables import table_frame

        class _A:  # reuse the audit table reader (column renames, UTF-8 checks)
            pass

        t = _A()
        t.table, t.ref_col, t.hyp_col = a.table, a.ref_col, a.hyp_col
        t.speaker_col, t.content_col = a.cluster or "speaker_id", "content_id"
        try:
            df, _problems = table_frame(t)
            import pandas as pd

            stats = compute_item_stats(df)
            df = pd.concat([df, stats[[c for c in stats.columns if c not in df.columns]]],
                           axis=1)
        except UsageError:
            from .tables import read_any_table

            df, _problems = read_any_table(a.table)
    missing = [v for v in a.vars if v not in df.columns]
    if missing:
        raise UsageError(f"unknown variable(s) {missing} (columns: {', '.join(df.columns)})")
    cluster = a.cluster
    if cluster and cluster not in df.columns:
        if a.table and "speaker_id" in df.columns:  # the table reader renamed it
            cluster = "speaker_id"
        else:
            raise UsageError(f"--cluster {cluster!r} is not a column "
                             f"(columns: {', '.join(map(str, df.columns))})")
    df, col, binomial, label = _outcome_columns(df, a.outcome)
    res = run_regression(df, col, list(a.vars), references=references or None,
                         cluster=cluster, alpha=a.alpha, interactions=a.interactions,
                         binomial=binomial, outcome_label=label)
    d = res.to_dict()
    if a.run:  # stored with the run, so the GUI's Regression tab and the report find it
        import time

        from ..jobs.regression_run import store_regression

        store_regression(p, int(a.run), {
            "run_id": int(a.run),
            "request": {"outcome": a.outcome, "variables": list(a.vars), "cluster": cluster,
                        "alpha": float(a.alpha), "references": references},
            "result": res.to_dict(detail=True), "created_at": time.time()})
    from .common import human_out, term

    for sentence in d.get("conclusions", []):
        print(term(sentence), file=human_out(a.json))
    if a.json:
        dump_json(d, a.json)
    if getattr(a, "table_out", None):
        from ..reports.tables import write_odds_ratio_table

        write_odds_ratio_table(res, a.table_out)
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(1)
