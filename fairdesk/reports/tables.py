"""Tables of a run for notebooks and papers: CSV or Parquet, chosen by the file extension.

- :func:`items_table`: one row per analysed item: ids, speaker, group, reference, hypothesis,
  every per-item metric column and every metadata column the run kept (and, for a
  comparison's baseline run, ``hypothesis.<system>`` and ``errors.<system>`` per system);
- :func:`groups_table`: one row per group × metric: value and 95% CI (when the run has them),
  the basis E of a diacritic metric, items, speakers, excluded and why, and ``no_value`` for the descriptive row of the items
  with no grouping value;
- :func:`comparisons_table`: one row per comparison with every stored field (block counts
  flattened to ``n_blocks.<name>``, flags joined with ``;``) and its reading in words; for
  the baseline run of a comparison of systems, in long format with the system-difference and
  gap-difference rows (columns ``kind``, ``system``, ``baseline``, ...);
- :func:`odds_ratio_table`: Sekkat et al.'s table from a ``fairdesk regress`` result.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd

from ..presentation import group_basis, group_ci_flags
from ..presentation.estimability_words import reason_text
from ..presentation.interval_words import ci_note_text
from .data import RunData, group_ci, summary_overall

#: Extensions :func:`write_table` knows.
EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def table_format(path) -> str:
    """``csv``, ``tsv`` or ``parquet`` from the extension (ValueError otherwise)."""
    ext = Path(path).suffix.lower()
    if ext not in EXTENSIONS:
        raise ValueError(
            f"{path}: unknown table type {ext or '(no extension)'!r}; name the "
            "file .csv, .tsv or .parquet"
        )
    return EXTENSIONS[ext]


def write_table(frame: pd.DataFrame, path) -> Path:
    """Write ``frame`` as CSV/TSV (UTF-8) or Parquet by the extension of ``path``.

    Columns holding lists or dicts (slots, flags) are written as JSON text, so every format
    reads back with plain types. Missing folders are created; the file is replaced only once
    complete (:mod:`fairdesk.core.atomic`).
    """
    from ..core.atomic import atomic_write

    fmt = table_format(path)
    path = Path(path)
    frame = frame.copy()
    for c in frame.columns:
        if frame[c].map(lambda v: isinstance(v, (list, dict, tuple))).any():
            frame[c] = frame[c].map(
                lambda v: (
                    json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict, tuple)) else v
                )
            )
    if fmt == "parquet":
        from ..core.extras import require

        require("parquet", f"writing {path.name}", ("pyarrow",))
        for c in frame.columns:  # mixed object columns (None and str) stay strings
            if frame[c].dtype == object:
                frame[c] = frame[c].map(lambda v: v if v is None or isinstance(v, str) else str(v))
        with atomic_write(path, "wb", make_parents=True) as f:
            frame.to_parquet(f, index=False)
    else:
        with atomic_write(path, "w", encoding="utf-8", newline="", make_parents=True) as f:
            frame.to_csv(f, index=False, sep="\t" if fmt == "tsv" else ",")
    return path


#: Leading columns of the items table, in this order when present.
ITEM_FIRST = (
    "id",
    "group",
    "speaker_id",
    "content_id",
    "path",
    "duration",
    "reference",
    "hypothesis",
)
#: Internal join columns left out of the items table.
ITEM_DROP = ("db_id", "audio_hash", "item_id")


def items_table(d: RunData) -> pd.DataFrame:
    """One row per analysed item (see the module doc); a comparison's baseline run also
    gets ``hypothesis.<system>`` and ``errors.<system>`` per system."""
    from .systems import system_item_columns

    f = d.items.drop(columns=[c for c in ITEM_DROP if c in d.items.columns])
    first = [c for c in ITEM_FIRST if c in f.columns]
    f = f[first + [c for c in f.columns if c not in first]].reset_index(drop=True)
    return system_item_columns(d, f)


def groups_table(d: RunData) -> pd.DataFrame:
    """One row per group × metric: value, CI, items, speakers, exclusion (module doc)."""
    run = d.audit
    tested = set(run.tested_metrics)
    rows = []
    for g in run.groups:
        for m, v in (g.values or {}).items():
            ci = group_ci(g, m) or (None, None)
            rows.append(
                {
                    "group": g.group,
                    "metric": m,
                    "tested": m in tested,
                    "value": v,
                    "ci_low": ci[0],
                    "ci_high": ci[1],
                    "ci_scheme": (g.ci_scheme or {}).get(m),
                    "ci_note": ci_note_text(g, m),
                    "ci_flags": ";".join(group_ci_flags(g, m)),
                    "basis": group_basis(g, m),
                    "n_items": g.n_items,
                    "n_speakers": g.n_speakers,
                    "reference": g.group == run.reference,
                    "excluded": bool(g.excluded),
                    "excluded_reason": reason_text(g.reason),
                    "no_value": bool(g.missing),
                }
            )
    for m, s in run.summary.items():
        o = summary_overall(s)
        if o:
            ci = o.ci or (None, None)
            rows.append(
                {
                    "group": "(all groups)",
                    "metric": m,
                    "tested": m in tested,
                    "value": o.value,
                    "ci_low": ci[0],
                    "ci_high": ci[1],
                    "ci_scheme": o.scheme,
                    "ci_note": None,
                    "ci_flags": ";".join(o.flags),
                    "basis": o.basis,
                    "n_items": len(d.items),
                    "n_speakers": None,
                    "reference": False,
                    "excluded": False,
                    "excluded_reason": None,
                    "no_value": False,
                }
            )
    return pd.DataFrame.from_records(rows, columns=GROUP_COLUMNS)


#: The columns of :func:`groups_table`.
GROUP_COLUMNS = [
    "group",
    "metric",
    "tested",
    "value",
    "ci_low",
    "ci_high",
    "ci_scheme",
    "ci_note",
    # bound_clamped where a CI bound was clamped to the metric's range (docs/METHODS.md,
    # "Bounds stay inside the metric's range")
    "ci_flags",
    # the basis E (expected marks) of a diacritic metric's value, empty for every other
    # metric (docs/METHODS.md, "When the diacritic metrics apply")
    "basis",
    "n_items",
    "n_speakers",
    "reference",
    "excluded",
    "excluded_reason",
    # the row of the items with no grouping value: described, not compared (docs/METHODS.md,
    # "Missing values"); the "(all groups)" corpus rows include those items
    "no_value",
]


def comparisons_table(d: RunData) -> pd.DataFrame:
    """One row per comparison with every field of the stored result (module doc): the
    ``Comparison`` fields in order, ``without_flagged`` only where the pitfalls stage set
    it, as the stored payload lists them. For the baseline run of a comparison of systems
    the table is in long format: ``kind`` (``group_comparison``, ``system_difference``,
    ``gap_difference``), ``system`` and ``baseline`` first, then the system-difference and
    gap-difference rows (:func:`fairdesk.reports.systems.comparison_rows`)."""
    from ..presentation.pitfalls import without_flagged_json
    from ..presentation.readings import reading
    from .systems import comparison_rows

    rows = []
    for c in d.audit.comparisons:
        r = {}
        for f in dataclasses.fields(c):
            k, v = f.name, getattr(c, f.name)
            if (
                k in ("without_flagged", "basis", "sample", "ratio_ci_low", "ratio_ci_high")
                and v is None
            ):
                continue
            if k == "n_blocks" and v is not None:
                r.update({f"n_blocks.{b.name}": getattr(v, b.name) for b in dataclasses.fields(v)})
            elif k == "flags":
                r[k] = ";".join(map(str, v or ()))
            elif k == "without_flagged" and v is not None:  # its reason in words
                r[k] = without_flagged_json(v)
            elif k == "basis" and v is not None:  # a diacritic metric's E on each side
                r.update({f"basis.{b.name}": getattr(v, b.name) for b in dataclasses.fields(v)})
            elif k == "no_variation" and v is not None:
                r.update(
                    {f"no_variation.{b.name}": getattr(v, b.name) for b in dataclasses.fields(v)}
                )
            else:
                r[k] = v
            if k == "n_speakers":  # the reading in words, where the stored results had it
                r["reading"] = reading(c, d.audit)
        rows.append(r)
    extra = comparison_rows(d)
    if extra:  # a comparison's baseline: its group comparisons, then the systems' rows
        rows = [
            {"kind": "group_comparison", "system": extra[0]["baseline"], "baseline": None, **r}
            for r in rows
        ]
        rows += extra
    return pd.DataFrame.from_records(rows)


def export_tables(d: RunData, items=None, groups=None, comparisons=None) -> list[Path]:
    """Write the asked-for tables of a run; returns the files written."""
    out = []
    for path, build in (
        (items, items_table),
        (groups, groups_table),
        (comparisons, comparisons_table),
    ):
        if path is not None:
            out.append(write_table(build(d), path))
    return out


def odds_ratio_table(result) -> pd.DataFrame:
    """Sekkat et al.'s odds-ratio table from a regression result.

    Parameters
    ----------
    result : a :class:`fairdesk.stats.regression.RegressionResult`, or its JSON
        (``to_json(detail=True)``; the plain ``to_json()`` has no adjusted odds ratios),
        decoded first.

    Returns
    -------
    DataFrame
        One row per variable × level, the reference level first (OR 1 by definition):
        ``variable, level, reference, is_reference, odds_ratio, ci_low, ci_high, p_value``
        (Wald), ``lr_p_value`` (the variable's likelihood-ratio test), then for each other
        variable B ``adjusted_or[B]``, ``adjusted_ci_low[B]``, ``adjusted_ci_high[B]``,
        ``adjusted_p[B]``, ``or_change_pct[B]``, ``confounder[B]``, and with a cluster column
        ``clustered_ci_low``, ``clustered_ci_high``, ``clustered_p_value`` (speaker-clustered
        inference of the univariate model) and ``clustered_test_p``. Each p-value has its
        base-10 logarithm beside it (``p_log10``, ``lr_p_log10``, ``adjusted_p_log10[B]``,
        ``clustered_p_log10``, ``clustered_test_p_log10``; empty in a result stored before
        they existed), which keeps the size of a p that underflowed to 0.0.
    """
    from ..core.jsonio import json_number as num
    from ..presentation.notices import notice_text
    from ..stats.regression.results import RegressionResult

    res = result if isinstance(result, RegressionResult) else RegressionResult.from_json(result)
    cl_uni = {u.variable: u for u in res.clustered.univariate} if res.clustered else {}
    rows = []
    for u in res.univariate:
        var, ref = u.variable, u.reference
        by_level = {lev.level: lev for lev in u.levels}
        adj = [a for a in res.adjustments if a.variable == var]
        cl = cl_uni.get(var)
        cl_levels = {lev.level: lev for lev in cl.levels} if cl is not None else {}
        for name in [ref] + [lev.level for lev in u.levels]:
            is_ref = name == ref
            lev = None if is_ref else by_level[name]
            row = {
                "variable": var,
                "level": name,
                "reference": ref,
                "is_reference": is_ref,
                "n": u.n,
                "odds_ratio": 1.0 if lev is None else num(lev.odds_ratio),
                "ci_low": None if lev is None else num(lev.ci_low),
                "ci_high": None if lev is None else num(lev.ci_high),
                "p_value": None if lev is None else num(lev.p_value),
                "p_log10": None if lev is None else num(lev.p_log10),
                "lr_p_value": num(u.llr_p_value),
                "lr_p_log10": num(u.llr_p_log10),
                "problem": None if u.problem is None else notice_text(u.problem),
            }
            for a in adj:
                b = a.adjusted_on
                al = {x.level: x for x in a.levels}.get(name)
                row[f"adjusted_or[{b}]"] = 1.0 if is_ref else al and num(al.odds_ratio)
                row[f"adjusted_ci_low[{b}]"] = al and num(al.ci_low)
                row[f"adjusted_ci_high[{b}]"] = al and num(al.ci_high)
                row[f"adjusted_p[{b}]"] = al and num(al.p_value)
                row[f"adjusted_p_log10[{b}]"] = al and num(al.p_log10)
                row[f"or_change_pct[{b}]"] = num(a.or_change_pct.get(name))
                row[f"confounder[{b}]"] = a.confounder
            if res.clustered is not None:
                cll = cl_levels.get(name)
                row["clustered_ci_low"] = cll and num(cll.ci_low)
                row["clustered_ci_high"] = cll and num(cll.ci_high)
                row["clustered_p_value"] = cll and num(cll.p_value)
                row["clustered_p_log10"] = cll and num(cll.p_log10)
                row["clustered_test_p"] = None if cl is None else num(cl.llr_p_value)
                row["clustered_test_p_log10"] = None if cl is None else num(cl.llr_p_log10)
            rows.append(row)
    return pd.DataFrame.from_records(rows)


def write_odds_ratio_table(result, path) -> Path:
    """:func:`odds_ratio_table` written as CSV/TSV/Parquet by the extension of ``path``."""
    return write_table(odds_ratio_table(result), path)
