"""Kaldi / ESPnet data directories (``fairdesk import --format kaldi DIR``).

A data directory (Povey et al., the Kaldi "Data preparation" page; ESPnet keeps the layout)
holds one table per file, each line ``<key> <value...>``:

* ``wav.scp``: ``<recording-id> <audio path>``. An absolute path is read as written; a
  relative one from ``--audio-root`` when given, else from the data directory or, when the
  paths do not resolve there, the nearest parent folder where they do (recipes write
  ``db/...`` relative to the recipe folder, two levels above ``data/train``; the import says
  which folder it chose, :func:`fairdesk.core.audio_paths.choose_root`). A command that
  only decodes one file (``flac -c -d -s F |``, ``sox F -t wav - |``, ``sph2pipe -f wav -p
  [-c N] F |``, ``ffmpeg -i F -f wav - |``) is read as the file ``F`` itself (channel N of it
  for ``sph2pipe -c N``), never run; an archive offset (``F.ark:1234``, ``ark:F.ark:1234``)
  is read with ``kaldiio`` and written as WAV into the project's media folder. Any other
  command, and options that change the audio (``remix``, ``trim``, ``speed``, ``-r``...),
  are refused naming the line (:mod:`fairdesk.core.pipes`).
* ``text``: ``<utterance-id> <transcript>``.
* ``utt2spk`` (or ``spk2utt``): the speaker of each utterance. An utterance missing from it,
  or listed under two speakers in ``spk2utt``, is refused naming the line.
* ``spk2gender`` (``m``/``f``: stored as ``male``/``female`` by the label vocabulary,
  :mod:`fairdesk.core.labels`) and any other ``spk2*`` or
  ``utt2*`` table (``spk2age``, ``utt2lang``, ``utt2dur`` ...): metadata named after the part
  behind the ``2`` (``spk2age`` → ``age``). ``--kaldi-meta`` picks them: ``all`` (default),
  ``none`` or a comma-separated list of file names.

Without ``segments`` an utterance is a whole recording: its id is the ``wav.scp`` key. With
a ``segments`` file (``<utterance-id> <recording-id> <start> <end>``, seconds; an end of -1
is the end of the recording) each utterance is that span of its recording: the item's audio
is read from the span alone (:mod:`fairdesk.core.spans`).

The audio must lie inside the dataset folder (the data directory, or ``--audio-root``), as
for every importer; point ``--audio-root`` at the corpus folder when ``wav.scp`` lists
absolute paths there.
"""

from __future__ import annotations

import re
from pathlib import Path

from .audio_paths import choose_root, resolve_audio_path
from .errors import ImportFailed
from .import_rows import Candidate, Problem, read_text
from .names import DiskNames
from .pipes import EntryRefused, entry_audio, parse_entry
from .plurals import count

#: Tables that are structure, not metadata.
STRUCTURE = {"wav.scp", "text", "utt2spk", "spk2utt", "segments", "reco2file_and_channel"}


def is_kaldi_dir(path: Path) -> bool:
    """A Kaldi/ESPnet data directory: ``wav.scp`` beside ``text``, ``utt2spk`` or ``spk2utt``."""
    return (path / "wav.scp").is_file() and any(
        (path / n).is_file() for n in ("text", "utt2spk", "spk2utt")
    )


def read_kaldi_table(
    path: Path, problems: list, *, rest: bool = True, refused: set | None = None
) -> dict[str, tuple]:
    """``{key: (line, value)}`` of one Kaldi table; ``rest``: the value is the rest of the
    line (``text``, ``wav.scp``), else the fields after the key (``spk2utt``: a list).
    Malformed and repeated keys are problems naming the line (the first entry is kept); the
    keys of lines refused whole are added to ``refused`` (said once, here)."""
    out: dict[str, tuple] = {}
    src = str(path)
    for i, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.strip().split(None, 1)
        if len(parts) < 2 and path.name != "text":
            problems.append(
                Problem(i, None, f"{path.name} line has a key but no value: {line.strip()!r}", src)
            )
            if refused is not None:
                refused.add(parts[0])
            continue
        key = parts[0]
        value = parts[1].strip() if len(parts) > 1 else ""
        if key in out:
            problems.append(
                Problem(
                    i,
                    None,
                    f"{path.name} lists {key!r} again (first on line {out[key][0]}); "
                    "the first entry is used: remove the repeated line",
                    src,
                )
            )
            continue
        out[key] = (i, value if rest else value.split())
    return out


