"""``fairdesk regress``: regression tests of bias on a finished run or a table (§4)."""

from __future__ import annotations

import sys

from ..presentation import count, fmt_number, fmt_p, fmt_percent
from .common import EXIT_OK, UsageError, dump_json

FAMILIES = ("logit", "linear", "poisson-mixed")
#: Per-item covariates a project run stores (fairdesk.core.acoustics), and the word count.
ITEM_COVARIATES = (
    "duration_s",
    "nonspeech_share",
    "snr_db",
    "speech_rate",
    "asr_confidence",
    "n_words",
)


def add_command(sub):
    s = sub.add_parser(
        "regress",
        help="regression tests of bias: logistic (METHODS.md §4), "
        "OLS of WER on covariates (§7), mixed-effects Poisson of word errors",
    )
    s.add_argument("--project")
    s.add_argument("--run", type=int, help="a finished audit run of the project")
    s.add_argument("--table")
    s.add_argument(
        "--family",
        choices=FAMILIES,
        default="logit",
        help="logit: seed 000's logistic regressions (default); linear: OLS of WER "
        "on --covariates per speaker (seed 002); poisson-mixed: word errors ~ "
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
        help="seed 000's odds-ratio table (level, OR, CI, p, adjusted OR, clustered "
        "p) as CSV, TSV or Parquet by extension",
    )
    s.set_defaults(func=cmd_regress)


def cmd_regress(a):
    return run_regress_command(a)


def _outcome_columns(df, outcome: str):
    """Derive the outcome: returns (frame, outcome column, binomial pair or None, label)."""
    df = df.copy()
    if outcome == "em":
        if "em" not in df.columns:
            raise UsageError(
                "outcome 'em' needs intent and slot labels (the run has no EM); "
                "use --outcome correct or wer"
            )
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
            raise UsageError("outcome 'wer' needs word-error counts (n_sub, n_del, n_ins, n_words)")
        df["n_errors"] = errs
        df = df[df["n_words"] > 0]
        return df, "n_errors", ("n_errors", "n_words"), "word errors"
    if outcome not in df.columns:
        raise UsageError(f"no outcome column {outcome!r} (columns: {', '.join(df.columns)})")
    return df, outcome, None, outcome


def _load(a, references: dict):
    """The per-utterance frame of a run or a table (and the open project for a run)."""
    if a.run:
        from ..jobs.cache import run_items_frame, run_payload
        from .common import _project

        if not a.project:
            raise UsageError("--run needs --project")
        p = _project(a.project)
        try:
            df = run_items_frame(p, a.run)
            payload = run_payload(p, a.run)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        by = payload.get("by") or []
        if len(by) == 1 and by[0] in a.vars and payload.get("reference"):
            references.setdefault(by[0], str(payload["reference"]).split("=", 1)[-1])
        return df, p
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
        df = pd.concat([df, stats[[c for c in stats.columns if c not in df.columns]]], axis=1)
    except UsageError:
        from .tables import read_any_table

        df, _problems = read_any_table(a.table)
    return df, None


def _filtered(df, pairs):
    """Rows whose COL equals one of the values given for it (``--filter COL=VAL``)."""
    from .common import parse_filters

    for col, values in parse_filters(pairs).items():
        if col not in df.columns:
            raise UsageError(
                f"--filter {col}: no such column (columns: {', '.join(map(str, df.columns))})"
            )
        df = df[df[col].astype(str).isin(values)]
        if df.empty:
            raise UsageError(
                f"--filter {col}={'/'.join(values)}: no row left (values of "
                f"{col}: {', '.join(sorted(map(str, df[col].unique()))[:10])})"
            )
    return df


def _check_columns(df, a) -> None:
    missing = [v for v in a.vars if v not in df.columns]
    if missing:
        raise UsageError(
            f"unknown variable(s) {missing} (columns: {', '.join(map(str, df.columns))})"
        )
    missing = [c for c in a.covariates if c not in df.columns]
    if missing:
        item = [c for c in missing if c in ITEM_COVARIATES]
        hint = (
            " (per-item acoustic covariates are stored with project audits run by this "
            "fairdesk; a table must carry them as columns)"
            if item
            else ""
        )
        raise UsageError(
            f"unknown covariate(s) {missing}{hint}; columns: {', '.join(map(str, df.columns))}"
        )


