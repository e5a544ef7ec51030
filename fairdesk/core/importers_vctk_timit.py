"""VCTK and TIMIT readers (``--format vctk DIR``, ``--format timit DIR``).

VCTK (Yamagishi et al., CSTR VCTK Corpus 0.92, and the older 0.80)
    ``speaker-info.txt`` (columns ``ID AGE GENDER ACCENTS REGION [COMMENTS]``; 0.80 writes the
    id without its ``p``), ``txt/<speaker>/<utt>.txt`` and the audio in
    ``wav48_silence_trimmed/<speaker>/<utt>_mic1.flac`` (0.92) or ``wav48/<speaker>/<utt>.wav``
    (0.80). One item per transcript: id ``<utt>``, speaker ``<speaker>``, metadata ``age``
    (a number), ``gender`` (``female``/``male``), ``accent``, ``region`` and a ``comment`` held
    in parentheses. A transcript without audio is a problem naming it; a speaker missing from
    ``speaker-info.txt`` is imported without metadata and reported.

TIMIT (Garofolo et al., LDC93S1, and copies that keep its tree, upper or lower case)
    ``TRAIN|TEST/DR1–DR8/<F|M><initials><digit>/<sentence>.WAV`` (NIST SPHERE, read by
    libsndfile; a converted ``<sentence>.WAV.wav`` beside it is read when the SPHERE file is
    not there) with ``<sentence>.TXT`` (``<first sample> <last sample> <text>``), ``.WRD`` and
    ``.PHN``. The path gives ``split`` (``train``/``test``), ``dialect_region`` (``DR1``…),
    ``dialect`` (the corpus documentation's names), ``gender`` and the speaker id (the
    folder's name, ``FCJF0``); ``DOC/SPKRINFO.TXT`` (keyed by initials and digit), when present, adds ``age`` (whole
    years from birth to recording date), ``education`` and ``race``. The sentence id is the
    content id (``timit:SA1``: every speaker reads SA1 and SA2; an SX sentence is read by
    seven), its first letters ``sentence_type`` (``SA``, ``SX``, ``SI``). The ``.WRD`` and
    ``.PHN`` alignments are not imported as annotations: their paths are kept as metadata
    (``words_file``, ``phones_file``) for the phone-level analyses to read. A region folder
    other than ``DR1``–``DR8`` or a speaker folder not named as TIMIT names speakers is read
    too, with the facts its name cannot give left unknown, and named as a problem.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from .errors import ImportFailed
from .import_rows import Candidate, Problem, read_text
from .plurals import count

GENDERS = {"f": "female", "m": "male"}
#: TIMIT's dialect regions (the corpus documentation, "Dialect distribution of speakers").
DIALECTS = {
    "DR1": "New England",
    "DR2": "Northern",
    "DR3": "North Midland",
    "DR4": "South Midland",
    "DR5": "Southern",
    "DR6": "New York City",
    "DR7": "Western",
    "DR8": "Army Brat (moved around)",
}
_DR = re.compile(r"^dr[1-8]$", re.IGNORECASE)
_SPK = re.compile(r"^([fm])([a-z]{3}\d)$", re.IGNORECASE)


# -- VCTK ------------------------------------------------------------------------------------
def is_vctk_dir(path: Path) -> bool:
    return (path / "speaker-info.txt").is_file() and (path / "txt").is_dir()


def _age(v: str):
    try:
        return int(v)
    except ValueError:
        return v


def read_vctk_speakers(path: Path, problems: list) -> dict[str, dict]:
    """``{speaker: metadata}`` of ``speaker-info.txt``; ids without ``p`` get one (0.80)."""
    out: dict[str, dict] = {}
    for i, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or line.split()[0].upper() == "ID":
            continue
        comment = None
        m = re.search(r"\(([^)]*)\)", line)
        if m:
            comment, line = m.group(1).strip(), line[: m.start()] + line[m.end() :]
        parts = line.split()
        if len(parts) < 3:
            problems.append(
                Problem(
                    i,
                    None,
                    "speaker-info.txt line is not 'ID AGE GENDER ACCENTS REGION'",
                    str(path),
                )
            )
            continue
        spk = parts[0] if not parts[0].isdigit() else f"p{parts[0]}"
        meta = {"age": _age(parts[1]), "gender": GENDERS.get(parts[2].lower(), parts[2])}
        if len(parts) > 3:
            meta["accent"] = parts[3]
        if len(parts) > 4:
            meta["region"] = " ".join(parts[4:])
        if comment:
            meta["comment"] = comment
        out[spk] = meta
    return out


def _vctk_audio(root: Path, spk: str, utt: str, mic: str) -> Path | None:
    for p in (
        root / "wav48_silence_trimmed" / spk / f"{utt}_{mic}.flac",
        root / "wav48" / spk / f"{utt}.wav",
    ):
        if p.exists():
            return p
    return None


def read_vctk(root: Path, **_):
    """Candidates of a VCTK folder (see the module docstring)."""
    root = Path(root)
    if not is_vctk_dir(root):
        raise ImportFailed(
            f"{root}: no speaker-info.txt and txt/ folder (VCTK layout: speaker-info.txt, "
            "txt/p225/p225_001.txt, wav48_silence_trimmed/p225/p225_001_mic1.flac)"
        )
    problems: list[Problem] = []
    speakers = read_vctk_speakers(root / "speaker-info.txt", problems)
    cands = []
    for d in sorted(p for p in (root / "txt").iterdir() if p.is_dir()):
        spk = d.name
        if spk not in speakers:
            problems.append(
                Problem(
                    None,
                    f"txt/{spk}",
                    f"speaker {spk} is not in speaker-info.txt: imported without age, gender, "
                    "accent and region",
                    str(root / "speaker-info.txt"),
                )
            )
        for t in sorted(d.glob("*.txt")):
            audio = _vctk_audio(root, spk, t.stem, "mic1")
            if audio is None:
                problems.append(
                    Problem(
                        None,
                        f"txt/{spk}/{t.name}",
                        f"no audio for {t.stem} (looked for wav48_silence_trimmed/{spk}/"
                        f"{t.stem}_mic1.flac and wav48/{spk}/{t.stem}.wav)",
                        str(t),
                    )
                )
                continue
            cands.append(
                Candidate(
                    row=1,
                    source=str(t),
                    key=t.stem,
                    path=str(audio),
                    text=" ".join(read_text(t).split()),
                    speaker_id=spk,
                    metadata=dict(speakers.get(spk, {})),
                )
            )
    return root, cands, problems


# -- TIMIT -----------------------------------------------------------------------------------
def _children(path: Path, pattern) -> list[Path]:
    try:
        return [d for d in path.iterdir() if d.is_dir() and pattern(d.name)]
    except OSError:
        return []


def _timit_splits(root: Path) -> list[Path]:
    """TRAIN/TEST folders, in ``root`` or one level down (``TIMIT/``): those of the first
    folder where one holds a DR folder (a split holding only other folders is read too)."""
    for base in [root, *_children(root, lambda n: True)]:
        splits = _children(base, lambda n: n.lower() in ("train", "test"))
        if any(_children(s, _DR.match) for s in splits):
            return sorted(s for s in splits if _children(s, lambda n: True))
    return []


def is_timit_dir(path: Path) -> bool:
    return bool(_timit_splits(path))


def _date(s: str) -> date | None:
    m = re.match(r"^(\d\d)/(\d\d)/(\d\d)$", s)
    if not m:
        return None
    mo, d, y = (int(x) for x in m.groups())
    try:
        return date(1900 + y, mo, d)
    except ValueError:
        return None


def read_spkrinfo(path: Path, problems: list) -> dict[str, dict]:
    """``{speaker id: {"age", "education", "race"}}`` of TIMIT's ``SPKRINFO.TXT``
    (``ID Sex DR Use RecDate BirthDate Ht Race Edu [Comments]``; ``;`` starts a comment)."""
    out: dict[str, dict] = {}
    for i, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith(";"):
            continue
        parts = line.split()
        if len(parts) < 9:
            problems.append(
                Problem(
                    i,
                    None,
                    "SPKRINFO.TXT line is not 'ID Sex DR Use RecDate BirthDate Ht Race Edu'",
                    str(path),
                )
            )
            continue
        meta: dict[str, int | str] = {}
        rec, born = _date(parts[4]), _date(parts[5])
        if rec and born:
            meta["age"] = rec.year - born.year - ((rec.month, rec.day) < (born.month, born.day))
        if parts[7] != "??":
            meta["race"] = parts[7]
        if parts[8] != "??":
            meta["education"] = parts[8]
        out[parts[0].upper()] = meta
    return out


def _timit_audio(txt: Path) -> Path | None:
    stem = txt.with_suffix("")
    for suffix in (".WAV", ".wav", ".WAV.wav", ".wav.wav"):
        p = Path(str(stem) + suffix)
        if p.exists():
            return p
    return None


def _timit_text(t: Path) -> str | None:
    """The words of a ``.TXT`` (after the first and last sample numbers); None: malformed."""
    m = re.match(r"^\s*\d+\s+\d+\s+(.*\S)\s*$", read_text(t).strip().replace("\n", " "))
    return m.group(1) if m else None


def _is_sentence(p: Path) -> bool:
    return p.suffix.lower() == ".txt" and p.is_file()


def _sentences(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if _is_sentence(p))
    except OSError:
        return []


def read_timit(root: Path, **_):
    """Candidates of a TIMIT tree (see the module docstring).

    Folders that leave TIMIT's pattern are read, never passed over: a region folder other
    than ``DR1``–``DR8`` (``DR9``, ``extra``) gives its speakers no dialect region, a speaker
    folder not named ``<F|M><3 letters><digit>`` (``BADNAME``) gives its sentences that
    speaker id and no gender (nor SPKRINFO.TXT facts); each such folder is a problem that
    says what was left unknown and how to name the folder. A ``.TXT`` outside a speaker
    folder is a problem naming it."""
    root = Path(root)
    splits = _timit_splits(root)
    if not splits:
        raise ImportFailed(
            f"{root}: no TRAIN or TEST folder with DR1–DR8 in it (TIMIT layout: "
            "TRAIN/DR1/FCJF0/SA1.WAV with SA1.TXT)"
        )
    problems: list[Problem] = []
    info: dict[str, dict] = {}
    found = next((p for p in splits[0].parent.rglob("*") if p.name.upper() == "SPKRINFO.TXT"), None)
    if found is not None:
        info = read_spkrinfo(found, problems)
    cands: list[Candidate] = []
    odd: list[tuple[Path, str]] = []  # (folder, what is unknown and what to do)
    for split in splits:
        for dr in sorted(_children(split, lambda n: True)):
            region = dr.name.upper() if _DR.match(dr.name) else None
            n_before = len(cands)
            if region is not None or not _sentences(dr):
                speakers = sorted(_children(dr, lambda n: True))
                for t in _sentences(dr):
                    rel = t.relative_to(root).as_posix()
                    problems.append(
                        Problem(
                            None,
                            rel,
                            f"{t.name} lies in the region folder {dr.name}, outside a speaker "
                            "folder: not imported; move it into its speaker's folder "
                            f"({dr.name}/FCJF0/{t.name}, F or M for the gender)",
                            str(t),
                        )
                    )
            else:  # a speaker folder right under the split: its region is unknown
                speakers = [dr]
            for spk_dir in speakers:
                m = _SPK.match(spk_dir.name)
                n_spk = len(cands)
                _timit_speaker(root, split, spk_dir, region, m, info, cands, problems)
                if m is None and len(cands) > n_spk:
                    odd.append(
                        (
                            spk_dir,
                            f"is not named as TIMIT names a speaker (F or M, three letters, a "
                            f"digit: FCJF0): {_imported(len(cands) - n_spk)} "
                            f"with speaker id {spk_dir.name.upper()} and no gender; "
                            "rename the folder to its speaker's TIMIT id to give the gender "
                            "and the SPKRINFO.TXT facts",
                        )
                    )
            if region is None and len(cands) > n_before:
                odd.append(
                    (
                        dr,
                        "is not one of TIMIT's dialect regions DR1–DR8: "
                        f"{_imported(len(cands) - n_before)} without dialect_region and "
                        "dialect; rename the folder to its region "
                        "(DR1–DR8) if you know it",
                    )
                )
    for folder, what in odd:
        rel = folder.relative_to(root).as_posix()
        problems.append(Problem(None, rel + "/", f"the folder {rel} {what}", str(folder)))
    return root, cands, problems


def _imported(n: int) -> str:
    return f"its {count(n, 'sentence')} " + ("is imported" if n == 1 else "are imported")


def _timit_speaker(root, split, spk_dir, region, m, info, cands, problems) -> None:
    """The candidates of one speaker folder (``m``: its name's match of TIMIT's speaker
    pattern, None when it leaves it)."""
    base = {"split": split.name.lower()}
    if region is not None:
        base.update(dialect_region=region, dialect=DIALECTS[region])
    if m is not None:
        base["gender"] = GENDERS[m.group(1).lower()]
        base.update(info.get(m.group(2).upper(), {}))
    for t in _sentences(spk_dir):
        rel = t.relative_to(root).as_posix()
        audio = _timit_audio(t)
        if audio is None:
            problems.append(Problem(None, rel, f"no audio {t.stem}.WAV beside {t.name}", str(t)))
            continue
        text = _timit_text(t)
        if text is None:
            problems.append(
                Problem(
                    1,
                    rel,
                    "not a TIMIT transcript ('<first sample> <last sample> <words>')",
                    str(t),
                )
            )
            continue
        sent = t.stem.upper()
        meta = dict(base, sentence_type=sent[:2])
        for kind, name in ((".wrd", "words_file"), (".phn", "phones_file")):
            side = next(
                (p for p in spk_dir.iterdir() if p.name.lower() == t.stem.lower() + kind),
                None,
            )
            if side is not None:
                meta[name] = side.relative_to(root).as_posix()
        cands.append(
            Candidate(
                row=1,
                source=str(t),
                key=f"{split.name.lower()}/{spk_dir.name.upper()}/{sent}",
                path=str(audio),
                text=text,
                speaker_id=spk_dir.name.upper(),
                content_id=f"timit:{sent}",
                metadata=meta,
            )
        )
