"""Pack the speechocean762 subset into ``l2_english.zip`` (the ``l2-english`` demo dataset).

The source folder holds ``SOURCE.txt`` (attribution and licence), ``metadata.csv``
(``path,text,speaker_id,gender,age,age_group,native_language``) and ``audio/<speaker>/*.opus``.
The zip keeps that layout as is; members are sorted and carry a fixed timestamp, so the
same source gives the same zip byte for byte. Usage::

    .venv/bin/python resources/demo/l2-english/make_zip.py SOURCE_FOLDER [--out PATH]
"""

from __future__ import annotations

import argparse
import csv
import io
import shutil
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "l2_english.zip"
ZIP_DATE = (2024, 1, 1, 0, 0, 0)
COLUMNS = ["path", "text", "speaker_id", "gender", "age", "age_group", "native_language"]


def _info(name: str, compress: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = compress
    info.external_attr = 0o644 << 16
    return info


def build(source: Path, out: Path = DEFAULT_OUT) -> dict:
    """Check the source folder and write the zip; returns counts and the zip size.

    Raises
    ------
    SystemExit
        The metadata does not have the expected columns, or names a missing file.
    """
    source = Path(source)
    meta = (source / "metadata.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(meta)))
    if not rows or list(rows[0]) != COLUMNS:
        raise SystemExit(f"{source / 'metadata.csv'}: expected the columns {COLUMNS}")
    missing = [r["path"] for r in rows if not (source / r["path"]).is_file()]
    if missing:
        raise SystemExit(
            f"{source}: {len(missing)} files in metadata.csv are missing, e.g. {missing[0]}"
        )
    tmp = out.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for name in ("SOURCE.txt", "metadata.csv"):
            zf.writestr(_info(name, zipfile.ZIP_DEFLATED), (source / name).read_bytes())
        for path in sorted(r["path"] for r in rows):  # Opus is already compressed
            zf.writestr(_info(path, zipfile.ZIP_STORED), (source / path).read_bytes())
    tmp.replace(out)
    shutil.copyfile(source / "SOURCE.txt", out.with_name("SOURCE.txt"))
    return {
        "items": len(rows),
        "speakers": len({r["speaker_id"] for r in rows}),
        "zip_bytes": out.stat().st_size,
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="the speechocean762-train subset folder")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    a = ap.parse_args(argv)
    rep = build(a.source, a.out)
    print(
        f"{a.out}: {rep['items']} utterances, {rep['speakers']} speakers, "
        f"{rep['zip_bytes'] / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