def _meta_files(root: Path, choice: str | None) -> list[Path]:
    found = sorted(
        p
        for p in root.iterdir()
        if p.is_file() and re.match(r"^(spk|utt)2\w+$", p.name) and p.name not in STRUCTURE
    )
    if choice is None or choice.strip().lower() == "all":
        return found
    if choice.strip().lower() == "none":
        return []
    names = [n.strip() for n in choice.split(",") if n.strip()]
    have = {p.name: p for p in found}
    missing = [n for n in names if n not in have]
    if missing:
        raise ImportFailed(
            f"{root}: --kaldi-meta names {', '.join(missing)}, not in the data directory "
            f"(its spk2*/utt2* tables: {', '.join(have) or 'none'}); name those, 'all' or 'none'"
        )
    return [have[n] for n in names]


def read_kaldi(root: Path, kaldi_meta: str | None = None, audio_root=None, media_dir=None, **_):
    """Candidates of a Kaldi/ESPnet data directory (see the module docstring); archive
    entries and channels are written into ``media_dir`` (the project's media folder).

    A transcript's problems are reported on its ``text`` line, an audio file's on its
    ``wav.scp`` line and a span's on its ``segments`` line; an empty table is one problem
    naming it and what it should hold."""
    root = Path(root)
    if not (root / "wav.scp").is_file():
        raise ImportFailed(
            f"{root}: no wav.scp (Kaldi/ESPnet data directory: wav.scp, text, utt2spk, "
            "spk2gender ...)"
        )
    problems: list[Problem] = []
    refused_wavs: set[str] = set()
    wavs = read_kaldi_table(root / "wav.scp", problems, refused=refused_wavs)
    names = DiskNames()
    base = choose_root(_entry_paths(wavs), root, audio_root, names=names)
    texts = read_kaldi_table(root / "text", problems) if (root / "text").is_file() else None
    if texts is None:
        raise ImportFailed(f"{root}: no text file (the transcripts: '<utterance-id> <words>')")
    spk: dict[str, str | None] = {}
    spk_file = next((root / n for n in ("utt2spk", "spk2utt") if (root / n).is_file()), None)
    if spk_file is not None and spk_file.name == "utt2spk":
        spk = {k: v for k, (_i, v) in read_kaldi_table(spk_file, problems).items()}
    elif spk_file is not None:
        spk = _spk2utt(spk_file, problems)
    tables = []
    for p in _meta_files(root, kaldi_meta):
        side, _sep, name = p.name.partition("2")
        values = {k: v for k, (_i, v) in read_kaldi_table(p, problems).items()}
        if not values and _is_empty(p):
            problems.append(_empty(p, f"; the items are imported without {name}"))
        tables.append((side, name, values))

    wav_src, text_src = str(root / "wav.scp"), str(root / "text")
    seg_path = root / "segments"
    refused_segs: set[str] = set()
    no_wavs = not wavs and _is_empty(root / "wav.scp")  # said once below
    segs = _segments(root, wavs, problems, refused_segs, no_wavs) if seg_path.is_file() else None
    # An empty table is said once (what it should hold), not once per line it leaves alone.
    empty = {
        p.name
        for p, table in (
            (root / "wav.scp", wavs),
            (root / "text", texts),
            (seg_path, segs),
            (spk_file, spk),
        )
        if p is not None and table is not None and not table and _is_empty(p)
    }
    n_utts = f" ({count(len(texts), 'utterance')} in text)" if texts else ""
    n_recs = f" ({count(len(wavs), 'recording')} in wav.scp)" if wavs else ""
    for name, consequence in (
        ("wav.scp", f"; so no utterance has audio and none is imported{n_utts}"),
        ("text", f"; so no recording has a transcript and none is imported{n_recs}"),
        (
            "segments",
            f"; so no utterance has a span and none is imported{n_utts} (remove segments "
            "when each recording of wav.scp is one whole utterance)",
        ),
        (
            "utt2spk",
            "; so no utterance has a speaker and none is imported (Kaldi needs a speaker for every "
            "utterance)",
        ),
        (
            "spk2utt",
            "; so no utterance has a speaker and none is imported (Kaldi needs a speaker for every "
            "utterance)",
        ),
    ):
        if name in empty:
            problems.append(_empty(root / name, consequence))
    cands = []
    audio: dict[str, str | None] = {}  # recording id -> the file read (None: refused)
    for utt, (line, value, *rest) in wavs.items() if segs is None else segs.items():
        rec = utt if segs is None else rest[-1]
        if rec not in audio:
            audio[rec] = _entry_file(rec, wavs[rec], base, names, media_dir, problems, wav_src)
            if audio[rec] is None and segs is not None:
                lost = sorted(u for u, seg in segs.items() if seg[4] == rec)
                problems[-1] = Problem(
                    problems[-1].row,
                    None,
                    problems[-1].reason
                    + f" (its {len(lost)} utterance(s) in segments, "
                    + ", ".join(lost[:5])
                    + (" ..." if len(lost) > 5 else "")
                    + ", are not imported)",
                    wav_src,
                )
        if audio[rec] is None:
            continue
        if utt not in texts:
            if "text" not in empty:
                problems.append(
                    Problem(
                        line,
                        value if segs is None else None,
                        f"{utt} has no transcript in text; add a line '{utt} <words>' or "
                        + ("remove the recording" if segs is None else "remove the segment"),
                        wav_src if segs is None else str(seg_path),
                    )
                )
            continue
        speaker = spk.get(utt)
        if spk_file is not None and utt in spk and speaker is None:  # two speakers: said
            continue
        if spk_file is not None and speaker is None:
            if spk_file.name not in empty:
                problems.append(
                    Problem(
                        texts[utt][0],
                        None,
                        f"{utt} has no speaker: it is not in {spk_file.name}; add a line "
                        f"'{utt} <speaker-id>' to utt2spk (Kaldi needs one for every utterance)",
                        text_src,
                    )
                )
            continue
        meta = {}
        for side, name, values in tables:
            key = speaker if side == "spk" else utt
            v = None if key is None else values.get(key)
            if v is not None:
                meta[name] = v
        c = Candidate(
            row=texts[utt][0],
            source=text_src,
            key=utt,
            path=audio[rec] or "",
            text=texts[utt][1],
            speaker_id=speaker,
            metadata=meta,
            audio_at=(wavs[rec][0], wav_src),
        )
        if segs is not None:
            c.start_s, c.end_s = _span_end(c.path, segs[utt][2], segs[utt][3])
            c.span_at = (segs[utt][0], str(seg_path))
            c.metadata.setdefault("recording", segs[utt][4])
        cands.append(c)
    listed, refused, table = (
        (wavs, refused_wavs, "wav.scp") if segs is None else (segs, refused_segs, "segments")
    )
    for utt, (line, _t) in texts.items():
        # a line refused in wav.scp or segments is said there, once
        if utt not in listed and utt not in refused and table not in empty:
            problems.append(
                Problem(
                    line,
                    None,
                    f"{utt} has a transcript but no "
                    + ("recording in wav.scp" if segs is None else "line in segments")
                    + "; add it there or remove the line",
                    text_src,
                )
            )
    # items read from elsewhere (absolute paths, the project's media folder for archive
    # entries and channels) keep their own roots (core.audio_paths)
    return base, cands, problems


