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

* ``--tiers A,B``: the tiers that hold transcripts (default: every time-aligned tier of
  ELAN, every interval tier of Praat, except the speaker tier). One tier per speaker is the
  usual layout.
* The speaker of an utterance: with ``--speaker-tier NAME``, the label of that tier's
  interval at the utterance's midpoint; else, with ELAN, the transcript tier's
  ``PARTICIPANT`` attribute, or the tier's name when it has none (``--speaker-by tier``
  always takes the tier's name).

Problems name the file, the tier and the interval: an empty ELAN annotation, an interval that
overlaps the previous one of its tier, one outside the audio file (found when its span is
read), a tier that does not exist (the tiers that do are listed).
"""

from __future__ import annotations

from pathlib import Path

from .audio import AUDIO_EXTENSIONS
from .errors import ImportFailed
from .import_rows import Candidate, Problem

__all__ = ["is_session_dir", "read_eaf", "read_textgrid"]

SUFFIXES = {"eaf": (".eaf",), "textgrid": (".textgrid",)}
SPEAKER_BY = ("participant", "tier")


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


def _pick_tiers(ann: Path, have: list[str], tiers, speaker_tier, problems) -> list[str] | None:
    """The transcript tiers of one file; a tier named but missing is a problem (None)."""
    wanted = _names(tiers)
    missing = [
        t for t in (wanted or []) + ([speaker_tier] if speaker_tier else []) if t not in have
    ]
    if missing:
        problems.append(
            Problem(
                None,
                None,
                f"no tier {', '.join(repr(t) for t in missing)} in this file (its tiers: "
                f"{', '.join(have) or 'none'}); name one of those (--tiers, --speaker-tier)",
                str(ann),
            )
        )
        return None
    return wanted if wanted else [t for t in have if t != speaker_tier]


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
    import pympi

    _check_speaker_by(speaker_by)
    root, files = _root_and_files(Path(path), "eaf")
    problems: list[Problem] = []
    cands: list[Candidate] = []
    for ann in files:
        try:
            eaf = pympi.Elan.Eaf(str(ann))
        except Exception as exc:  # noqa: BLE001 - pympi raises whatever the XML parser does
            problems.append(
                Problem(
                    None, None, f"not a readable ELAN file ({exc}); re-save it in ELAN", str(ann)
                )
            )
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
        chosen = _pick_tiers(ann, have, tiers, speaker_tier, problems)
        if chosen is None:
            continue
        by_tier = {
            t: [(a[0] / 1000.0, a[1] / 1000.0, a[2]) for a in eaf.get_annotation_data_for_tier(t)]
            for t in chosen + ([speaker_tier] if speaker_tier else [])
        }

        def speaker_of(tier, eaf=eaf):
            part = str(eaf.tiers[tier][2].get("PARTICIPANT") or "").strip()
            return part if part and speaker_by != "tier" else tier

        _utterances(ann, audio, by_tier, speaker_of, speaker_tier, problems, cands)
    return root, cands, problems


def read_textgrid(path, tiers=None, speaker_tier=None, speaker_by=None, **_):
    """Candidates of Praat sessions (see the module docstring)."""
    from praatio import textgrid

    if speaker_by is not None:
        raise ImportFailed(
            "the textgrid format takes no --speaker-by (Praat tiers have no participant); "
            "the speaker is the tier's name, or --speaker-tier's label"
        )
    root, files = _root_and_files(Path(path), "textgrid")
    problems: list[Problem] = []
    cands: list[Candidate] = []
    for ann in files:
        try:
            tg = textgrid.openTextgrid(str(ann), includeEmptyIntervals=False)
        except Exception as exc:  # noqa: BLE001 - praatio raises many kinds on a bad file
            problems.append(
                Problem(
                    None, None, f"not a readable TextGrid ({exc}); re-save it in Praat", str(ann)
                )
            )
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
        have = [n for n in tg.tierNames if tg.getTier(n).tierType == textgrid.INTERVAL_TIER]
        chosen = _pick_tiers(ann, have, tiers, speaker_tier, problems)
        if chosen is None:
            continue
        by_tier = {
            t: [(e.start, e.end, e.label) for e in tg.getTier(t).entries]
            for t in chosen + ([speaker_tier] if speaker_tier else [])
        }
        _utterances(ann, audio, by_tier, None, speaker_tier, problems, cands)
    return root, cands, problems
