"""NeMo and Lhotse manifests (``--format nemo FILE``, ``--format lhotse DIR``).

NeMo (NVIDIA NeMo's ASR data loaders): a JSONL file (``.json`` or ``.jsonl``), one object
per utterance with ``audio_filepath`` (relative to the manifest's folder, or absolute),
``text`` and ``duration``; every other key (``lang``, ``speaker`` ...) is metadata, a
``speaker``-type key is the speaker id (as for a generic manifest). An entry with a non-zero
``offset``, or whose ``duration`` is shorter than its file, is the span ``offset`` to
``offset + duration`` of a longer recording (:mod:`fairdesk.core.spans`); without an id
column its item id is ``<audio_filepath>#<start>-<end>``.

Lhotse (``lhotse.RecordingSet`` / ``SupervisionSet`` written with ``to_file``): a folder
with ``*recordings*.jsonl[.gz]`` and the matching ``*supervisions*.jsonl[.gz]`` (the same
name with ``supervisions`` for ``recordings``; one pair per split, the split being the part
of the name after ``supervisions_``). A recording's ``sources`` must be one ``file`` source
(a path relative to the folder, or to ``--audio-root``); a supervision is an item when it
covers its whole recording (``start`` 0 and ``duration`` the recording's, within 10 ms) or
is the span ``start`` to ``start + duration`` of it (a partial supervision):
its ``id`` is the item id, ``text``, ``speaker`` and ``language``/``gender`` are kept, and
the keys of ``custom`` become metadata. ``url``/``command``/``memory`` sources are refused
naming their line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .errors import ImportFailed
from .import_rows import Candidate, Problem, read_jsonl, read_table, rows_to_candidates
from .names import DiskNames

#: Seconds a whole-file span may differ from the file's duration (rounding in manifests).
SPAN_TOLERANCE = 0.01
_JSONL = (".jsonl", ".json", ".ndjson", ".jsonl.gz", ".json.gz")


def first_record(path: Path) -> dict | None:
    """The first JSON object of a JSONL file (None when it is not one): for detection."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    obj = json.loads(line)
                    return obj if isinstance(obj, dict) else None
    except (OSError, ValueError, RecursionError):  # nested too deep: the reader says so
        return None
    return None


def is_nemo_manifest(path: Path) -> bool:
    """A JSONL file whose first record has NeMo's ``audio_filepath`` and ``duration``."""
    if not path.name.lower().endswith((".json", ".jsonl", ".ndjson")):
        return False
    rec = first_record(path)
    return rec is not None and "audio_filepath" in rec and "duration" in rec


def _number(v) -> float | None:
    try:
        return None if v is None or v == "" else float(v)
    except (TypeError, ValueError):
        return None


def _file_duration(path: str) -> float | None:
    import soundfile as sf

    try:
        return float(sf.info(path).duration)
    except Exception:  # noqa: BLE001 - any unreadable file: the import's audio check says why
        return None


def read_nemo(path: Path, **cols):
    """Candidates of a NeMo manifest (see the module docstring)."""
    path = Path(path)
    header, rows, problems = read_table(path)
    if "audio_filepath" not in header and not cols.get("audio_col"):
        raise ImportFailed(
            f"{path}: no audio_filepath key (NeMo manifest: one JSON object per line with "
            "audio_filepath, text, duration)"
        )
    cols.setdefault("audio_col", "audio_filepath")
    cols.setdefault("text_col", "text")
    cands = rows_to_candidates(header, rows, path, path.parent, drop=("duration", "offset"), **cols)
    by_line = dict(rows)
    out = []
    for c in cands:
        row = by_line[c.row]
        offset, duration = _number(row.get("offset")) or 0.0, _number(row.get("duration"))
        whole = _file_duration(c.path) if offset or duration is not None else None
        if offset or (
            duration is not None and whole is not None and duration < whole - SPAN_TOLERANCE
        ):
            end = offset + duration if duration is not None else whole
            if end is None or end <= offset:
                problems.append(
                    Problem(
                        c.row,
                        row.get("audio_filepath"),
                        f"the entry starts {offset:g} s into its file (offset) but its span "
                        "is empty or its file cannot be read; give a positive duration",
                        str(path),
                    )
                )
                continue
            c.start_s, c.end_s = offset, end
            if c.key is None:  # one file holds several entries: the span names the item
                c.key = f"{row.get('audio_filepath')}#{offset:.3f}-{end:.3f}"
        out.append(c)
    return path.parent, out, problems


# -- Lhotse ----------------------------------------------------------------------------------
def _manifests(folder: Path, kind: str) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.is_file() and kind in p.name and p.name.endswith(_JSONL)
    )


def is_lhotse_dir(path: Path) -> bool:
    """A folder with a ``*recordings*`` and a ``*supervisions*`` JSONL manifest."""
    return bool(_manifests(path, "recordings")) and bool(_manifests(path, "supervisions"))


