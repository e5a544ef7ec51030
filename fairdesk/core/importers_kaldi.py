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

#: Tables that are structure, not metadata.
STRUCTURE = {"wav.scp", "text", "utt2spk", "spk2utt", "segments", "reco2file_and_channel"}


def is_kaldi_dir(path: Path) -> bool:
    """A Kaldi/ESPnet data directory: ``wav.scp`` beside ``text``, ``utt2spk`` or ``spk2utt``."""
    return (path / "wav.scp").is_file() and any(
        (path / n).is_file() for n in ("text", "utt2spk", "spk2utt")
    )


def read_kaldi_table(path: Path, problems: list, *, rest: bool = True) -> dict[str, tuple]:
    """``{key: (line, value)}`` of one Kaldi table; ``rest``: the value is the rest of the
    line (``text``, ``wav.scp``), else the fields after the key (``spk2utt``: a list).
    Malformed and repeated keys are problems naming the line (the first entry is kept)."""
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
    entries and channels are written into ``media_dir`` (the project's media folder)."""
    root = Path(root)
    if not (root / "wav.scp").is_file():
        raise ImportFailed(
            f"{root}: no wav.scp (Kaldi/ESPnet data directory: wav.scp, text, utt2spk, "
            "spk2gender ...)"
        )
    problems: list[Problem] = []
    wavs = read_kaldi_table(root / "wav.scp", problems)
    names = DiskNames()
    base = choose_root(_entry_paths(wavs), root, audio_root, names=names)
    texts = read_kaldi_table(root / "text", problems) if (root / "text").is_file() else None
    if texts is None:
        raise ImportFailed(f"{root}: no text file (the transcripts: '<utterance-id> <words>')")
    spk: dict[str, str | None] = {}
    has_spk = (root / "utt2spk").is_file() or (root / "spk2utt").is_file()
    if (root / "utt2spk").is_file():
        spk = {k: v for k, (_i, v) in read_kaldi_table(root / "utt2spk", problems).items()}
    elif (root / "spk2utt").is_file():
        spk = _spk2utt(root / "spk2utt", problems)
    tables = []
    for p in _meta_files(root, kaldi_meta):
        side, _, name = p.name.partition("2")
        values = {k: v for k, (_i, v) in read_kaldi_table(p, problems).items()}
        tables.append((side, name, values))

    wav_src, text_src = str(root / "wav.scp"), str(root / "text")
    segs = _segments(root, wavs, problems) if (root / "segments").is_file() else None
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
            problems.append(
                Problem(
                    line,
                    value,
                    f"{utt} has no transcript in text; add a line '{utt} <words>' or "
                    "remove the recording",
                    wav_src,
                )
            )
            continue
        speaker = spk.get(utt)
        if has_spk and utt in spk and speaker is None:  # under two speakers: said in spk2utt
            continue
        if has_spk and speaker is None:
            problems.append(
                Problem(
                    texts[utt][0],
                    None,
                    f"{utt} has no speaker: it is not in "
                    + ("utt2spk" if (root / "utt2spk").is_file() else "spk2utt")
                    + f"; add a line '{utt} <speaker-id>' to utt2spk (Kaldi needs one for "
                    "every utterance)",
                    text_src,
                )
            )
            continue
        meta = {}
        for side, name, values in tables:
            v = values.get(speaker if side == "spk" else utt)
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
        )
        if segs is not None:
            c.start_s, c.end_s = _span_end(c.path, segs[utt][2], segs[utt][3])
            c.metadata.setdefault("recording", segs[utt][4])
        cands.append(c)
    for utt, (line, _t) in texts.items():
        if utt not in (wavs if segs is None else segs):
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


def _segments(root: Path, wavs: dict, problems: list) -> dict[str, tuple]:
    """``{utterance: (line, wav.scp value, start, end, recording)}`` of ``segments``; a line
    that is malformed, names no recording of wav.scp or is an empty span is a problem."""
    src = str(root / "segments")
    out = {}
    for utt, (line, fields) in read_kaldi_table(root / "segments", problems, rest=False).items():
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
