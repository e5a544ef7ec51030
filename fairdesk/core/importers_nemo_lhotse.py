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
(a path relative to the folder, or to ``--audio-root``) or one ``command`` source that only
decodes a file (read as the file itself, never run: :mod:`fairdesk.core.pipes`); a
supervision is an item when it covers its whole recording (``start`` 0 and ``duration`` the
recording's, within 10 ms) or is the span ``start`` to ``start + duration`` of it (a partial
supervision): its ``id`` is the item id, ``text``, ``speaker`` and ``language``/``gender``
are kept, and the keys of ``custom`` become metadata. A supervision of channel N of a
multi-channel recording reads that channel (written as WAV into the project's media
folder). ``url``/``memory``/``shar`` sources and other commands are refused naming their line.

A Lhotse ``CutSet`` (``*cuts*.jsonl[.gz]``, icefall's ``data/fbank/librispeech_cuts_train-
clean-100.jsonl.gz``; one ``MonoCut`` per line with its ``recording`` and ``supervisions``
inline), given as the file or a folder holding such files: each supervision of a cut is an
item, the span ``cut start + supervision start`` for the supervision's ``duration`` in the
cut's recording (the whole recording when it covers it), with the cut's ``custom`` fields
as metadata under the supervision's own; the split is the part of the name after
``cuts_``. A ``MixedCut``/``PaddingCut`` and a cut without supervisions are refused naming
their line.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from pathlib import Path

from .audio_paths import choose_root, resolve_audio_path
from .errors import ImportFailed
from .import_rows import (
    Candidate,
    Problem,
    listed_paths,
    read_jsonl,
    read_table,
    rows_to_candidates,
)
from .names import DiskNames
from .pipes import AudioEntry, EntryRefused, entry_audio, parse_entry

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


def _bad_seconds(row: dict, keys) -> str | None:
    """Why a value of ``keys`` in ``row`` is not a number of seconds (None: each is one, or
    absent)."""
    for k in keys:
        v = row.get(k)
        if v is None or v == "" or isinstance(v, bool):
            if isinstance(v, bool):
                return f"{k} is {v!r}, not a number of seconds; write it as a number (3.5)"
            continue
        if isinstance(v, (int, float)):
            n = float(v)
        else:
            text = str(v).strip()
            try:
                n = float(text)
            except ValueError:
                fix = (
                    f"write {text.replace(',', '.')} (a decimal point, not a comma)"
                    if re.fullmatch(r"-?\d+,\d+", text)
                    else "write the seconds as a number (3.5)"
                )
                return f"{k} is {v!r}, not a number of seconds; {fix}, or remove the entry"
        if not math.isfinite(n) or n < 0:
            return f"{k} is {v!r}; give a number of seconds of 0 or more"
    return None


def _file_duration(path: str) -> float | None:
    import soundfile as sf

    try:
        return float(sf.info(path).duration)
    except Exception:  # noqa: BLE001 - any unreadable file: the import's audio check says why
        return None


def read_nemo(path: Path, audio_root=None, **cols):
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
    base = choose_root(listed_paths(header, rows, path, cols["audio_col"]), path.parent, audio_root)
    cands = rows_to_candidates(header, rows, path, base, drop=("duration", "offset"), **cols)
    by_line = dict(rows)
    out = []
    for c in cands:
        row = by_line[c.row]
        bad = _bad_seconds(row, ("offset", "duration"))
        if bad:
            problems.append(Problem(c.row, row.get("audio_filepath"), bad, str(path)))
            continue
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
    return base, out, problems


# -- Lhotse ----------------------------------------------------------------------------------
def _manifests(folder: Path, kind: str) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.is_file() and kind in p.name and p.name.endswith(_JSONL)
    )


def _first_line_record(path: Path) -> dict | None:
    """The first JSON object of a JSONL file, gzipped or not (None: not one)."""
    try:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    obj = json.loads(line)
                    return obj if isinstance(obj, dict) else None
    except (OSError, ValueError, EOFError, zlib.error, RecursionError):
        return None  # deeply nested JSON too: not a cut (the import says what it is)
    return None


