"""Audio entries as recipes write them: commands and archive offsets, read without a shell.

Kaldi ``wav.scp`` values and Lhotse ``command`` sources may be a command whose output is the
audio (``flac -c -d -s F |``, ``sox F -t wav - |``, ``sph2pipe -f wav -p F |``,
``ffmpeg -i F -f wav - |``: what the LibriSpeech and TIMIT recipes write) or an offset into
a Kaldi archive (``F.ark:1234``, ``ark:F.ark:1234``). fairdesk never runs a command from a
manifest: :func:`parse_entry` reads the command's words (``shlex``, no shell) and, where the
command only decodes ``F`` to WAV, says to read ``F`` itself (libsndfile reads FLAC, WAV and
uncompressed NIST SPHERE). Options that change the audio (a channel other than the one
``sph2pipe -c N`` names, a rate, a range, a gain, a ``sox`` effect such as ``remix``,
``trim``, ``speed`` or ``tempo``) are refused naming the option; so is every other command.

:func:`parse_entry` is pure (no file is touched); :func:`read_archive` and
:func:`write_channel` read the audio an entry names and write it as WAV into the dataset's
media folder (content-addressed, as :mod:`fairdesk.core.importers_hf` does).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "AudioEntry",
    "EntryRefused",
    "covering_root",
    "entry_audio",
    "parse_entry",
    "read_archive",
    "sphere_compression",
    "write_channel",
]


class EntryRefused(ValueError):
    """An entry fairdesk does not read; ``str()`` says why and what to do."""


@dataclass(frozen=True)
class AudioEntry:
    """Where an entry's audio is: ``path`` as written (relative or absolute).

    ``channel``: the 0-based channel to keep (``sph2pipe -c N`` names channel N, counted
    from 1); None keeps every channel. ``offset``: the byte offset of the audio in the Kaldi
    archive ``path`` (None: ``path`` is an audio file). ``command``: the program whose
    output the entry was (None: a plain path).
    """

    path: str
    channel: int | None = None
    offset: int | None = None
    command: str | None = None


_SHELL = re.compile(r"[;&<>`$(){}*?\n]")
_ARK = re.compile(r"^(?:ark,?[a-z,]*:)?(?P<path>.+?):(?P<offset>\d+)(?P<slice>\[[^\]]*\])?$")
_FLAC_SHORT = set("cdsf")  # to stdout, decode, silent, force
_FLAC_LONG = {"--stdout", "--decode", "--silent", "--totally-silent", "--force"}
_SOX_GLOBAL = {"-q", "--no-show-progress", "-S", "--show-progress", "-R", "--no-dither"}
_WAV_TYPES = {"wav", "wavpcm", "rif", "riff"}
_FF_QUIET = {"-nostdin", "-hide_banner", "-y", "-n", "-nostats"}
_FF_VALUED_QUIET = {"-loglevel", "-v"}


def parse_entry(value: str, command: bool = False) -> AudioEntry:
    """The audio an entry names (see the module docstring).

    ``value`` is a ``wav.scp`` value (a path, ``F.ark:OFFSET`` or a command ending in
    ``|``) or, with ``command``, a Lhotse ``command`` source (a trailing ``|`` optional).
    Raises :class:`EntryRefused` for anything that would need running a program other than
    a plain decode of one file.
    """
    text = value.strip()
    piped = command or text.endswith("|")
    if text.endswith("|"):
        text = text[:-1].strip()
    if text.startswith("|"):
        raise EntryRefused(_not_run(value, "a command reading standard input"))
    if not piped:
        if text in ("-", "") or text.startswith("- "):
            raise EntryRefused(
                f"the entry {value[:80]!r} reads standard input; list an audio file instead"
            )
        ark = _ARK.match(text)
        if ark:
            if ark.group("slice"):
                raise EntryRefused(
                    f"the entry {value[:80]!r} reads a slice {ark.group('slice')} of an "
                    "archive entry; write that part of the audio out and list it"
                )
            path = ark.group("path")
            if "|" in path:
                raise EntryRefused(_not_run(value, "an archive read through a command"))
            return AudioEntry(path, offset=int(ark.group("offset")))
        if text.startswith("ark:") or text.endswith(".ark"):
            raise EntryRefused(
                f"the entry {value[:80]!r} is a whole Kaldi archive, not one entry of it; "
                "list each utterance with its offset (F.ark:OFFSET, as wav-copy's scp output "
                "writes them)"
            )
        return AudioEntry(text)
    if "|" in text:
        raise EntryRefused(_not_run(value, "a pipeline of several commands"))
    if _SHELL.search(text):
        raise EntryRefused(_not_run(value, "a shell command"))
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise EntryRefused(_not_run(value, f"a command fairdesk cannot read ({exc})")) from None
    if not words:
        raise EntryRefused(f"the entry {value!r} is empty; list an audio file")
    program = os.path.basename(words[0])
    parse = _PROGRAMS.get(program)
    if parse is None:
        raise EntryRefused(_not_run(value, f"a {program!r} command"))
    entry = parse(words[1:], value)
    return AudioEntry(entry.path, channel=entry.channel, command=program)


def _not_run(value: str, what: str) -> str:
    return (
        f"the entry {value.strip()[:120]!r} is {what}; fairdesk never runs a command from a "
        "manifest and reads only flac -c -d, sox F -t wav -, sph2pipe -f wav and ffmpeg -i F "
        "-f wav - without options that change the audio: write the audio out as a file "
        "and list the file"
    )


def _changes(value: str, option: str, what: str) -> EntryRefused:
    return EntryRefused(
        f"the entry {value.strip()[:120]!r} uses {option!r} ({what}), which changes the audio; "
        "fairdesk reads the file itself and cannot apply it: write the changed audio out as a "
        "file and list the file"
    )


def _one_file(files: list[str], value: str, program: str) -> str:
    if len(files) != 1:
        raise EntryRefused(
            f"the entry {value.strip()[:120]!r} names {len(files)} input files to {program}; "
            "list one audio file per entry"
        )
    return files[0]


def _flac(args: list[str], value: str) -> AudioEntry:
    flags: set[str] = set()
    files = []
    for a in args:
        if a.startswith("--"):
            if a not in _FLAC_LONG:
                raise _changes(value, a, "a flac option other than decoding to standard output")
            flags.add({"--stdout": "c", "--decode": "d"}.get(a, "s"))
        elif a.startswith("-") and len(a) > 1:
            bad = set(a[1:]) - _FLAC_SHORT
            if bad:
                raise _changes(value, a, "a flac option other than -c -d -s -f")
            flags |= set(a[1:])
        else:
            files.append(a)
    if not {"c", "d"} <= flags:
        raise EntryRefused(
            f"the entry {value.strip()[:120]!r} does not decode to standard output "
            "(flac needs -c -d); list the audio file instead"
        )
    return AudioEntry(_one_file(files, value, "flac"))


def _sox(args: list[str], value: str) -> AudioEntry:
    files: list[str] = []
    out_type = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in _SOX_GLOBAL or re.fullmatch(r"-V\d?", a):
            i += 1
            continue
        if a in ("-t", "--type"):
            if i + 1 >= len(args):
                raise EntryRefused(f"the entry {value.strip()[:120]!r} ends after {a}")
            if files:  # the output's type (the input's is whatever the file is)
                out_type = args[i + 1].lower()
            i += 2
            continue
        if a == "-":
            files.append(a)
            i += 1
            if i < len(args):
                raise _changes(value, args[i], "a sox effect")
            break
        if a.startswith("-") and len(a) > 1:
            raise _changes(value, a, "a sox format or global option")
        files.append(a)
        i += 1
    if len(files) != 2 or files[-1] != "-":
        if len(files) > 2 and files[-1] != "-":
            raise _changes(value, files[2], "a sox effect")
        raise EntryRefused(
            f"the entry {value.strip()[:120]!r} does not write one file to standard output "
            "(sox F -t wav -); list the audio file instead"
        )
    if out_type not in _WAV_TYPES:
        raise EntryRefused(
            f"the entry {value.strip()[:120]!r} writes {out_type or 'no -t'} to standard "
            "output, not WAV (sox F -t wav -); list the audio file instead"
        )
    return AudioEntry(files[0])


def _sph2pipe(args: list[str], value: str) -> AudioEntry:
    files: list[str] = []
    channel = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-f", "-c") and i + 1 < len(args):
            v = args[i + 1]
            if a == "-f" and v.lower() not in _WAV_TYPES:
                raise _changes(value, f"-f {v}", "an output format other than WAV")
            if a == "-c":
                if v not in ("1", "2"):
                    raise EntryRefused(
                        f"the entry {value.strip()[:120]!r} asks for channel {v}; sph2pipe "
                        "-c takes 1 or 2"
                    )
                channel = int(v) - 1
            i += 2
            continue
        if a == "-p":  # 16-bit PCM out: what libsndfile decodes from any SPHERE coding
            i += 1
            continue
        if a in ("-t", "-s"):
            raise _changes(value, a, "a time or sample range")
        if a in ("-u", "-a"):
            raise _changes(value, a, "u-law or a-law output")
        if a.startswith("-") and len(a) > 1:
            raise _changes(value, a, "a sph2pipe option other than -f wav, -p, -c")
        files.append(a)
        i += 1
    if len(files) > 1:
        raise EntryRefused(
            f"the entry {value.strip()[:120]!r} writes to the file {files[1]!r}, not to "
            "standard output; list that file instead"
        )
    return AudioEntry(_one_file(files, value, "sph2pipe"), channel=channel)


def _ffmpeg(args: list[str], value: str) -> AudioEntry:
    files: list[str] = []
    out_format = None
    out = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in _FF_QUIET:
            i += 1
        elif a in _FF_VALUED_QUIET and i + 1 < len(args):
            i += 2
        elif a == "-i" and i + 1 < len(args):
            files.append(args[i + 1])
            i += 2
        elif a == "-f" and i + 1 < len(args):
            out_format = args[i + 1].lower()
            i += 2
        elif a == "-" or a == "pipe:1" or a == "pipe:":
            out = a
            i += 1
            if i < len(args):
                raise _changes(value, args[i], "an ffmpeg option after the output")
        elif a.startswith("-"):
            raise _changes(value, a, "an ffmpeg option other than -i F -f wav")
        else:
            raise EntryRefused(
                f"the entry {value.strip()[:120]!r} writes to the file {a!r}, not to "
                "standard output; list that file instead"
            )
    if out is None or out_format != "wav":
        raise EntryRefused(
            f"the entry {value.strip()[:120]!r} does not write WAV to standard output "
            "(ffmpeg -i F -f wav -); list the audio file instead"
        )
    return AudioEntry(_one_file(files, value, "ffmpeg"))


_PROGRAMS = {"flac": _flac, "sox": _sox, "sph2pipe": _sph2pipe, "ffmpeg": _ffmpeg}


# -- reading what an entry names -------------------------------------------------------------
def sphere_compression(path) -> str | None:
    """The ``sample_coding`` compression of a NIST SPHERE file (``shorten``, ``wavpack``...)
    or None when it is uncompressed (or not SPHERE)."""
    try:
        with open(path, "rb") as f:
            head = f.read(1024)
    except OSError:
        return None
    if not head.startswith(b"NIST_1A"):
        return None
    m = re.search(rb"sample_coding\s+-s\d+\s+(\S+)", head)
    if not m:
        return None
    coding = m.group(1).decode("ascii", "replace").lower()
    for kind in ("shorten", "wavpack", "shortpack"):
        if kind in coding:
            return kind
    return None


def _wav_bytes(data, rate: int) -> bytes:
    import soundfile as sf

    buf = io.BytesIO()
    subtype = "PCM_16" if str(getattr(data, "dtype", "")) == "int16" else "FLOAT"
    sf.write(buf, data, int(rate), format="WAV", subtype=subtype)
    return buf.getvalue()


def _write_media(media: Path, data: bytes) -> Path:
    from .atomic import write_bytes

    target = Path(media) / f"{hashlib.sha256(data).hexdigest()[:24]}.wav"
    if not target.exists():
        write_bytes(target, data, make_parents=True)
    return target


def read_archive(path: str, offset: int, media: Path) -> Path:
    """Write the waveform at ``offset`` of the Kaldi archive ``path`` as WAV into ``media``
    and return that file. ``path`` must be an existing regular file (never a command:
    ``kaldiio.load_mat`` gets ``path:offset`` only after that check). Raises
    :class:`EntryRefused` naming what is wrong."""
    p = Path(path)
    if not p.is_file():
        raise EntryRefused(f"the archive {path} does not exist; check the path in the entry")
    if str(p).strip().startswith("|") or str(p).strip().endswith("|"):
        raise EntryRefused(_not_run(path, "a command"))
    try:
        import kaldiio
    except ImportError:
        raise EntryRefused(
            f"reading the Kaldi archive {p.name} needs the kaldiio package, a dependency of "
            "fairdesk that is not installed: pip install kaldiio"
        ) from None
    try:
        name = str(p.resolve())
        if "[" in name:  # load_mat would read "[...]" as a slice: seek and read the object
            with open(name, "rb") as fd:
                fd.seek(int(offset))
                got = kaldiio.matio.read_kaldi(fd)
        else:
            got = kaldiio.load_mat(f"{name}:{int(offset)}")
    except Exception as exc:  # noqa: BLE001 - kaldiio raises ValueError, struct.error, OSError
        raise EntryRefused(
            f"offset {offset} of the archive {p.name} holds no readable Kaldi object ({exc}); "
            "check the offset (wav-copy's scp output lists them)"
        ) from None
    if not (isinstance(got, tuple) and len(got) == 2):
        raise EntryRefused(
            f"offset {offset} of the archive {p.name} holds a matrix (features), not a "
            "waveform; list the audio (wav.scp of the waveforms) instead"
        )
    rate, data = got
    return _write_media(media, _wav_bytes(data, int(rate)))


def write_channel(path: str, channel: int, media: Path) -> Path:
    """Write channel ``channel`` (0-based) of the audio file ``path`` as WAV into
    ``media`` and return that file. Raises :class:`EntryRefused` when the file has no such
    channel or cannot be read."""
    import soundfile as sf

    try:
        data, rate = sf.read(str(path), dtype="int16", always_2d=True)
    except Exception as exc:  # noqa: BLE001 - libsndfile's errors
        raise EntryRefused(f"{path} cannot be read as audio ({exc}); check the file") from None
    if channel >= data.shape[1]:
        raise EntryRefused(
            f"the entry asks for channel {channel + 1} of {path}, which has "
            f"{data.shape[1]} channel(s); fix -c in the entry"
        )
    if data.shape[1] == 1:
        return Path(path)
    return _write_media(media, _wav_bytes(data[:, channel].copy(), int(rate)))


def _channels(path: str) -> int | None:
    import soundfile as sf

    try:
        return int(sf.info(str(path)).channels)
    except Exception:  # noqa: BLE001 - libsndfile's errors: not readable here
        return None


def entry_audio(entry: AudioEntry, located: str, media: Path | None) -> str:
    """The audio file an import reads for ``entry`` whose ``path`` was found at ``located``:
    the file itself, or the archive entry or channel written as WAV into ``media``. Raises
    :class:`EntryRefused` (a compressed SPHERE file, a missing channel, no project to
    extract into)."""
    kind = sphere_compression(located)
    if kind:
        raise EntryRefused(
            f"{located} is NIST SPHERE compressed with {kind}, which fairdesk cannot decode; "
            "convert it with sph2pipe -f wav (sph2pipe -f wav F.sph F.wav) and list the WAV"
        )
    if entry.offset is None and (entry.channel is None or _channels(located) in (None, 1)):
        return located  # (a missing or unreadable file: the import's audio check says why)
    if media is None:
        raise EntryRefused(
            "the entry's audio is extracted into the project's media folder: import it "
            "through a project"
        )
    if entry.offset is not None:
        return str(read_archive(located, entry.offset, media))
    return str(write_channel(located, int(entry.channel or 0), media))


def covering_root(base: Path, media: Path | None, paths: list[str]) -> Path:
    """The root an import stores its item paths under: ``base`` when no path lies in the
    project's ``media`` folder, ``media`` when every one does, else the deepest folder
    holding both (a data directory with some entries extracted). Paths to no file are left
    out (the import reports them not found)."""
    base = Path(base)
    if media is None:
        return base
    media = Path(media).resolve()

    def in_media(p: str) -> bool:
        try:
            Path(p).resolve().relative_to(media)
        except (ValueError, OSError, RuntimeError):
            return False
        return True

    inside = [in_media(p) for p in paths if p and os.path.lexists(p)]  # (missing: reported)
    if not any(inside):
        return base
    if all(inside):
        return media
    return Path(os.path.commonpath([str(base.resolve()), str(media)]))
