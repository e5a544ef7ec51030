"""``--table`` input of ``fairdesk audit`` and ``fairdesk regress``: a table of references
and hypotheses (no audio, no project)."""

from __future__ import annotations

from pathlib import Path

from .common import UsageError


def read_any_table(path):
    """A CSV, TSV, JSONL or Parquet file as a DataFrame indexed by the file's line numbers
    (Parquet: row numbers), and the unreadable rows as ``{"line", "reason", "source"}``."""
    from ..core.tables import TableError, read_table

    p = Path(path)
    try:
        exists, regular = p.exists(), p.is_file()
    except OSError as exc:  # a name too long ...
        raise UsageError(
            f"--table {str(p)[:200]}...: cannot be opened ({exc.strerror or exc}); check the path"
        ) from None
    if not exists:
        raise UsageError(f"--table {p}: no such file")
    if not regular:
        raise UsageError(
            f"--table {p}: is {'a folder' if p.is_dir() else 'not a regular file'}"
            "; give a CSV, TSV, JSONL or Parquet file"
        )
    try:
        table = read_table(p)
    except TableError as exc:
        raise UsageError(f"--table {exc}") from None
    problems = [{"line": pr.line, "reason": pr.reason, "source": str(p)} for pr in table.problems]
    return table.frame(), problems


def table_frame(a):
    """The per-item audit frame from ``--table`` (renaming the named columns); its problems
    name the file's lines, and an item without an ``item_id`` column is named by its line."""
    import pandas as pd

    from ..core.importers import bad_utf8, derive_content_id

    df, problems = read_any_table(a.table)
    ren = {a.ref_col: "reference", a.hyp_col: "hypothesis"}
    if a.speaker_col in df.columns:
        ren[a.speaker_col] = "speaker_id"
    if a.content_col in df.columns:
        ren[a.content_col] = "content_id"
    from ..metrics.inputs import classification_only

    classify = classification_only(df, a.ref_col)  # labels and predicted labels, no text
    for need in () if classify else (a.ref_col, a.hyp_col):
        if need not in df.columns:
            raise UsageError(
                f"--table {a.table}: no column {need!r} (columns: "
                f"{', '.join(map(str, df.columns))}); name it with --ref-col / "
                "--hyp-col"
            )
    df = df.rename(columns=ren)
    if "intent" in df.columns and "ref_intent" not in df.columns:
        df = df.rename(columns={"intent": "ref_intent", "slots": "ref_slots"})
    # The frame's index is the file's line numbers: they stay the rows' names from here on.
    if "line" not in df.columns:
        df["line"] = df.index
    if classify:
        df = df.drop(columns=[c for c in ("reference", "hypothesis") if c in df.columns])
        if "content_id" not in df.columns:
            df["content_id"] = [str(line) for line in df.index]
    else:
        bad = []
        for line, r, h in zip(df.index, df["reference"], df["hypothesis"], strict=True):
            reason = bad_utf8(r) or bad_utf8(h)
            if reason:
                bad.append(line)
                problems.append({"line": int(line), "reason": reason, "source": str(a.table)})
        df = df.drop(index=bad)
        # An empty reference stays empty: the analysis reports it as a problem (METHODS §2);
        # an empty hypothesis is a real output (all deletions).
        ref = df["reference"]
        df["reference"] = ref.where(ref.isna(), ref.astype(str))
        df["hypothesis"] = df["hypothesis"].fillna("").astype(str)
        if "content_id" not in df.columns:
            df["content_id"] = [derive_content_id("" if pd.isna(t) else t) for t in df["reference"]]
    if "speaker_id" not in df.columns:
        df["speaker_id"] = None
    if "item_id" not in df.columns:
        df["item_id"] = [str(line) for line in df.index]  # an item is named by its line
    problems = sorted(problems, key=lambda pr: pr["line"])
    return pd.DataFrame(df).reset_index(drop=True), problems
