"""``fairdesk regress``: regression tests of bias on a finished run or a table (docs/METHODS.md, "Regression")."""

from __future__ import annotations

import sys

from ..jobs.regression_result import FAMILIES, ITEM_COVARIATES
from ..presentation import MISSING, count, fmt_estimate_ci, fmt_p, fmt_percent, fmt_ratio
from ..presentation.regression_words import regression_conclusions
from .common import EXIT_OK, UsageError, dump_json, human_out, term


def add_command(sub):
    s = sub.add_parser(
        "regress",
        help='regression tests of bias: logistic (docs/METHODS.md, "Regression"), '
        'OLS of WER on covariates (docs/METHODS.md, "Regression of WER on covariates (OLS)"), mixed-effects Poisson of word errors',
    )
    s.add_argument("--project")
    s.add_argument("--run", type=int, help="a finished audit run of the project")
    s.add_argument("--table")
    s.add_argument(
        "--family",
        choices=FAMILIES,
        default="logit",
        help="logit: the logistic regressions of the Sonos Voice Control Bias Assessment "
        "(Sekkat et al. 2024; default); linear: OLS of WER on --covariates per speaker; "
        "poisson-mixed: word errors ~ "
        "Poisson with a speaker random intercept (Liu et al. 2022)",
    )
    s.add_argument(
        "--outcome",
        default=None,
        help="logit: em (default), correct (utterance without error), wer "
        "(binomial GLM), or a 0/1 column; linear: wer (default) or a numeric "
        "column",
    )
    s.add_argument(
        "--vars",
        nargs="+",
        default=[],
        help="categorical group variables (required for logit and poisson-mixed)",
    )
    s.add_argument(
        "--covariates",
        nargs="+",
        default=[],
        metavar="COL",
        help="numeric metadata columns or per-item covariates (" + ", ".join(ITEM_COVARIATES) + ")",
    )
    s.add_argument(
        "--level",
        choices=["auto", "speaker", "utterance"],
        default="auto",
        help="linear: one row per speaker (pooled WER; auto when speaker ids "
        "exist) or per utterance",
    )
    s.add_argument(
        "--filter",
        action="append",
        metavar="COL=VAL",
        help="keep only these rows (repeatable), e.g. intent_group=TransportControl",
    )
    s.add_argument("--reference", action="append", metavar="VAR=LEVEL")
    s.add_argument("--cluster", help="speaker column for clustered inference (e.g. speaker_id)")
    s.add_argument("--interactions", action="store_true")
    s.add_argument("--alpha", type=float, default=0.05)
    s.add_argument("--ref-col", default="reference")
    s.add_argument("--hyp-col", default="hypothesis")
    s.add_argument("--json", metavar="OUT")
    s.add_argument(
        "--table-out",
        metavar="F",
        help="the odds-ratio table of Sekkat et al. 2024 (level, OR, CI, p, adjusted OR, clustered "
        "p) as CSV, TSV or Parquet by extension",
    )
    s.set_defaults(func=cmd_regress)


def cmd_regress(a):
    return run_regress_command(a)


def _references(pairs) -> dict:
    references = {}
    for r in pairs or []:
        if "=" not in r:
            raise UsageError(f"--reference {r!r}: expected VAR=LEVEL")
        k, v = r.split("=", 1)
        references[k] = v
    return references


