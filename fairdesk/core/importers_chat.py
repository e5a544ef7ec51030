"""TalkBank CHAT transcripts (``--format chat``): child and clinical speech from CHILDES,
AphasiaBank, FluencyBank and the other TalkBank banks, read with ``pylangacq``.

Give a ``.cha`` file or a folder of them (and below). Each utterance with a time bullet
(``·1500_2600·``) becomes an item: the span of the file's linked media from the bullet's
start to its end (:mod:`fairdesk.core.spans`), with id ``<file>_<speaker code>_<start in
ms>``.

* **Media.** ``@Media: name, audio`` names the recording without its extension: the audio
  file ``name.wav`` (or ``.mp3``, ``.flac`` …) beside the ``.cha`` is used; when none has
  that name (TalkBank files often name the media differently from the transcript), the
  audio named like the ``.cha`` file is used, and the import says which file it took. A
  transcript with neither is reported with the names looked for.
* **Speakers.** The participant's code in the file (``CHI``, ``MOT``); a speaker id is the
  participant's name from ``@Participants`` where one is given, else ``<file>:<code>`` (CHAT
  has no id shared across files: give a speaker sheet to join sessions of one child).
  Metadata from ``@ID``: ``age`` as written (``2;06.15``), ``age_months`` (whole months),
  ``gender`` (the ``@ID`` sex), ``role``, ``group``, ``language`` and ``corpus``.
* **Reference text** is what was said: pylangacq's ``audible`` form of the main tier
  (retraced and repeated words kept, as they were spoken; annotation codes, scoped symbols
  and bullets removed; the utterance terminator dropped).
* **Not scored**: utterances with unintelligible (``xxx``), phonologically coded (``yyy``)
  or untranscribed (``www``) material, and utterances without a time bullet, are listed as
  problems (file, line of the utterance, what to do), never scored.

Only local ``.cha`` files are read (pylangacq can also fetch URLs and git repositories:
fairdesk never asks it to).
"""

from __future__ import annotations

import re
from pathlib import Path

from .audio import AUDIO_EXTENSIONS
from .errors import ImportFailed
from .import_rows import Candidate, Problem

__all__ = ["is_chat_source", "read_chat"]

#: Material that is not a word a recogniser could be scored on.
UNSCORED = re.compile(r"(?<![\w@])(xxx|yyy|www)(?![\w@])")
#: CHAT utterance terminators (and the tags before them) at the end of the audible text.
_TERMINATOR = re.compile(r"\s*(?:\+[^\s]*|[.?!])\s*$")


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".cha")


def is_chat_source(path: Path) -> bool:
    """A ``.cha`` file, or a folder holding some (and below)."""
    path = Path(path)
    if path.is_file():
        return path.suffix.lower() == ".cha"
    return path.is_dir() and next((p for p in path.rglob("*.cha") if p.is_file()), None) is not None


def _audio_named(folder: Path, stem: str) -> Path | None:
    for p in sorted(folder.glob(glob_escape(stem) + ".*")):
        if p.suffix.lower() in AUDIO_EXTENSIONS and p.is_file():
            return p
    return None


def glob_escape(name: str) -> str:
    import glob

    return glob.escape(name)


def _media(cha: Path, header) -> tuple[Path | None, str]:
    """(the audio of a transcript, a note when it was not the ``@Media`` name)."""
    media = getattr(header, "media", None) or {}
    name = str(media.get("filename") or "").strip() if isinstance(media, dict) else ""
    if name:
        hit = _audio_named(cha.parent, name)
        if hit is not None:
            return hit, ""
    hit = _audio_named(cha.parent, cha.stem)
    if hit is not None and name and name != cha.stem:
        return (
            hit,
            f"@Media names {name!r}, which is not here; took {hit.name}, named as the transcript",
        )
    return hit, ""


def _months(age) -> int | None:
    """Whole months of a CHAT age (``2;06.15`` → 30)."""
    text = str(age or "").strip()
    m = re.match(r"^(\d+);(\d{1,2})?", text)
    if not m:
        return None
    return int(m.group(1)) * 12 + int(m.group(2) or 0)


def _age_text(age) -> str | None:
    if age is None:
        return None
    text = str(age)
    m = re.search(r"\d+;\d*(?:\.\d*)?", text)
    return m.group(0) if m else (text or None)


