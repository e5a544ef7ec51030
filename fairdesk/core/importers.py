"""Dataset importers with validation.

Each reader (:mod:`fairdesk.core.importers_formats`: manifest, audiofolder, Common Voice,
LibriSpeech, SAA, L2-ARCTIC, Kaldi, NeMo, Lhotse, VCTK, TIMIT, Hugging Face, ELAN, Praat) turns a source into candidate rows plus the problems it found
while parsing; :func:`import_dataset` then
checks every row (the listed file found: :mod:`fairdesk.core.audio_paths`; audio decodes,
transcript present, id unique) and writes the good rows in one transaction. Every problem names the file, the
row and the reason; the good rows are imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import audio as audio_io
from .audio_paths import file_stamp, not_found, place, roots_of
from .errors import AudioError, ImportFailed, SpanError
from .import_rows import Candidate, Problem
from .importers_formats import (  # noqa: F401  (the readers stay importable from here)
    AUDIO_COLUMNS,
    CONTENT_COLUMNS,
    EITHER_FORMATS,
    FILE_FORMATS,
    FORMATS,
    ID_COLUMNS,
    LABEL_COLUMNS,
    MEDIA_FORMATS,
    OPTIONS,
    READERS,
    SPEAKER_COLUMNS,
    TEXT_COLUMNS,
    detect_format,
    read_audiofolder,
    read_commonvoice,
    read_librispeech,
    read_manifest,
    rows_to_candidates,
)
from .names import nfc, nfc_record
from .schema import inserted_id
from .spans import probe_span
from .store import Project
from .tables import JSONL_SUFFIXES, undecodable


@dataclass(frozen=True)
class ImportReport:
    """What an import did.

    ``warnings``: ``{"item", "path", "warning"}`` per suspicious audio file (imported and
    stored with the item). ``stale``: items of an earlier import that the source no longer
    lists (kept and marked stale: left out of new audits, listed by ``items --stale``).
    """

    dataset: str
    format: str
    imported: int
    added: int
    updated: int
    unchanged: int
    problems: tuple[Problem, ...]
    warnings: tuple[dict, ...] = ()
    stale: int = 0
    #: The folders the audio is read from: the one relative paths were read from (the
    #: ``--audio-root``, the manifest's folder or the parent folder where they resolve)
    #: first, then those of the files listed by absolute paths outside it.
    roots: tuple[str, ...] = ()
    #: what joining a speaker sheet did (``--speakers``; None without one)
    speakers: dict | None = None

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "format": self.format,
            "imported": self.imported,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "stale": self.stale,
            "audio_roots": list(self.roots),
            "problems": [p.to_dict() for p in self.problems],
            "warnings": list(self.warnings),
            "speakers": self.speakers,
        }


#: A reason when a value holds bytes that were not UTF-8 (naming the byte), else None.
bad_utf8 = undecodable


def derive_content_id(text: str) -> str:
    """content_id from the normalised reference (NFC, lower case, no punctuation, marks kept)."""
    t = unicodedata.normalize("NFC", text or "").lower()
    t = "".join(ch if not unicodedata.category(ch).startswith("P") else " " for ch in t)
    t = " ".join(t.split())
    return "t:" + hashlib.sha1(t.encode("utf-8")).hexdigest()[:12]


# -- validation and writing ------------------------------------------------------------
def shown_path(root: Path, p: str) -> str:
    """``p`` as messages show it: relative to the dataset folder when it lies there."""
    prefix = str(root).rstrip(os.sep) + os.sep
    return p[len(prefix) :] if p and p.startswith(prefix) else p


def _backup_before_large_import(project, name: str, n_good: int) -> None:
    """Keep a backup of the store before an import that adds more than
    ``integrity.BACKUP_IMPORT_ITEMS`` items (docs/troubleshooting.md, "The project store")."""
    from . import integrity

    if n_good <= integrity.BACKUP_IMPORT_ITEMS or project.read_only:
        return
    stored = project.conn.execute(
        "SELECT COUNT(*) FROM items JOIN datasets ON datasets.id = items.dataset_id "
        "WHERE datasets.name=?",
        (name,),
    ).fetchone()[0]
    if n_good - stored > integrity.BACKUP_IMPORT_ITEMS:
        integrity.write_backup(project.conn, project.folder)


def import_dataset(
    project: Project,
    name: str,
    path,
    fmt: str = "auto",
    language: str = "en",
    progress=None,
    **options,
) -> ImportReport:
    """Import a dataset into ``project`` under ``name``.

    Parameters
    ----------
    project : the open project.
    name : dataset name (re-importing under the same name updates it; unchanged rows stay).
    path : manifest file or dataset folder.
    fmt : one of :data:`FORMATS`.
    language : the transcripts' language (``en`` selects Whisper's English normaliser).
    progress : optional ``progress(fraction, message)`` callback.
    **options : ``audio_col``, ``text_col``, ``speaker_col``, ``content_col``, ``id_col``
        (manifest), ``split`` (Common Voice), ``kaldi_meta`` (Kaldi), ``audio_root`` (every
        format that lists paths: the folder relative paths start from), ``tiers``,
        ``speaker_tier``, ``speaker_by`` (ELAN, Praat); ``speakers`` (every format): a
        speaker sheet joined by speaker id
        (:func:`fairdesk.core.speaker_sheets.join_speaker_sheet`).

    Returns
    -------
    ImportReport
        Counts and every refused row with its reason. Nothing is written when no row is
        good (the caller reports exit code 1).
    """
    if not str(name or "").strip():
        raise ValueError("the dataset needs a name; give one (--name)")
    path = Path(path).expanduser()
    try:
        exists = path.exists()
    except OSError as exc:  # e.g. a name too long
        raise ImportFailed(f"{str(path)[:200]}: cannot be opened ({exc.strerror or exc})") from None
    if not exists:
        if path.is_symlink():
            raise ImportFailed(
                f"{path}: a symbolic link to {os.readlink(path)}, which does not exist (or "
                "leads back to itself); give the manifest or folder it should point at"
            )
        raise ImportFailed(f"{path}: no such file or folder")
    mode = path.stat().st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device or socket"
        raise ImportFailed(
            f"{path}: is {kind}, not a regular file or folder; give the dataset's manifest "
            "(CSV, TSV, JSONL) or its folder"
        )
    if fmt not in FORMATS:
        raise ImportFailed(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt == "manifest" and path.is_dir():
        for fname in ("manifest.csv", "manifest.tsv", "manifest.jsonl"):
            if (path / fname).exists():
                path = path / fname
                break
    if fmt in FILE_FORMATS and path.is_dir() and fmt != "manifest":
        raise ImportFailed(f"{path}: the {fmt} format expects a file, not a folder")
    if fmt not in FILE_FORMATS + EITHER_FORMATS and not path.is_dir():
        raise ImportFailed(f"{path}: the {fmt} format expects a folder")
    reader = READERS[fmt]
    cols = {k: v for k, v in options.items() if v is not None}
    foreign = [k for k in cols if k not in OPTIONS.get(fmt, ()) and k != "speakers"]
    if foreign:
        users = {k: [f for f, o in OPTIONS.items() if k in o] for k in foreign}
        raise ImportFailed(
            f"the {fmt} format takes no "
            + "; no ".join(
                f"--{k.replace('_', '-')} (it applies to {', '.join(users[k]) or 'no format'})"
                for k in foreign
            )
            + "; leave it out"
        )
    if fmt in MEDIA_FORMATS:  # embedded or archived audio is extracted into the project
        from .importers_hf import media_folder

        cols["media_dir"] = media_folder(project.folder, name)
    sheet = cols.pop("speakers", None)
    root, cands, problems = reader(path, **cols)
    joined = None
    if sheet is not None:
        from .speaker_sheets import join_speaker_sheet

        cands, joined = join_speaker_sheet(cands, sheet)
    root = root.resolve()
    problems = list(problems)
    if not cands and not problems:
        problems.append(
            Problem(
                None,
                None,
                "the manifest holds no record; write one JSON object per line, one per audio file"
                if path.suffix.lower() in JSONL_SUFFIXES
                else "the manifest has a header but no rows below it; add one row per audio file",
                str(path),
            )
        )

    # Where each listed file is, and the audio root it is stored relative to.
    placed = {}
    for c in cands:
        placed[id(c)] = place(c.path)
    try:
        rooted = roots_of(root, [f for f, _r in placed.values() if f is not None])
    except RuntimeError:  # a loop of links in a folder: each row is refused below
        rooted = {}
    item_root: dict[str, tuple[Path | None, str]] = {}

    # A problem with a listed file is reported where the file is listed (a Kaldi wav.scp
    # line, not the transcript's); rows that share that line share the one problem.
    lost: dict[tuple, list[str]] = {}

    def audio_problem(c: Candidate, where: tuple[int, str], path, reason: str) -> None:
        lost.setdefault((where[0], path, reason, where[1]), []).append(c.key or path or "")

    # Per-row checks that need no audio.
    seen: dict[str, int] = {}
    todo: list[tuple[Candidate, Path, str]] = []
    for c in cands:
        reason = (
            bad_utf8(c.text)
            or bad_utf8(c.path)
            or bad_utf8(c.speaker_id)
            or next((bad_utf8(v) for v in c.metadata.values() if bad_utf8(v)), None)
        )
        if reason:
            problems.append(Problem(c.row, None, reason, c.source))
            continue
        # Ids and labels compared as Unicode NFC (docs/METHODS.md, "Items, groups and the reference")
        c.key, c.speaker_id, c.content_id = nfc(c.key), nfc(c.speaker_id), nfc(c.content_id)
        c.metadata = nfc_record(c.metadata)
        full, reason = placed[id(c)]
        if full is not None and full not in rooted:
            reason = f"path {c.path!r} cannot be resolved; check the path"
        if reason:
            audio_problem(c, c.where_audio(), shown_path(root, c.path) or None, reason)
            continue
        assert full is not None  # place gives a reason whenever it finds no file
        own_root, in_root = rooted[full]
        # what the item's path reads as: relative to the dataset's root, else absolute
        rel = in_root if own_root is None else (own_root / in_root).as_posix()
        if c.needs_text and (c.text is None or not str(c.text).strip()):
            problems.append(
                Problem(
                    c.row,
                    rel,
                    "empty transcript; add the reference text or remove the row",
                    c.source,
                )
            )
            continue
        key = c.key or nfc(rel)
        if key in seen:
            problems.append(
                Problem(
                    c.row,
                    rel,
                    f"duplicate item id {key!r} (first seen on line "
                    f"{seen[key]}); give each row a unique id",
                    c.source,
                )
            )
            continue
        seen[key] = c.row
        c.key = key
        item_root[key] = (own_root, in_root)
        todo.append((c, full, rel))

    # Decode every file (validates it and gives the content hash); threads overlap I/O.
    # Only a file that decodes as audio is ever read further (or copied).
    def check(entry):
        c, full, rel = entry
        stamp = file_stamp(full)
        if stamp is None and not os.path.lexists(full):
            return (
                entry,
                None,
                not_found(root, full, rel, "audio_root" in OPTIONS.get(fmt, ())),
                None,
            )
        try:
            if c.start_s is not None:
                return entry, probe_span(full, c.start_s, c.end_s), None, stamp
            return entry, audio_io.probe(full), None, stamp
        except SpanError as exc:  # the span's times are at fault, not the file
            return entry, None, (c.where_span(), exc.reason), None
        except AudioError as exc:
            return entry, None, exc.reason, None

    good = []
    stamps: dict[str, tuple[int, float] | None] = {}
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        for n, (entry, info, reason, stamp) in enumerate(pool.map(check, todo), start=1):
            c, full, rel = entry
            if isinstance(reason, tuple):  # a span that does not fit its file
                (line, src), why = reason
                problems.append(Problem(line, rel, why, src))
            elif reason:
                audio_problem(c, c.where_audio(), rel, reason)
            else:
                good.append((c, rel, info))
                stamps[c.key] = stamp
            if progress and n % 50 == 0:
                progress(n / max(1, len(todo)), f"checked {n}/{len(todo)} files")

    for (line, path_, reason, src), keys in lost.items():
        if len(keys) > 1:
            shown = ", ".join(keys[:5]) + (" ..." if len(keys) > 5 else "")
            reason += f" (the {len(keys)} items that read it are not imported: {shown})"
        problems.append(Problem(line, path_, reason, src))

    added = updated = unchanged = n_stale = 0
    listed = {c.key for c, _full, _rel in todo}
    warnings = [
        {"item": c.key, "path": rel, "warning": w} for c, rel, info in good for w in info.warnings
    ]
    if good:
        _backup_before_large_import(project, name, len(good))
        with project.transaction() as conn:
            row = conn.execute("SELECT id, root FROM datasets WHERE name=?", (name,)).fetchone()
            if row is None:
                cur = conn.execute(
                    "INSERT INTO datasets(name, root, format, created_at, language) "
                    "VALUES (?,?,?,?,?)",
                    (name, str(root), fmt, time.time(), language),
                )
                ds_id = inserted_id(cur)
            else:
                ds_id = row["id"]
                if Path(row["root"]) != root:
                    raise ImportFailed(
                        f"dataset {name!r} already exists with its audio in {row['root']}; "
                        "choose another --name to import from a different folder"
                    )
            root_ids = _root_ids(conn, ds_id, {item_root[c.key][0] for c, _r, _i in good})
            existing = {
                r["item_key"]: r
                for r in conn.execute(
                    "SELECT id, item_key, path, root_id, audio_hash, text, speaker_id, "
                    "content_id, metadata FROM items WHERE dataset_id=?",
                    (ds_id,),
                )
            }
            by_nfc: dict[str, list[str]] = {}
            for k in existing:
                by_nfc.setdefault(nfc(k), []).append(k)
            for c, rel, info in good:
                old, warn = _stored_match(existing, by_nfc, c.key)
                if warn:
                    warnings.append({"item": c.key, "path": rel, "warning": warn})
                text = unicodedata.normalize("NFC", str(c.text or "").strip())
                content = c.content_id or (derive_content_id(text) if text else f"item:{c.key}")
                meta = json.dumps(c.metadata, ensure_ascii=False, sort_keys=True)
                own_root, stored_path = item_root[c.key]
                root_id = root_ids[own_root]
                stamp = stamps.get(c.key) or (None, None)
                values = (
                    stored_path,
                    root_id,
                    stamp[0],
                    stamp[1],
                    info.content_hash,
                    info.duration,
                    info.sample_rate,
                    info.channels,
                    text,
                    c.speaker_id,
                    content,
                    meta,
                )
                if old is None:
                    conn.execute(
                        "INSERT INTO items(dataset_id, item_key, path, root_id, size, mtime, "
                        "audio_hash, duration, sample_rate, channels, text, speaker_id, "
                        "content_id, metadata) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        (ds_id, c.key, *values),
                    )
                    added += 1
                    continue
                if (
                    old["item_key"],
                    old["path"],
                    old["root_id"],
                    old["audio_hash"],
                    old["text"],
                    old["speaker_id"],
                    old["content_id"],
                    old["metadata"],
                ) == (
                    c.key,
                    stored_path,
                    root_id,
                    info.content_hash,
                    text,
                    c.speaker_id,
                    content,
                    meta,
                ):
                    unchanged += 1
                else:  # an id stored before NFC (typed another way) is renamed to NFC
                    updated += 1
                conn.execute(
                    "UPDATE items SET path=?, root_id=?, size=?, mtime=?, audio_hash=?, "
                    "duration=?, sample_rate=?, channels=?, text=?, speaker_id=?, "
                    "content_id=?, metadata=?, item_key=? WHERE id=?",
                    (*values, c.key, old["id"]),
                )
            _write_spans(conn, ds_id, good)
            n_stale = _write_status(conn, ds_id, listed, good)
            _write_source_annotations(conn, ds_id, good)
            # The stored problem list is always the last import's.
            conn.execute("DELETE FROM import_problems WHERE dataset_id=?", (ds_id,))
            now = time.time()
            conn.executemany(
                "INSERT INTO import_problems(dataset_id, row, path, reason, created_at) "
                "VALUES (?,?,?,?,?)",
                [
                    (ds_id, p.row, p.path, f"{p.source}: {p.reason}" if p.source else p.reason, now)
                    for p in problems
                ],
            )
    problems.sort(key=lambda p: (p.source or "", p.row or 0))
    others = sorted({str(item_root[c.key][0]) for c, _r, _i in good if item_root[c.key][0]})
    return ImportReport(
        name,
        fmt,
        len(good),
        added,
        updated,
        unchanged,
        tuple(problems),
        tuple(warnings),
        n_stale,
        (str(root), *others),
        None if joined is None else joined.to_dict(),
    )


def _root_ids(conn, ds_id: int, roots) -> dict[Path | None, int | None]:
    """The ``audio_roots`` id of each of the dataset's other roots (made when new); the
    dataset's own root (None) has none."""
    out: dict[Path | None, int | None] = {None: None}
    for r in sorted(x for x in roots if x is not None):
        conn.execute(
            "INSERT OR IGNORE INTO audio_roots(dataset_id, path) VALUES (?,?)", (ds_id, str(r))
        )
        out[r] = conn.execute(
            "SELECT id FROM audio_roots WHERE dataset_id=? AND path=?", (ds_id, str(r))
        ).fetchone()[0]
    return out


