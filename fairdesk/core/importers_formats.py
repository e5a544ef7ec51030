"""The dataset formats: manifest, audiofolder, Common Voice and LibriSpeech readers (SAA and
L2-ARCTIC have their own modules), :func:`detect_format` and the :data:`READERS` table.

Each reader turns a source into candidate rows plus the problems it found while parsing;
:func:`fairdesk.core.importers.import_dataset` validates and writes them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .errors import ImportFailed
from .import_rows import Candidate, Problem, read_table, read_text
from .importers_kaldi import is_kaldi_dir, read_kaldi
from .importers_l2arctic import read_l2arctic
from .importers_saa import read_saa
from .names import DiskNames
from .tables import header_hint

__all__ = [
    "AUDIO_COLUMNS",
    "CONTENT_COLUMNS",
    "EITHER_FORMATS",
    "FILE_FORMATS",
    "FORMATS",
    "ID_COLUMNS",
    "LABEL_COLUMNS",
    "READERS",
    "SPEAKER_COLUMNS",
    "TEXT_COLUMNS",
    "detect_format",
    "read_audiofolder",
    "read_commonvoice",
    "read_librispeech",
    "read_manifest",
    "rows_to_candidates",
]

FORMATS = (
    "auto",
    "manifest",
    "audiofolder",
    "commonvoice",
    "librispeech",
    "saa",
    "l2arctic",
    "kaldi",
)
#: Formats read from one file (the others from a folder; ``hf`` from either).
FILE_FORMATS = ("manifest",)
EITHER_FORMATS: tuple[str, ...] = ()

AUDIO_COLUMNS = (
    "path",
    "audio",
    "audio_path",
    "file",
    "file_name",
    "filename",
    "wav",
    "audio_file",
    "audio_filepath",
)
TEXT_COLUMNS = (
    "text",
    "transcript",
    "transcription",
    "sentence",
    "reference",
    "normalized_text",
    "ref",
)
SPEAKER_COLUMNS = ("speaker_id", "speaker", "client_id", "spk", "spk_id", "participant")
CONTENT_COLUMNS = ("content_id", "sentence_id", "prompt_id", "text_id")
ID_COLUMNS = ("id", "item_id", "utt_id", "utterance_id", "key")
#: A manifest without transcripts is accepted when it has one of these (classifiers).
LABEL_COLUMNS = ("label", "class", "emotion")


def _pick(columns, wanted: str | None, candidates, what: str, source) -> str | None:
    if wanted:
        if wanted not in columns:
            raise ImportFailed(
                f"{source}: no column {wanted!r} for the {what} (columns: {', '.join(columns)})"
            )
        return wanted
    lower = {c.lower().strip(): c for c in columns}
    for c in candidates:
        if c in lower:
            return lower[c]
    return None


def _clean(v):
    if v is None:
        return None
    if isinstance(v, str):
        v = v.strip()
        return v or None
    return v


def rows_to_candidates(
    header,
    rows,
    source: Path,
    base: Path,
    *,
    audio_col=None,
    text_col=None,
    speaker_col=None,
    content_col=None,
    id_col=None,
    drop: tuple[str, ...] = (),
) -> list[Candidate]:
    """Map table rows to candidates; paths are made relative to the dataset root later."""
    a = _pick(header, audio_col, AUDIO_COLUMNS, "audio path", source)
    if a is None:
        raise ImportFailed(
            f"{source}: no audio-path column found (looked for "
            f"{', '.join(AUDIO_COLUMNS)}); name it with --audio-col" + header_hint(header)
        )
    t = _pick(header, text_col, TEXT_COLUMNS, "transcript", source)
    label_only = t is None and any(h.lower() in LABEL_COLUMNS for h in header)
    if t is None and not label_only:
        raise ImportFailed(
            f"{source}: no transcript column found (looked for "
            f"{', '.join(TEXT_COLUMNS)}); name it with --text-col (a "
            "classification dataset needs a 'label' column instead)"
        )
    s = _pick(header, speaker_col, SPEAKER_COLUMNS, "speaker id", source)
    c = _pick(header, content_col, CONTENT_COLUMNS, "content id", source)
    k = _pick(header, id_col, ID_COLUMNS, "item id", source)
    used = {a, t, s, c, k} | set(drop)
    names = DiskNames()  # the listed file found under NFC/NFD, trimmed or not, "\\" or "/"
    out = []
    for i, row in rows:
        p = row.get(a)
        meta = {}
        for col, v in row.items():
            if col in used:
                continue
            v = _clean(v)
            if v is not None:
                meta[str(col)] = v if isinstance(v, (str, int, float, bool)) else v
        path = names.locate(base, str(p)) if p is not None and str(p).strip() else ""
        out.append(
            Candidate(
                row=i,
                source=str(source),
                key=None if k is None else _str(row.get(k)),
                path=path,
                text=""
                if label_only
                else (
                    row.get(t)
                    if isinstance(row.get(t), str) or row.get(t) is None
                    else str(row.get(t))
                ),
                needs_text=not label_only,
                speaker_id=None if s is None else _str(row.get(s)),
                content_id=None if c is None else _str(row.get(c)),
                metadata=meta,
            )
        )
    return out


def _str(v) -> str | None:
    v = _clean(v)
    return None if v is None else str(v)


# -- readers --------------------------------------------------------------------------
def read_manifest(path: Path, **cols) -> tuple[Path, list[Candidate], list[Problem]]:
    path = Path(path)
    header, rows, problems = read_table(path)
    return path.parent, rows_to_candidates(header, rows, path, path.parent, **cols), problems


def read_audiofolder(root: Path, **cols) -> tuple[Path, list[Candidate], list[Problem]]:
    root = Path(root)
    metas = sorted(list(root.rglob("metadata.csv")) + list(root.rglob("metadata.jsonl")))
    if not metas:
        raise ImportFailed(f"{root}: no metadata.csv or metadata.jsonl (audiofolder layout)")
    cands, problems = [], []
    for m in metas:
        header, rows, probs = read_table(m)
        cols.setdefault("audio_col", "file_name" if "file_name" in header else None)
        c = rows_to_candidates(header, rows, m, m.parent, **cols)
        split = m.parent.relative_to(root).as_posix()
        for cand in c:
            if split != ".":
                cand.metadata.setdefault("split", split)
        cands += c
        problems += probs
    return root, cands, problems


def read_commonvoice(root: Path, split: str | None = None, **cols):
    root = Path(root)
    if split:
        tsvs = [root / (split if split.endswith(".tsv") else f"{split}.tsv")]
        if not tsvs[0].exists():
            raise ImportFailed(
                f"{tsvs[0]}: not found; Common Voice splits here: "
                f"{', '.join(p.name for p in sorted(root.glob('*.tsv')))}"
            )
    elif (root / "validated.tsv").exists():
        tsvs = [root / "validated.tsv"]
    else:
        tsvs = [root / f"{s}.tsv" for s in ("train", "dev", "test") if (root / f"{s}.tsv").exists()]
    if not tsvs:
        raise ImportFailed(
            f"{root}: no validated.tsv, train.tsv, dev.tsv or test.tsv (Common Voice layout)"
        )
    clips = root / "clips"
    cands, problems = [], []
    for tsv in tsvs:
        # Common Voice TSVs are unquoted: a " inside a sentence is text.
        header, rows, probs = read_table(tsv, quoting="none")
        c = rows_to_candidates(
            header,
            rows,
            tsv,
            clips,
            audio_col="path",
            text_col="sentence",
            speaker_col="client_id",
            content_col="sentence_id" if "sentence_id" in header else None,
            drop=("up_votes", "down_votes", "segment"),
        )
        for cand in c:
            cand.key = Path(cand.path).stem
            if "accent" in cand.metadata and "accents" not in cand.metadata:
                cand.metadata["accents"] = cand.metadata.pop("accent")
        cands += c
        problems += probs
    return root, cands, problems


def read_librispeech(root: Path, **_):
    root = Path(root)
    trans = sorted(root.rglob("*.trans.txt"))
    if not trans:
        raise ImportFailed(f"{root}: no *.trans.txt files (LibriSpeech layout)")
    speakers: dict[str, dict] = {}
    problems: list[Problem] = []
    for sp in (root / "SPEAKERS.TXT", root.parent / "SPEAKERS.TXT"):
        if sp.exists():
            for i, line in enumerate(read_text(sp).splitlines(), start=1):
                if not line.strip() or line.lstrip().startswith(";"):
                    continue
                parts = [x.strip() for x in line.split("|")]
                if len(parts) < 3:
                    problems.append(
                        Problem(
                            i,
                            None,
                            "SPEAKERS.TXT line is not 'ID | SEX | SUBSET | MINUTES | NAME'",
                            str(sp),
                        )
                    )
                    continue
                sex = {"F": "female", "M": "male"}.get(parts[1].upper(), parts[1])
                speakers[parts[0]] = {"gender": sex, "subset": parts[2]}
            break
    cands = []
    for tf in trans:
        for i, line in enumerate(read_text(tf).splitlines(), start=1):
            if not line.strip():
                continue
            utt, _, text = line.strip().partition(" ")
            spk = utt.split("-")[0]
            flac = tf.parent / f"{utt}.flac"
            cands.append(
                Candidate(
                    row=i,
                    source=str(tf),
                    key=utt,
                    path=str(flac),
                    text=text,
                    speaker_id=spk,
                    metadata=dict(speakers.get(spk, {})),
                )
            )
    return root, cands, problems


def detect_format(path: Path) -> str:
    """Guess the format of a file or folder (see :data:`FORMATS`).

    The specific layouts are sniffed first (a Kaldi ``wav.scp``, Common Voice, LibriSpeech,
    the Speech Accent Archive, L2-ARCTIC), then the generic ones: audiofolder's
    ``metadata.csv`` and a folder's ``manifest.*``; any other file is a manifest.
    """
    path = Path(path)
    if path.is_file():
        return "manifest"
    if not path.is_dir():
        raise ImportFailed(f"{path}: no such file or folder")
    if is_kaldi_dir(path):
        return "kaldi"
    if (path / "clips").is_dir() and any(path.glob("*.tsv")):
        return "commonvoice"
    if next(path.rglob("*.trans.txt"), None) is not None:
        return "librispeech"
    if (path / "speakers_all.csv").exists():
        return "saa"
    if any(
        (d / "wav").is_dir() and (d / "transcript").is_dir() for d in path.iterdir() if d.is_dir()
    ):
        return "l2arctic"
    if (
        (path / "metadata.csv").exists()
        or (path / "metadata.jsonl").exists()
        or any(path.glob("*/metadata.csv"))
    ):
        return "audiofolder"
    for name in ("manifest.csv", "manifest.tsv", "manifest.jsonl"):
        if (path / name).exists():
            return "manifest"
    named = [f for f in FORMATS if f != "auto"]
    raise ImportFailed(
        f"{path}: cannot tell the dataset format; pass --format "
        f"({', '.join(named[:-1])} or {named[-1]})"
    )


READERS: dict[str, Callable] = {
    "manifest": read_manifest,
    "audiofolder": read_audiofolder,
    "commonvoice": read_commonvoice,
    "librispeech": read_librispeech,
    "saa": read_saa,
    "l2arctic": read_l2arctic,
    "kaldi": read_kaldi,
}