def is_cutset(path: Path) -> bool:
    """A Lhotse CutSet manifest: a JSONL file whose first record is a cut (``type``
    ``MonoCut``, or a ``recording`` beside ``supervisions``)."""
    if not path.is_file() or not path.name.lower().endswith(_JSONL):
        return False
    rec = _first_line_record(path)
    return rec is not None and (
        str(rec.get("type", "")).endswith("Cut") or ("recording" in rec and "supervisions" in rec)
    )


def _cut_files(folder: Path) -> list[Path]:
    return [p for p in _manifests(folder, "cuts") if is_cutset(p)]


def is_lhotse_dir(path: Path) -> bool:
    """A folder with a ``*recordings*`` and a ``*supervisions*`` JSONL manifest, or with
    ``*cuts*`` CutSet manifests (icefall's ``data/fbank``)."""
    return (bool(_manifests(path, "recordings")) and bool(_manifests(path, "supervisions"))) or (
        bool(_cut_files(path))
    )


def _split_of(name: str, kind: str = "supervisions") -> str | None:
    stem = re.sub(r"\.(jsonl|json|ndjson)(\.gz)?$", "", name)
    rest = stem.split(kind, 1)[1].strip("_-.") if kind in stem else ""
    return rest or None


def _source(rid, sources) -> AudioEntry | str:
    """The audio of a Lhotse recording's ``sources``, or why it is refused."""
    if not isinstance(sources, list) or not sources:
        return "not a Lhotse recording (needs id and sources)"
    if len(sources) > 1:
        return (
            f"recording {rid} has {len(sources)} sources (one file per channel); "
            "fairdesk imports one audio file per recording: mix them into one file"
        )
    src = sources[0] if isinstance(sources[0], dict) else {}
    kind, value = src.get("type"), str(src.get("source") or "")
    if kind == "file":
        return AudioEntry(value)
    if kind == "command":
        try:
            return parse_entry(value, command=True)
        except EntryRefused as exc:
            return f"recording {rid}: {exc}"
    return (
        f"recording {rid} is read from a {kind!s} source, not a file; fairdesk "
        "reads audio files only: write the audio out (Recording.to_file) and list it"
    )


def _recordings(path: Path, problems: list) -> dict[str, tuple]:
    """``{recording id: (line, AudioEntry or None, duration)}``; refused sources are
    problems."""
    rows, probs = read_jsonl(path)
    problems += probs
    out: dict[str, tuple] = {}
    src = str(path)
    for line, rec in rows:
        rid = rec.get("id")
        got = _source(rid, rec.get("sources")) if rid else "not a Lhotse recording (needs id)"
        if isinstance(got, str):
            problems.append(Problem(line, None, got, src))
            if rid:
                out[str(rid)] = (line, None, None)
            continue
        out[str(rid)] = (line, got, _number(rec.get("duration")))
    return out


class _Audio:
    """The audio files of a Lhotse import: each source found once (``--audio-root`` or the
    manifest's folder), its channel extracted into the media folder when one is picked."""

    def __init__(self, base: Path, media):
        self.base, self.media, self.names = base, media, DiskNames()
        self._done: dict[tuple, str | EntryRefused] = {}

    def file(self, entry: AudioEntry, channel) -> str:
        """The file to read; raises :class:`EntryRefused`."""
        if entry.channel is None and isinstance(channel, int) and not isinstance(channel, bool):
            entry = AudioEntry(entry.path, channel=channel, command=entry.command)
        key = (entry.path, entry.channel, entry.offset)
        if key not in self._done:
            try:
                located = str(resolve_audio_path(entry.path, [self.base], self.names))
                self._done[key] = entry_audio(entry, located, self.media)
            except EntryRefused as exc:
                self._done[key] = exc
        got = self._done[key]
        if isinstance(got, EntryRefused):
            raise got
        return got


