"""The project store's schema: the migration scripts, ``PRAGMA user_version`` and the
connection settings (WAL, foreign keys, busy timeout)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from .errors import StoreError

DB_NAME = "project.sqlite"

_V1 = """
CREATE TABLE datasets (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    root TEXT NOT NULL,
    format TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    item_key TEXT NOT NULL,
    path TEXT NOT NULL,
    audio_hash TEXT NOT NULL,
    duration REAL NOT NULL,
    sample_rate INTEGER NOT NULL,
    channels INTEGER NOT NULL,
    text TEXT NOT NULL,
    speaker_id TEXT,
    content_id TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    UNIQUE (dataset_id, item_key)
);
CREATE INDEX items_hash ON items(audio_hash);
CREATE TABLE annotations (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    start REAL,
    end REAL,
    value TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE recordings (
    id INTEGER PRIMARY KEY,
    dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
    path TEXT NOT NULL,
    prompt TEXT,
    speaker_id TEXT,
    status TEXT NOT NULL,
    duration REAL,
    created_at REAL NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
    model_id TEXT NOT NULL,
    model_fingerprint TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE run_items (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    error TEXT,
    prediction_id INTEGER REFERENCES predictions(id),
    PRIMARY KEY (run_id, item_id)
);
CREATE TABLE predictions (
    id INTEGER PRIMARY KEY,
    audio_hash TEXT NOT NULL,
    model_key TEXT NOT NULL,
    text TEXT NOT NULL,
    words TEXT NOT NULL DEFAULT '[]',
    confidence REAL,
    extra TEXT NOT NULL DEFAULT '{}',
    created_at REAL NOT NULL,
    UNIQUE (audio_hash, model_key)
);
CREATE TABLE results (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

# Version 2: import problems are kept with the dataset (the browser lists them), and
# embeddings are cached next to predictions.
_V2 = """
CREATE TABLE import_problems (
    id INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    row INTEGER,
    path TEXT,
    reason TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE embeddings (
    audio_hash TEXT NOT NULL,
    model_key TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (audio_hash, model_key)
);
ALTER TABLE datasets ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
"""

# Version 3: saliency curves (the explain stage) cached by audio, model, target and method.
_V3 = """
CREATE TABLE saliency (
    audio_hash TEXT NOT NULL,
    model_key TEXT NOT NULL,
    target_hash TEXT NOT NULL,
    method TEXT NOT NULL,
    frame_s REAL NOT NULL,
    curve BLOB NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    created_at REAL NOT NULL,
    PRIMARY KEY (audio_hash, model_key, target_hash, method)
);
"""

# "stale": per-item status kept apart from ``items`` (whose rows annotations and runs refer
# to): ``stale`` marks an item that the last re-import of its dataset no longer lists (kept,
# excluded from new audits), ``warnings`` the import's warnings about its audio (JSON list).
# Idempotent (IF NOT EXISTS) so that it can be renumbered when migrations are merged.
_STALE = """
CREATE TABLE IF NOT EXISTS item_status (
    item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    stale INTEGER NOT NULL DEFAULT 0,
    warnings TEXT NOT NULL DEFAULT '[]',
    updated_at REAL NOT NULL
);
"""

# Version 5: annotations say who made them, and an item's transcript history is read by
# (item, kind) in order. The original (imported) text stays in items.text.
_V5 = """
ALTER TABLE annotations ADD COLUMN annotator TEXT NOT NULL DEFAULT '';
CREATE INDEX annotations_item_kind ON annotations(item_id, kind, id);
"""

# Version 6: the forced alignments of reference words the tier exports (TextGrid, EAF) make,
# kept so that the next export reads them instead of aligning again. Keyed by what they are
# the alignment of: the clip's content hash, the reference text's hash, the aligner and the
# stretch of the clip it read (``cut``); a changed transcript or audio is a new key.
# ``run_id``: the run the export was of (for information). Idempotent (IF NOT EXISTS) so
# that it can be renumbered when migrations are merged.
_ALIGNMENTS = """
CREATE TABLE IF NOT EXISTS alignments (
    audio_hash TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    aligner TEXT NOT NULL,
    cut TEXT NOT NULL,
    words TEXT NOT NULL,
    aligner_key TEXT NOT NULL DEFAULT '',
    run_id INTEGER,
    created_at REAL NOT NULL,
    PRIMARY KEY (audio_hash, text_hash, aligner, cut)
);
"""

# Version 7: an item may be a span of its audio file (an utterance inside a longer recording:
# Kaldi ``segments``, NeMo ``offset``, an ELAN or Praat interval). ``start_s``/``end_s`` are
# seconds from the start of the file; an item without a row here is the whole file (every item
# of an older project). Idempotent (IF NOT EXISTS) so that it can be renumbered when migrations
# are merged.
_SPANS = """
CREATE TABLE IF NOT EXISTS item_spans (
    item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    start_s REAL NOT NULL,
    end_s REAL NOT NULL
);
"""

# Version 8: "recording plans": a plan made from an audit's recording plan (groups to fill, speakers
# per group, prompts, utterances per speaker) for a recording dataset; ``body`` is its JSON
# (core.recording_plans). Idempotent, so that it can be renumbered when migrations merge.
_REC_PLANS = """
CREATE TABLE IF NOT EXISTS recording_plans (
    id INTEGER PRIMARY KEY,
    dataset TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

# Version 9: "audio roots and stamps": an item's path is relative to its own audio root,
# ``items.root_id`` (NULL: the dataset's root, ``datasets.root``, as for every item of an
# older project; else a row of ``audio_roots``, a folder outside the dataset's root that a
# manifest listed absolute paths in, relinked on its own). ``items.size``/``items.mtime``:
# the file's size and modification time when its ``audio_hash`` was computed (NULL: not
# known, an older project), so that audio changed under the same name is hashed again.
_AUDIO_ROOTS = """
CREATE TABLE IF NOT EXISTS audio_roots (
    id INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    UNIQUE (dataset_id, path)
);
ALTER TABLE items ADD COLUMN root_id INTEGER REFERENCES audio_roots(id);
ALTER TABLE items ADD COLUMN size INTEGER;
ALTER TABLE items ADD COLUMN mtime REAL;
"""

#: Migration scripts; index i moves a database from user_version i to i + 1.
MIGRATIONS: tuple[str, ...] = (
    _V1,
    _V2,
    _V3,
    _STALE,
    _V5,
    _ALIGNMENTS,
    _SPANS,
    _REC_PLANS,
    _AUDIO_ROOTS,
)
SCHEMA_VERSION = len(MIGRATIONS)


def _connect(db_path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(
        str(db_path), timeout=30.0, isolation_level=None, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Bring a database to :data:`SCHEMA_VERSION`; returns the version it had before."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the project was written by a newer fairdesk (schema {version} > "
            f"{SCHEMA_VERSION}); upgrade fairdesk to open it"
        )
    for v in range(version, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for stmt in _split_sql(MIGRATIONS[v]):
                conn.execute(stmt)
            conn.execute(f"PRAGMA user_version={v + 1}")
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise
    return version


def _split_sql(script: str) -> Iterator[str]:
    for stmt in script.split(";"):
        if stmt.strip():
            yield stmt


def inserted_id(cur: sqlite3.Cursor) -> int:
    """The row id of the row that an ``INSERT`` through ``cur`` just wrote."""
    rid = cur.lastrowid
    assert rid is not None  # set by every INSERT
    return rid