def run_regress_command(a) -> int:
    """Parse the options, call the regression job (a stored run's, or a table's), print."""
    from ..core.tables import TableError
    from ..jobs.regression_run import regress_run, regress_table
    from .common import _project, parse_filters
    from .tables import usage_error

    if bool(a.table) == bool(a.run):
        raise UsageError("give either --project P --run RUN or --table FILE")
    if a.table_out and a.family != "logit":
        raise UsageError("--table-out writes the odds-ratio table of --family logit")
    if a.run and not a.project:
        raise UsageError("--run needs --project")
    if a.table_out:
        from ..core.atomic import check_output_file
        from ..reports.tables import table_format

        try:
            table_format(a.table_out)
        except ValueError as exc:
            raise UsageError(f"--table-out {exc}") from None
        check_output_file(a.table_out, make_parents=True)
    kw = {
        "family": a.family,
        "covariates": list(a.covariates),
        "filters": parse_filters(a.filter),
        "interactions": a.interactions,
        "level": a.level,
    }
    args = (a.outcome, list(a.vars), a.cluster, a.alpha, _references(a.reference))
    try:
        if a.run:
            p = _project(a.project)
            try:
                out = regress_run(p, int(a.run), *args, **kw)
            finally:
                p.close()
        else:
            out = regress_table(a.table, *args, ref_col=a.ref_col, hyp_col=a.hyp_col, **kw)
    except TableError as exc:
        raise usage_error(exc) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if out.table_rows is not None:  # the rows used and refused, as import says them
        from .tables import table_rows_lines

        others = "--filter" if a.filter else ""
        for line in table_rows_lines(str(a.table), out.table_rows, out.table_problems, others):
            print(term(line), file=sys.stderr)
    print_regression(out, file=human_out(a.json))
    if a.json:
        summary = dict(out.summary if out.summary is not None else out.result)
        if out.family == "poisson-mixed":
            summary = _poisson_json(out.result)
        dump_json({**summary, "conclusions": regression_conclusions(out)}, a.json)
    if a.table_out:
        from ..reports.tables import write_odds_ratio_table

        write_odds_ratio_table(out.fit, a.table_out)
    return EXIT_OK


def _poisson_json(result: dict) -> dict:
    """A stored mixed Poisson result as ``--json`` writes it: its notes in words."""
    from ..presentation.regression_poisson_words import poisson_json
    from ..stats.regression.poisson_mixed_result import MixedPoissonResult

    return poisson_json(MixedPoissonResult.from_json(result))


def regression_lines(out) -> list[str]:
    """The sentences a :class:`~fairdesk.jobs.regression_result.RegressionRun` says: its
    conclusions and, for the logistic family, the odds ratios (each level against the
    reference, then adjusted) and the per-speaker spread."""
    d = out.summary if out.summary is not None else out.result
    lines = regression_conclusions(out)
    if out.family != "logit":
        return lines
    for u in d.get("univariate") or []:
        if u.get("levels") and not u.get("problem"):
            lines.append(
                f"Odds ratios of {u['variable']} (against {u.get('reference')}): "
                + "; ".join(_or_text(lev) for lev in u["levels"])
                + "."
            )
    for adj in d.get("adjustments") or []:
        if adj["levels"]:
            lines.append(
                f"Odds ratios of {adj['variable']} adjusted on {adj['adjusted_on']}: "
                + "; ".join(_or_text(lev) for lev in adj["levels"])
                + "."
            )
    for sp in d.get("speaker_spread") or []:
        lines.append(
            f"Per-speaker {sp['measure']} by {sp['variable']}: "
            + "; ".join(
                f"{lev['level']} {_pct(lev['min'])}–{_pct(lev['max'])} (median "
                f"{_pct(lev['median'])}, {count(lev['n_speakers'], 'speaker')})"
                for lev in sp["levels"]
            )
            + "."
        )
    return lines


def print_regression(out, file=None) -> None:
    """Print :func:`regression_lines` (terminal-safe)."""
    for sentence in regression_lines(out):
        print(term(sentence), file=file or sys.stdout)


def _or_text(lev: dict) -> str:
    ci = fmt_estimate_ci(lev["ci_low"], lev["ci_high"])
    ci = "" if ci == MISSING else f" {ci}"
    p = lev["p_value"]
    pt = fmt_p(p, log10=lev.get("p_log10"))
    ptxt = "" if p is None else f", p {pt if pt.startswith('<') else f'= {pt}'}"
    orv = fmt_ratio(lev["odds_ratio"])
    return f"{lev['level']} {orv}{ci}{ptxt}"


def _pct(v) -> str:
    return fmt_percent(v, 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(1)
