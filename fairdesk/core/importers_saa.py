"""Speech Accent Archive reader (``fairdesk import --format saa DIR``).

The layout users download (Weinberger, George Mason University; the Kaggle copy):
``speakers_all.csv`` with the columns ``age, age_onset, birthplace, filename,
native_language, sex, speakerid, country, file_missing?`` (and, in the Kaggle copy, three
unnamed empty columns), and one MP3 per speaker named ``<filename>.mp3`` in ``DIR``,
``DIR/recordings/`` or ``DIR/recordings/recordings/``. Every speaker reads the same
elicitation paragraph (:data:`STELLA`), so the content is shared and the design matched.

A row marked ``file_missing? = True`` has no recording: it is a problem naming its line, as
is a row without ``filename`` or whose MP3 is not there.
"""

from __future__ import annotations

from pathlib import Path

from .errors import ImportFailed
from .import_rows import Candidate, Problem, read_table

#: The archive's public elicitation paragraph, read by every speaker.
STELLA = (
    "Please call Stella. Ask her to bring these things with her from the store: "
    "Six spoons of fresh snow peas, five thick slabs of blue cheese, and maybe a snack "
    "for her brother Bob. We also need a small plastic snake and a big toy frog for the "
    "kids. She can scoop these things into three red bags, and we will go meet her "
    "Wednesday at the train station."
)
#: The content_id of :data:`STELLA`.
CONTENT_ID = "saa:please-call-stella"
META_COLUMNS = ("age", "age_onset", "birthplace", "native_language", "sex", "country")
TRUE = {"true", "1", "yes", "t", "y"}


def _value(col: str, v):
    """Ages as numbers (covariates), everything else as stripped text."""
    v = str(v).strip()
    if col in ("age", "age_onset"):
        try:
            f = float(v)
            return int(f) if f.is_integer() else f
        except ValueError:
            return v
    return v


def _folders(root: Path) -> list[Path]:
    return [
        d for d in (root, root / "recordings", root / "recordings" / "recordings") if d.is_dir()
    ]


def read_saa(root: Path, **_):
    """Candidates of a Speech Accent Archive folder (see the module docstring)."""
    root = Path(root)
    csv = root / "speakers_all.csv"
    if not csv.exists():
        raise ImportFailed(
            f"{root}: no speakers_all.csv (Speech Accent Archive layout: "
            "speakers_all.csv and the MP3s, in the folder or in recordings/)"
        )
    header, rows, problems = read_table(csv, name_blank=True)
    missing = [c for c in ("filename", "native_language") if c not in header]
    if missing:
        raise ImportFailed(
            f"{csv}: no column {', '.join(missing)} (columns: {', '.join(h for h in header if h)})"
        )
    folders = _folders(root)
    src = str(csv)
    cands = []
    for line, row in rows:
        name = str(row.get("filename") or "").strip()
        if not name:
            problems.append(Problem(line, None, "no filename in this row", src))
            continue
        flag = str(row.get("file_missing?") or "").strip().lower()
        if flag in TRUE:
            problems.append(
                Problem(
                    line,
                    f"{name}.mp3",
                    "the archive marks this speaker's "
                    "recording as missing (file_missing? = True); nothing to "
                    "import",
                    src,
                )
            )
            continue
        fname = name if name.lower().endswith(".mp3") else f"{name}.mp3"
        path = next((d / fname for d in folders if (d / fname).exists()), None)
        if path is None:
            problems.append(
                Problem(
                    line,
                    fname,
                    f"no {fname} in {root} or its recordings/ "
                    "folder; put the MP3 there or remove the row",
                    src,
                )
            )
            continue
        meta = {
            c: _value(c, row[c])
            for c in META_COLUMNS
            if row.get(c) is not None and str(row[c]).strip()
        }
        spk = row.get("speakerid")
        cands.append(
            Candidate(
                row=line,
                source=src,
                key=Path(fname).stem,
                path=str(path),
                text=STELLA,
                content_id=CONTENT_ID,
                speaker_id=str(spk).strip() if spk not in (None, "") else Path(fname).stem,
                metadata=meta,
            )
        )
    return root, cands, problems
