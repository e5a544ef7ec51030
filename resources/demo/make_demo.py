"""Regenerate the fairdesk demo corpus (``resources/demo/demo_corpus.zip``).

Every prompt of ``prompts.jsonl`` is synthesised with espeak-ng for every speaker
(matched design): 6 English accent voices x 10 speakers (5 female, 5 male voice
variants, each with its own pitch and rate). Audio is resampled to 16 kHz mono with
soxr, encoded as OGG/Opus and packed, with a ``metadata.csv``, into one zip file.

The output is deterministic: fixed parameter lists, no randomness, a fixed Ogg
stream serial number and fixed zip timestamps, so a rerun with the same espeak-ng
and libsndfile versions reproduces the zip byte for byte.

Usage (from the repository root)::

    .venv/bin/python resources/demo/make_demo.py [--out PATH] [--jobs 2]

Needs ``espeak-ng`` on PATH (only to regenerate; the zip is committed).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import struct
import subprocess
import sys
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

HERE = Path(__file__).resolve().parent
PROMPTS_PATH = HERE / "prompts.jsonl"
DEFAULT_OUT = HERE / "demo_corpus.zip"

SAMPLE_RATE = 16000
# libsndfile Opus: compression_level 0 = highest bitrate, 1 = lowest.
# 0.98 gives roughly 14 kbit/s, which keeps speech clear at 16 kHz.
OPUS_COMPRESSION_LEVEL = 0.98
OGG_SERIAL = 0x0FA1DE5C  # fixed Ogg stream serial number, for reproducible bytes
ZIP_DATE = (2024, 1, 1, 0, 0, 0)

# espeak-ng language voices (``espeak-ng --voices=en``), one per accent.
ACCENTS = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-us-nyc"]

# Speaker slots shared by every accent: (slot id, espeak variant, gender, pitch -p, rate -s).
# The variant files in espeak-ng-data/voices/!v declare f1..f5 female and m1..m7 male.
# The same slot has the same variant/pitch/rate in every accent, so accents differ only
# in the accent voice itself.
SPEAKER_SLOTS = [
    ("f1", "f1", "female", 40, 150),
    ("f2", "f2", "female", 50, 165),
    ("f3", "f3", "female", 60, 180),
    ("f4", "f4", "female", 45, 140),
    ("f5", "f5", "female", 55, 170),
    ("m1", "m1", "male", 35, 155),
    ("m2", "m2", "male", 45, 170),
    ("m3", "m3", "male", 55, 145),
    ("m6", "m6", "male", 40, 185),
    ("m7", "m7", "male", 50, 160),
]
AGE_BANDS = ["18-29", "30-49", "50+"]

METADATA_COLUMNS = [
    "file_name",
    "text",
    "speaker_id",
    "content_id",
    "accent",
    "gender",
    "age_band",
    "voice",
    "pitch",
    "rate",
    "intent",
    "slots",
]


def load_prompts(path: Path = PROMPTS_PATH) -> list[dict]:
    """Read the prompt list (one JSON object per line).

    Parameters
    ----------
    path : Path
        The ``prompts.jsonl`` file.

    Returns
    -------
    list of dict
        Objects with ``content_id``, ``text``, ``intent`` and ``slots``.
    """
    prompts = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        item = json.loads(line)
        for value in item["slots"].values():
            if f" {value} " not in f" {item['text']} ":
                raise ValueError(
                    f"{path}:{n}: slot value {value!r} does not appear verbatim in the "
                    f"text {item['text']!r}; fix the prompt or the slot."
                )
        prompts.append(item)
    ids = [p["content_id"] for p in prompts]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: duplicate content_id values; make them unique.")
    return prompts


def speakers() -> list[dict]:
    """List every speaker of the design (accent x slot) with its parameters.

    Returns
    -------
    list of dict
        ``speaker_id``, ``accent``, ``gender``, ``age_band``, ``voice``, ``pitch``,
        ``rate``. The age band is made up but fixed: it rotates over the slots with an
        accent-dependent offset, so every accent has all three bands.
    """
    out = []
    for a, accent in enumerate(ACCENTS):
        for s, (slot, variant, gender, pitch, rate) in enumerate(SPEAKER_SLOTS):
            out.append(
                {
                    "speaker_id": f"{accent}_{slot}",
                    "accent": accent,
                    "gender": gender,
                    "age_band": AGE_BANDS[(s + a) % len(AGE_BANDS)],
                    "voice": f"{accent}+{variant}",
                    "pitch": pitch,
                    "rate": rate,
                }
            )
    return out


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        crc = i << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else (crc << 1)
        table.append(crc & 0xFFFFFFFF)
    return table


_CRC_TABLE = _crc_table()


def _ogg_crc(data: bytes) -> int:
    crc = 0
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ table[(crc >> 24) ^ byte]
    return crc


def fix_ogg_serial(data: bytes, serial: int = OGG_SERIAL) -> bytes:
    """Rewrite the stream serial number of every Ogg page and recompute its CRC.

    libsndfile picks a random serial per file; fixing it makes the output reproducible.
    """
    out = bytearray()
    pos = 0
    while pos < len(data):
        if data[pos : pos + 4] != b"OggS":
            raise ValueError(f"not an Ogg page at byte {pos}; the encoder output is corrupt.")
        n_seg = data[pos + 26]
        body = sum(data[pos + 27 : pos + 27 + n_seg])
        end = pos + 27 + n_seg + body
        page = bytearray(data[pos:end])
        page[14:18] = struct.pack("<I", serial)
        page[22:26] = b"\0\0\0\0"
        page[22:26] = struct.pack("<I", _ogg_crc(bytes(page)))
        out += page
        pos = end
    return bytes(out)


def synthesise(text: str, voice: str, pitch: int, rate: int) -> np.ndarray:
    """Run espeak-ng and return 16 kHz mono float32 audio.

    Parameters
    ----------
    text : str
        What to say.
    voice : str
        espeak-ng voice with variant, e.g. ``en-gb-scotland+f3``.
    pitch, rate : int
        espeak-ng ``-p`` (0-99) and ``-s`` (words per minute).
    """
    proc = subprocess.run(
        ["espeak-ng", "-v", voice, "-p", str(pitch), "-s", str(rate), "--stdout", text],
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0 or not proc.stdout:
        raise RuntimeError(
            f"espeak-ng failed for voice {voice!r}: {proc.stderr.decode(errors='replace')}"
        )
    audio, sr = sf.read(io.BytesIO(proc.stdout), dtype="float32")
    if audio.ndim > 1:
        audio = audio.mean(axis=1)
    if sr != SAMPLE_RATE:
        audio = soxr.resample(audio, sr, SAMPLE_RATE).astype(np.float32)
    return np.clip(audio, -1.0, 1.0)


def encode_opus(audio: np.ndarray) -> bytes:
    """Encode 16 kHz mono audio as OGG/Opus bytes with a fixed stream serial."""
    buf = io.BytesIO()
    sf.write(
        buf,
        audio,
        SAMPLE_RATE,
        format="OGG",
        subtype="OPUS",
        compression_level=OPUS_COMPRESSION_LEVEL,
    )
    return fix_ogg_serial(buf.getvalue())


def _render_speaker(args: tuple[dict, list[dict]]) -> list[tuple[str, bytes, float]]:
    speaker, prompts = args
    out = []
    for prompt in prompts:
        audio = synthesise(prompt["text"], speaker["voice"], speaker["pitch"], speaker["rate"])
        out.append((prompt["content_id"], encode_opus(audio), len(audio) / SAMPLE_RATE))
    return out


def _zip_info(name: str, compress: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = compress
    info.external_attr = 0o644 << 16
    return info


def build(out: Path = DEFAULT_OUT, jobs: int = 2) -> dict:
    """Synthesise the whole corpus and write the zip.

    Parameters
    ----------
    out : Path
        Destination zip file.
    jobs : int
        Worker processes for synthesis.

    Returns
    -------
    dict
        Counts, total duration (s) and zip size (bytes).
    """
    if shutil.which("espeak-ng") is None:
        raise RuntimeError(
            "espeak-ng is not on PATH; install it (apt-get install espeak-ng) to "
            "regenerate the demo corpus. The committed zip does not need it."
        )
    prompts = load_prompts()
    spk = speakers()
    print(
        f"{len(prompts)} prompts x {len(spk)} speakers ({len(ACCENTS)} accents) "
        f"= {len(prompts) * len(spk)} utterances; {jobs} worker(s)"
    )
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        rendered = list(pool.map(_render_speaker, [(s, prompts) for s in spk]))
    by_id = {p["content_id"]: p for p in prompts}

    rows = []
    durations = []
    tmp = out.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for speaker, items in zip(spk, rendered, strict=True):
            sid = speaker["speaker_id"]
            for content_id, data, duration in items:
                name = f"audio/{sid}/{sid}_{content_id}.ogg"
                zf.writestr(_zip_info(name, zipfile.ZIP_STORED), data)
                prompt = by_id[content_id]
                durations.append(duration)
                rows.append(
                    {
                        "file_name": name,
                        "text": prompt["text"],
                        "speaker_id": sid,
                        "content_id": content_id,
                        "accent": speaker["accent"],
                        "gender": speaker["gender"],
                        "age_band": speaker["age_band"],
                        "voice": speaker["voice"],
                        "pitch": speaker["pitch"],
                        "rate": speaker["rate"],
                        "intent": prompt["intent"],
                        "slots": json.dumps(prompt["slots"], sort_keys=True),
                    }
                )
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=METADATA_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        zf.writestr(_zip_info("metadata.csv", zipfile.ZIP_DEFLATED), text.getvalue())
    tmp.replace(out)

    d = np.asarray(durations)
    report = {
        "prompts": len(prompts),
        "speakers": len(spk),
        "accents": len(ACCENTS),
        "utterances": len(rows),
        "total_seconds": float(d.sum()),
        "min_seconds": float(d.min()),
        "max_seconds": float(d.max()),
        "zip_bytes": out.stat().st_size,
    }
    print(f"wrote {out} in {time.perf_counter() - start:.1f} s")
    print(
        f"  utterances: {report['utterances']}, total audio {d.sum() / 60:.1f} min, "
        f"durations {d.min():.2f}-{d.max():.2f} s (mean {d.mean():.2f} s)"
    )
    print(f"  zip size: {report['zip_bytes'] / 1e6:.2f} MB")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output zip path")
    parser.add_argument("--jobs", type=int, default=2, help="synthesis worker processes")
    args = parser.parse_args(argv)
    build(args.out, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
