"""A dataset's counts as the Datasets view and ``fairdesk datasets`` show them: items, speakers,
hours, and per metadata column its values with their items and speakers
(:meth:`fairdesk.core.store.Project.dataset_summary`), and the metadata columns alone
(:meth:`~fairdesk.core.store.Project.metadata_columns`)."""

from __future__ import annotations

import json

from .names import nfc

__all__ = ["audio_roots", "dataset_summary", "metadata_columns"]


def audio_roots(conn, ds) -> list[tuple[int | None, str, int]]:
    """Every folder the dataset reads audio from, as ``(root id, folder, items)``: its own
    root (id None; listed first, also when no item is there) then its other roots (files a
    manifest listed by absolute paths outside it) that items use. Stale items count."""
    counts = {
        rid: n
        for rid, n in conn.execute(
            "SELECT root_id, COUNT(*) FROM items WHERE dataset_id=? GROUP BY root_id", (ds.id,)
        )
    }
    out: list[tuple[int | None, str, int]] = [(None, str(ds.root), int(counts.get(None, 0)))]
    for rid, path in conn.execute(
        "SELECT id, path FROM audio_roots WHERE dataset_id=? ORDER BY path", (ds.id,)
    ):
        if counts.get(rid):
            out.append((int(rid), str(path), int(counts[rid])))
    return out


def metadata_columns(conn, ds) -> set[str]:
    """The metadata columns :func:`dataset_summary` lists (a key with at least one
    scalar value on a live item), read without counting anything: SQLite's
    ``json_each``, about ten times quicker on the demo's 2,340 items."""
    rows = conn.execute(
        "SELECT DISTINCT j.key FROM items, json_each(items.metadata) AS j "
        "WHERE items.dataset_id=? AND j.type NOT IN ('null', 'object', 'array') "
        "AND items.id NOT IN (SELECT item_id FROM item_status WHERE stale=1)",
        (ds.id,),
    )
    return {nfc(k) for (k,) in rows}


def _missing(v) -> bool:
    """A metadata value that is no value (docs/METHODS.md, "Missing values"): None, NaN
    (stored by an import before NaN was read as missing), blank text, a list or dict."""
    if v is None or isinstance(v, (dict, list)):
        return True
    if isinstance(v, float):
        return v != v
    return isinstance(v, str) and not v.strip()


def dataset_summary(conn, ds) -> dict:
    """Counts of a dataset: items, speakers, duration, and per metadata column its values."""
    c = conn
    live = (
        "FROM items WHERE dataset_id=? AND id NOT IN (SELECT item_id FROM item_status "
        "WHERE stale=1)"
    )
    n, spk, dur = c.execute(
        f"SELECT COUNT(*), COUNT(DISTINCT speaker_id), COALESCE(SUM(duration),0) {live}",
        (ds.id,),
    ).fetchone()
    n_stale = c.execute(
        "SELECT COUNT(*) FROM items JOIN item_status ON item_id = items.id "
        "WHERE dataset_id=? AND stale=1",
        (ds.id,),
    ).fetchone()[0]
    columns: dict[str, dict[str, dict[str, int]]] = {}
    speakers_by: dict[str, dict[str, set]] = {}
    all_speakers = set()
    for meta, sid in c.execute(f"SELECT metadata, speaker_id {live}", (ds.id,)):
        sid = nfc(sid)
        if sid is not None:
            all_speakers.add(sid)
        for k, v in json.loads(meta).items():
            if _missing(v):  # no value: never listed as one ("nan"), as the audit has it
                continue
            k, v = nfc(k), nfc(str(v))
            col = columns.setdefault(k, {})
            col.setdefault(v, {"items": 0, "speakers": 0})["items"] += 1
            if sid is not None:
                speakers_by.setdefault(k, {}).setdefault(v, set()).add(sid)
    spk = len(all_speakers)  # one speaker typed two ways (NFC / NFD) counts once
    for k, vals in speakers_by.items():
        for v, s in vals.items():
            columns[k][v]["speakers"] = len(s)
    # per column, the live items with no value for it (absent, None, NaN, blank)
    missing = {k: n - sum(v["items"] for v in vals.values()) for k, vals in columns.items()}
    problems = c.execute(
        "SELECT COUNT(*) FROM import_problems WHERE dataset_id=?", (ds.id,)
    ).fetchone()[0]
    return {
        "name": ds.name,
        "root": str(ds.root),
        "audio_roots": [{"root": r, "items": k} for _i, r, k in audio_roots(conn, ds)],
        "format": ds.format,
        "language": ds.language,
        "items": n,
        "speakers": spk,
        "hours": round(dur / 3600.0, 4),
        "problems": problems,
        "stale": n_stale,
        "columns": columns,
        "missing": {k: m for k, m in missing.items() if m},
    }