def _stored_match(existing: dict, by_nfc: dict, key: str):
    """The stored item a row updates and a warning when stored ids collide under NFC.

    A project imported before ids were normalised may hold ``key`` typed another way (NFD):
    that one item is the row's (its id is renamed to NFC). Two stored ids equal under NFC are
    never merged: the one equal to ``key`` (or none, when neither is) is the row's, the others
    stay apart (not listed: marked stale) and the warning names them.
    """
    same = by_nfc.get(key, [])
    old = existing.get(key)
    if old is None and len(same) == 1:
        return existing[same[0]], None
    others = [k for k in same if k != key]
    if not others or (old is None and not same):
        return old, None
    kept = ", ".join(repr(k) for k in others)
    return old, (
        f"the project holds {len(same)} items whose ids equal {key!r} under Unicode NFC "
        f"(typed with other code points: {kept}); not merged: "
        + (
            "this row updates the one typed as here, "
            if old is not None
            else "this row is a new item, "
        )
        + "the others are kept apart and marked stale; `fairdesk items --stale` lists them"
    )


def _write_source_annotations(conn, ds_id: int, good) -> None:
    """Store the annotations a source ships with its items (L2-ARCTIC's phone errors),
    replacing those of the same kinds from an earlier import; nothing else is touched."""
    rows = [(c, a) for c, _rel, _info in good for a in c.annotations]
    if not rows:
        return
    ids = {
        r["item_key"]: r["id"]
        for r in conn.execute("SELECT id, item_key FROM items WHERE dataset_id=?", (ds_id,))
    }
    kinds = sorted({a[0] for _c, a in rows})
    marks = ",".join("?" * len(kinds))
    conn.executemany(
        f"DELETE FROM annotations WHERE item_id=? AND kind IN ({marks})",
        [(ids[k], *kinds) for k in {c.key for c, _a in rows}],
    )
    now = time.time()
    conn.executemany(
        "INSERT INTO annotations(item_id, kind, start, end, value, created_at, updated_at, "
        "annotator) VALUES (?,?,?,?,?,?,?,?)",
        [
            (
                ids[c.key],
                kind,
                start,
                end,
                json.dumps(value, ensure_ascii=False),
                now,
                now,
                "imported with the dataset",
            )
            for c, (kind, start, end, value) in rows
        ],
    )