def _lines(cha: Path) -> list[int]:
    """The line number of each main-tier utterance (``*XXX:``) of a file, in order."""
    out = []
    with open(cha, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, start=1):
            if line.startswith("*"):
                out.append(n)
    return out


def read_chat(path, **_):
    """Candidates of CHAT transcripts (see the module docstring)."""
    try:
        from rustling.chat import CHAT  # pylangacq's reader
    except ImportError:  # pragma: no cover - pylangacq < 0.23 has no rustling
        try:
            from pylangacq import Reader as CHAT  # type: ignore[no-redef,attr-defined]  # pylangacq < 0.23 only
        except ImportError:
            raise ImportFailed(
                "reading CHAT needs pylangacq: pip install 'pylangacq>=0.23'"
            ) from None
    path = Path(path)
    files = _files(path)
    if not files:
        raise ImportFailed(f"{path}: no CHAT .cha file here; give a .cha file or their folder")
    root = path.parent if path.is_file() else path
    problems: list[Problem] = []
    cands: list[Candidate] = []
    for cha in files:
        try:
            reader = CHAT.from_files([str(cha)], strict=False)
            header = reader.headers()[0]
            utterances = list(reader.utterances())
        except Exception as exc:  # noqa: BLE001 - the parser's reason, for this file only
            problems.append(
                Problem(
                    None,
                    None,
                    f"not a readable CHAT file ({exc}); check it with CLAN's CHECK",
                    str(cha),
                )
            )
            continue
        audio, note = _media(cha, header)
        if audio is None:
            media = getattr(header, "media", None) or {}
            name = media.get("filename") if isinstance(media, dict) else None
            looked = ", ".join(dict.fromkeys(n for n in (name, cha.stem) if n))
            problems.append(
                Problem(
                    None,
                    None,
                    f"no audio for this transcript (looked for {looked} with an audio "
                    "extension beside it); put its recording beside the .cha",
                    str(cha),
                )
            )
            continue
        if note:
            problems.append(Problem(None, None, f"media: {note}", str(cha)))
        people = {}
        for p in getattr(header, "participants", None) or []:
            people[p.code] = p
        lines = _lines(cha)
        for k, u in enumerate(utterances):
            line = lines[k] if k < len(lines) else None
            code = str(u.participant)
            said = str(u.tiers.get(code, "")) if isinstance(u.tiers, dict) else ""
            where = f"utterance of {code}" + (f" at line {line}" if line else "")
            marks = u.time_marks
            if not marks:
                problems.append(
                    Problem(
                        line,
                        None,
                        f"{where}: no time bullet, so it cannot be cut from the media; link it "
                        "in CLAN (or leave it unscored)",
                        str(cha),
                    )
                )
                continue
            unscored = sorted(set(UNSCORED.findall(said)))
            if unscored:
                problems.append(
                    Problem(
                        line,
                        None,
                        f"{where}: holds {', '.join(unscored)} (unintelligible, coded or "
                        "untranscribed material), so it is not scored",
                        str(cha),
                    )
                )
                continue
            text = _TERMINATOR.sub("", str(u.audible or "")).strip()
            start, end = int(marks[0]), int(marks[1])
            if not text:
                problems.append(Problem(line, None, f"{where}: no words", str(cha)))
                continue
            if end <= start:
                problems.append(
                    Problem(
                        line,
                        None,
                        f"{where}: the bullet {start}_{end} is empty or reversed",
                        str(cha),
                    )
                )
                continue
            p = people.get(code)
            name = str(getattr(p, "name", "") or "").strip() if p is not None else ""
            meta: dict[str, object] = {"session": cha.stem, "participant": code}
            if p is not None:
                age = _age_text(getattr(p, "age", None))
                fields = {
                    "age": age,
                    "age_months": _months(age),
                    "gender": getattr(p, "sex", None),
                    "role": getattr(p, "role", None),
                    "group": getattr(p, "group", None),
                    "language": getattr(p, "language", None),
                    "corpus": getattr(p, "corpus", None),
                }
                meta.update({k: v for k, v in fields.items() if v not in (None, "")})
            cands.append(
                Candidate(
                    row=line or k + 1,
                    source=str(cha),
                    key=f"{cha.stem}_{code}_{start:07d}",
                    path=str(audio),
                    text=text,
                    speaker_id=name or f"{cha.stem}:{code}",
                    metadata=meta,
                    start_s=start / 1000.0,
                    end_s=end / 1000.0,
                )
            )
    return root, cands, problems
