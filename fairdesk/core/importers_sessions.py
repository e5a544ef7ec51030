"""Long recordings segmented by annotation: ELAN (``--format eaf``) and Praat
(``--format textgrid``).

A session is an audio file (a 20–90 minute WAV, FLAC ...) with an annotation file of the same
name beside it (``session1.wav`` + ``session1.eaf`` / ``session1.TextGrid``); give the folder
that holds them (every session in it and below), or one annotation file. An ELAN file whose
audio has another name is matched through its linked media (``MEDIA_DESCRIPTOR``).

Each non-empty annotated interval of a transcript tier is an utterance: an item that is the
span ``start``–``end`` of the session file (:mod:`fairdesk.core.spans`), with id
``<session>_<tier>_<start in ms>`` (stable when other intervals are edited) and metadata
``session`` and ``tier``.

* ``--tiers A,B``: the tiers that hold transcripts, by name or pattern (``*-tx``,
  ``Speaker?``; a file takes the tiers it has of those, and a name or pattern that matches no
  tier of any file is a problem). Default: every time-aligned tier of ELAN and every
  interval tier of Praat that holds transcripts, except the speaker tier: a tier whose name
  (or ELAN linguistic type) says notes, comments, translations, glosses or phones is skipped,
  and the import lists the skipped tiers of each file. One tier per speaker is the usual
  layout.
* The speaker of an utterance: with ``--speaker-tier NAME``, the label of that tier's
  interval at the utterance's midpoint; else, with ELAN, the transcript tier's
  ``PARTICIPANT`` attribute, or the tier's name when it has none (``--speaker-by tier``
  always takes the tier's name).

Problems name the file, the tier and the interval: an empty ELAN annotation, an interval that
overlaps the previous one of its tier (that interval alone is refused), one that starts
before 0 s, one outside the audio file (found when its span is read), an ELAN annotation
whose time slot is undefined or cannot be placed (unaligned slots are placed between their
aligned neighbours, as ELAN does), a tier that does not exist (the tiers that do are
listed), and a whole file that cannot be read (:mod:`fairdesk.core.session_files`: an empty
or cut TextGrid, one that is not UTF-8 or UTF-16, an ELAN file that is not ELAN XML).
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from .audio import AUDIO_EXTENSIONS
from .errors import ImportFailed
from .import_rows import Candidate, Problem
from .session_files import SessionFileError, eaf_document, eaf_intervals, textgrid_tiers

__all__ = ["is_session_dir", "read_eaf", "read_textgrid"]

SUFFIXES = {"eaf": (".eaf",), "textgrid": (".textgrid",)}
SPEAKER_BY = ("participant", "tier")
#: A tier whose name or ELAN linguistic type matches this holds no transcript by default.
NOT_TRANSCRIPT = re.compile(r"note|comment|translat|gloss|remark|memo|phone|syllab", re.I)


def _annotation_files(path: Path, fmt: str) -> list[Path]:
    suffixes = SUFFIXES[fmt]
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in suffixes)


def is_session_dir(path: Path) -> str | None:
    """``eaf`` or ``textgrid`` when a folder holds audio with a same-named ``.eaf`` /
    ``.TextGrid`` beside it (None otherwise)."""
    for fmt in ("eaf", "textgrid"):
        for ann in _annotation_files(path, fmt)[:50]:
            if _audio_beside(ann) is not None:
                return fmt
            if fmt == "eaf" and _linked_media(ann) is not None:
                return fmt
    return None


def _linked_media(ann: Path) -> Path | None:
    """The audio an ELAN file links (its MEDIA_DESCRIPTOR), for detection; None when the
    file cannot be read or links nothing that exists."""
    try:
        return _eaf_media(eaf_document(ann), ann)
    except SessionFileError:
        return None


def _audio_beside(ann: Path) -> Path | None:
    for p in sorted(ann.parent.glob(ann.stem + ".*")):
        if p.suffix.lower() in AUDIO_EXTENSIONS and p.is_file():
            return p
    return None


def _eaf_media(eaf, ann: Path) -> Path | None:
    for m in getattr(eaf, "media_descriptors", []) or []:
        for key in ("RELATIVE_MEDIA_URL", "MEDIA_URL"):
            url = str(m.get(key) or "")
            if not url:
                continue
            name = url.split("/")[-1]
            for cand in (ann.parent / url.removeprefix("file://").lstrip("./"), ann.parent / name):
                if cand.is_file() and cand.suffix.lower() in AUDIO_EXTENSIONS:
                    return cand
    return None


def _names(value) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [n.strip() for n in value.split(",") if n.strip()]
    return [str(n) for n in value]


def _pick_tiers(
    ann: Path, have: list[str], tiers, speaker_tier, problems, kinds=None, matched=None
) -> list[str] | None:
    """The transcript tiers of one file (None: the file is refused, with its problem).

    ``tiers``: names or patterns (``fnmatch``); the file takes those it has, and
    ``matched`` collects the patterns that matched a tier. Without ``tiers``: every tier but
    the speaker tier and those whose name or linguistic type (``kinds``) says they hold no
    transcript (:data:`NOT_TRANSCRIPT`), which are listed as skipped."""
    if speaker_tier and speaker_tier not in have:
        problems.append(
            Problem(
                None,
                None,
                f"no tier {speaker_tier!r} in this file (its tiers: {', '.join(have) or 'none'}); "
                "name one of those (--speaker-tier)",
                str(ann),
            )
        )
        return None
    cands = [t for t in have if t != speaker_tier]
    wanted = _names(tiers)
    if wanted:
        chosen = []
        for t in cands:
            hits = [w for w in wanted if fnmatch.fnmatchcase(t, w)]
            if hits:
                chosen.append(t)
                if matched is not None:
                    matched.update(hits)
        if not chosen:
            problems.append(
                Problem(
                    None,
                    None,
                    f"no tier matches --tiers {','.join(wanted)} in this file (its tiers: "
                    f"{', '.join(cands) or 'none'}); name one of those, or a pattern such as "
                    "'*-tx'",
                    str(ann),
                )
            )
            return None
        return chosen
    kinds = kinds or {}
    chosen = [t for t in cands if not NOT_TRANSCRIPT.search(f"{t} {kinds.get(t, '')}")]
    skipped = [t for t in cands if t not in chosen]
    if skipped:
        problems.append(
            Problem(
                None,
                None,
                f"tier{'s' if len(skipped) > 1 else ''} {', '.join(repr(t) for t in skipped)} "
                "skipped: by name or type not a transcript (notes, comments, translations, "
                "glosses, phones); to import it as utterances name it with --tiers",
                str(ann),
            )
        )
    return chosen


def _unmatched(tiers, matched: set, problems: list, path: Path) -> None:
    """A --tiers name or pattern that matched no tier of any file is a problem."""
    missing = [w for w in _names(tiers) or [] if w not in matched]
    if missing:
        problems.append(
            Problem(
                None,
                None,
                f"--tiers {', '.join(repr(w) for w in missing)}: no file has a tier of that "
                "name (or matching that pattern); check the spelling",
                str(path),
            )
        )


def _speaker_at(intervals, t: float) -> str | None:
    for start, end, label in intervals:
        if start <= t < end and label.strip():
            return label.strip()
    return None


def _utterances(ann, audio, intervals_by_tier, speaker_of, speaker_tier, problems, cands):
    """Candidates of one session: ``intervals_by_tier`` is ``{tier: [(start, end, text)]}``."""
    who = intervals_by_tier.pop(speaker_tier, []) if speaker_tier else []
    for tier, intervals in intervals_by_tier.items():
        last_end = None
        for n, (start, end, text) in enumerate(sorted(intervals), start=1):
            where = f"tier {tier!r} interval {n} ({start:.3f}–{end:.3f} s)"
            if start < 0 and str(text or "").strip():
                problems.append(
                    Problem(
                        None,
                        None,
                        f"{where}: starts before the recording (at {start:.3f} s); move its "
                        "start to 0 s or later",
                        str(ann),
                    )
                )
                continue
            if not str(text or "").strip():
                if speaker_of is not None:  # ELAN: an annotation typed empty
                    problems.append(
                        Problem(
                            None,
                            None,
                            f"{where}: empty annotation; type its transcript or delete it",
                            str(ann),
                        )
                    )
                continue
            if end <= start:
                problems.append(
                    Problem(None, None, f"{where}: the interval is empty or reversed", str(ann))
                )
                continue
            if last_end is not None and start < last_end - 1e-6:
                problems.append(
                    Problem(
                        None,
                        None,
                        f"{where}: overlaps the interval before it on this tier (which ends "
                        f"at {last_end:.3f} s); fix the boundaries",
                        str(ann),
                    )
                )
                continue
            last_end = end
            if speaker_tier:
                spk = _speaker_at(who, (start + end) / 2)
            else:
                spk = speaker_of(tier) if speaker_of is not None else tier
            cands.append(
                Candidate(
                    row=n,
                    source=f"{ann} {where}",
                    key=f"{audio.stem}_{tier}_{round(start * 1000):07d}",
                    path=str(audio),
                    text=str(text).strip(),
                    speaker_id=spk,
                    metadata={"session": audio.stem, "tier": tier},
                    start_s=float(start),
                    end_s=float(end),
                )
            )


def _check_speaker_by(speaker_by):
    if speaker_by is not None and speaker_by not in SPEAKER_BY:
        raise ImportFailed(
            f"--speaker-by {speaker_by!r}: use {' or '.join(SPEAKER_BY)} (participant: the "
            "tier's PARTICIPANT attribute, else its name)"
        )


def _root_and_files(path: Path, fmt: str) -> tuple[Path, list[Path]]:
    files = _annotation_files(path, fmt)
    if not files:
        kind = "ELAN .eaf" if fmt == "eaf" else "Praat .TextGrid"
        raise ImportFailed(f"{path}: no {kind} file here; give the folder of the sessions")
    return (path.parent if path.is_file() else path), files


def read_eaf(path, tiers=None, speaker_tier=None, speaker_by=None, **_):
    """Candidates of ELAN sessions (see the module docstring)."""
    _check_speaker_by(speaker_by)
    root, files = _root_and_files(Path(path), "eaf")
    problems: list[Problem] = []
    cands: list[Candidate] = []
    matched: set[str] = set()
    for ann in files:
        try:
            eaf = eaf_document(ann)
        except SessionFileError as exc:
            problems.append(Problem(None, None, str(exc), str(ann)))
            continue
        audio = _audio_beside(ann) or _eaf_media(eaf, ann)
        if audio is None:
            problems.append(
                Problem(
                    None,
                    None,
                    f"no audio file named {ann.stem}.wav (or .flac ...) beside it, nor its "
                    "linked media; put the session's audio beside the .eaf",
                    str(ann),
                )
            )
            continue
        # time-aligned tiers only: a symbolic (reference) tier hangs off another's intervals
        have = [t for t in eaf.get_tier_names() if "PARENT_REF" not in eaf.tiers[t][2]]
        if speaker_tier and speaker_tier not in have and speaker_tier in eaf.get_tier_names():
            have.append(speaker_tier)
        kinds = {t: str(eaf.tiers[t][2].get("LINGUISTIC_TYPE_REF") or "") for t in have}
        chosen = _pick_tiers(ann, have, tiers, speaker_tier, problems, kinds, matched)
        if chosen is None:
            continue
        placed: list[str] = []
        by_tier = {
            t: eaf_intervals(eaf, t, placed)
            for t in chosen + ([speaker_tier] if speaker_tier else [])
        }
        problems += [Problem(None, None, why, str(ann)) for why in placed]

        def speaker_of(tier, eaf=eaf):
            part = str(eaf.tiers[tier][2].get("PARTICIPANT") or "").strip()
            return part if part and speaker_by != "tier" else tier

        _utterances(ann, audio, by_tier, speaker_of, speaker_tier, problems, cands)
    _unmatched(tiers, matched, problems, Path(path))
    return root, cands, problems


def read_textgrid(path, tiers=None, speaker_tier=None, speaker_by=None, **_):
    """Candidates of Praat sessions (see the module docstring)."""
    if speaker_by is not None:
        raise ImportFailed(
            "the textgrid format takes no --speaker-by (Praat tiers have no participant); "
            "the speaker is the tier's name, or --speaker-tier's label"
        )
    root, files = _root_and_files(Path(path), "textgrid")
    problems: list[Problem] = []
    cands: list[Candidate] = []
    matched: set[str] = set()
    for ann in files:
        try:
            grid = textgrid_tiers(ann)
        except (SessionFileError, OSError) as exc:
            problems.append(Problem(None, None, f"not a readable TextGrid: {exc}", str(ann)))
            continue
        audio = _audio_beside(ann)
        if audio is None:
            problems.append(
                Problem(
                    None,
                    None,
                    f"no audio file named {ann.stem}.wav (or .flac ...) beside it; put the "
                    "session's audio beside the .TextGrid",
                    str(ann),
                )
            )
            continue
        have = [n for n, (cls, _e) in grid.items() if cls == "IntervalTier"]
        chosen = _pick_tiers(ann, have, tiers, speaker_tier, problems, None, matched)
        if chosen is None:
            continue
        by_tier = {  # empty intervals are Praat's gaps between utterances
            t: [(a, b, label) for a, b, label, _line in grid[t][1] if label.strip()]
            for t in chosen + ([speaker_tier] if speaker_tier else [])
        }
        _utterances(ann, audio, by_tier, None, speaker_tier, problems, cands)
    _unmatched(tiers, matched, problems, Path(path))
    return root, cands, problems
