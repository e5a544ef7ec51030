"""``fairdesk diacritics``: the Igbo tone-mark study's descriptive table of diacritic loss per category.

Each category's net loss (and RDD, DER) with a 10,000-resample utterance-bootstrap 95% CI
and the bootstrap mean, the overall loss across categories, and for a category whose
references carry no diacritic the diacritics the model added (per 100 reference letters).
The utterance resampling is asked for explicitly by running this command; the intervals
describe these recordings (docs/METHODS.md, "Diacritics by category"). Logic: ``fairdesk.stats.diacritics_table``.
"""

from __future__ import annotations

from .common import EXIT_OK, UsageError, dump_json, human_out, term


def add_command(sub):
    s = sub.add_parser(
        "diacritics",
        help="diacritic loss per category of a tonal-language diagnostic set (the Igbo "
        "tone-mark study's table), with utterance-bootstrap CIs (describes these recordings)",
    )
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--project", help="project folder (with --run)")
    src.add_argument(
        "--table",
        help="CSV/TSV/JSONL/Parquet with reference, hypothesis and the "
        "category column (no project)",
    )
    s.add_argument("--run", type=int, help="a finished audit run of the project")
    s.add_argument("--by", default="category", help="the category column (default: category)")
    s.add_argument(
        "--count",
        choices=("letters", "marks"),
        default="letters",
        help="count diacritic-bearing letters (default; ọ́ is 1) or marks (ọ́ is 2)",
    )
    s.add_argument(
        "--n-bootstrap",
        type=int,
        default=10_000,
        help="utterance resamples (default 10,000, as the Igbo tone-mark study; 200-20,000)",
    )
    s.add_argument("--seed", type=int, default=0)
    s.add_argument(
        "--include-missing",
        action="store_true",
        help="items with no category value form the category (missing); by default they "
        'are a row of their own, described, not a category (docs/METHODS.md, "Missing values")',
    )
    s.add_argument("--ref-col", default="reference", help="--table: reference column")
    s.add_argument("--hyp-col", default="hypothesis", help="--table: hypothesis column")
    s.add_argument("--json", metavar="OUT", help="write the table as JSON ('-' = stdout)")
    s.set_defaults(func=cmd_diacritics)


def _frame(a):
    if a.table:
        from .tables import read_any_table

        df, problems = read_any_table(a.table)
        for need in (a.ref_col, a.hyp_col, a.by):
            if need not in df.columns:
                raise UsageError(
                    f"--table {a.table}: no column {need!r} (columns: "
                    f"{', '.join(map(str, df.columns))})"
                )
        return df.rename(columns={a.ref_col: "reference", a.hyp_col: "hypothesis"}), problems
    if a.run is None:
        raise UsageError("--project needs --run N (a finished audit run)")
    from ..core.runs import run_items_frame
    from .common import _project

    df = run_items_frame(_project(a.project), a.run)
    if a.by not in df.columns:
        cols = [c for c in df.columns if df[c].dtype == object]
        raise UsageError(
            f"run {a.run} has no column {a.by!r}; the items' text columns are: "
            f"{', '.join(map(str, cols))}"
        )
    return df, []


def cmd_diacritics(a):
    from ..presentation.diacritics_words import format_table, table_json
    from ..stats.diacritics_table import diacritic_table

    df, problems = _frame(a)
    table = table_json(
        diacritic_table(
            df,
            a.by,
            count=a.count,
            n_bootstrap=a.n_bootstrap,
            seed=a.seed,
            include_missing=bool(a.include_missing),
        )
    )
    table["input_problems"] = problems
    table["source"] = {"table": a.table} if a.table else {"project": a.project, "run": a.run}
    if a.json:
        dump_json(table, a.json)
    out = human_out(a.json)
    for line in format_table(table):
        print(term(line), file=out)
    for p in problems[:5]:
        print(term(f"skipped line {p['line']}: {p['reason']}"), file=out)
    return EXIT_OK
