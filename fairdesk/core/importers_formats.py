"""The dataset formats: manifest, audiofolder, Common Voice and LibriSpeech readers (SAA and
L2-ARCTIC have their own modules), :func:`detect_format` and the :data:`READERS` table.

Each reader turns a source into candidate rows plus the problems it found while parsing;
:func:`fairdesk.core.importers.import_dataset` validates and writes them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .audio_paths import choose_root
from .errors import ImportFailed
from .import_rows import (
    AUDIO_COLUMNS,
    CONTENT_COLUMNS,
    ID_COLUMNS,
    LABEL_COLUMNS,
    SPEAKER_COLUMNS,
    TEXT_COLUMNS,
    Candidate,
    Problem,
    listed_paths,
    read_table,
    read_text,
    rows_to_candidates,
)
from .importers_chat import is_chat_source, read_chat
from .importers_hf import is_hf_source, read_hf
from .importers_kaldi import is_kaldi_dir, read_kaldi
from .importers_l2arctic import read_l2arctic
from .importers_nemo_lhotse import (
    is_cutset,
    is_lhotse_dir,
    is_nemo_manifest,
    read_lhotse,
    read_nemo,
)
from .importers_saa import read_saa
from .importers_sessions import is_session_dir, read_eaf, read_textgrid
from .importers_vctk_timit import is_timit_dir, is_vctk_dir, read_timit, read_vctk
from .labels import normalise_metadata

__all__ = [
    "AUDIO_COLUMNS",
    "CONTENT_COLUMNS",
    "EITHER_FORMATS",
    "OPTIONS",
    "FILE_FORMATS",
    "FORMATS",
    "ID_COLUMNS",
    "LABEL_COLUMNS",
    "MEDIA_FORMATS",
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
    "nemo",
    "lhotse",
    "vctk",
    "timit",
    "hf",
    "eaf",
    "textgrid",
    "chat",
)
#: Formats whose audio may be written into the project's media folder (``media_dir``):
#: Hugging Face bytes, Kaldi archive entries and channels, Lhotse archives and channels.
MEDIA_FORMATS = ("hf", "kaldi", "lhotse")
#: Formats read from one file (the others from a folder, or from either).
FILE_FORMATS = ("manifest", "nemo")
EITHER_FORMATS: tuple[str, ...] = ("lhotse", "hf", "eaf", "textgrid", "chat")


# -- readers --------------------------------------------------------------------------
def read_manifest(
    path: Path, audio_root=None, **cols
) -> tuple[Path, list[Candidate], list[Problem]]:
    """A CSV/TSV/JSONL manifest: relative paths are read from ``audio_root``, else the
    manifest's folder or the parent folder where they resolve (:func:`choose_root`)."""
    path = Path(path)
    header, rows, problems = read_table(path)
    listed = listed_paths(header, rows, path, cols.get("audio_col"))
    base = choose_root(listed, path.parent, audio_root)
    return base, rows_to_candidates(header, rows, path, base, **cols), problems


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
                speakers[parts[0]] = {"gender": parts[1], "subset": parts[2]}
            break
    listed = next(
        (sp for sp in (root / "SPEAKERS.TXT", root.parent / "SPEAKERS.TXT") if sp.exists()), None
    )
    unlisted: set[str] = set()
    cands = []
    for tf in trans:
        for i, line in enumerate(read_text(tf).splitlines(), start=1):
            if not line.strip():
                continue
            utt, _sep, text = line.strip().partition(" ")
            spk = utt.split("-")[0]
            flac = tf.parent / f"{utt}.flac"
            if listed is not None and spk not in speakers and spk not in unlisted:
                unlisted.add(spk)
                problems.append(
                    Problem(
                        None,
                        str(tf.parent.parent),
                        f"speaker {spk} is not in SPEAKERS.TXT: imported without gender and "
                        f"subset; add a line '{spk} | F or M | subset | minutes | name' to it",
                        str(listed),
                    )
                )
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

    The specific layouts are sniffed first (a Kaldi ``wav.scp``, Lhotse recordings and
    supervisions, VCTK's ``speaker-info.txt``, TIMIT's ``TRAIN/DR1``, Common Voice,
    LibriSpeech, the Speech Accent Archive, L2-ARCTIC, a Hugging Face ``save_to_disk`` folder
    or Parquet with an audio struct, session audio with a same-named ELAN ``.eaf`` or Praat
    ``.TextGrid`` beside it; a folder of Lhotse ``*cuts*`` CutSets), then the generic ones:
    audiofolder's ``metadata.csv``
    and a folder's ``manifest.*``. A file is Hugging Face Parquet when it has an audio struct
    column, an ``.eaf`` / ``.TextGrid`` file is ELAN / Praat, a JSONL file whose first record
    is a Lhotse cut is a CutSet (``lhotse``), a NeMo manifest when its first record has ``audio_filepath`` and ``duration``,
    else a manifest.
    """
    path = Path(path)
    if path.is_file():
        if path.suffix.lower() in (".eaf", ".textgrid"):
            return "eaf" if path.suffix.lower() == ".eaf" else "textgrid"
        if path.suffix.lower() == ".cha":
            return "chat"
        if is_hf_source(path):
            return "hf"
        if is_cutset(path):
            return "lhotse"
        return "nemo" if is_nemo_manifest(path) else "manifest"
    if not path.is_dir():
        raise ImportFailed(f"{path}: no such file or folder")
    if is_kaldi_dir(path):
        return "kaldi"
    if is_lhotse_dir(path):
        return "lhotse"
    if is_vctk_dir(path):
        return "vctk"
    if is_timit_dir(path):
        return "timit"
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
    if is_hf_source(path):
        return "hf"
    session = is_session_dir(path)
    if session is not None:
        return session
    if is_chat_source(path):
        return "chat"
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


_COLUMNS = ("audio_col", "text_col", "speaker_col", "content_col", "id_col")
#: The options each format takes (``import_dataset``'s keyword arguments).
OPTIONS: dict[str, tuple[str, ...]] = {
    "manifest": (*_COLUMNS, "audio_root"),
    "audiofolder": _COLUMNS,
    "commonvoice": ("split",),
    "kaldi": ("kaldi_meta", "audio_root"),
    "nemo": (*_COLUMNS, "audio_root"),
    "lhotse": ("audio_root",),
    "hf": _COLUMNS,
    "eaf": ("tiers", "speaker_tier", "speaker_by"),
    "textgrid": ("tiers", "speaker_tier"),
    "chat": (),
}


def _in_vocabulary(reader: Callable) -> Callable:
    """``reader`` whose candidates' metadata pass through the label vocabulary
    (:func:`fairdesk.core.labels.normalise_metadata`): one place for every format."""

    def read(path, **options):
        root, cands, problems = reader(path, **options)
        for c in cands:
            c.metadata = normalise_metadata(c.metadata)
        return root, cands, problems

    read.__doc__ = reader.__doc__
    read.__name__ = getattr(reader, "__name__", "read")
    return read


_FORMAT_READERS: dict[str, Callable] = {
    "manifest": read_manifest,
    "audiofolder": read_audiofolder,
    "commonvoice": read_commonvoice,
    "librispeech": read_librispeech,
    "saa": read_saa,
    "l2arctic": read_l2arctic,
    "kaldi": read_kaldi,
    "nemo": read_nemo,
    "lhotse": read_lhotse,
    "vctk": read_vctk,
    "timit": read_timit,
    "hf": read_hf,
    "eaf": read_eaf,
    "textgrid": read_textgrid,
    "chat": read_chat,
}
READERS: dict[str, Callable] = {
    name: _in_vocabulary(reader) for name, reader in _FORMAT_READERS.items()
}