def _split_of(name: str) -> str | None:
    stem = re.sub(r"\.(jsonl|json|ndjson)(\.gz)?$", "", name)
    rest = stem.split("supervisions", 1)[1].strip("_-.")
    return rest or None


def _recordings(path: Path, problems: list) -> dict[str, tuple]:
    """``{recording id: (line, path or None, duration)}``; refused sources are problems."""
    rows, probs = read_jsonl(path)
    problems += probs
    out: dict[str, tuple] = {}
    src = str(path)
    for line, rec in rows:
        rid, sources = rec.get("id"), rec.get("sources")
        if not rid or not isinstance(sources, list) or not sources:
            problems.append(
                Problem(line, None, "not a Lhotse recording (needs id and sources)", src)
            )
            continue
        kinds = [s.get("type") if isinstance(s, dict) else None for s in sources]
        if len(sources) > 1:
            reason = (
                f"recording {rid} has {len(sources)} sources (one file per channel); "
                "fairdesk imports one audio file per recording: mix them into one file"
            )
        elif kinds[0] != "file":
            reason = (
                f"recording {rid} is read from a {kinds[0]!s} source, not a file; fairdesk "
                "reads audio files only: write the audio out (Recording.to_file) and list it"
            )
        else:
            reason = None
        if reason:
            problems.append(Problem(line, None, reason, src))
            out[str(rid)] = (line, None, None)
            continue
        out[str(rid)] = (line, str(sources[0].get("source") or ""), _number(rec.get("duration")))
    return out


def read_lhotse(path: Path, audio_root=None, **_):
    """Candidates of a Lhotse manifest folder (see the module docstring)."""
    path = Path(path)
    folder = path.parent if path.is_file() else path
    if path.is_file():
        if "supervisions" not in path.name:
            raise ImportFailed(
                f"{path}: give the Lhotse folder or its supervisions manifest "
                "(*supervisions*.jsonl.gz)"
            )
        sups = [path]
    else:
        sups = _manifests(folder, "supervisions")
    if not sups or not _manifests(folder, "recordings"):
        raise ImportFailed(
            f"{folder}: no *recordings*.jsonl[.gz] beside a *supervisions*.jsonl[.gz] "
            "(Lhotse layout: RecordingSet and SupervisionSet manifests)"
        )
    base = Path(audio_root).expanduser() if audio_root else folder
    names = DiskNames()
    problems: list[Problem] = []
    cands: list[Candidate] = []
    for sup in sups:
        rec_path = folder / sup.name.replace("supervisions", "recordings")
        if not rec_path.exists():
            raise ImportFailed(
                f"{sup}: no recordings manifest {rec_path.name} beside it; write both sets"
            )
        recs = _recordings(rec_path, problems)
        rows, probs = read_jsonl(sup)
        problems += probs
        split, src = _split_of(sup.name), str(sup)
        for line, s in rows:
            sid, rid = s.get("id"), s.get("recording_id")
            if not sid or not rid:
                problems.append(
                    Problem(line, None, "not a Lhotse supervision (needs id and recording_id)", src)
                )
                continue
            if str(rid) not in recs:
                problems.append(
                    Problem(
                        line,
                        None,
                        f"supervision {sid} names recording {rid}, which {rec_path.name} does "
                        "not list; add the recording or remove the supervision",
                        src,
                    )
                )
                continue
            _l, audio, rec_dur = recs[str(rid)]
            if audio is None:  # its recording was refused (said there)
                continue
            start, dur = _number(s.get("start")) or 0.0, _number(s.get("duration"))
            span = None
            if start > SPAN_TOLERANCE or (
                dur is not None and rec_dur is not None and dur < rec_dur - SPAN_TOLERANCE
            ):
                end = start + dur if dur is not None else rec_dur
                if end is None or end <= start:
                    problems.append(
                        Problem(
                            line,
                            audio,
                            f"supervision {sid} starts at {start:g} s of recording {rid} but "
                            "has no positive duration; give its duration",
                            src,
                        )
                    )
                    continue
                span = (start, end)
            meta = {}
            for k in ("language", "gender", "channel"):
                if s.get(k) not in (None, ""):
                    meta[k] = s[k]
            custom = s.get("custom")
            if isinstance(custom, dict):
                meta.update({str(k): v for k, v in custom.items() if v is not None})
            if split:
                meta.setdefault("split", split)
            spk = s.get("speaker")
            cands.append(
                Candidate(
                    row=line,
                    source=src,
                    key=str(sid),
                    path=names.locate(base, audio) if audio else "",
                    text=s.get("text") if isinstance(s.get("text"), str) else None,
                    speaker_id=None if spk in (None, "") else str(spk),
                    metadata=meta,
                    start_s=span[0] if span else None,
                    end_s=span[1] if span else None,
                )
            )
    return base, cands, problems
