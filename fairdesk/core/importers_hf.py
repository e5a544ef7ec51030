"""Hugging Face datasets with embedded audio (``fairdesk import --format hf PATH``).

What it reads
-------------
* a Parquet file, or a folder of them (a Hub snapshot: ``data/train-00000-of-00002.parquet``),
  whose audio column is the ``datasets.Audio`` struct ``{bytes, path}``;
* a folder written by ``datasets.save_to_disk``: Arrow IPC stream files listed by
  ``state.json`` (``_data_files``) beside ``dataset_info.json``, or a ``DatasetDict``
  (``dataset_dict.json`` naming one such folder per split).

Files are read a record batch at a time (never the whole table). The audio column is
``--audio-col`` or the first struct column with a ``bytes`` field (``audio`` first); the
text, speaker, content and id columns are ``--text-col`` ... or detected by name as for a
manifest; every other scalar column is metadata, and ``split`` is added from the file name
(``train-00000-of-00002``), ``state.json``'s ``_split`` or the split folder.

Where the audio lives
---------------------
``items.path`` names a file, so the bytes are extracted once into the project folder:
``<project>/media/hf-<digest of the dataset name>/<SHA-256 of the bytes, 24 hex>.<ext>``
(the extension from the bytes' signature, else from the struct's ``path``). That folder is
the dataset's root. A file already there is not written again (same name, same bytes), so a
re-import writes only what changed: changed bytes get a new name and the item is updated
(its path and audio hash change); an unchanged row is unchanged. Files are written
atomically before the import's transaction; a refused import leaves only these content-
addressed files, which the next import reuses. The item id is the id column, else the
struct's ``path`` (with the split in front when there is one), else ``<file stem>:<row>``.
A row whose struct holds no bytes but a path (``{'bytes': None, 'path': 'clips/x.wav'}``:
what ``cast_column("audio", Audio(decode=False))`` over a column of paths writes, and what
``to_parquet`` / ``save_to_disk`` keep) reads that file where it lies: an absolute path as
written, a relative one from the table's folder, else from the first of its parent folders
where the table's first relative path exists (tables are written from the folder that holds
their ``clips/``). Such files are not copied; a table mixing both kinds has its root at the
deepest folder holding the media folder and the listed files. A row with neither is
refused naming its line.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from .atomic import write_bytes
from .errors import ImportFailed
from .extras import require
from .import_rows import ID_COLUMNS, Problem, rows_to_candidates
from .names import DiskNames
from .pipes import covering_root

BATCH_ROWS = 64
_SIGNATURES = (
    (b"RIFF", ".wav"),
    (b"fLaC", ".flac"),
    (b"OggS", ".ogg"),
    (b"ID3", ".mp3"),
    (b"NIST_1A", ".sph"),
)
_PARQUET = (".parquet", ".pq")


def media_folder(project_folder, name: str) -> Path:
    """The folder that holds a dataset's extracted audio (module docstring)."""
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:12]
    return Path(project_folder) / "media" / f"hf-{digest}"


def _audio_fields(schema) -> list[str]:
    import pyarrow as pa

    out = [
        f.name
        for f in schema
        if pa.types.is_struct(f.type) and {"bytes", "path"} <= {c.name for c in f.type}
    ]
    return sorted(out, key=lambda n: n != "audio")


def _parquet_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.suffix.lower() in _PARQUET and p.is_file())


def _disk_files(path: Path) -> list[tuple[Path, str | None]]:
    """``(arrow file, split)`` of a ``save_to_disk`` folder; [] when it is not one."""
    if (path / "dataset_dict.json").is_file():
        try:
            splits = json.loads((path / "dataset_dict.json").read_text("utf-8"))["splits"]
        except (ValueError, KeyError, TypeError, OSError) as exc:
            raise ImportFailed(
                f"{path / 'dataset_dict.json'}: not a datasets DatasetDict file ({exc})"
            ) from None
        return [(f, str(s)) for s in splits for f, _s in _disk_files(path / str(s))]
    state = path / "state.json"
    if not state.is_file():
        return []
    try:
        st = json.loads(state.read_text("utf-8"))
        files = [path / d["filename"] for d in st["_data_files"]]
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise ImportFailed(f"{state}: not a datasets state.json ({exc})") from None
    split = st.get("_split") or None
    return [(f, str(split) if split else None) for f in files]


