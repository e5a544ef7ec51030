"""Kaldi / ESPnet data directories (``fairdesk import --format kaldi DIR``).

A data directory (Povey et al., the Kaldi "Data preparation" page; ESPnet keeps the layout)
holds one table per file, each line ``<key> <value...>``:

* ``wav.scp``: ``<recording-id> <audio path>``. An absolute path is read as written; a
  relative one from ``--audio-root`` when given, else from the data directory or, when the
  paths do not resolve there, the nearest parent folder where they do (recipes write
  ``db/...`` relative to the recipe folder, two levels above ``data/train``). An entry that is
  a command (``... |``) or an archive offset (``foo.ark:1234``) is refused naming its line:
  fairdesk reads audio files, so write the audio out first.
* ``text``: ``<utterance-id> <transcript>``.
* ``utt2spk`` (or ``spk2utt``): the speaker of each utterance.
* ``spk2gender`` (``m``/``f``, stored as ``male``/``female``) and any other ``spk2*`` or
  ``utt2*`` table (``spk2age``, ``utt2lang``, ``utt2dur`` ...): metadata named after the part
  behind the ``2`` (``spk2age`` → ``age``). ``--kaldi-meta`` picks them: ``all`` (default),
  ``none`` or a comma-separated list of file names.

Without ``segments`` an utterance is a whole recording: its id is the ``wav.scp`` key. With
a ``segments`` file (``<utterance-id> <recording-id> <start> <end>``, seconds; an end of -1
is the end of the recording) each utterance is that span of its recording: the item's audio
is read from the span alone (:mod:`fairdesk.core.spans`).

The import says which folder relative paths were read from
(:func:`fairdesk.core.audio_paths.choose_root`).
"""

from __future__ import annotations

import re
from pathlib import Path

from .audio_paths import choose_root, resolve_audio_path
from .errors import ImportFailed
from .import_rows import Candidate, Problem, read_text
from .names import DiskNames

#: Tables that are structure, not metadata.
STRUCTURE = {"wav.scp", "text", "utt2spk", "spk2utt", "segments", "reco2file_and_channel"}
GENDERS = {"m": "male", "f": "female"}
_ARK_OFFSET = re.compile(r"\.(ark|scp):\d+$")


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


def _audio_entry(value: str) -> str | None:
    """Why a wav.scp value is not a file path (None: it is one)."""
    if value.endswith("|"):
        return (
            f"the entry is a command ({value[:80]!r}), not an audio file; fairdesk reads "
            "audio files only: run the command to write the audio out and list the file"
        )
    if value.startswith("-") or value.endswith("-"):
        return f"the entry {value[:80]!r} reads standard input; list an audio file instead"
    if _ARK_OFFSET.search(value):
        return (
            f"the entry {value[:80]!r} is an offset into a Kaldi archive; write the audio out "
            "as files (e.g. wav-copy) and list them"
        )
    return None


def read_kaldi(root: Path, kaldi_meta: str | None = None, audio_root=None, **_):
    """Candidates of a Kaldi/ESPnet data directory (see the module docstring)."""
    root = Path(root)
    if not (root / "wav.scp").is_file():
        raise ImportFailed(
            f"{root}: no wav.scp (Kaldi/ESPnet data directory: wav.scp, text, utt2spk, "
            "spk2gender ...)"
        )
    problems: list[Problem] = []
    wavs = read_kaldi_table(root / "wav.scp", problems)
    names = DiskNames()
    base = choose_root(
        [v for _i, v, *_ in wavs.values() if _audio_entry(v) is None], root, audio_root, names=names
    )
    texts = read_kaldi_table(root / "text", problems) if (root / "text").is_file() else None
    if texts is None:
        raise ImportFailed(f"{root}: no text file (the transcripts: '<utterance-id> <words>')")
    spk: dict[str, str] = {}
    if (root / "utt2spk").is_file():
        spk = {k: v for k, (_i, v) in read_kaldi_table(root / "utt2spk", problems).items()}
    elif (root / "spk2utt").is_file():
        for s, (_i, utts) in read_kaldi_table(root / "spk2utt", problems, rest=False).items():
            for u in utts:
                spk.setdefault(u, s)
    tables = []
    for p in _meta_files(root, kaldi_meta):
        side, _, name = p.name.partition("2")
        values = {k: v for k, (_i, v) in read_kaldi_table(p, problems).items()}
        if name == "gender":
            values = {k: GENDERS.get(v.lower(), v) for k, v in values.items()}
        tables.append((side, name, values))

    wav_src, text_src = str(root / "wav.scp"), str(root / "text")
    segs = _segments(root, wavs, problems) if (root / "segments").is_file() else None
    cands = []
    for utt, (line, value, *_) in wavs.items() if segs is None else segs.items():
        bad = _audio_entry(value)
        if bad:
            problems.append(Problem(line, None, f"{utt}: {bad}", wav_src))
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
        meta = {}
        for side, name, values in tables:
            v = values.get(speaker if side == "spk" else utt)
            if v is not None:
                meta[name] = v
        c = Candidate(
            row=texts[utt][0],
            source=text_src,
            key=utt,
            path=str(resolve_audio_path(value, [base], names)),
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
    return base, cands, problems


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