#: What each Kaldi table holds, one line per entry (for the message about an empty one).
LINES = {
    "wav.scp": ("recording", "<recording-id> <audio path>"),
    "text": ("utterance", "<utterance-id> <transcript>"),
    "utt2spk": ("utterance", "<utterance-id> <speaker-id>"),
    "spk2utt": ("speaker", "<speaker-id> <utterance-id> <utterance-id> ..."),
    "segments": ("utterance", "<utterance-id> <recording-id> <start seconds> <end seconds>"),
}


def _is_empty(path: Path) -> bool:
    """The file holds no line but blank ones (0 bytes, or only spaces and newlines)."""
    try:
        return not read_text(path).strip()
    except (OSError, ImportFailed):
        return False


def _empty(path: Path, consequence: str) -> Problem:
    """The problem of an empty Kaldi table: which it is and what it should hold."""
    name = path.name
    what, form = LINES.get(name) or (
        ("speaker", f"<speaker-id> <{name[4:]}>")
        if name.startswith("spk2")
        else ("utterance", f"<utterance-id> <{name[4:]}>")
    )
    return Problem(
        None,
        None,
        f"{name} is empty (no lines); it should hold one line per {what}: '{form}'" + consequence,
        str(path),
    )


def _entry_paths(wavs: dict) -> list[str | None]:
    """The file each wav.scp entry reads (a pipe's input file), for choosing the folder
    relative paths start from; None for entries that are refused."""
    out: list[str | None] = []
    for _line, value, *_ in wavs.values():
        try:
            out.append(parse_entry(value).path)
        except EntryRefused:
            out.append(None)
    return out