def is_hf_source(path: Path) -> bool:
    """A Parquet file (or folder of them) with an audio struct column, or a save_to_disk
    folder. Without pyarrow nothing is one (the manifest reader then names the extra)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return False
    if path.is_dir() and (
        (path / "dataset_dict.json").is_file()
        or ((path / "state.json").is_file() and any(path.glob("*.arrow")))
    ):
        return True
    files = _parquet_files(path)[:1] if path.is_dir() or path.suffix.lower() in _PARQUET else []
    try:
        return bool(files) and bool(_audio_fields(pq.read_schema(files[0])))
    except Exception:  # noqa: BLE001 - an unreadable file is not this format
        return False


def _batches(path: Path, arrow: bool):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if arrow:
            reader = pa.ipc.open_stream(pa.memory_map(str(path)))
            schema = reader.schema
            batches = iter(reader)
        else:
            pf = pq.ParquetFile(path)
            schema = pf.schema_arrow
            batches = pf.iter_batches(batch_size=BATCH_ROWS)
    except (pa.ArrowInvalid, OSError) as exc:
        kind = "Arrow stream (save_to_disk)" if arrow else "Parquet"
        raise ImportFailed(f"{path}: not a readable {kind} file ({exc})") from None
    return schema, batches


def _extension(data: bytes, name: str | None) -> str:
    for sig, ext in _SIGNATURES:
        if data.startswith(sig):
            return ext
    if data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return ".mp3"
    suffix = Path(name or "").suffix.lower()
    return suffix if re.fullmatch(r"\.[a-z0-9]{1,5}", suffix) else ".bin"


def _extract(media: Path, data: bytes, name: str | None) -> Path:
    target = media / f"{hashlib.sha256(data).hexdigest()[:24]}{_extension(data, name)}"
    if not target.exists():
        write_bytes(target, data, make_parents=True)
    return target


def _scalar(v) -> bool:
    return not isinstance(v, (bytes, bytearray, memoryview))


def _split_of(path: Path) -> str | None:
    m = re.match(r"^([A-Za-z][\w.]*?)-\d{5}-of-\d{5}$", path.stem)
    return m.group(1) if m else None


def read_hf(path: Path, media_dir=None, audio_col=None, **cols):
    """Candidates of a Hugging Face Parquet or save_to_disk source (module docstring);
    the embedded audio is extracted into ``media_dir``."""
    require("parquet", f"reading {Path(path).name}", ("pyarrow",))
    path = Path(path)
    if media_dir is None:
        raise ImportFailed(
            "the hf format extracts audio into the project: import it through a project"
        )
    media = Path(media_dir)
    disk = _disk_files(path) if path.is_dir() else []
    sources = [(f, s, True) for f, s in disk] or [
        (f, _split_of(f), False) for f in _parquet_files(path)
    ]
    if not sources:
        raise ImportFailed(
            f"{path}: no Parquet file and no save_to_disk folder (state.json with Arrow files, "
            "or dataset_dict.json)"
        )
    cands, problems = [], []
    bases: list[Path] = []
    for src, split, arrow in sources:
        if not src.is_file():
            raise ImportFailed(f"{src}: listed by the dataset's state.json but not there")
        schema, batches = _batches(src, arrow)
        fields = _audio_fields(schema)
        audio = audio_col or (fields[0] if fields else None)
        if audio is None or audio not in fields:
            names = ", ".join(schema.names)
            raise ImportFailed(
                f"{src}: "
                + (
                    f"column {audio!r} is not an audio struct {{bytes, path}}"
                    if audio
                    else "no audio column (a struct with bytes and path)"
                )
                + f" (columns: {names}); name it with --audio-col, or import a table of paths "
                "with --format manifest"
            )
        header = [n for n in schema.names]
        rows, refs = [], {}
        listed: list[tuple[int, dict]] = []  # rows whose struct names a file (no bytes)
        n = 0
        for batch in batches:
            for rec in batch.to_pylist():
                n += 1
                a = rec.get(audio)
                data, name = (a.get("bytes"), a.get("path")) if a else (None, None)
                rec = {k: v for k, v in rec.items() if k == audio or _scalar(v)}
                refs[n] = name
                if data:
                    rec[audio] = str(_extract(media, bytes(data), name))
                    rows.append((n, rec))
                elif isinstance(name, str) and name.strip():
                    rec[audio] = name
                    listed.append((n, rec))
                else:
                    problems.append(
                        Problem(
                            n,
                            None,
                            "the audio is missing in this row: "
                            + (
                                f"the audio column {audio!r} is null"
                                if a is None
                                else f"the audio column {audio!r} holds neither bytes nor a path"
                            )
                            + "; give the row its audio or remove it",
                            str(src),
                        )
                    )
        if listed:
            folder = _listed_base(src.parent, [r[audio] for _n, r in listed])
            bases.append(folder)
            disk_names = DiskNames()
            for _n, r in listed:
                r[audio] = disk_names.locate(folder, r[audio])
            rows = sorted(rows + listed, key=lambda nr: nr[0])
        got = rows_to_candidates(header, rows, src, media, audio_col=audio, **cols)
        has_id = cols.get("id_col") or any(h.lower() in ID_COLUMNS for h in header)
        for c in got:
            if split:
                c.metadata.setdefault("split", split)
            if c.key is None and not has_id:
                ref = refs.get(c.row)
                c.key = (f"{split}/{ref}" if split else ref) if ref else f"{src.stem}:{c.row}"
        cands += got
    if not bases:
        return media, cands, problems
    base = Path(os.path.commonpath([str(b.resolve()) for b in bases]))
    return covering_root(base, media, [c.path for c in cands]), cands, problems


def _listed_base(folder: Path, paths: list[str]) -> Path:
    """The folder a table's relative paths are read from: ``folder`` (the table's), else the
    first of its parents where the first relative path exists; ``folder`` when none does
    (the import then reports the files not found)."""
    first = next((p for p in paths if not os.path.isabs(p)), None)
    if first is None:
        return folder
    names = DiskNames()
    for f in (folder, *folder.resolve().parents):
        if os.path.lexists(names.locate(f, first)):
            return f
    return folder