def _span(start: float, dur, rec_dur) -> tuple[float, float] | None | str:
    """The span of a supervision in its recording: None for the whole recording, a reason
    when it has no positive length."""
    if start > SPAN_TOLERANCE or (
        dur is not None and rec_dur is not None and dur < rec_dur - SPAN_TOLERANCE
    ):
        end = start + dur if dur is not None else rec_dur
        if end is None or end <= start:
            return "has no positive duration; give its duration"
        return (start, end)
    return None


def _scalars(d) -> dict:
    return (
        {str(k): v for k, v in d.items() if isinstance(v, (str, int, float, bool))}
        if isinstance(d, dict)
        else {}
    )


def _supervision_meta(s: dict) -> dict:
    meta = {k: s[k] for k in ("language", "gender") if s.get(k) not in (None, "")}
    if isinstance(s.get("channel"), int):
        meta["channel"] = s["channel"]
    meta.update(_scalars(s.get("custom")))
    return meta


def read_lhotse(path: Path, audio_root=None, media_dir=None, **_):
    """Candidates of a Lhotse manifest folder, supervisions manifest or CutSet (see the
    module docstring)."""
    path = Path(path)
    folder = path.parent if path.is_file() else path
    if path.is_file() and is_cutset(path):
        cut_files: list[Path] | None = [path]
    elif path.is_dir() and not _manifests(folder, "supervisions") and _cut_files(folder):
        cut_files = _cut_files(folder)
    else:
        cut_files = None
    base = choose_root(_listed_sources(folder, cut_files), folder, audio_root)
    audio = _Audio(base, media_dir)
    if cut_files is not None:
        cands, problems = _read_cuts(cut_files, audio)
    else:
        cands, problems = _read_pairs(path, folder, audio)
    # items read from elsewhere (absolute paths, the project's media folder for archive
    # entries and channels) keep their own roots (core.audio_paths)
    return base, cands, problems


def _listed_sources(folder: Path, cut_files: list[Path] | None) -> list[str | None]:
    """The file of each recording's source (a command's input file), for choosing the folder
    relative paths start from (None where a source is refused or not a file)."""
    recs: list = []
    if cut_files is None:
        for rec_path in _manifests(folder, "recordings"):
            rows, _probs = read_jsonl(rec_path)
            recs += [rec for _line, rec in rows]
    else:
        for f in cut_files:
            rows, _probs = read_jsonl(f)
            recs += [cut.get("recording") for _line, cut in rows if isinstance(cut, dict)]
    out: list[str | None] = []
    for rec in recs:
        src = rec.get("sources") if isinstance(rec, dict) else None
        first = src[0] if isinstance(src, list) and src and isinstance(src[0], dict) else {}
        kind, value = first.get("type"), first.get("source")
        try:
            if kind == "file" and isinstance(value, str):
                out.append(parse_entry(value).path)
            elif kind == "command" and isinstance(value, str):
                out.append(parse_entry(value, command=True).path)
            else:
                out.append(None)
        except EntryRefused:
            out.append(None)
    return out


def _read_pairs(path: Path, folder: Path, audio: _Audio):
    if path.is_file():
        if "supervisions" not in path.name:
            raise ImportFailed(
                f"{path}: give the Lhotse folder, its supervisions manifest "
                "(*supervisions*.jsonl.gz) or a CutSet (*cuts*.jsonl.gz)"
            )
        sups = [path]
    else:
        sups = _manifests(folder, "supervisions")
    if not sups or not _manifests(folder, "recordings"):
        raise ImportFailed(
            f"{folder}: no *recordings*.jsonl[.gz] beside a *supervisions*.jsonl[.gz] "
            "and no *cuts*.jsonl[.gz] (Lhotse layout: RecordingSet and SupervisionSet "
            "manifests, or a CutSet)"
        )
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
            _l, entry, rec_dur = recs[str(rid)]
            if entry is None:  # its recording was refused (said there)
                continue
            bad = _bad_seconds(s, ("start", "duration"))
            start, dur = _number(s.get("start")) or 0.0, _number(s.get("duration"))
            span = bad or _span(start, dur, rec_dur)
            if isinstance(span, str):
                problems.append(
                    Problem(line, entry.path, f"supervision {sid} of recording {rid}: {span}", src)
                )
                continue
            try:
                file = audio.file(entry, s.get("channel"))
            except EntryRefused as exc:
                problems.append(Problem(line, entry.path, f"supervision {sid}: {exc}", src))
                continue
            meta = _supervision_meta(s)
            if split:
                meta.setdefault("split", split)
            cands.append(_candidate(line, src, s, file, meta, span))
    return cands, problems