def run_regress_command(a) -> int:
    if bool(a.table) == bool(a.run):
        raise UsageError("give either --project P --run RUN or --table FILE")
    if a.family in ("logit", "poisson-mixed") and not a.vars:
        raise UsageError(f"--family {a.family} needs --vars VAR ...")
    if a.family == "linear" and not a.covariates:
        raise UsageError("--family linear needs --covariates COL ...")
    if a.family == "poisson-mixed" and a.outcome not in (None, "wer"):
        raise UsageError(
            "--family poisson-mixed models word errors (S+D+I per utterance); drop --outcome"
        )
    if a.family != "logit" and a.interactions:
        raise UsageError("--interactions belongs to --family logit")
    references = {}
    for r in a.reference or []:
        if "=" not in r:
            raise UsageError(f"--reference {r!r}: expected VAR=LEVEL")
        k, v = r.split("=", 1)
        references[k] = v
    df, p = _load(a, references)
    df = _filtered(df, a.filter)
    _check_columns(df, a)
    cluster = a.cluster
    if cluster and cluster not in df.columns:
        if a.table and "speaker_id" in df.columns:  # the table reader renamed it
            cluster = "speaker_id"
        else:
            raise UsageError(
                f"--cluster {cluster!r} is not a column "
                f"(columns: {', '.join(map(str, df.columns))})"
            )
    try:
        if a.family == "logit":
            res, d, stored, lines = _logit(df, a, references, cluster)
        elif a.family == "poisson-mixed":
            from ..stats.regression import run_poisson_mixed

            res = None
            d = stored = run_poisson_mixed(
                df,
                list(a.vars),
                a.covariates,
                reference=references or None,
                speaker_col=cluster or "speaker_id",
                content_col="content_id" if "content_id" in df.columns else None,
                alpha=a.alpha,
            )
            lines = list(d["conclusions"])
        else:
            from ..stats.regression.linear import run_linear

            res = None
            spk = cluster or ("speaker_id" if "speaker_id" in df.columns else None)
            d = stored = run_linear(
                df,
                a.covariates,
                a.vars,
                references or None,
                outcome=a.outcome or "wer",
                speaker_col=spk,
                level=a.level,
                alpha=a.alpha,
            )
            lines = list(d["conclusions"])
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if a.run:  # stored with the run, so the GUI's Regression tab and the report find it
        import time

        from ..jobs.regression_run import store_regression

        store_regression(
            p,
            int(a.run),
            {
                "run_id": int(a.run),
                "request": {
                    "family": a.family,
                    "outcome": a.outcome
                    or {"logit": "em", "linear": "wer"}.get(a.family, "word errors"),
                    "variables": list(a.vars),
                    "covariates": list(a.covariates),
                    "filters": list(a.filter or []),
                    "cluster": cluster,
                    "alpha": float(a.alpha),
                    "references": references,
                },
                "result": stored,
                "created_at": time.time(),
            },
        )
    from .common import human_out, term

    for sentence in lines:
        print(term(sentence), file=human_out(a.json))
    if a.json:
        dump_json(d, a.json)
    if getattr(a, "table_out", None):
        if res is None:
            raise UsageError("--table-out writes the odds-ratio table of --family logit")
        from ..reports.tables import write_odds_ratio_table

        write_odds_ratio_table(res, a.table_out)
    return EXIT_OK


def _logit(df, a, references, cluster):
    from ..stats.regression import run_regression

    df, col, binomial, label = _outcome_columns(df, a.outcome or "em")
    spk = cluster or ("speaker_id" if "speaker_id" in df.columns else None)
    res = run_regression(
        df,
        col,
        list(a.vars),
        references=references or None,
        cluster=cluster,
        alpha=a.alpha,
        interactions=a.interactions,
        binomial=binomial,
        outcome_label=label,
        speaker_col=spk,
    )
    d = res.to_dict()
    lines = list(d.get("conclusions", []))
    for adj in d["adjustments"]:
        if adj["levels"]:
            lines.append(
                f"Odds ratios of {adj['variable']} adjusted on {adj['adjusted_on']}: "
                + "; ".join(_or_text(lev) for lev in adj["levels"])
                + "."
            )
    for sp in d["speaker_spread"]:
        lines.append(
            f"Per-speaker {sp['measure']} by {sp['variable']}: "
            + "; ".join(
                f"{lev['level']} {_pct(lev['min'])}–{_pct(lev['max'])} (median "
                f"{_pct(lev['median'])}, {count(lev['n_speakers'], 'speaker')})"
                for lev in sp["levels"]
            )
            + "."
        )
    return res, d, res.to_dict(detail=True), lines


def _or_text(lev: dict) -> str:
    ci = (
        ""
        if lev["ci_low"] is None
        else f" [{fmt_number(lev['ci_low'], 2)}, {fmt_number(lev['ci_high'], 2)}]"
    )
    p = lev["p_value"]
    pt = fmt_p(p)
    ptxt = "" if p is None else f", p {pt if pt.startswith('<') else f'= {pt}'}"
    orv = fmt_number(lev["odds_ratio"], 2)
    return f"{lev['level']} {orv}{ci}{ptxt}"


def _pct(v) -> str:
    return fmt_percent(v, 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(1)