def _entry_file(
    rec: str, entry: tuple, base: Path, names: DiskNames, media, problems: list, src: str
) -> str | None:
    """The audio file of wav.scp's entry ``(line, value)`` for recording ``rec`` (None: refused,
    a problem naming the line)."""
    line, value = entry[0], entry[1]
    try:
        parsed = parse_entry(value)
        return entry_audio(parsed, str(resolve_audio_path(parsed.path, [base], names)), media)
    except EntryRefused as exc:
        problems.append(Problem(line, None, f"{rec}: {exc}", src))
        return None


def _spk2utt(path: Path, problems: list) -> dict[str, str | None]:
    """``{utterance: speaker}`` of ``spk2utt``; an utterance listed under two speakers is a
    problem naming both lines and maps to None (refused, not given the first)."""
    owner: dict[str, tuple[str, int]] = {}
    twice: set[str] = set()
    for s, (i, utts) in read_kaldi_table(path, problems, rest=False).items():
        for u in utts:
            if u in owner and owner[u][0] != s:
                problems.append(
                    Problem(
                        i,
                        None,
                        f"{u} is listed under speaker {owner[u][0]!r} (line {owner[u][1]}) "
                        f"and under {s!r}; an utterance has one speaker: remove one of them",
                        str(path),
                    )
                )
                twice.add(u)
            owner.setdefault(u, (s, i))
    return {u: (None if u in twice else s) for u, (s, _i) in owner.items()}


def _segments(
    root: Path, wavs: dict, problems: list, refused: set, no_wavs: bool = False
) -> dict[str, tuple]:
    """``{utterance: (line, wav.scp value, start, end, recording)}`` of ``segments``; a line
    that is malformed, names no recording of wav.scp or is an empty span is a problem (its
    utterance added to ``refused``); ``no_wavs``: wav.scp is empty (said once, not per
    line)."""
    src = str(root / "segments")
    out = {}
    table = read_kaldi_table(root / "segments", problems, rest=False, refused=refused)
    for utt, (line, fields) in table.items():
        refused.add(utt)  # until the line is read whole
        if len(fields) < 3:
            problems.append(
                Problem(
                    line,
                    None,
                    f"{utt}: a segments line is '<utterance-id> <recording-id> <start> <end>'",
                    src,
                )
            )
            continue
        rec = fields[0]
        try:
            start, end = float(fields[1]), float(fields[2])
        except ValueError:
            problems.append(
                Problem(line, None, f"{utt}: start and end must be seconds: {fields[1:3]}", src)
            )
            continue
        if rec not in wavs:
            if no_wavs:
                continue
            problems.append(
                Problem(
                    line,
                    None,
                    f"{utt}: recording {rec!r} is not in wav.scp; add it there or remove the line",
                    src,
                )
            )
            continue
        if start < 0 or (end != -1 and end <= start):
            problems.append(
                Problem(
                    line,
                    None,
                    f"{utt}: the span {start:g}–{end:g} s is empty or negative; give a start "
                    "below the end (-1: to the end of the recording)",
                    src,
                )
            )
            continue
        out[utt] = (line, wavs[rec][1], start, end, rec)
        refused.discard(utt)
    return out


def _span_end(path: str, start: float, end: float) -> tuple[float, float]:
    """An end of -1 (Kaldi: to the end of the recording) as the file's duration."""
    if end != -1:
        return start, end
    try:
        import soundfile as sf

        return start, float(sf.info(path).duration)
    except Exception:  # noqa: BLE001 - unreadable: the import's audio check says why
        return start, start + 1e9