def _candidate(line: int, src: str, s: dict, file: str, meta: dict, span) -> Candidate:
    spk = s.get("speaker")
    return Candidate(
        row=line,
        source=src,
        key=str(s.get("id")),
        path=file,
        text=s.get("text") if isinstance(s.get("text"), str) else None,
        speaker_id=None if spk in (None, "") else str(spk),
        metadata=meta,
        start_s=span[0] if span else None,
        end_s=span[1] if span else None,
    )


def _read_cuts(files: list[Path], audio: _Audio):
    """Candidates of CutSet manifests: one item per supervision of each MonoCut, the span
    ``cut start + supervision start`` for the supervision's duration in the cut's recording;
    the cut's ``custom`` fields are metadata under the supervision's own."""
    problems: list[Problem] = []
    cands: list[Candidate] = []
    for f in files:
        rows, probs = read_jsonl(f)
        problems += probs
        split, src = _split_of(f.name, "cuts"), str(f)
        for line, cut in rows:
            cid, kind = cut.get("id"), str(cut.get("type") or "MonoCut")
            rec = cut.get("recording")
            if kind != "MonoCut" or not isinstance(rec, dict):
                problems.append(
                    Problem(
                        line,
                        None,
                        f"cut {cid} is a {kind}"
                        + ("" if isinstance(rec, dict) else " without a recording")
                        + "; fairdesk reads MonoCuts over a recording: write the mixed or "
                        "padded audio out (CutSet.save_audios) and import that CutSet",
                        src,
                    )
                )
                continue
            rid = rec.get("id")
            entry = _source(rid, rec.get("sources"))
            if isinstance(entry, str):
                problems.append(Problem(line, None, f"cut {cid}: {entry}", src))
                continue
            sups = cut.get("supervisions")
            if not isinstance(sups, list) or not sups:
                problems.append(
                    Problem(
                        line,
                        None,
                        f"cut {cid} has no supervision (no transcript); add one or leave "
                        "the cut out",
                        src,
                    )
                )
                continue
            bad = _bad_seconds(cut, ("start", "duration"))
            if bad:
                problems.append(Problem(line, entry.path, f"cut {cid}: {bad}", src))
                continue
            cut_start = _number(cut.get("start")) or 0.0
            rec_dur = _number(rec.get("duration"))
            channel = cut.get("channel")
            if isinstance(channel, list):
                channel = channel[0] if len(channel) == 1 else channel
            if isinstance(channel, list):
                problems.append(
                    Problem(
                        line,
                        entry.path,
                        f"cut {cid} spans channels {channel}; fairdesk reads one channel per "
                        "item: give the cut one channel",
                        src,
                    )
                )
                continue
            try:
                file = audio.file(entry, channel)
            except EntryRefused as exc:
                problems.append(Problem(line, entry.path, f"cut {cid}: {exc}", src))
                continue
            custom = _scalars(cut.get("custom"))
            for s in sups:
                if not isinstance(s, dict) or not s.get("id"):
                    problems.append(
                        Problem(line, None, f"cut {cid}: a supervision without an id", src)
                    )
                    continue
                bad = _bad_seconds(s, ("start", "duration"))
                start = cut_start + (_number(s.get("start")) or 0.0)
                span = bad or _span(start, _number(s.get("duration")), rec_dur)
                if isinstance(span, str):
                    problems.append(
                        Problem(line, entry.path, f"cut {cid}, supervision {s['id']}: {span}", src)
                    )
                    continue
                meta = {**custom, **_supervision_meta(s)}
                meta.pop("channel", None)
                if split:
                    meta.setdefault("split", split)
                cands.append(_candidate(line, src, s, file, meta, span))
    return cands, problems