def _write_status(conn, ds_id: int, listed: set, good) -> int:
    """Store each imported item's audio warnings, and mark stale the dataset's items that
    the source no longer lists (never deleted: annotations and runs refer to them); an item
    listed again is live again. Returns how many items are stale."""
    now = time.time()
    ids = {
        r["item_key"]: r["id"]
        for r in conn.execute("SELECT id, item_key FROM items WHERE dataset_id=?", (ds_id,))
    }
    rows = []
    for key, db_id in ids.items():
        rows.append((db_id, 0 if key in listed else 1, now))
    conn.executemany(
        "INSERT INTO item_status(item_id, stale, updated_at) VALUES (?,?,?) ON CONFLICT(item_id) "
        "DO UPDATE SET stale=excluded.stale, updated_at=excluded.updated_at",
        rows,
    )
    conn.executemany(
        "UPDATE item_status SET warnings=? WHERE item_id=?",
        [
            (json.dumps(list(info.warnings), ensure_ascii=False), ids[c.key])
            for c, _rel, info in good
        ],
    )
    return sum(1 for _db, st, _t in rows if st)


def _write_spans(conn, ds_id: int, good) -> None:
    """Store the span of each imported item that is a segment of its file; an item that is
    a whole file (again) has none."""
    ids = {
        r["item_key"]: r["id"]
        for r in conn.execute("SELECT id, item_key FROM items WHERE dataset_id=?", (ds_id,))
    }
    conn.executemany(
        "DELETE FROM item_spans WHERE item_id=?",
        [(ids[c.key],) for c, _rel, _info in good if c.start_s is None],
    )
    conn.executemany(
        "INSERT INTO item_spans(item_id, start_s, end_s) VALUES (?,?,?) ON CONFLICT(item_id) "
        "DO UPDATE SET start_s=excluded.start_s, end_s=excluded.end_s",
        [
            (ids[c.key], float(c.start_s), float(c.start_s) + info.duration)
            for c, _rel, info in good
            if c.start_s is not None
        ],
    )
