"""``--table`` input of ``fairdesk audit`` and ``fairdesk regress``: a table of references
and hypotheses (no audio, no project)."""

from __future__ import annotations

from pathlib import Path

from .common import UsageError


def read_any_table(path):
    """A CSV, TSV, JSONL or Parquet file as a DataFrame (rows with bad JSON reported)."""
    import pandas as pd

    from ..core.importers import read_table

    p = Path(path)
    if not p.exists():
        raise UsageError(f"--table {p}: no such file")
    if p.suffix.lower() in (".parquet", ".pq"):
        return pd.read_parquet(p), []
    _header, rows, problems = read_table(p)
    return pd.DataFrame.from_records([r for _, r in rows]), problems


def table_frame(a):
    """The per-item audit frame from ``--table`` (renaming the named columns)."""
    import pandas as pd

    from ..core.importers import bad_utf8, derive_content_id

    df, problems = read_any_table(a.table)
    ren = {a.ref_col: "reference", a.hyp_col: "hypothesis"}
    if a.speaker_col in df.columns:
        ren[a.speaker_col] = "speaker_id"
    if a.content_col in df.columns:
        ren[a.content_col] = "content_id"
    for need in (a.ref_col, a.hyp_col):
        if need not in df.columns:
            raise UsageError(f"--table {a.table}: no column {need!r} (columns: "
                             f"{', '.join(map(str, df.columns))}); name it with --ref-col / "
                             "--hyp-col")
    df = df.rename(columns=ren)
    if "intent" in df.columns and "ref_intent" not in df.columns:
        df = df.rename(columns={"intent": "ref_intent", "slots": "ref_slots"})
    bad = []
    for i, (r, h) in enumerate(zip(df["reference"], df["hypothesis"]), start=1):
        reason = bad_utf8(r) or bad_utf8(h)
        if reason:
            bad.append(i - 1)
            problems.append({"row": i, "reason": reason})
    df = df.drop(index=bad).reset_index(drop=True)
    df["reference"] = df["reference"].fillna("").astype(str)
    df["hypothesis"] = df["hypothesis"].fillna("").astype(str)
    if "content_id" not in df.columns:
        df["content_id"] = [derive_content_id(t) for t in df["reference"]]
    if "speaker_id" not in df.columns:
        df["speaker_id"] = None
    if "item_id" not in df.columns:
        df["item_id"] = [str(i) for i in range(1, len(df) + 1)]
    problems = [p.to_dict() if hasattr(p, "to_dict") else p for p in problems]
    return pd.DataFrame(df), problems
